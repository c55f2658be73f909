#!/usr/bin/env bash
# A real crash of a cell's server (SIGSEGV, sent here from outside to the server's own
# process: each cell's server runs in a child process of the sweep) is a failed cell with
# its reason, and the sweep goes on: every cell is stored, the others succeed, exit 0.
# (When the server ran inside the sweep's process, there was no such process, and a
# crash in it ended the whole sweep.) The crash made from inside, by the runner's test
# hook, is tests/unit/test_exp_server_dies.c.
source "$(dirname "$0")/link_lib.bash"
command -v python3 >/dev/null || fail "needs python3 (scripts/deps.sh installs it)"
DB=$TMP/c.db
"$P" sweep --sig ecdsa-p256 --rtt 20ms --connections 20 --trials 3 --timeout 2s --no-check -q --jobs 1 --out "$DB" \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
# The server of a cell after the first: wait for a stored cell, then for a server process.
cells() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM cell').fetchone()[0])" "$DB" 2>/dev/null || echo 0; }
srv=
for _ in $(seq 1 600); do
	kill -0 $pid 2>/dev/null || { cat "$TMP/err"; fail "the sweep ended and no server process of its own was seen beside it"; }
	if [ "$(cells)" -ge 1 ]; then
		srv=$(pgrep -P "$(sweep_measurer $pid)" -x pqtls | head -n1 || true)
		[ -n "$srv" ] && break
	fi
	sleep 0.05
done
[ -n "$srv" ] || fail "no server process of its own beside the sweep (pid $pid)"
kill -SEGV "$srv"
rc=0
wait $pid || rc=$?
[ "$rc" = 0 ] || { cat "$TMP/err"; fail "the sweep exited $rc after its server crashed"; }
grep -q "3 cells measured" "$TMP/out" || { cat "$TMP/out"; fail "not every cell was measured"; }
# the crashed cell is counted on the summary line, never as "0 failed" and nothing else
grep -qE "3 cells measured, 0 already done, (1 failed|0 failed and 1 with failures \(connections failed or the server died\))" \
	"$TMP/out" || { cat "$TMP/out"; fail "the summary line does not count the crashed cell"; }
python3 - "$DB" <<'PY' || fail "the crashed server's cell is not stored as expected"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT cell_index, status, conns_ok, conns_failed, failure_reason FROM cell ORDER BY 1").fetchall()
assert len(rows) == 3, rows
dead = [r for r in rows if r[4] and "the server died: killed by signal 11" in r[4]]
assert len(dead) == 1 and dead[0][0] >= 1 and dead[0][1] in ("failures", "failed"), rows
assert all(r[1] == "ok" and r[2] == 20 for r in rows if r is not dead[0]), rows
print("ok: cell", dead[0][0], dead[0][1], "-", dead[0][4])
PY
echo ok
