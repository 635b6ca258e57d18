#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-fuzzer.sh FUZZER SECONDS SEEDS REGRESSIONS - first replay every kept
# regression input (each once: a finding fixed stays fixed), then fuzz for a
# bounded time from the seed corpus. New corpus entries go to a temporary
# directory, never into the repository; a crash leaves its input in
# $FUZZ_ARTIFACTS (default: the build directory) to be kept under
# fuzz/regressions/ once fixed. Exit 0 clean, 1 finding, 77 not built.
set -u
exe=$1 secs=${FUZZ_SECONDS:-$2} seeds=$3 regs=$4
[ -x "$exe" ] || { echo "SKIP: $exe not built (needs clang)"; exit 77; }
art=${FUZZ_ARTIFACTS:-$(dirname "$exe")}/fuzz-artifacts-$(basename "$exe")
mkdir -p "$art"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob
regressions=("$regs"/*)
if [ ${#regressions[@]} -gt 0 ]; then
	"$exe" -close_fd_mask=2 "${regressions[@]}" 2>&1 | tail -n 3 || exit 1
fi
# -rss_limit_mb: a report bigger than this is a finding; -timeout: 5 s per input
"$exe" -max_total_time="$secs" -close_fd_mask=2 -rss_limit_mb=1024 -timeout=5 \
	-artifact_prefix="$art/" -print_final_stats=0 "$tmp" "$seeds" 2>&1 | tail -n 4
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || echo "FINDING: input saved under $art/ (reproduce: $exe $art/crash-*)"
exit "$rc"
