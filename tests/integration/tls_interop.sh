#!/usr/bin/env bash
# Interop both ways with the OpenSSL 3.5 command-line tools, for every chain kind and
# the four key exchange groups: pqtls bench -> openssl s_server and openssl s_client ->
# pqtls serve, asserting the negotiated group and signature algorithm each time.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

KINDS="ecdsa-p256 rsa-2048 ml-dsa-44 ml-dsa-65 ml-dsa-87 slh-128s"
GROUPS_ALL="X25519:X25519MLKEM768:SecP256r1MLKEM768:MLKEM768"
lower() { tr '[:upper:]' '[:lower:]'; }

for kind in $KINDS; do
	dir=$(chain "$kind")
	want_sig=$(sigalg_of "$kind")

	# pqtls bench -> openssl s_server (which needs -groups for the non-default ones).
	# shellcheck disable=SC2046
	start_s_server s $(s_server_certs "$dir") -groups "$GROUPS_ALL" -www
	for g in ${GROUPS_ALL//:/ }; do
		"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" --groups "$g" -n 2 --jsonl "$T/b.jsonl" >"$T/b.txt" \
			|| { cat "$T/b.txt"; fail "bench -> s_server $kind $g"; }
		got_g=$(json_field "$T/b.jsonl" tls_group | sort -u)
		got_s=$(json_field "$T/b.jsonl" sigalg | sort -u)
		[ "$(echo "$got_g" | lower)" = "$(echo "$g" | lower)" ] || fail "bench -> s_server $kind: group '$got_g', want $g"
		[ "$got_s" = "$want_sig" ] || fail "bench -> s_server $kind $g: sigalg '$got_s', want $want_sig"
		[ "$(json_field "$T/b.jsonl" http_status | sort -u)" = 200 ] || fail "bench -> s_server $kind $g: HTTP status"
	done
	kill "$PID_s"
	pass "pqtls bench -> openssl s_server: $kind with $GROUPS_ALL"

	# openssl s_client -> pqtls serve.
	start_serve p --certs "$dir" --groups "$GROUPS_ALL"
	for g in ${GROUPS_ALL//:/ }; do
		printf 'GET /bytes/100 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' |
			"$OPENSSL" s_client -connect "$ADDR_p" -groups "$g" -CAfile "$dir/root.pem" \
				-verify_return_error -ign_eof >"$T/c.txt" 2>&1 ||
			{ cat "$T/c.txt"; fail "s_client -> serve $kind $g"; }
		# s_client names a classical group as the "Peer Temp Key", a KEM one as the group.
		grep -qiE "^(Negotiated TLS1.3 group: $g|Peer Temp Key: $g,.*)\$" "$T/c.txt" ||
			fail "s_client -> serve $kind: group is not $g"
		grep -q "^Peer signature type: $want_sig\$" "$T/c.txt" || fail "s_client -> serve $kind $g: signature is not $want_sig"
		grep -q "Verify return code: 0 (ok)" "$T/c.txt" || fail "s_client -> serve $kind $g: verification"
		grep -q "^HTTP/1.1 200 OK" "$T/c.txt" || fail "s_client -> serve $kind $g: no HTTP 200"
	done
	stop_serve p
	for g in ${GROUPS_ALL//:/ }; do
		grep -qi "group $g .*signature $want_sig .* full   : 1\$" "$T/p.out" ||
			{ cat "$T/p.out"; fail "serve summary lacks $kind $g"; }
	done
	pass "openssl s_client -> pqtls serve: $kind with $GROUPS_ALL"
done

# TLS 1.2 on request, both ways (ECDSA, X25519).
dir=$(chain ecdsa-p256)
start_serve p12 --certs "$dir" --tls 1.2
"$OPENSSL" s_client -connect "$ADDR_p12" -tls1_2 -CAfile "$dir/root.pem" -verify_return_error </dev/null >"$T/c12.txt" 2>&1 ||
	{ cat "$T/c12.txt"; fail "s_client -tls1_2 -> serve --tls 1.2"; }
grep -q "Protocol: TLSv1.2" "$T/c12.txt" || grep -q "Protocol  : TLSv1.2" "$T/c12.txt" || fail "not TLS 1.2"
"$PQTLS" bench "$ADDR_p12" --tls 1.2 --ca "$dir/root.pem" -n 3 --jsonl "$T/b12.jsonl" >/dev/null || fail "bench --tls 1.2"
[ "$(json_field "$T/b12.jsonl" tls_version | sort -u)" = TLSv1.2 ] || fail "bench --tls 1.2 negotiated $(json_field "$T/b12.jsonl" tls_version)"
pass "TLS 1.2 on request, both ways"

# TLS 1.3 cipher suites: the client's offer is recorded as negotiated, and a server's
# --ciphersuites is its preference (s_client offers AES-256 first; the server picks
# AES-128).
dir=$(chain ecdsa-p256)
# shellcheck disable=SC2046
start_s_server cs $(s_server_certs "$dir") -www
"$PQTLS" bench "$ADDR_cs" --ca "$dir/root.pem" --ciphersuites TLS_CHACHA20_POLY1305_SHA256 -n 2 \
	--jsonl "$T/cs.jsonl" >"$T/cs.txt" || { cat "$T/cs.txt"; fail "bench --ciphersuites"; }
[ "$(json_field "$T/cs.jsonl" cipher | sort -u)" = TLS_CHACHA20_POLY1305_SHA256 ] ||
	fail "bench --ciphersuites: cipher '$(json_field "$T/cs.jsonl" cipher | sort -u)'"
grep -q "negotiated TLSv1.3 .* TLS_CHACHA20_POLY1305_SHA256 full: 2" "$T/cs.txt" || { cat "$T/cs.txt"; fail "summary lacks the cipher"; }
kill "$PID_cs"
start_serve pc --certs "$dir" --ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384
"$OPENSSL" s_client -connect "$ADDR_pc" -CAfile "$dir/root.pem" -verify_return_error \
	-ciphersuites TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256 </dev/null >"$T/pc.txt" 2>&1 ||
	{ cat "$T/pc.txt"; fail "s_client -> serve --ciphersuites"; }
grep -q "Cipher is TLS_AES_128_GCM_SHA256" "$T/pc.txt" || { grep -i cipher "$T/pc.txt"; fail "serve --ciphersuites: not its preference"; }
"$OPENSSL" s_client -connect "$ADDR_pc" -ciphersuites TLS_CHACHA20_POLY1305_SHA256 </dev/null >"$T/pc2.txt" 2>&1 &&
	fail "serve --ciphersuites accepted a suite it does not allow"
stop_serve pc
pass "TLS 1.3 cipher suites: recorded by bench, the server's preference honoured"

# HelloRetryRequest: the server's first tuple is a group the client supports but sent no
# key share for; the record says so, and the fallback warning is allowed here.
dir=$(chain ecdsa-p256)
start_serve h --certs "$dir" --groups 'X25519MLKEM768/X25519'
"$PQTLS" bench "$ADDR_h" --ca "$dir/root.pem" --groups X25519:X25519MLKEM768 --allow-fallback -n 3 \
	--jsonl "$T/h.jsonl" >"$T/h.txt" || { cat "$T/h.txt"; fail "bench with HRR"; }
[ "$(json_field "$T/h.jsonl" hrr | sort -u)" = 1 ] || fail "no HelloRetryRequest recorded"
[ "$(json_field "$T/h.jsonl" tls_group | sort -u)" = X25519MLKEM768 ] || fail "HRR: group not X25519MLKEM768"
grep -q "HelloRetryRequest: 3 connections" "$T/h.txt" || fail "HRR not in the table"
pass "HelloRetryRequest recorded (3/3)"

# Key logs from both ends, a 16 MiB body, and the progress line on request.
start_serve k --certs "$dir" --keylog "$T/server.keys"
"$PQTLS" bench "$ADDR_k" --ca "$dir/root.pem" --keylog "$T/client.keys" -n 2 \
	--response-size 16MiB --jsonl "$T/k.jsonl" >/dev/null || fail "bench --response-size 16MiB"
PQTLS_PROGRESS=1 "$PQTLS" bench "$ADDR_k" --ca "$dir/root.pem" -d 1500ms --requests-per-conn 0 \
	>/dev/null 2>"$T/k.err" || fail "bench -d 1500ms"
[ "$(json_field "$T/k.jsonl" body_bytes | sort -u)" = 16777216 ] || fail "16 MiB body not received"
grep -q "measuring" "$T/k.err" || fail "no progress line with PQTLS_PROGRESS=1"
for side in server client; do
	grep -q "^CLIENT_HANDSHAKE_TRAFFIC_SECRET " "$T/$side.keys" || fail "no $side key log"
done
pass "key logs, 16 MiB responses, progress line"
