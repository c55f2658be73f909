#!/usr/bin/env bash
# The OCSP staple as a sweep dimension (ocsp = no, yes): the client asks for the staple and
# every connection gets it (a connection without one would fail), the cell stores the
# response's bytes and a Certificate message that many + 8 bytes longer, and the flight
# model counts it: an ML-DSA-44 chain at initcwnd 10 over TCP takes 2 round trips to the
# handshake's end without the staple and 3 with it, measured within half a round trip on
# the calm cells. ocsp yes with an MTC is refused before anything runs (exit 2, no database).
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"
command -v sqlite3 >/dev/null || { echo "skip: needs sqlite3"; exit 77; }
command -v python3 >/dev/null || { echo "skip: needs python3"; exit 77; }

set +e
"$P" sweep --sig ml-dsa-44 --intermediates 0 --mtc landmark --ocsp yes --rtt 10ms --connections 1 --out "$TMP/bad.db" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" = 2 ] || { cat "$TMP/err"; fail "ocsp yes with an MTC exited $rc, not 2"; }
has "$TMP/err" "ocsp yes: a Merkle Tree Certificate is not revoked by OCSP"
[ ! -e "$TMP/bad.db" ] || fail "the refused sweep left a database behind"

cat >"$TMP/o.spec" <<'SPEC'
name = ocsp
sig = ml-dsa-44
group = X25519MLKEM768
rtt = 50ms
initcwnd = 10
cc = cubic
response = 1KiB
connections = 5
ocsp = no, yes
SPEC
"$P" sweep "$TMP/o.spec" --no-check --remeasure 2 -q --out "$TMP/o.db" 2>"$TMP/err" || { cat "$TMP/err"; fail "sweep failed"; }
q() { sqlite3 "$TMP/o.db" "$1"; }
[ "$(q "SELECT COUNT(*) FROM cell WHERE status = 'ok' AND conns_ok = 5")" = 2 ] ||
	fail "cells: $(q "SELECT chain_ocsp_bytes, status, conns_ok, failure_reason FROM cell")"
resp=$(q "SELECT chain_ocsp_bytes FROM cell WHERE chain_ocsp_bytes > 0")
[ -n "$resp" ] && [ "$(q "SELECT COUNT(*) FROM cell WHERE chain_ocsp_bytes = 0")" = 1 ] || fail "chain_ocsp_bytes: $(q "SELECT chain_ocsp_bytes FROM cell")"
d=$(q "SELECT MAX(cert_msg_bytes) - MIN(cert_msg_bytes) FROM cell")
[ "$d" = $((resp + 8)) ] || fail "Certificate message $d bytes longer with the staple, want $resp + 8"
echo "ok: a $resp-byte staple, Certificate +$d bytes"
"$P" report "$TMP/o.db" -o "$TMP/r.html" --csv "$TMP/csv" >"$TMP/report.txt" || { cat "$TMP/report.txt"; fail "report"; }
q "SELECT chain_ocsp_bytes FROM cell WHERE status = 'ok' AND
	COALESCE(host_client_wait_p50_us, 0) + COALESCE(host_server_wait_p50_us, 0) + COALESCE(link_late_p99_us, 1e9) < 10000" >"$TMP/calm"
python3 - "$TMP/csv/agreement.csv" "$TMP/calm" <<'PY' || fail "the model's round trips with and without the staple"
import csv, sys
rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: float(r["pred_handshake_rtts"]))
assert [float(r["pred_handshake_rtts"]) for r in rows] == [2, 3], rows
calm = [l.strip() for l in open(sys.argv[2]) if l.strip()]
judged = 0
for r, staple in zip(rows, ("0", "yes")):
    if (staple == "0" and "0" in calm) or (staple == "yes" and any(c != "0" for c in calm)):
        judged += 1
        assert abs(float(r["meas_handshake_rtts"]) - float(r["pred_handshake_rtts"])) < 0.5, r
assert judged >= 1, "no cell calm enough to judge"
print("judged %d of 2 cells; TCP: 2 round trips without the staple, 3 with" % judged)
PY
echo "ok"
