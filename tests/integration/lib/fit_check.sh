#!/usr/bin/env bash
# Test helper: open a pqtls report in headless Chromium at a given window width (from
# disk, no network) and fail when any table needs a sideways scroll: a table wider than
# its scroll box or than the window, or the page itself wider than the window. A copy of
# the page gets a few lines of script that measure each table's scrollWidth against the
# window's width and write the result into the DOM, which Chromium dumps.
# Usage: fit_check.sh REPORT.html [WIDTH]   (default 1280)
set -euo pipefail
html=$(realpath "${1:?usage: fit_check.sh REPORT.html [WIDTH]}")
width=${2:-1280}
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || { echo "FAIL: no chromium (scripts/deps.sh installs Debian's chromium for the tests)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure='<script>(function(){var W=window.innerWidth,bad=[],i=0;
document.querySelectorAll("table").forEach(function(t){i++;var box=t.parentElement,r=t.getBoundingClientRect();
var prev=t.parentElement;while(prev&&!prev.previousElementSibling)prev=prev.parentElement;
var head=prev&&prev.previousElementSibling?prev.previousElementSibling.textContent.slice(0,60):"";
if(t.scrollWidth>W||r.right>W+0.5||box.scrollWidth>box.clientWidth+0.5)
bad.push("table "+i+" ("+head+"): "+Math.round(t.scrollWidth)+" px wide, box "+box.clientWidth+" px");});
if(document.documentElement.scrollWidth>W)bad.push("the page: "+document.documentElement.scrollWidth+" px");
var p=document.createElement("pre");p.id="fit-result";
p.textContent="FIT "+W+" px, "+i+" tables: "+(bad.length?bad.join("; "):"none scrolls")+" ENDFIT";
document.body.appendChild(p);})();</script>'
sed 's|</body></html>|'"$(printf '%s' "$measure" | tr '\n' ' ' | sed 's/[&|]/\\&/g')"'</body></html>|' "$html" >"$tmp/page.html"
grep -q 'id="fit-result"\|fit-result' "$tmp/page.html" || { echo "FAIL: could not add the measuring script" >&2; exit 1; }
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
	--disable-component-update --disable-sync --no-first-run --user-data-dir="$tmp/profile")
timeout 120 "$chrome" "${flags[@]}" --window-size="$width,900" --dump-dom "file://$tmp/page.html" \
	>"$tmp/dom.html" 2>"$tmp/log" || { tail -n 20 "$tmp/log"; echo "FAIL: chromium failed" >&2; exit 1; }
# the last match: the script's own text holds the words too
result=$(grep -o 'FIT [0-9][^<]*ENDFIT' "$tmp/dom.html" | tail -n 1 | sed 's/ ENDFIT$//')
[ -n "$result" ] || { echo "FAIL: the measuring script did not run" >&2; exit 1; }
echo "$result"
case "$result" in
*"none scrolls") ;;
*) echo "FAIL: a table needs a sideways scroll at $width px: $(basename "$html")" >&2; exit 1 ;;
esac
