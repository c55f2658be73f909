#!/usr/bin/env bash
# Failures are data: when a cell's server dies mid-cell (a test fault frees it, closing
# every socket as a crashed process would), that cell is stored with its connections'
# error kinds and a reason, and the sweep goes on to the next cells, which succeed.
source "$(dirname "$0")/link_lib.bash"
command -v python3 >/dev/null || fail "needs python3 (scripts/deps.sh installs it)"
DB=$TMP/d.db
"$P" sweep --sig ecdsa-p256 --rtt 20ms --connections 12 --trials 3 --timeout 2s --no-check \
	--fault-server-dies-in-cell 1 --out "$DB" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "the sweep failed"; }
has "$TMP/err" "the server died mid-cell"
has "$TMP/out" "3 cells measured"
python3 - "$DB" <<'PY' || fail "the dead server's cell is not reported as expected"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = {i: (s, ok, bad, why) for i, s, ok, bad, why in
        db.execute("SELECT cell_index, status, conns_ok, conns_failed, failure_reason FROM cell")}
assert set(rows) == {0, 1, 2}, rows
assert rows[0][0] == rows[2][0] == "ok" and rows[0][1] == rows[2][1] == 12, rows
s, ok, bad, why = rows[1]
assert s in ("failures", "failed") and bad > 0 and ok + bad == 12, rows[1]
assert "server died" in why, why
kinds = {k for (k,) in db.execute("SELECT error_kind FROM conn JOIN cell USING (cell_id) WHERE cell_index = 1 AND error_kind != 'ok'")}
# the connection in flight when the server died fails as TLS sees it (reset, closed,
# protocol); the ones after it are refused: every one is a row with its kind
assert "refused" in kinds and kinds <= {"refused", "reset", "closed", "protocol", "timeout_handshake",
                                        "timeout_connect", "timeout_response"}, kinds
print("ok: cell 1:", s, ok, "ok,", bad, "failed:", why)
PY
echo ok
