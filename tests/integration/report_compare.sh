#!/usr/bin/env bash
# Two runs side by side (pqtls report A.db B.db): two sweeps of one tiny grid share every
# grid point, none differing by a round trip; the two shards of one grid by link share none
# (nothing set aside within one grid); a cubic and a BBR run of the paper's Figure 5 grid at 50 ms meet with
# cc set aside; two shards of one run (a trial each) do not differ; a
# database of another grid is compared where its points meet the first's, and the header
# says so. The terminal, --md, the page's section and compare.csv agree; one database
# still gets its own report (no comparison); bad input (the same file twice, a file that
# is not there or not a database) is refused with a message naming it and nothing written.
# Needs root and network namespaces (the sweeps run across emulated links).
set -euo pipefail
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$SRC/tests/integration/link_lib.bash"
command -v sqlite3 >/dev/null || fail "no sqlite3 tool (scripts/deps.sh installs it for the tests)"

# 50 ms: a round trip stands far above this shared machine's noise in a median of 4
grid=(--sig ecdsa-p256,ml-dsa-65 --group X25519,X25519MLKEM768 --rtt 50ms --connections 4 --trials 1 --no-check -q)
sweep() { # OUT OPTIONS...
	local out=$1
	shift
	"$P" sweep "$@" --out "$out" >"$out.log" 2>&1 || { cat "$out.log"; fail "the sweep of $out failed"; }
}
sweep "$TMP/a.db" "${grid[@]}"
sweep "$TMP/b.db" "${grid[@]}"

# Two runs of one grid: every point in both, the difference B - A never a round trip.
"$P" report "$TMP/a.db" "$TMP/b.db" --csv "$TMP/csv" >"$TMP/ab.txt" 2>"$TMP/ab.err" || { cat "$TMP/ab.err"; fail "report A B"; }
has "$TMP/ab.err" "wrote $TMP/compare.html"
has "$TMP/ab.txt" "Two runs side by side: A = $TMP/a.db (spec sweep, 4 grid points), B = $TMP/b.db (spec sweep, 4 grid points)"
has "$TMP/ab.txt" "$TMP/a.db and $TMP/b.db are runs of one grid (spec hash "
has "$TMP/ab.txt" "4 grid points in both"
has "$TMP/ab.txt" "; 0 only in $TMP/a.db, 0 only in $TMP/b.db."
has "$TMP/ab.txt" "In both, 4 grid points: medians in ms with 95 % intervals, and the difference B minus A (measurable when its interval excludes 0 and reaches beyond the endpoints' waits for a CPU in either run)."
grep -qE "^ml-dsa-65 X25519MLKEM768 +TTFB +[0-9.]+ " "$TMP/ab.txt" || fail "no row of ml-dsa-65 X25519MLKEM768"
python3 - "$TMP/csv/compare.csv" "$TMP/a.db" "$TMP/b.db" <<'PY' || fail "compare.csv"
import csv, sqlite3, sys
rows = list(csv.DictReader(open(sys.argv[1])))
points = {r[0] for r in sqlite3.connect(sys.argv[2]).execute("SELECT DISTINCT point_key FROM cell")}
assert {r["point_key"] for r in rows} == points and len(rows) == 4, rows
assert all(r["in"] == "both" and r["phase"] == "TTFB" and r["diff_ms"] for r in rows), rows
# the same grid twice: no difference of half a round trip (25 ms at 50 ms), whatever the
# bootstrap says of the rest (4 connections a point: an interval of a few ms), at the
# points within their link's and host's budgets in both runs (a busy VM moved a median of
# 4 by 41 ms in a cell over the host's budget here)
def clean(path):
    q = "SELECT point_key FROM cell GROUP BY point_key HAVING MIN(COALESCE(link_ok, 1) AND COALESCE(host_ok, 1)) = 1"
    return {k for (k,) in sqlite3.connect(path).execute(q)}
ok = clean(sys.argv[2]) & clean(sys.argv[3])
judged = [r for r in rows if r["point_key"] in ok]
assert all(abs(float(r["diff_ms"])) < 25 for r in judged), judged
quiet = sum(r["measurable"] == "0" for r in rows)
print(f"ok: 4 grid points in both, {quiet} with no measurable difference, every difference under 25 ms at the "
      f"{len(judged)} within their budgets in both")
