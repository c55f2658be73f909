#!/usr/bin/env bash
# pqtls bench --quic against an independent QUIC server: ngtcp2's HTTP/3 server
# (Debian 12's ngtcp2-server, GnuTLS underneath), so the client speaks HTTP/3 through
# nghttp3 (--http3). GnuTLS 3.7 has neither ML-KEM nor ML-DSA: the chain is ECDSA P-256
# and the group X25519. Also: an HTTP/3 client refused by pqtls serve --quic
# (hq-interop only) ends with the server's alert in words, and --http3 needs --quic.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
GTLS=${GTLSSERVER:-$(command -v gtlsserver || echo /usr/sbin/gtlsserver)}
[ -x "$GTLS" ] || { echo "skip: needs ngtcp2-server (gtlsserver; scripts/deps.sh installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: needs python3 to pick a free UDP port"; exit 77; }

dir=$(chain ecdsa-p256)
mkdir -p "$T/htdocs/bytes"
head -c 1000 /dev/zero >"$T/htdocs/bytes/1000"
# gtlsserver takes a port, not 0: a free one, from the kernel.
port=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$GTLS" -q 127.0.0.1 "$port" "$dir/leaf.key" "$dir/chain.pem" -d "$T/htdocs" >"$T/g.out" 2>&1 &
PIDS+=("$!")
# Ready once its UDP socket is bound (ss lists it).
for ((i = 0; i < 200; i++)); do
	ss -Hlun "sport = :$port" | grep -q . && break
	sleep 0.05
done
ss -Hlun "sport = :$port" | grep -q . || { cat "$T/g.out"; fail "gtlsserver did not bind"; }

"$PQTLS" bench "127.0.0.1:$port" --quic --http3 --ca "$dir/root.pem" --servername localhost \
	--groups X25519 --path /bytes/1000 -n 4 --jsonl "$T/h3.jsonl" >"$T/h3.txt" 2>&1 ||
	{ cat "$T/h3.txt" "$T/g.out"; fail "bench --quic --http3 -> ngtcp2's gtlsserver"; }
[ "$(json_field "$T/h3.jsonl" http_status | sort -u)" = 200 ] || fail "HTTP/3 :status $(json_field "$T/h3.jsonl" http_status | sort -u)"
[ "$(json_field "$T/h3.jsonl" body_bytes | sort -u)" = 1000 ] || fail "HTTP/3 body bytes"
[ "$(json_field "$T/h3.jsonl" tls_group | sort -u | tr '[:upper:]' '[:lower:]')" = x25519 ] || fail "group"
[ "$(json_field "$T/h3.jsonl" sigalg | sort -u)" = ecdsa_secp256r1_sha256 ] || fail "sigalg"
[ "$(json_field "$T/h3.jsonl" quic_first_dgrams | sort -u)" -ge 1 ] || fail "no first flight counted"
# A path the server does not have: its :status, not a transport failure.
"$PQTLS" bench "127.0.0.1:$port" --quic --http3 --ca "$dir/root.pem" --servername localhost \
	--path /nothing -n 1 --jsonl "$T/404.jsonl" >"$T/404.txt" 2>&1 && fail "a 404 counted as success"
[ "$(json_field "$T/404.jsonl" http_status)" = 404 ] || { cat "$T/404.txt"; fail "404 not recorded"; }
pass "bench --quic --http3 -> ngtcp2's HTTP/3 server (GnuTLS): X25519, ECDSA, :status 200 and 404"

# The server refuses the h3 client by ALPN (it speaks hq-interop), and the client hears
# it: the server's CONNECTION_CLOSE with the TLS alert no_application_protocol (0x178),
# not its --timeout (tls_quic.sh, 6: OpenSSL 3.5's server would send no close at all).
start_serve q --quic --certs "$dir"
expect_fail 1 "handshake alert from the server: no application protocol (QUIC CONNECTION_CLOSE 0x178" \
	"$PQTLS" bench "$ADDR_q" --quic --http3 --ca "$dir/root.pem" --servername localhost -n 1 --timeout 10s
stop_serve q
grep -q "handshake failure reason: no application protocol: 1" "$T/q.out" || { cat "$T/q.out"; fail "serve did not count the ALPN refusal"; }
expect_fail 2 "http3 is HTTP/3 over QUIC: give --quic too" "$PQTLS" bench "$ADDR_q" --http3 --insecure
