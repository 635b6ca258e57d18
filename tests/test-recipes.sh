#!/bin/sh
# SPDX-License-Identifier: MIT
# test-recipes.sh SRCDIR - HACKING.md's recipes (its "## Adding ..."
# sections) name only what exists: every backticked path must be in the
# tree (KIND and FORMAT stand for any name), and every backticked code name
# must occur in src probes configs docs tests kernel or the meson files. A
# name renamed in the code and not in the recipe fails here, named. Fenced
# code blocks are examples and are not read. Every reproduction has the
# files its recipe names.
src=${1:?usage: test-recipes.sh SRCDIR}
cd "$src" || exit 1
where="src probes configs docs tests kernel meson.build meson_options.txt"
fail=0
paths=0
names=0

# The recipes' lines, fences and their contents left out.
recipes() {
	awk '/^## / { on = /^## Adding/ } /^ *```/ { fence = !fence; next } on && !fence' HACKING.md
}

# A span's text with a placeholder word as a glob or a prefix.
unplace() {
	printf '%s\n' "$1" | sed 's/KIND/*/g; s/FORMAT/*/g'
}

hit() { # grep options and pattern: found in the tree?
	# shellcheck disable=SC2086
	grep -rq --exclude=test-recipes.sh "$@" $where 2>/dev/null
}

stale() {
	echo "FAIL HACKING.md: $1"
	fail=1
}

check_path() {
	p=$(unplace "${1%/}")
	paths=$((paths + 1))
	# shellcheck disable=SC2086
	set -- $p
	[ -e "$1" ] || stale "'$p' does not exist"
}

# One name of a span: a member (.x), a prefix (x*), a placeholder (x_KIND),
# or a code name (with an underscore, or in capitals).
check_name() {
	t=$1
	case $t in
	.*)
		names=$((names + 1))
		hit -E "\\${t}\\b" -- || stale "member '$t' has no hit in $where"
		return ;;
	*\*)
		t=${t%\*} ;;
	*KIND* | *FORMAT*)
		t=$(unplace "$t")
		t=${t%%\**} ;;
	*_* | [A-Z][A-Z0-9][A-Z0-9]*)
		names=$((names + 1))
		hit -w -- "$t" || stale "'$t' has no hit in $where"
		return ;;
	*)
		return ;;
	esac
	[ -n "$t" ] || return
	names=$((names + 1))
	hit -F -- "$t" || stale "no name starting '$t' in $where"
}

check_span() {
	s=$1
	case $s in
	*" "*) ;;
	*/*)
		first=${s%%/*}
		case $s in
		*.*) check_path "$s"; return ;;
		*) if [ -e "$first" ]; then check_path "$s"; return; fi ;;
		esac ;;
	esac
	if printf '%s\n' "$s" | grep -qE '^[A-Za-z0-9_-]+\.[a-z]+$'; then
		# a file at the top, or one the build generates (named in a meson file)
		[ -f "$s" ] && { check_path "$s"; return; }
		names=$((names + 1))
		hit -F -- "$s" || stale "file name '$s' is neither a file here nor named in $where"
		return
	fi
	for t in $(printf '%s\n' "$s" | grep -oE '(^|[ ({[,=])\.[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*\*?' |
		   sed 's/^[ ({[,=]//'); do
		[ "$t" = KIND ] || [ "$t" = FORMAT ] || check_name "$t"
	done
}

nsec=$(grep -c '^## Adding' HACKING.md)
[ "$nsec" -ge 3 ] || stale "$nsec recipes ('## Adding ...'), expected 3 or more"
odd=$(recipes | awk '{ n = gsub(/`/, "`") } n % 2 { print NR ": " $0 }')
[ -z "$odd" ] || stale "a code span split over lines (odd backticks): $odd"

# shellcheck disable=SC2016
spans=$(recipes | grep -o '`[^`]*`' | sed 's/^`//; s/`$//' | sort -u)
IFS='
'
for s in $spans; do
	unset IFS
	check_span "$s"
	IFS='
'
done
unset IFS

# The reproduction recipe read for every reproduction in meson.build's
# `repros`: each file it names with KIND exists, and full.conf, README.md
# and docs/reproductions.md name the reproduction.
kinds=$(sed -n '/^repros = \[/,/\]/p' meson.build | grep -o "'[a-z0-9-]*'" | tr -d "'")
kpaths=$(awk '/^## / { on = ($0 == "## Adding a reproduction") } /^ *```/ { fence = !fence; next }
	      on && !fence' HACKING.md | grep -o '`[^` ]*/[^` ]*KIND[^` ]*`' | tr -d '`' | sort -u)
[ -n "$kinds" ] && [ -n "$kpaths" ] || stale "no reproductions in meson.build, or no KIND files in the recipe"
for k in $kinds; do
	for p in $kpaths; do
		f=$(printf '%s\n' "$p" | sed "s/KIND/$k/g")
		[ -e "$f" ] || stale "reproduction $k: '$f', named by its recipe, does not exist"
	done
	for f in configs/full.conf README.md docs/reproductions.md; do
		grep -q -- "$k" "$f" || stale "reproduction $k: $f does not name it"
	done
done

if [ "$paths" -lt 10 ] || [ "$names" -lt 40 ]; then
	stale "only $paths paths and $names names read: are the recipes still there?"
fi
echo "recipes: $nsec recipes, $paths paths and $names names checked;" \
	"$(echo $kinds | wc -w) reproductions have their $(echo $kpaths | wc -w) files"
exit $fail
