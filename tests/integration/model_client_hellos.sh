#!/usr/bin/env bash
# The client's flight: pqtls model --client-hellos (each key-share choice's ClientHello,
# its segments, the MTU below which it splits, the HRR a wrong guess draws), the same rows
# in pqtls certs' manifest, and the HRR round trip in the model's prediction.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

"$PQTLS" model --client-hellos --json >"$T/h.json" || fail "model --client-hellos --json"
"$PQTLS" model --client-hellos --mss 1200 --json >"$T/h1200.json" || fail "model --client-hellos --mss 1200"
python3 - "$T/h.json" "$T/h1200.json" <<'PY' || fail "client hellos"
import json, sys
rows = {r["choice"]: r for r in json.load(open(sys.argv[1]))}
small = {r["choice"]: r for r in json.load(open(sys.argv[2]))}
assert len(rows) == 8, rows.keys()
for r in rows.values():
    assert r["one_segment_min_mtu"] == r["client_hello_bytes"] + 52, r
    assert r["hrr"] == (r["choice"] == "wrong guess"), r
assert rows["classical"]["client_hello_bytes"] < 300 < rows["right guess"]["client_hello_bytes"]
assert rows["both shares"]["client_hello_bytes"] == rows["right guess"]["client_hello_bytes"] + 36
w = rows["wrong guess"]
assert w["client_hello_bytes"] < 300 and w["client_hello2_bytes"] > rows["right guess"]["client_hello_bytes"], w
assert w["negotiated"] == "X25519MLKEM768", w
# at MSS 1200 every post-quantum ClientHello splits, the classical one does not
assert small["classical"]["segments"] == 1 and small["right guess"]["segments"] == 2, small
PY
pass "model --client-hellos: bytes, segments, the MTU each choice splits below, the wrong guess's HRR"

"$PQTLS" model --client-hellos >"$T/h.txt"
grep -qE "^wrong guess +X25519MLKEM768:X25519 +X25519 .*HelloRetryRequest, then [0-9]+ bytes \(\+1 RTT\)$" "$T/h.txt" ||
	{ cat "$T/h.txt"; fail "the table's wrong-guess row"; }

dir=$T/ec
"$PQTLS" certs --sig ecdsa-p256 --out "$dir" >"$T/certs.txt" || fail "certs --out"
grep -q "^client first flight per key-share choice" "$T/certs.txt" || { cat "$T/certs.txt"; fail "certs: no client table"; }
python3 -c "
import json
m = json.load(open('$dir/manifest.json'))
assert len(m['client_hellos']) == 8 and m['tls13']['flights'], m.keys()
assert not [f for f in __import__('os').listdir('$dir') if f.endswith('.tmp')]" || fail "manifest.json client_hellos"
"$PQTLS" certs --inspect "$dir/chain.pem" --json | python3 -c "
import json, sys
assert len(json.load(sys.stdin)['client_hellos']) == 8" || fail "certs --json client_hellos"
pass "pqtls certs: the client's flight in the table, --json and manifest.json"

# The prediction: a wrong guess against a server that prefers the hybrid costs one round trip.
m() { "$PQTLS" model --sig ecdsa-p256 --groups X25519MLKEM768:X25519 --server-groups X25519MLKEM768/X25519 --json "$@"; }
m --key-share X25519MLKEM768 >"$T/right.json" || fail "model, right guess"
m --key-share X25519 >"$T/wrong.json" || fail "model, wrong guess"
m --key-share X25519MLKEM768:X25519 >"$T/both.json" || fail "model, both shares"
python3 - "$T/right.json" "$T/wrong.json" "$T/both.json" <<'PY' || fail "model HRR"
import json, sys
right, wrong, both = (json.load(open(f)) for f in sys.argv[1:])
assert not right["hrr"] and wrong["hrr"] and not both["hrr"], (right["hrr"], wrong["hrr"], both["hrr"])
assert wrong["prediction"]["handshake_rtts"] == right["prediction"]["handshake_rtts"] + 1
assert wrong["prediction"]["hrr_rtts"] == 1 and right["prediction"]["hrr_rtts"] == 0
assert both["prediction"]["handshake_rtts"] == right["prediction"]["handshake_rtts"]
assert both["client_hello_bytes"] == right["client_hello_bytes"] + 36
assert wrong["group"] == "X25519MLKEM768"
PY
pass "model: the wrong guess is one round trip more, both shares none"

expect_fail 2 "the key share 'MLKEM768' is not among the groups offered" \
	"$PQTLS" model --groups X25519MLKEM768:X25519 --key-share MLKEM768
expect_fail 2 "give --groups too" "$PQTLS" model --key-share X25519
expect_fail 1 "client groups \*X25519, server groups MLKEM768" "$PQTLS" model --groups X25519 --server-groups MLKEM768
