#!/usr/bin/env bash
# A sweep killed with SIGKILL in the middle of a cell, then run again with the same
# command, ends with exactly the cells and connections of an uninterrupted run: every cell
# of the grid once, each with all its connections, none duplicated or partial. Meanwhile a
# second sweep on the same file is refused, and so is another grid on it afterwards.
source "$(dirname "$0")/link_lib.bash"
command -v python3 >/dev/null || fail "needs python3 (scripts/deps.sh installs it)"

cat >"$TMP/r.spec" <<'SPEC'
name = resume-test
rtt = 20ms
trials = 6
connections = 10
[arm ecdsa]
sig = ecdsa-p256
[arm mldsa]
sig = ml-dsa-44
SPEC
DB=$TMP/out/r.db
# One cell at a time (the kill below lands inside the one cell being measured; a
# concurrent sweep's kill is tests/integration/sweep_jobs.sh's).
run() { "$P" sweep "$TMP/r.spec" --no-check --jobs 1 --out "$DB" "$@"; }
count() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$DB" "$1" 2>/dev/null || echo 0; }

"$P" sweep "$TMP/r.spec" --dry-run | tail -n +2 | awk '{print $2}' | sort >"$TMP/want"
[ "$(wc -l <"$TMP/want")" = 12 ] || fail "the grid is not 12 cells"

"$P" sweep "$TMP/r.spec" --no-check --jobs 1 --out "$DB" >"$TMP/first.out" 2>"$TMP/first.err" &
pid=$! # pqtls itself (not a subshell), so SIGKILL reaches it
# Wait for two finished cells, then kill inside a later one (below).
for _ in $(seq 1 300); do
	[ "$(count 'SELECT COUNT(*) FROM cell')" -ge 2 ] && break
	kill -0 $pid 2>/dev/null || { cat "$TMP/first.err"; fail "the sweep ended before it could be killed"; }
	sleep 0.1
done
# A second writer on the same file is refused at once, naming the file.
rc=0
run >"$TMP/second.out" 2>"$TMP/second.err" || rc=$?
[ "$rc" = 1 ] || { cat "$TMP/second.err"; fail "a second sweep on the same file: exit $rc, expected 1"; }
has "$TMP/second.err" "$DB: another pqtls sweep is writing this file"
# Kill it mid-cell, for certain: stop it (SIGSTOP) and look for a cell's server process
# (one per cell, from its start until the cell's measurement ends, before the cell is
# stored); with one there, SIGKILL lands inside a cell; without, let it go on, look again.
# The process killed is the one that measures and writes (the sweep, or its child in a
# session of its own: then the sweep dies of the same signal).
m=$(sweep_measurer $pid)
mid=
for _ in $(seq 1 1000); do
	kill -STOP $m
	if pgrep -P $m -x pqtls >/dev/null; then mid=1; break; fi
	kill -CONT $m
	sleep 0.01
done
[ -n "$mid" ] || { kill -9 $m; fail "never saw the sweep inside a cell"; }
stored=$(count 'SELECT COUNT(*) FROM cell')
kill -9 $m
rc=0
wait $pid 2>/dev/null || rc=$?
[ "$rc" = 137 ] || fail "the sweep was not killed by SIGKILL (exit $rc)"
if [ "$m" != "$pid" ]; then
	# the sweep measured in a child of its own: the parent says what happened to it and
	# removes its links' namespaces before dying of the same signal
	has "$TMP/first.err" "pqtls sweep: the measuring process was killed by signal 9 (Killed); the cells it finished are kept in $DB"
	if ip netns list | grep -q "^pqtls-$m-"; then ip netns list; fail "the killed child's namespaces remain"; fi
fi
cells=$(count 'SELECT COUNT(*) FROM cell')
[ "$cells" = "$stored" ] || fail "a cell was stored after the kill: $stored, then $cells"
[ "$cells" -ge 2 ] && [ "$cells" -lt 12 ] || fail "after the kill: $cells cells (expected 2 to 11)"
[ "$(count 'SELECT COUNT(*) FROM conn')" = $((cells * 10)) ] || fail "after the kill: a cell is partial"
echo "killed with $cells of 12 cells stored"

run >"$TMP/resume.out" 2>"$TMP/resume.err" || { cat "$TMP/resume.err"; fail "the resumed sweep failed"; }
has "$TMP/resume.out" "$((12 - cells)) cells measured, $cells already done"
python3 - "$DB" "$TMP/want" <<'PY' || fail "the resumed database differs from an uninterrupted run"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = open(sys.argv[2]).read().split()
keys = sorted(k for (k,) in db.execute("SELECT cell_key FROM cell"))
assert keys == sorted(want), (keys, want)
per = db.execute("SELECT c.cell_key, COUNT(n.conn_index), c.connections FROM cell c LEFT JOIN conn n USING (cell_id) GROUP BY c.cell_id").fetchall()
assert all(n == 10 == c for _, n, c in per), per
assert db.execute("SELECT COUNT(*) FROM conn").fetchone()[0] == 120
idx = db.execute("SELECT COUNT(*) FROM (SELECT cell_id, conn_index FROM conn GROUP BY 1, 2 HAVING COUNT(*) > 1)").fetchone()[0]
assert idx == 0
runs = db.execute("SELECT end_status FROM run ORDER BY run_id").fetchall()
assert [r for (r,) in runs] == ["running", "complete"], runs
print("ok: 12 cells, 120 connections, runs", [r for (r,) in runs])
PY
# The killed run's namespaces were removed by the next link up.
ip netns list | grep -q "pqtls-$m-" && fail "namespaces of the killed sweep remain"
# Another grid on this file is refused before anything is measured.
rc=0
"$P" sweep "$TMP/r.spec" --rtt 30ms --no-check --out "$DB" >"$TMP/o" 2>"$TMP/e" || rc=$?
[ "$rc" = 1 ] || fail "another grid on the file: exit $rc"
has "$TMP/e" "holds another grid"
echo ok
