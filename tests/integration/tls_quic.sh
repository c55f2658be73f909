#!/usr/bin/env bash
# QUIC beside TCP (pqtls serve --quic, pqtls bench --quic, OpenSSL 3.5's QUIC stack):
# the same chain and group over QUIC, the per-connection datagram and amplification
# counts, resumption, Retry, openssl s_client -quic as an independent client, what
# QUIC cannot honour refused by name, and peers that never answer or are not there.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

mldsa=$(chain ml-dsa-65)
ecdsa=$(chain ecdsa-p256)

# 1. bench --quic -> serve --quic with ML-DSA-65 and X25519MLKEM768: a 15 kB chain
# behind a two-Initial ClientHello must pass the 3x budget (7200 B): held, both views.
start_serve q --quic --certs "$mldsa" --groups X25519MLKEM768
"$PQTLS" bench "$ADDR_q" --quic --ca "$mldsa/root.pem" --servername localhost \
	--groups X25519MLKEM768 --response-size 10KiB -n 6 --jsonl "$T/q.jsonl" >"$T/q.txt" ||
	{ cat "$T/q.txt"; fail "bench --quic -> serve --quic"; }
[ "$(json_field "$T/q.jsonl" tls_group | sort -u)" = X25519MLKEM768 ] || fail "group: $(json_field "$T/q.jsonl" tls_group | sort -u)"
[ "$(json_field "$T/q.jsonl" sigalg | sort -u)" = mldsa65 ] || fail "sigalg: $(json_field "$T/q.jsonl" sigalg | sort -u)"
[ "$(json_field "$T/q.jsonl" body_bytes | sort -u)" = 10240 ] || fail "body bytes"
[ "$(json_field "$T/q.jsonl" quic | sort -u)" = 1 ] || fail "records not marked quic"
[ "$(json_field "$T/q.jsonl" connect_us | sort -u)" = null ] || fail "QUIC has no connect phase, got $(json_field "$T/q.jsonl" connect_us | sort -u)"
[ "$(json_field "$T/q.jsonl" quic_amp_held | sort -u)" = 1 ] || fail "ML-DSA-65 over QUIC not held by the amplification limit"
# The ClientHello with an X25519MLKEM768 share (1216 B) spans two Initial datagrams.
for n in $(json_field "$T/q.jsonl" quic_first_dgrams); do [ "$n" -ge 2 ] || fail "first flight of $n datagrams"; done
for b in $(json_field "$T/q.jsonl" quic_rx_bytes); do [ "$b" -gt 7200 ] || fail "server bytes $b before the handshake"; done
grep -q "QUIC amplification limit: .* on 6 of 6 connections" "$T/q.txt" || { cat "$T/q.txt"; fail "bench summary"; }
# openssl s_client -quic (an independent client) against the same server; -ign_eof: it
# ends when the answer has ended (our stream FIN), not when its stdin does.
printf 'GET /bytes/100\r\n' | "$OPENSSL" s_client -quic -alpn hq-interop -connect "$ADDR_q" \
	-servername localhost -CAfile "$mldsa/root.pem" -groups X25519MLKEM768 -verify_return_error -ign_eof \
	-trace >"$T/c.txt" 2>&1 || { tail -30 "$T/c.txt"; fail "s_client -quic -> serve --quic"; }
grep -q "Verify return code: 0 (ok)" "$T/c.txt" || fail "s_client -quic: verification"
grep -q "^ALPN protocol: hq-interop" "$T/c.txt" || fail "s_client -quic: ALPN"
# The group the server chose: the key share of its ServerHello.
awk '/ServerHello/ { s = 1 } s && /NamedGroup:/ { print $2; exit }' "$T/c.txt" | grep -qx X25519MLKEM768 ||
	fail "s_client -quic: the ServerHello's group is not X25519MLKEM768"
grep -q "^Peer signature type: mldsa65" "$T/c.txt" || fail "s_client -quic: signature"
stop_serve q
grep -q "7 requests, 61540 body bytes, 0 errors" "$T/q.out" || { cat "$T/q.out"; fail "serve --quic summary"; }
grep -q "amplification limit held the flight of 7 of 7 handshakes" "$T/q.out" || { cat "$T/q.out"; fail "server's amplification view"; }
pass "bench --quic and s_client -quic -> serve --quic: ML-DSA-65, X25519MLKEM768, held by the 3x limit"

