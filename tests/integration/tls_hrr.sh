#!/usr/bin/env bash
# pqtls bench records each ClientHello per connection: a client that offers
# X25519MLKEM768 but shares only X25519 draws a HelloRetryRequest from openssl s_server
# (whose default list puts the hybrid in a tuple of its own), and its records hold both
# ClientHellos' bytes and segments; the right guess holds one.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

dir=$(chain ecdsa-p256)
# shellcheck disable=SC2046
start_s_server s $(s_server_certs "$dir") -www
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 3 --requests-per-conn 0 --groups 'X25519MLKEM768:*X25519' \
	--jsonl "$T/wrong.jsonl" >"$T/wrong.txt" || { cat "$T/wrong.txt"; fail "bench, wrong guess"; }
grep -q "HelloRetryRequest: 3 connections" "$T/wrong.txt" || { cat "$T/wrong.txt"; fail "summary lacks the HRRs"; }
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 3 --requests-per-conn 0 --groups '*X25519MLKEM768:X25519' \
	--jsonl "$T/right.jsonl" >"$T/right.txt" || { cat "$T/right.txt"; fail "bench, right guess"; }
python3 - "$T/wrong.jsonl" "$T/right.jsonl" <<'PY' || fail "per-connection ClientHellos"
import json, sys
wrong = [json.loads(l) for l in open(sys.argv[1])]
right = [json.loads(l) for l in open(sys.argv[2])]
assert len(wrong) == 3 and len(right) == 3
for r in wrong:
    assert r["hrr"] == 1 and r["tls_group"] == "X25519MLKEM768", r
    # an X25519 share (32 bytes) first, then the hybrid's (1216): the second is bigger
    assert 0 < r["ch1_bytes"] < r["ch2_bytes"], r
    assert r["ch1_bytes"] + r["ch2_bytes"] == r["tx_client_hello_bytes"], r
    assert r["ch1_segs"] == 1 and r["ch2_segs"] == 1, r  # loopback: one segment each
for r in right:
    assert r["hrr"] == 0 and r["tls_group"] == "X25519MLKEM768", r
    assert r["ch1_bytes"] == r["tx_client_hello_bytes"] > 1216 and r["ch2_bytes"] == 0, r
    assert r["ch1_segs"] == 1 and r["ch2_segs"] == 0, r
# the right guess's one ClientHello is the wrong guess's second, give or take the cookie-free retry
assert abs(right[0]["ch1_bytes"] - wrong[0]["ch2_bytes"]) < 64, (right[0], wrong[0])
PY
pass "a wrong key-share guess: one HRR per connection, both ClientHellos recorded; the right guess: one"