PY
has "$TMP/compare.html" "<h2 id=\"compare\">Two runs side by side</h2>"
has "$TMP/compare.html" "<h3>In both (4)</h3>"
grep -q '<section id="findings">' "$TMP/compare.html" || fail "the page lost its findings"
[ -s "$TMP/csv/key.csv" ] || fail "A's key.csv was not written beside compare.csv"
bash "$SRC/tests/integration/lib/browser_check.sh" "$TMP/compare.html" "$TMP/compare.png" fig-cdf >"$TMP/browser" 2>&1 ||
	{ cat "$TMP/browser"; fail "the browser check of the compared page failed"; }
"$P" report "$TMP/a.db" "$TMP/b.db" -o "$TMP/ab.html" --md >"$TMP/ab.md"
has "$TMP/ab.md" "### Two runs side by side: A = "
has "$TMP/ab.md" "| grid point | phase | A ms \\[95% CI\\] | B ms \\[95% CI\\] | B minus A (bootstrap) |"

# One database: its own report, as before, no comparison.
"$P" report "$TMP/a.db" -o "$TMP/a.html" >"$TMP/a.txt"
! grep -q "Two runs side by side" "$TMP/a.txt" "$TMP/a.html" || fail "one database's report compares"
has "$TMP/a.txt" "host vm"

# The two shards of one grid (by link: 20 ms and 30 ms): no grid point in common, and no
# dimension set aside (runs of one grid are compared point for point: 20 ms is not 30 ms).
shard=(--sig ecdsa-p256,ml-dsa-65 --rtt 20ms,30ms --connections 4 --trials 1 --no-check -q)
sweep "$TMP/s1.db" "${shard[@]}" --shard 1/2
sweep "$TMP/s2.db" "${shard[@]}" --shard 2/2
"$P" report "$TMP/s1.db" "$TMP/s2.db" -o "$TMP/s.html" --csv "$TMP/scsv" >"$TMP/s.txt"
has "$TMP/s.txt" "runs of one grid"
has "$TMP/s.txt" "No grid point is in both; 2 only in $TMP/s1.db, 2 only in $TMP/s2.db."
has "$TMP/s.txt" "ml-dsa-65 X25519MLKEM768, RTT 20 ms"
has "$TMP/s.txt" "ml-dsa-65 X25519MLKEM768, RTT 30 ms"
! grep -q "Set aside" "$TMP/s.txt" || fail "the shards of one grid set a dimension aside"
[ "$(grep -c ',both,' "$TMP/scsv/compare.csv")" = 0 ] && [ "$(grep -c ',A,TTFB,' "$TMP/scsv/compare.csv")" = 2 ] &&
	[ "$(grep -c ',B,TTFB,' "$TMP/scsv/compare.csv")" = 2 ] || { cat "$TMP/scsv/compare.csv"; fail "the shards' compare.csv"; }

# The paper's Figure 5 grid at 50 ms, scaled (3 sizes, 3 connections): a cubic run against a
# BBR run. The runs differ in cc wholesale: set aside, said, every point met. --cc makes the
# preset's bbr arms the same as its cubic ones: each measured once, under the first label.
ts=(--preset ttfb-size --profile paper-50 --pad-chain-to "8KiB..16KiB step 4KiB" --connections 3 --trials 1 --jobs auto --no-check -q)
sweep "$TMP/cubic.db" "${ts[@]}" --cc cubic
sweep "$TMP/bbr.db" "${ts[@]}" --cc bbr
sqlite3 "$TMP/cubic.db" "SELECT spec_text FROM run" >"$TMP/cubic.spec"
has "$TMP/cubic.spec" "# --cc made arm 'ml-dsa-44 padded bbr' the same as arm 'ml-dsa-44 padded': measured once, as 'ml-dsa-44 padded'"
[ "$(sqlite3 "$TMP/bbr.db" "SELECT COUNT(DISTINCT arm) || ' ' || GROUP_CONCAT(DISTINCT cc) FROM cell")" = "2 bbr" ] ||
	fail "the BBR run's arms: $(sqlite3 "$TMP/bbr.db" "SELECT DISTINCT arm, cc FROM cell")"
"$P" report "$TMP/cubic.db" "$TMP/bbr.db" -o "$TMP/cb.html" --csv "$TMP/cbcsv" >"$TMP/cb.txt" 2>"$TMP/cb.err" || { cat "$TMP/cb.err"; fail "report cubic bbr"; }
has "$TMP/cb.txt" "CC: cubic in A, bbr in B. 6 grid points in both"
has "$TMP/cb.txt" "; 0 only in $TMP/cubic.db, 0 only in $TMP/bbr.db."
has "$TMP/cb.html" "CC: cubic in A, bbr in B"
has "$TMP/cb.html" "<li>Beside B = <code>$TMP/bbr.db</code>: Set aside" # the comparison is the first finding
grep -qE "^ml-dsa-44 padded, padded to 16 KiB +TTFB " "$TMP/cb.txt" || fail "no row of ml-dsa-44 padded to 16 KiB"
bash "$SRC/tests/integration/lib/browser_check.sh" "$TMP/cb.html" "$TMP/cb.png" fig-size >"$TMP/browser" 2>&1 ||
	{ cat "$TMP/browser"; fail "the browser check of the cubic / BBR page failed"; }