# 2. A small chain (ECDSA, X25519: one Initial each way) fits the budget: not held.
# Resumption works over QUIC; certificate compression too.
start_serve e --quic --certs "$ecdsa" --groups X25519 --cert-compression zlib
"$PQTLS" bench "$ADDR_e" --quic --ca "$ecdsa/root.pem" --servername localhost --groups X25519 \
	--cert-compression zlib --resume 0.5 -n 10 --jsonl "$T/e.jsonl" >"$T/e.txt" ||
	{ cat "$T/e.txt"; fail "bench --quic ecdsa"; }
[ "$(json_field "$T/e.jsonl" quic_amp_held | sort -u)" = 0 ] || fail "ECDSA over QUIC held"
json_field "$T/e.jsonl" resumed | grep -qx 1 || fail "no resumption over QUIC"
grep -q "certificate compressed on" "$T/e.txt" || fail "no certificate compression over QUIC"
stop_serve e
grep -q "held the flight of 0 of" "$T/e.out" || { cat "$T/e.out"; fail "server held an ECDSA flight"; }
pass "QUIC: an ECDSA flight fits 3x; resumption and certificate compression"

# 3. --quic-retry: the server validates first, so nothing is held, and a Retry is seen.
start_serve r --quic --quic-retry --certs "$mldsa"
"$PQTLS" bench "$ADDR_r" --quic --ca "$mldsa/root.pem" --servername localhost -n 3 \
	--jsonl "$T/r.jsonl" >"$T/r.txt" || { cat "$T/r.txt"; fail "bench --quic -> --quic-retry"; }
[ "$(json_field "$T/r.jsonl" quic_retry | sort -u)" = 1 ] || fail "no Retry seen"
[ "$(json_field "$T/r.jsonl" quic_amp_held | sort -u)" = 0 ] || fail "held despite the Retry"
stop_serve r
grep -q "held the flight of 0 of 3" "$T/r.out" || { cat "$T/r.out"; fail "server held after Retry"; }
pass "QUIC Retry: validated up front, not held"

# 4. What QUIC cannot honour, refused by name (usage errors, nothing started).
expect_fail 2 "tls 1.2: QUIC carries TLS 1.3 only" "$PQTLS" serve --quic --certs "$ecdsa" --tls 1.2
expect_fail 2 "flight-one-write is a TCP write rule" "$PQTLS" serve --quic --certs "$ecdsa" --flight-one-write
expect_fail 2 "max-early-data: OpenSSL 3.5's QUIC has no 0-RTT" "$PQTLS" serve --quic --certs "$ecdsa" --max-early-data 16KiB
expect_fail 2 "threads 2: the QUIC server runs one thread" "$PQTLS" serve --quic --certs "$ecdsa" --threads 2
expect_fail 2 "quic-retry is a QUIC setting" "$PQTLS" serve --certs "$ecdsa" --quic-retry
expect_fail 2 "tls 1.2: QUIC carries TLS 1.3 only" "$PQTLS" bench 127.0.0.1:9 --quic --insecure --tls 1.2
expect_fail 2 "early-data: OpenSSL 3.5's QUIC has no 0-RTT" "$PQTLS" bench 127.0.0.1:9 --quic --insecure --early-data
expect_fail 2 "requests-per-conn 2: over QUIC" "$PQTLS" bench 127.0.0.1:9 --quic --insecure --requests-per-conn 2

# 5. A UDP socket that never answers: the handshake ends at --timeout, as over TCP.
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$T/silent.port" &
PIDS+=("$!")
wait_for "$T/silent.port" . 10 || fail "silent UDP peer did not start"
t0=$(date +%s%N)
expect_fail 1 "timed out in the TLS handshake: no progress for 1000 ms" \
	"$PQTLS" bench "127.0.0.1:$(cat "$T/silent.port")" --quic --insecure -n 1 --timeout 1s
# Generous bound (the timeout is 1 s): it ends with its timeout, not OpenSSL's 30 s idle one.
[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 8000 ] || fail "a silent QUIC peer held bench past its timeout"
# Nothing listening: the ICMP port unreachable ends it as refused.
expect_fail 1 "connection refused" "$PQTLS" bench 127.0.0.1:9 --quic --insecure -n 1 --timeout 5s
pass "QUIC: silent and absent peers end as TCP ones do"

