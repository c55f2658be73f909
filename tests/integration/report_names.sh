#!/usr/bin/env bash
# Arm and host names are never trusted and never cut (issue 17 item 5): a database whose
# names hold ESC, BEL, CR, LF, U+202E, '<script>' and '|' gives a terminal table with
# none of those bytes raw, Markdown with no tag and no extra cell, an HTML page with no
# raw U+202E; two arms whose labels share their first 24 bytes print apart.
set -euo pipefail
: "${PQTLS:?PQTLS must point at the pqtls binary}"
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

bash "$SRC/tests/integration/lib/mkresults.sh" "$T/n.db"
evil=$(printf 'evil\033[2J\a\rfake line\n<script>alert(1)</script>|x\xe2\x80\xaeRTL')
sqlite3 "$T/n.db" "UPDATE cell SET arm = 'ml-dsa-65 X25519MLKEM768 fresh' WHERE arm = 'ml-dsa-65';
	UPDATE cell SET arm = 'ml-dsa-65 X25519MLKEM768 resumed' WHERE arm = 'ml-dsa-65 resumed';
	UPDATE cell SET arm = CAST(x'$(printf %s "$evil" | od -An -tx1 | tr -d ' \n')' AS TEXT) WHERE arm = 'ml-dsa-44';
	UPDATE cell SET host_name = CAST(x'$(printf 'lab\033]0;owned\a' | od -An -tx1 | tr -d ' \n')' AS TEXT)"

"$PQTLS" report "$T/n.db" -o "$T/n.html" >"$T/term" 2>"$T/err" || { cat "$T/err"; fail "report"; }
"$PQTLS" report "$T/n.db" -o "$T/n.html" --md >"$T/md" 2>>"$T/err" || fail "report --md"
for f in term md; do
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$T/$f"; then fail "a control byte reached the $f output"; fi
	if grep -q $'\xe2\x80\xae' "$T/$f"; then fail "U+202E reached the $f output raw"; fi
	want='evil\x1b[2J\x07\x0dfake line\x0a'
	[ "$f" = term ] || want='evil\x1b\[2J\x07\x0dfake line\x0a' # Markdown escapes the [ too
	grep -qF "$want" "$T/$f" || fail "the hostile name is not shown escaped in $f"
	grep -qF '\u202eRTL' "$T/$f" || fail "U+202E is not shown as \\u202e in $f"
	want='lab\x1b]0;owned\x07'
	[ "$f" = term ] || want='lab\x1b\]0;owned\x07'
	grep -qF "$want" "$T/$f" || fail "the host name is not shown escaped in $f"
done
# Every terminal line is a table row, a heading or a finding: the name forged no line (its
# "fake line" is on the line of its escaped start every time: its row in the arms table, the
# two rows of the key table and the finding
# of no measurable difference that names the arm).
[ "$(grep -c 'fake line' "$T/term")" = 4 ] &&
	[ "$(grep -cF 'evil\x1b[2J\x07\x0dfake line' "$T/term")" = 4 ] || { cat "$T/term"; fail "the forged line count is off"; }
grep -qF 'ml-dsa-65 X25519MLKEM768 fresh ' "$T/term" || fail "the fresh label is cut"
grep -qF 'ml-dsa-65 X25519MLKEM768 resumed ' "$T/term" || fail "the resumed label is cut"
# Columns stay aligned: the RTT column starts at the same place on every row.
awk '/^ml-dsa-65 X25519MLKEM768 (fresh|resumed) .* 70 ms / { print index($0, " 70 ms ") }' "$T/term" | sort -u | wc -l |
	grep -qx 1 || fail "the rows' columns do not line up"
# Markdown: no tag, no extra cell (every row of a table has its header's cell count).
if grep -q '<script>' "$T/md"; then fail "--md passed <script> through"; fi
grep -qF '\<script\>alert(1)\</script\>\|x' "$T/md" || fail "--md did not escape the tag and the pipe"
awk '/^\|/ { line = $0; gsub(/\\\|/, "", line); n = gsub(/\|/, "", line); if (!inside) want = n; inside = 1
	if (n != want) { print "row with " n " pipes, header " want ": " $0; bad = 1 }; next } { inside = 0 }
	END { exit bad }' "$T/md" || fail "a Markdown row has a cell too many"
# HTML: no raw U+202E, the name escaped.
if grep -q $'\xe2\x80\xae' "$T/n.html"; then fail "U+202E reached the page raw"; fi
grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;|x\u202eRTL' "$T/n.html" || fail "the page does not show the name escaped"
echo "ok: names escaped in the terminal, Markdown and HTML; labels whole"
