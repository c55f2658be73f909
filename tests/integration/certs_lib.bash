# Helpers for the certs_*.sh integration tests (sourced; not a test itself).
: "${PQTLS:?PQTLS must name the pqtls binary}" "${OPENSSL:?OPENSSL must name the openssl 3.5 CLI}"

T=$(mktemp -d /tmp/pqtls-certs-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
export PQTLS_CACHE="$T/cache" PQTLS_PROGRESS=0

fail() { echo "FAIL: $*" >&2; exit 1; }

# verify DIR: the chain verifies with the OpenSSL CLI, the way the issue states it.
verify() {
	local dir=$1 n
	n=$(grep -c 'BEGIN CERTIFICATE' "$dir/chain.pem")
	awk -v d="$dir" '/BEGIN CERT/{i++} {print > (d "/.c" i ".pem")}' "$dir/chain.pem"
	if [ "$n" -gt 1 ]; then
		cat $(seq -f "$dir/.c%g.pem" 2 "$n") > "$dir/.untrusted.pem"
		"$OPENSSL" verify -CAfile "$dir/root.pem" -untrusted "$dir/.untrusted.pem" "$dir/.c1.pem" >/dev/null ||
			fail "openssl verify rejects $dir"
	else
		"$OPENSSL" verify -CAfile "$dir/root.pem" "$dir/.c1.pem" >/dev/null || fail "openssl verify rejects $dir"
	fi
}

# der_sum DIR: DER bytes of everything in chain.pem, measured by the OpenSSL CLI.
der_sum() {
	local dir=$1 sum=0 f
	awk -v d="$dir" '/BEGIN CERT/{i++} {print > (d "/.d" i ".pem")}' "$dir/chain.pem"
	for f in "$dir"/.d*.pem; do
		sum=$((sum + $("$OPENSSL" x509 -in "$f" -outform DER | wc -c)))
	done
	rm -f "$dir"/.d*.pem
	echo "$sum"
}

# leaf_der DIR: DER bytes of the leaf.
leaf_der() { "$OPENSSL" x509 -in "$1/chain.pem" -outform DER | wc -c; }

# serve_dir DIR [serve options]: a pqtls server of DIR on 127.0.0.1 (no tickets, the
# hybrid group) for 20 s; its address in $T/addr, its log in $T/srv.log, its pid in $SP.
serve_dir() {
	local dir=$1
	shift
	rm -f "$T/addr"
	"$PQTLS" serve --certs "$dir" --tickets 0 --groups X25519MLKEM768 --listen 127.0.0.1:0 \
		--duration 20s --ready-file "$T/addr" "$@" > "$T/srv.log" 2>&1 &
	SP=$!
	for _ in $(seq 100); do [ -s "$T/addr" ] && break; sleep 0.1; done
	[ -s "$T/addr" ] || fail "serve did not start: $(cat "$T/srv.log")"
}
# stop_server: ends the server serve_dir started.
stop_server() { kill "$SP" 2>/dev/null || true; wait "$SP" 2>/dev/null || true; SP=; }
# bench_rx CA [bench options]: three handshakes with the server at $T/addr; prints
# "RX CERT", the handshake bytes a connection received and its Certificate message's.
bench_rx() {
	local ca=$1 rx
	shift
	"$PQTLS" bench "$(cat "$T/addr")" --ca "$ca" --groups X25519MLKEM768 -n 3 "$@" > "$T/bench.txt" 2>&1 ||
		fail "bench --ca $ca $*: $(tail -3 "$T/bench.txt")"
	rx=$(sed -n 's/.*handshake rx \([0-9]*\) (certificate \([0-9]*\)).*/\1 \2/p' "$T/bench.txt")
	[ -n "$rx" ] || fail "bench printed no handshake bytes: $(cat "$T/bench.txt")"
	echo "$rx"
}
