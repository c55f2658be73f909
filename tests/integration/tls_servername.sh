#!/usr/bin/env bash
# --servername: a server reached by an address its certificate does not name (as across
# 'pqtls link', where the server is 10.77.0.2 and the certificate says localhost) is
# verified against the given name, which also goes out as SNI and in the Host header.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

mldsa=$(chain ml-dsa-65)
start_serve s --certs "$mldsa"
port=${ADDR_s##*:}

# The leaf names localhost (and 127.0.0.1, ::1). Verified by name, reached by address:
"$PQTLS" bench "127.0.0.1:$port" --ca "$mldsa/root.pem" --servername localhost -n 3 \
	--jsonl "$T/ok.jsonl" >"$T/out" 2>&1 || { cat "$T/out"; fail "--servername localhost did not verify"; }
[ "$(grep -c '"error_kind":"ok"' "$T/ok.jsonl")" = 3 ] || fail "3 verified connections expected"
pass "--servername localhost verifies a server reached as 127.0.0.1"

# A name the certificate does not carry must fail verification, not pass silently.
rc=0
"$PQTLS" bench "127.0.0.1:$port" --ca "$mldsa/root.pem" --servername wrong.example -n 1 \
	>"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] || { cat "$T/out" "$T/err"; fail "--servername wrong.example exited $rc, want 1"; }
grep -q "verification failed: hostname mismatch" "$T/err" || { cat "$T/err"; fail "no hostname mismatch message"; }
pass "--servername wrong.example: $(head -1 "$T/err")"
echo ok
