#!/usr/bin/env bash
# Chains up to what TLS allows: an ML-DSA-65 leaf under SLH-DSA-SHA2-256f CAs makes a
# Certificate message over OpenSSL's 100 KiB receive cap. pqtls bench raises the cap by
# default (and says so); --max-cert-list 100KiB keeps OpenSSL's and then fails, by name.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

dir=$(chain slh-256f)
start_serve s --certs "$dir"
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 2 --jsonl "$T/b.jsonl" >"$T/b.txt" || { cat "$T/b.txt"; fail "big chain"; }
grep -q "accepting Certificate messages up to 16.0 MiB" "$T/b.txt" || fail "the raised cap is not announced"
cert=$(json_field "$T/b.jsonl" rx_certificate_bytes | sort -u)
[ "$cert" -gt 102400 ] || fail "Certificate message $cert B is not over 100 KiB"
pass "a $cert B Certificate message is accepted by default"

rc=0
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 2 --max-cert-list 100KiB >"$T/c.txt" 2>"$T/c.err" || rc=$?
[ "$rc" = 1 ] || fail "--max-cert-list 100KiB exited $rc"
grep -q "excessive message size (a certificate over --max-cert-list?)" "$T/c.err" || { cat "$T/c.err"; fail "no clear message"; }
grep -q "accepting Certificate messages" "$T/c.txt" && fail "announces a raised cap it did not raise"
pass "--max-cert-list 100KiB: $(cat "$T/c.err")"
