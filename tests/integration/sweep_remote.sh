#!/usr/bin/env bash
# A sweep against a remote server (HOST:PORT, no link, nothing started in-process): here a
# pqtls serve on loopback stands in for the remote host. Group and response size vary;
# the chain, tickets and path are the server's and recorded as such; keys that would
# pretend to set them are refused. Needs no root.
source "$(dirname "$0")/lib/loopback_serve.bash" --groups X25519MLKEM768:X25519

"$P" sweep --server "$addr" --ca "$T/chain/root.pem" --group X25519,X25519MLKEM768 --response /,4KiB \
	--connections 3 --trials 2 --out "$T/r.db" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "the remote sweep failed"; }
grep -q "8 cells measured" "$T/out" || { cat "$T/out"; fail "expected 8 cells"; }
python3 - "$T/r.db" "$addr" <<'PY' || fail "the remote sweep's database is not as expected"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
assert db.execute("SELECT remote_server, link_backend FROM run").fetchone() == (sys.argv[2], "none")
assert db.execute("SELECT COUNT(*) FROM link_check").fetchone()[0] == 0
# what is the server's or the network's is not ours to know: 'remote' or NULL, never a default
rows = db.execute("SELECT DISTINCT chain_leaf, tickets, link_profile, rtt_us, loss_pct, mtu_bytes, initcwnd_segs, "
                  "cc, mss_bytes FROM cell").fetchall()
assert rows == [("remote", None, "remote", None, None, None, None, "remote", None)], rows
groups = {g for (g,) in db.execute("SELECT DISTINCT tls_group FROM conn WHERE error_kind = 'ok'")}
assert groups == {"x25519", "X25519MLKEM768"}, groups
assert db.execute("SELECT COUNT(*) FROM conn WHERE error_kind = 'ok'").fetchone()[0] == 24
assert db.execute("SELECT MIN(body_bytes) FROM conn c JOIN cell USING (cell_id) WHERE request_path = '/bytes/4096'").fetchone()[0] == 4096
print("ok: 8 cells, 24 connections against", sys.argv[2])
PY
# Without --out the results go to out/NAME/results.db under the current directory.
mkdir "$T/cwd"
(cd "$T/cwd" && "$P" sweep --server "$addr" --ca "$T/chain/root.pem" --name dflt --connections 1 -q >/dev/null) ||
	fail "the sweep without --out failed"
[ -s "$T/cwd/out/dflt/results.db" ] || fail "no out/dflt/results.db"
# What the remote fixes cannot be asked for.
rc=0
"$P" sweep --server "$addr" --ca "$T/chain/root.pem" --sig ml-dsa-65 --out "$T/x.db" 2>"$T/e" || rc=$?
[ "$rc" = 2 ] && grep -qF -- "--sig: a remote server ($addr) fixes its chain, tickets and network path" "$T/e" ||
	{ cat "$T/e"; fail "--sig with a remote server: exit $rc"; }
echo ok
