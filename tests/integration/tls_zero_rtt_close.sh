#!/usr/bin/env bash
# A request that closes the connection (a malformed head answered with 400, or
# "Connection: close") ends it the same way whether it came as 0-RTT early data or after
# the handshake: one response, then the close, and a second request pipelined behind it
# is not answered. openssl s_client is the client (-early_data sends a file as 0-RTT).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

dir=$(chain ecdsa-p256)
start_serve s --certs "$dir" --max-early-data 16KiB --tickets 1 --idle-timeout 2s

# fresh_ticket FILE: a full handshake that saves a 0-RTT-capable ticket in FILE.
fresh_ticket() {
	printf 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
		"$OPENSSL" s_client -connect "$ADDR_s" -sess_out "$1" -ign_eof >/dev/null 2>&1 ||
		fail "s_client could not get a ticket"
}

# responses HOW FILE: the status lines the server sent for FILE's bytes sent as 0-RTT
# data (HOW=early) or after the handshake (HOW=late).
responses() {
	local out=$T/out.$1
	if [ "$1" = early ]; then
		fresh_ticket "$T/sess"
		"$OPENSSL" s_client -connect "$ADDR_s" -sess_in "$T/sess" -early_data "$2" -ign_eof \
			</dev/null >"$out" 2>&1 || true
		grep -q "Early data was accepted" "$out" || { cat "$out"; fail "0-RTT was not accepted"; }
	else
		"$OPENSSL" s_client -connect "$ADDR_s" -ign_eof <"$2" >"$out" 2>&1 || true
	fi
	grep -a '^HTTP/1\.1 [0-9]' "$out" | tr -d '\r' | tr '\n' ' '
}

# The malformed head is followed by more requests than the server reads at once (8 KiB),
# so some of them arrive after its 400 has been written.
{ printf 'BAD\r\n\r\n'; for i in $(seq 400); do printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'; done; } >"$T/bad"
printf 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n' >"$T/close"
for case in bad close; do
	late=$(responses late "$T/$case")
	early=$(responses early "$T/$case")
	want=$([ $case = bad ] && echo "HTTP/1.1 400 Bad Request " || echo "HTTP/1.1 200 OK ")
	[ "$late" = "$want" ] || fail "$case after the handshake: got '$late', want '$want'"
	[ "$early" = "$want" ] || fail "$case as 0-RTT data: got '$early', want '$want' (as after the handshake)"
	pass "$case: one response and a close, as 0-RTT data and after the handshake"
done
