#!/usr/bin/env bash
# Bad input gives a clear message per kind and a non-zero exit, and nothing half-written:
# wrong port, malformed address, a chain the client cannot verify, an unknown group, a
# group the server does not offer, a certificate over --max-cert-list, bad options,
# a missing chain directory. And the server survives garbage, stalls and hang-ups.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

ecdsa=$(chain ecdsa-p256)
mldsa=$(chain ml-dsa-65)
other=$(chain ml-dsa-44) # a different root

# A port nothing listens on: take a free one from a server, then stop it.
start_serve gone --certs "$ecdsa"
stop_serve gone
expect_fail 1 "connection refused" "$PQTLS" bench "$ADDR_gone" --insecure -n 5
expect_fail 2 "HOST:PORT" "$PQTLS" bench 127.0.0.1 --insecure
expect_fail 2 "port '99999'" "$PQTLS" bench 127.0.0.1:99999 --insecure
expect_fail 2 "give --ca FILE" "$PQTLS" bench 127.0.0.1:1
expect_fail 2 "unknown option" "$PQTLS" bench 127.0.0.1:1 --insecure --bogus
expect_fail 2 "--rate" "$PQTLS" bench 127.0.0.1:1 --insecure --rate fast
expect_fail 2 "--max-cert-list: 0 bytes would accept no certificate" "$PQTLS" bench 127.0.0.1:1 --insecure --max-cert-list 0
expect_fail 2 "--servername: the name is empty" "$PQTLS" bench 127.0.0.1:1 --insecure --servername ''
# a compression list longer than a grid point holds: refused by name, before anything runs
long=$(printf 'zlib,%.0s' $(seq 20))
expect_fail 2 "--cert-compression: 'zlib,zlib" "$PQTLS" bench 127.0.0.1:1 --insecure --cert-compression "$long"
expect_fail 2 "--cert-compression: 'zlib,zlib" "$PQTLS" serve --certs "$mldsa" --cert-compression "$long"

start_serve s --certs "$mldsa" --groups X25519MLKEM768:X25519
expect_fail 1 "verification failed: unable to get local issuer certificate" \
	"$PQTLS" bench "$ADDR_s" --ca "$other/root.pem" -n 3 --csv "$T/v.csv"
# The failed run still writes its records, complete: a header and one row per attempt.
[ "$(wc -l <"$T/v.csv")" -ge 2 ] && ! [ -e "$T/v.csv.tmp" ] || fail "verify failure: CSV not complete"
grep -q ",verify,unable to get local issuer certificate," "$T/v.csv" || fail "CSV row lacks the error kind"
expect_fail 1 "bad HTTP response: HTTP status 404" "$PQTLS" bench "$ADDR_s" --insecure --path /nope -n 2
expect_fail 1 "bad HTTP response: HTTP status 413" "$PQTLS" bench "$ADDR_s" --insecure --response-size 1GiB -n 1
expect_fail 1 "warm-up connections failed (server certificate verification failed" \
	"$PQTLS" bench "$ADDR_s" --ca "$other/root.pem" --resume 1 --warmup 3 -n 5
expect_fail 2 "--groups: 'NoSuchGroup'" "$PQTLS" bench "$ADDR_s" --insecure --groups NoSuchGroup
# An empty element is named as such (not "a group this OpenSSL does not know"), and serve
# refuses a bad list as the usage error it is, with the groups OpenSSL knows.
expect_fail 2 "--groups: 'X25519MLKEM768//X25519' has an empty element" \
	"$PQTLS" bench "$ADDR_s" --insecure --groups X25519MLKEM768//X25519
expect_fail 2 "--groups: 'X25519::x448' has an empty element" "$PQTLS" serve --certs "$ecdsa" --groups X25519::x448
expect_fail 2 "--groups: 'bogus' in 'X25519:bogus' is not a group this OpenSSL knows; known: .*X25519MLKEM768" \
	"$PQTLS" serve --certs "$ecdsa" --groups X25519:bogus
# OpenSSL alone would drop the unknown name and offer the rest.
expect_fail 2 "--ciphersuites: 'TLS_AES_128_GCM' in" "$PQTLS" bench "$ADDR_s" --insecure \
	--ciphersuites TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM
expect_fail 1 "handshake alert from the server: handshake failure" \
	"$PQTLS" bench "$ADDR_s" --insecure --groups MLKEM768 -n 3
expect_fail 1 "excessive message size" "$PQTLS" bench "$ADDR_s" --insecure --max-cert-list 10KiB -n 2
# A server that negotiates other than asked is reported loudly (exit 1 unless allowed).
expect_fail 1 "negotiated something other than asked" \
	"$PQTLS" bench "$ADDR_s" --insecure --groups SecP256r1MLKEM768:X25519 -n 2
grep -q "WARNING: 2 connections negotiated a group other than the asked secp256r1mlkem768" "$T/out" ||
	fail "no loud warning on group fallback"