# 6. Refusals are heard at once, not at the client's timeout: OpenSSL 3.5 alone sends no
# CONNECTION_CLOSE for a handshake refused on the client's first flight (it has sent the
# connection nothing yet, so it drops the close); pqtls serve holds such a ClientHello
# once, so the Initial is acknowledged first and the TLS alert then leaves as the close.
# Bounds: the timeout is 10 s; an answer takes a loopback round trip, but the process
# starts, makes its key shares and (under ASan, on this shared 2-vCPU machine) runs
# slowly, so 3 s is generous and still far below the timeout.
elapsed_ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
start_serve g --quic --certs "$ecdsa" --groups X25519MLKEM768
t0=$(date +%s%N)
expect_fail 1 "handshake alert from the server: handshake failure (QUIC CONNECTION_CLOSE 0x128" \
	"$PQTLS" bench "$ADDR_g" --quic --ca "$ecdsa/root.pem" --servername localhost --groups X25519 -n 1 --timeout 10s
[ "$(elapsed_ms "$t0")" -lt 3000 ] || fail "no group in common: heard after $(elapsed_ms "$t0") ms"
# openssl s_client -quic, an independent client, hears both refusals as soon.
for opt in "-groups X25519" "-alpn h3"; do
	t0=$(date +%s%N)
	# shellcheck disable=SC2086 # two words each
	timeout 20 "$OPENSSL" s_client -quic -alpn hq-interop $opt -connect "$ADDR_g" -servername localhost \
		</dev/null >"$T/sc.txt" 2>&1 && fail "s_client -quic $opt was not refused"
	[ "$(elapsed_ms "$t0")" -lt 3000 ] || fail "s_client -quic $opt: refused after $(elapsed_ms "$t0") ms"
done
stop_serve g
grep -q "handshake failure reason: no suitable key share: 2" "$T/g.out" || { cat "$T/g.out"; fail "serve's count of group refusals"; }
grep -q "handshake failure reason: no application protocol: 1" "$T/g.out" || { cat "$T/g.out"; fail "serve's count of ALPN refusals"; }
pass "QUIC refusals (no group in common, no ALPN in common) heard at once, with the TLS alert"

# 7. --max-conns over QUIC: a connection past it is refused at once, as over TCP (it used
# to complete its handshake and wait for an answer until its timeout). Two s_client
# connections hold the two places (they send no request, their stdin a FIFO this
# script keeps open); then six more clients.
start_serve m --quic --certs "$ecdsa" --max-conns 2
mkfifo "$T/hold"
exec 3<>"$T/hold"
for h in 1 2; do
	"$OPENSSL" s_client -quic -alpn hq-interop -connect "$ADDR_m" -servername localhost \
		-CAfile "$ecdsa/root.pem" <"$T/hold" >"$T/hold$h.txt" 2>&1 &
	PIDS+=("$!")
	# A completed handshake prints its cipher ("(NONE)" when refused).
	wait_for "$T/hold$h.txt" "Cipher is TLS_" 10 || { cat "$T/hold$h.txt"; fail "holder $h did not connect"; }
done
t0=$(date +%s%N)
expect_fail 1 "server closed the connection early: QUIC APPLICATION_ERROR 0xc before its ServerHello" \
	"$PQTLS" bench "$ADDR_m" --quic --ca "$ecdsa/root.pem" --servername localhost -n 6 -c 6 --timeout 10s \
	--jsonl "$T/over.jsonl"
[ "$(elapsed_ms "$t0")" -lt 3000 ] || fail "over --max-conns: refused after $(elapsed_ms "$t0") ms"
[ "$(json_field "$T/over.jsonl" error_kind | sort | uniq -c | tr -s ' ')" = " 6 closed" ] ||
	fail "over --max-conns: $(json_field "$T/over.jsonl" error_kind | sort | uniq -c)"
stop_serve m
grep -q "refused: over the connection limit: 6" "$T/m.out" || { cat "$T/m.out"; fail "serve's count of refusals"; }
pass "QUIC --max-conns 2: six more clients refused at once, before any ServerHello"
