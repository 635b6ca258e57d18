#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-static.sh BUILD_DIR - static analysis of src/ and probes/ with cppcheck,
# using the compile commands of BUILD_DIR (the real include paths and
# defines). cppcheck does not predefine the compiler's architecture macros,
# so it analyzes the portable C11 backend (src/arch/generic.h), where every
# primitive is C it can follow, rather than opaque inline asm.
# Checks: warning (undefined behaviour, leaks, bad format strings,
# uninitialized reads, out-of-bounds) and portability. Suppressions, each
# with its reason: .cppcheck-suppressions. Clean is the rule: exit 1 on any
# finding, 77 when cppcheck is missing.
set -u
cd "$(dirname "$0")/.."
b=${1:-build}
command -v cppcheck >/dev/null || { echo "SKIP: cppcheck not installed (apt-get install cppcheck)"; exit 77; }
[ -f "$b/compile_commands.json" ] || { echo "run-static: no $b/compile_commands.json (meson setup $b first)"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cppcheck -q --project="$b/compile_commands.json" --max-configs=1 \
	--enable=warning,portability --inline-suppr --error-exitcode=1 \
	--suppress=missingIncludeSystem --suppressions-list=.cppcheck-suppressions \
	-i tests -i fuzz -j "$(nproc)" --template='{file}:{line}: {severity}: {message} [{id}]' 2>"$out"
rc=$?
grep -v '^\s*$' "$out"
[ "$rc" = 0 ] && echo "static analysis: cppcheck clean on src/ and probes/"
exit "$rc"