"$PQTLS" bench "$ADDR_s" --insecure --groups SecP256r1MLKEM768:X25519 -n 2 --allow-fallback >/dev/null ||
	fail "--allow-fallback still fails"

# A TLS 1.2-only server: refused by version. (A peer speaking no TLS at all, and one
# that stalls mid-handshake, are in tests/unit/test_load.c, which can play them.)
start_serve t12 --certs "$ecdsa" --tls 1.2
expect_fail 1 "alert" "$PQTLS" bench "$ADDR_t12" --insecure -n 2

expect_fail 2 "--certs DIR is required" "$PQTLS" serve
# bench/handshake-rate.sh refuses its bad arguments before it starts anything.
HR=$LIB_DIR/../../../bench/handshake-rate.sh
expect_fail 2 "SECONDS 'abc' is not a whole number" bash "$HR" abc
expect_fail 2 "ROUNDS '0' is not a whole number" env ROUNDS=0 bash "$HR"
expect_fail 2 "one argument at most" bash "$HR" 1 2
# bench/handshake-rate.sh's helper, built beside pqtls.
INMEM=$(dirname "$PQTLS")/pqtls-inmem
if [ -x "$INMEM" ]; then
	expect_fail 1 "cannot read $T/none/chain.pem" "$INMEM" "$T/none"
	expect_fail 2 "N 'x' is not a positive number" "$INMEM" "$ecdsa" x
	[ "$("$INMEM" "$ecdsa" 3 | cut -d' ' -f3-)" = "X25519MLKEM768 ecdsa_secp256r1_sha256" ] ||
		fail "pqtls-inmem: not a handshake with the default group and the chain's signature"
fi
expect_fail 1 "cannot read $T/none/chain.pem" "$PQTLS" serve --certs "$T/none" --listen 127.0.0.1:0
expect_fail 1 "cannot bind" "$PQTLS" serve --certs "$ecdsa" --listen "$ADDR_s"
expect_fail 1 "--cert-compression: 'lzma'" "$PQTLS" serve --certs "$ecdsa" --listen 127.0.0.1:0 --cert-compression lzma
expect_fail 2 "--tickets" "$PQTLS" serve --certs "$ecdsa" --tickets 99
expect_fail 1 "--ciphersuites: '' names no TLS 1.3 cipher suite" "$PQTLS" serve --certs "$ecdsa" \
	--listen 127.0.0.1:0 --ciphersuites ''

# The server survives clients that send garbage, stall, or hang up mid-handshake.
start_serve r --certs "$ecdsa" --handshake-timeout 1s
host=${ADDR_r%:*} port=${ADDR_r##*:}
# (The server may reset a connection while bash is still writing: that is fine.)
exec 3<>"/dev/tcp/$host/$port"; { printf 'GET / HTTP/1.1\r\n\r\n' >&3; } 2>/dev/null || true
exec 3<&- 3>&-                                                                        # not TLS
exec 4<>"/dev/tcp/$host/$port"                                                       # stalls
exec 5<>"/dev/tcp/$host/$port"; { printf '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03' >&5; } 2>/dev/null || true
exec 5<&- 5>&-                                                                        # half a ClientHello
sleep 2 # past the 1 s handshake timeout
exec 4<&- 4>&-
"$PQTLS" bench "$ADDR_r" --ca "$ecdsa/root.pem" -n 5 >/dev/null || fail "server did not survive bad clients"
# Malformed HTTP after a good handshake gets 400.
printf 'BROKEN\r\n\r\n' | "$OPENSSL" s_client -connect "$ADDR_r" -quiet -ign_eof 2>/dev/null >"$T/400.txt" || true
grep -q "^HTTP/1.1 400 Bad Request" "$T/400.txt" || fail "malformed request did not get 400"
# A request whose lines end in a bare LF gets 400 at once (not the 10 s header timeout:
# s_client's own exit status is not the point, the server's answer within 5 s is).
rc=0
printf 'GET / HTTP/1.1
Host: x

' | timeout 5 "$OPENSSL" s_client -connect "$ADDR_r" -quiet -ign_eof 2>/dev/null >"$T/lf.txt" || rc=$?
grep -q "^HTTP/1.1 400 Bad Request" "$T/lf.txt" || fail "a bare-LF request did not get 400 (s_client exit $rc)"
stop_serve r
grep -q "handshake failed: 1" "$T/r.out" || { cat "$T/r.out"; fail "garbage not counted"; }
grep -q "handshake timeout: 1" "$T/r.out" || { cat "$T/r.out"; fail "stall not counted"; }
grep -q "reset or closed by peer mid-handshake: 1" "$T/r.out" || { cat "$T/r.out"; fail "hang-up not counted"; }
grep -q "bad request (400): 2" "$T/r.out" || { cat "$T/r.out"; fail "400 not counted"; }
grep -q "6 handshakes\|7 handshakes" "$T/r.out" || { cat "$T/r.out"; fail "good handshakes not counted"; }
pass "server survived garbage, a stall and a hang-up, and counted each"
