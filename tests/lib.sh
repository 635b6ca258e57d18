# SPDX-License-Identifier: MIT
# lib.sh - helpers shared by the shell tests (sourced). Callers set A (the
# atomcost binary) and T (a scratch directory) and start fails=0 passes=0.
# REFUSE_ONE_MESSAGE=1 also fails a refusal that prints more than one
# message (a usage text after exit 2 is allowed).

ok() { passes=$((passes + 1)); }
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

# refuse CODE REGEX ARGS...: exit CODE, REGEX (grep -E) in stderr, nothing
# on stdout.
refuse() {
	local want=$1 pat=$2 rc
	shift 2
	"$A" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ "$rc" != "$want" ]; then
		bad "atomcost $*: exit $rc, expected $want; stderr: $(head -c 300 "$T/err")"
	elif ! grep -Eq -- "$pat" "$T/err"; then
		bad "atomcost $*: stderr lacks /$pat/: $(head -c 300 "$T/err")"
	elif [ -s "$T/out" ]; then
		bad "atomcost $*: refused but wrote to stdout: $(head -c 200 "$T/out")"
	elif [ "${REFUSE_ONE_MESSAGE:-0}" = 1 ] && [ "$(wc -l <"$T/err")" -gt 3 ] &&
	     [ "$want" != 2 -o "$(grep -c '^usage' "$T/err")" = 0 ]; then
		bad "atomcost $*: more than one message: $(head -c 400 "$T/err")"
	else
		ok
	fi
}
