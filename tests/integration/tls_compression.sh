#!/usr/bin/env bash
# Certificate compression (RFC 8879): negotiated with every algorithm, both with pqtls
# serve and openssl s_server, and its byte saving shows in the records: about a quarter
# for an ECDSA chain, little for an ML-DSA one (random keys and signatures).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

num() { json_field "$1" "$2" | head -1; }
for kind in ecdsa-p256 ml-dsa-65; do
	dir=$(chain "$kind")
	start_serve s --certs "$dir" --cert-compression zlib,brotli,zstd
	"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 5 --json >"$T/plain.json"
	[ "$(num "$T/plain.json" cert_compressed)" = 0 ] || fail "$kind: compressed without asking"
	plain=$(num "$T/plain.json" rx_certificate_bytes)
	for alg in zlib brotli zstd; do
		"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 5 --cert-compression "$alg" \
			--jsonl "$T/c.jsonl" --json >"$T/c.json"
		[ "$(num "$T/c.json" cert_compressed)" = 5 ] || fail "$kind $alg: not compressed"
		[ "$(json_field "$T/c.jsonl" rx_certificate_bytes | sort -u)" = 0 ] || fail "$kind $alg: a plain Certificate too"
		comp=$(num "$T/c.json" rx_certificate_bytes)
		ratio=$(awk -v c="$comp" -v p="$plain" 'BEGIN { printf "%.3f", c / p }')
		case $kind in
		ecdsa-p256) awk -v r="$ratio" 'BEGIN { exit !(r < 0.9) }' || fail "$kind $alg: ratio $ratio, want a saving" ;;
		ml-dsa-65) awk -v r="$ratio" 'BEGIN { exit !(r > 0.9 && r < 1.01) }' || fail "$kind $alg: ratio $ratio" ;;
		esac
		pass "$kind $alg: certificate message $comp B vs $plain B (ratio $ratio)"
	done
	stop_serve s
	# shellcheck disable=SC2046
	start_s_server o $(s_server_certs "$dir") -www -cert_comp
	"$PQTLS" bench "$ADDR_o" --ca "$dir/root.pem" -n 3 --cert-compression zstd --json >"$T/o.json"
	kill "$PID_o"
	case $kind in
	ecdsa-p256)
		[ "$(num "$T/o.json" cert_compressed)" = 3 ] || fail "$kind: s_server -cert_comp did not compress"
		theirs=$(num "$T/o.json" rx_certificate_bytes)
		[ "$theirs" = "$comp" ] || fail "$kind zstd: s_server sends $theirs B, pqtls serve $comp B"
		pass "$kind: openssl s_server -cert_comp sends the same $theirs B zstd chain as pqtls serve" ;;
	*)
		# OpenSSL 3.5's own pre-compression skips provider keys ("Error compressing
		# certs on ctx"): s_server sends ML-DSA chains uncompressed. pqtls serve does not.
		[ "$(num "$T/o.json" cert_compressed)" = 0 ] || fail "$kind: s_server compressed (OpenSSL changed?)"
		pass "$kind: openssl s_server -cert_comp cannot compress it (OpenSSL 3.5 limitation)" ;;
	esac
done

# Off on the server: the client asks, nothing is compressed.
dir=$(chain ecdsa-p256)
start_serve off --certs "$dir"
"$PQTLS" bench "$ADDR_off" --ca "$dir/root.pem" -n 3 --cert-compression zlib --json >"$T/off.json"
[ "$(num "$T/off.json" cert_compressed)" = 0 ] || fail "serve --cert-compression off still compressed"
pass "serve --cert-compression off: not compressed"
