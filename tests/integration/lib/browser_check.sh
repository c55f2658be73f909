#!/usr/bin/env bash
# Test helper: open a pqtls report in headless Chromium (from disk, no network), fail on
# any console message (the report logs nothing, so any message is an error: a script
# error, a blocked resource), check that every figure the page lists in its
# <meta name="pqtls-figures"> is in the rendered DOM with its chart, that each expected
# figure kind is there, that no table needs a sideways scroll at 1280 px (fit_check.sh),
# and save a screenshot.
# Usage: browser_check.sh REPORT.html SCREENSHOT.png [ID-PREFIX ...]
# Chromium is a test dependency (scripts/deps.sh installs it): without it the check fails.
set -euo pipefail
html=$(realpath "${1:?usage: browser_check.sh REPORT.html SCREENSHOT.png [ID-PREFIX ...]}")
shot=${2:?usage: browser_check.sh REPORT.html SCREENSHOT.png [ID-PREFIX ...]}
shift 2
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || { echo "FAIL: no chromium (scripts/deps.sh installs Debian's chromium for the tests)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
	--disable-component-update --disable-sync --no-first-run --user-data-dir="$tmp/profile")
timeout 120 "$chrome" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$html" \
	>"$tmp/dom.html" 2>"$tmp/log" || { tail -n 20 "$tmp/log"; echo "FAIL: chromium failed" >&2; exit 1; }
if grep -q "CONSOLE" "$tmp/log"; then
	grep "CONSOLE" "$tmp/log" >&2
	echo "FAIL: the report wrote to the browser's console" >&2
	exit 1
fi
ids=$(grep -o 'name="pqtls-figures" content="[^"]*"' "$html" | sed 's/.*content="//; s/"$//')
[ -n "$ids" ] || { echo "FAIL: the report lists no figures" >&2; exit 1; }
for id in $ids; do
	grep -q "id=\"$id\"><svg" "$tmp/dom.html" || { echo "FAIL: figure $id is not in the rendered page" >&2; exit 1; }
done
for prefix in "$@"; do
	echo " $ids " | grep -q " $prefix" || { echo "FAIL: no figure $prefix* (figures: $ids)" >&2; exit 1; }
done
timeout 120 "$chrome" "${flags[@]}" --window-size=1000,2400 --screenshot="$tmp/shot.png" "file://$html" \
	>/dev/null 2>&1 || { echo "FAIL: no screenshot" >&2; exit 1; }
[ -s "$tmp/shot.png" ] || { echo "FAIL: empty screenshot" >&2; exit 1; }
cp "$tmp/shot.png" "$shot"
bash "$(dirname "$0")/fit_check.sh" "$html" 1280
echo "browser: no console messages; figures present: $ids"