# Two shards of one run (one link, two trials: a trial each): the same grid points, and
# no difference of a quarter round trip (12.5 ms at 50 ms: the flight model's tolerance; a
# step is a whole round trip) between them at the points whose cells are within their
# budgets in both (a cell over its link's or host's budget carries the machine's noise;
# at 3 connections a busy VM moved a median by 32 ms here).
sweep "$TMP/t1.db" "${ts[@]}" --cc cubic --trials 2 --shard 1/2
sweep "$TMP/t2.db" "${ts[@]}" --cc cubic --trials 2 --shard 2/2
"$P" report "$TMP/t1.db" "$TMP/t2.db" -o "$TMP/t.html" --csv "$TMP/tcsv" >"$TMP/t.txt" 2>&1 || { cat "$TMP/t.txt"; fail "report of two shards"; }
has "$TMP/t.txt" "runs of one grid"
has "$TMP/t.txt" "6 grid points in both"
! grep -q "Set aside" "$TMP/t.txt" || fail "two shards of one run set a dimension aside"
python3 - "$TMP/tcsv/compare.csv" "$TMP/t1.db" "$TMP/t2.db" <<'PY' || fail "the shards of one run differ"
import csv, sqlite3, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6 and all(r["in"] == "both" for r in rows), rows
def clean(path):
    q = "SELECT point_key FROM cell GROUP BY point_key HAVING MIN(COALESCE(link_ok, 1) AND COALESCE(host_ok, 1)) = 1"
    return {k for (k,) in sqlite3.connect(path).execute(q)}
ok = clean(sys.argv[2]) & clean(sys.argv[3])
judged = [r for r in rows if r["point_key"] in ok]
big = max((abs(float(r["diff_ms"])) for r in judged), default=0.0)
assert big < 12.5, f"a difference of {big} ms between two trials of one run"
print(f"ok: two shards of one run, 6 points in both, {len(judged)} within their budgets in both, the largest "
      f"difference there {big:.2f} ms; {sum(r['measurable'] == '1' for r in rows)} flagged by the bootstrap at 3 connections")
PY

# Another grid (one arm of the first, at its RTT): allowed, said in the header, its point met.
sweep "$TMP/o.db" --sig ecdsa-p256 --rtt 50ms --connections 4 --trials 1 --no-check -q
"$P" report "$TMP/a.db" "$TMP/o.db" -o "$TMP/o.html" >"$TMP/o.txt" || fail "a database of another grid was refused"
has "$TMP/o.txt" "$TMP/a.db and $TMP/o.db are of different grids (spec hash "
has "$TMP/o.txt" "1 grid point in both"
has "$TMP/o.txt" "; 3 only in $TMP/a.db, 0 only in $TMP/o.db."
has "$TMP/o.html" "are of different grids"

# Bad input: the same file twice (a usage error, exit 2), a file that is not there or not
# a database (exit 1): the message names it, nothing is written.
refused() { # EXIT MESSAGE ARGS...
	local want=$1 msg=$2 rc=0
	shift 2
	rm -f "$TMP/bad.html"
	"$P" report "$@" -o "$TMP/bad.html" >"$TMP/bad.out" 2>"$TMP/bad.err" || rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/bad.err"; fail "report $* exited $rc, not $want"; }
	has "$TMP/bad.err" "$msg"
	[ ! -e "$TMP/bad.html" ] || fail "report $* wrote a page"
}
refused 2 "$TMP/a.db and $TMP/./a.db are the same file: give two results databases" "$TMP/a.db" "$TMP/./a.db"
refused 1 "$TMP/missing.db: cannot open it: No such file or directory" "$TMP/a.db" "$TMP/missing.db"
printf 'not a database, a text file long enough to have a header.......................................' >"$TMP/text.db"
refused 1 "$TMP/text.db: is not an SQLite database" "$TMP/text.db" "$TMP/b.db"
refused 2 "unexpected argument" "$TMP/a.db" "$TMP/b.db" "$TMP/o.db"
echo "ok: two runs of one grid side by side, shards by link with no point in common, cubic against BBR with cc set aside, two shards of one run alike, another grid said, bad input refused"
