#!/usr/bin/env bash
# Cells over the fidelity budget: marked in the key table (terminal and page), left out of
# every table, figure and verdict with --clean-only (which says how many), and refused
# when nothing clean is left.
set -euo pipefail
: "${PQTLS:?PQTLS must point at the pqtls binary}"
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

bash "$SRC/tests/integration/lib/mkresults.sh" "$T/f.db"
cells=$(sqlite3 "$T/f.db" "SELECT COUNT(*) FROM cell")
# One ml-dsa-65 cell at 70 ms over the link's budget, one over the host's.
sqlite3 "$T/f.db" "UPDATE cell SET link_ok = 0 WHERE cell_id = (SELECT MIN(cell_id) FROM cell WHERE arm = 'ml-dsa-65' AND rtt_us = 70000);
	UPDATE cell SET host_ok = 0 WHERE cell_id = (SELECT MIN(cell_id) FROM cell WHERE arm = 'ecdsa-p256' AND rtt_us = 1000)"
"$PQTLS" report "$T/f.db" -o "$T/all.html" >"$T/all.txt" 2>"$T/all.err" || { cat "$T/all.err"; fail "report"; }
grep -q "^ml-dsa-65 .*16 (0), 1 cell over budget" "$T/all.txt" || fail "the marked row is not marked in the terminal"
grep -q "1 cell over budget (<a href=\"#fidelity\">" "$T/all.html" || fail "the marked row is not marked on the page"
grep -q "^fidelity: 2 cells marked" "$T/all.txt" || fail "no fidelity line"

"$PQTLS" report "$T/f.db" -o "$T/clean.html" --clean-only --csv "$T/csv" >"$T/clean.txt" 2>"$T/clean.err" ||
	{ cat "$T/clean.err"; fail "report --clean-only"; }
grep -q -- "--clean-only: 2 cells measured on a link or host over its budget" "$T/clean.err" || fail "no note on stderr"
grep -q "^$((cells - 2)) cells (up to 2 trials each) pooled" "$T/clean.txt" || { head -3 "$T/clean.txt"; fail "the clean cells were not counted"; }
grep -q -- "--clean-only: 2 cells" "$T/clean.html" || fail "the page does not say what was left out"
if grep -q "over budget" "$T/clean.txt"; then fail "a marked cell stayed in with --clean-only"; fi
# The ml-dsa-65 grid point at 70 ms has its other trial only: 8 connections.
grep -q '"ml-dsa-65",.*,"70000",.*,0,8,' "$T/csv/key.csv" || { grep ml-dsa-65 "$T/csv/key.csv"; fail "key.csv still counts the marked cell"; }

# Nothing clean left: refused, nothing written.
sqlite3 "$T/f.db" "UPDATE cell SET link_ok = 0"
if "$PQTLS" report "$T/f.db" -o "$T/none.html" --clean-only >"$T/o" 2>"$T/e"; then fail "accepted a database with no clean cell"; fi
grep -q "nothing is left with --clean-only" "$T/e" || { cat "$T/e"; fail "the refusal does not say why"; }
[ ! -e "$T/none.html" ] || fail "a page was written"
echo "ok: marked cells shown, left out with --clean-only, refused when none is clean"
