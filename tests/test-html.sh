#!/usr/bin/env bash
# test-html.sh ATOMCOST SRCDIR - the HTML report renders in a real browser.
# Writes the page from the golden JSON report (tests/golden/report.json:
# bars, footprint curves and a c2c matrix), opens it in headless Chromium
# and counts the chart elements in the rendered DOM. Exit 77 (skip) with a
# reason when no browser can start here.
set -u
atomcost=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

browser=""
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
	echo "SKIP: no chromium here (Debian: apt-get install chromium; ./bootstrap test installs it)"
	exit 77
fi

"$atomcost" report "$src/tests/golden/report.json" -o "$tmp/r.html" || { echo "FAIL: atomcost report"; exit 1; }

run_browser() {
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --user-data-dir="$tmp/profile" "$@" 2>"$tmp/browser.err"
}

if ! run_browser --dump-dom "file://$tmp/r.html" >"$tmp/dom.html" || [ ! -s "$tmp/dom.html" ]; then
	echo "SKIP: $browser could not start or render here:"
	tail -5 "$tmp/browser.err"
	exit 77
fi

fail=0
count() { grep -o "$1" "$tmp/dom.html" | wc -l; }
check() { # what min count
	if [ "$3" -ge "$2" ]; then echo "ok   $1: $3"; else echo "FAIL $1: $3 (want >= $2)"; fail=1; fi
}
# golden report: 3 bar charts (hit latency, hit throughput, l2 latency),
# 2 footprint charts, 1 heat map
check "svg charts" 6 "$(count '<svg')"
check "bar charts" 3 "$(count 'class="chart bars"')"
check "bars" 7 "$(count '<rect class="bar"')"
check "footprint curves" 2 "$(count '<path class="curve"')"
check "heat map cells" 4 "$(count '<rect class="cell')"
check "fingerprint rows" 20 "$(count '<tr><th>')"
if grep -q '<script>alert' "$tmp/dom.html"; then echo "FAIL: unescaped script in DOM"; fail=1; fi

# the browser laid the page out: a screenshot is not blank
if run_browser --screenshot="$tmp/shot.png" --window-size=1000,1400 "file://$tmp/r.html" >/dev/null &&
   [ -s "$tmp/shot.png" ]; then
	echo "ok   screenshot: $(stat -c %s "$tmp/shot.png") bytes"
else
	echo "note: screenshot not taken (DOM checks above stand)"
fi
exit $fail
