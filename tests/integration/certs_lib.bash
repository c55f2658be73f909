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
