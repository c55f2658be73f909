#!/usr/bin/env bash
# Trust anchor identifiers as a sweep dimension (tai = no, yes): with yes the server sends
# the ML-DSA-65 leaf alone and the client's verify store holds the intermediate (the
# chain's trust.pem), so every connection still verifies, up to the root. The cell stores
# chain_tai and the leaf's DER as the chain sent; the flight model counts one certificate
# and predicts the round trip the 5.5 kB intermediate costs at initcwnd 10 over TCP
# (3 round trips to the handshake's end without TAI, 2 with), measured within half a round
# trip on the cells the machine left calm. tai with no intermediate is refused before
# anything is measured (exit 2, no database).
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"
command -v sqlite3 >/dev/null || { echo "skip: needs sqlite3"; exit 77; }
command -v python3 >/dev/null || { echo "skip: needs python3"; exit 77; }

set +e
"$P" sweep --sig ml-dsa-44 --intermediates 0 --tai yes --rtt 10ms --connections 1 --out "$TMP/bad.db" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" = 2 ] || { cat "$TMP/err"; fail "tai yes with intermediates 0 exited $rc, not 2"; }
has "$TMP/err" "tai yes: trust anchor identifiers leave out the intermediates the client holds, and this chain has none (intermediates 0); accepted: tai yes with intermediates 1..4"
[ ! -e "$TMP/bad.db" ] || fail "the refused sweep left a database behind"
"$P" sweep --help | grep -q -- "--tai" || fail "sweep --help does not list --tai"

cat >"$TMP/t.spec" <<'SPEC'
name = tai
sig = ml-dsa-65
intermediates = 1
group = X25519MLKEM768
rtt = 50ms
initcwnd = 10
cc = cubic
response = 1KiB
connections = 5
tai = no, yes
[arm tcp]
transport = tcp
[arm quic]
transport = quic
SPEC
"$P" sweep "$TMP/t.spec" --no-check --remeasure 2 -q --out "$TMP/t.db" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "sweep failed"; }
q() { sqlite3 "$TMP/t.db" "$1"; }
bad=$(q "SELECT COUNT(*) FROM cell WHERE status != 'ok' OR conns_ok < 5")
[ "$bad" = 0 ] || fail "cells that did not verify and measure every connection: $(q "SELECT arm, chain_tai, status, conns_ok, failure_reason FROM cell")"
[ "$(q "SELECT group_concat(chain_tai, ' ') FROM (SELECT DISTINCT chain_tai FROM cell ORDER BY chain_tai)")" = "no yes" ] ||
	fail "chain_tai stored: $(q "SELECT DISTINCT chain_tai FROM cell")"
no=$(q "SELECT DISTINCT chain_der_bytes FROM cell WHERE chain_tai = 'no'")
yes=$(q "SELECT DISTINCT chain_der_bytes FROM cell WHERE chain_tai = 'yes'")
# the ML-DSA-65 intermediate: 5.4-5.5 kB of DER left out
[ $((no - yes)) -ge 5300 ] && [ $((no - yes)) -le 5600 ] || fail "TAI left out $((no - yes)) bytes ($no -> $yes)"
echo "ok: chain sent $no -> $yes DER bytes with tai; every connection verified"

"$P" report "$TMP/t.db" -o "$TMP/r.html" --csv "$TMP/csv" >"$TMP/report.txt" || { cat "$TMP/report.txt"; fail "report"; }
q "SELECT arm || '|' || chain_der_bytes FROM cell WHERE status = 'ok' AND
	COALESCE(host_client_wait_p50_us, 0) + COALESCE(host_server_wait_p50_us, 0) + COALESCE(link_late_p99_us, 1e9) < 10000" \
	>"$TMP/calm"
python3 - "$TMP/csv/agreement.csv" "$TMP/calm" "$no" "$yes" <<'PY' || fail "the model's round trips with and without TAI"
import csv, sys
# the report names a QUIC arm "QUIC quic"
rows = {(r["arm"].split()[-1], int(r["chain_der_bytes"])): r for r in csv.DictReader(open(sys.argv[1]))}
calm = {(a, int(b)) for a, b in (l.strip().rsplit("|", 1) for l in open(sys.argv[2]) if l.strip())}
no, yes = int(sys.argv[3]), int(sys.argv[4])
assert len(rows) == 4, rows.keys()
# TCP at initcwnd 10: the 15.8 kB flight takes a round trip more than the 10.3 kB one
assert float(rows[("tcp", no)]["pred_handshake_rtts"]) == 3, rows[("tcp", no)]
assert float(rows[("tcp", yes)]["pred_handshake_rtts"]) == 2, rows[("tcp", yes)]
judged = 0
for k, r in rows.items():
    if k not in calm or r["meas_handshake_rtts"] == "nan":
        continue
    judged += 1
    assert abs(float(r["meas_handshake_rtts"]) - float(r["pred_handshake_rtts"])) < 0.5, (k, r)
assert judged >= 2, "only %d of 4 cells calm enough to judge" % judged
print("judged %d of 4 cells; TCP: 3 round trips without TAI, 2 with" % judged)
PY
echo "ok"
