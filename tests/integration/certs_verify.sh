#!/usr/bin/env bash
# Every algorithm (and the SLH-DSA 128 sets as CAs) gives a chain OpenSSL verify accepts.
set -euo pipefail
. "$(dirname "$0")/certs_lib.bash"

for alg in ecdsa-p256 ecdsa-p384 ed25519 rsa-2048 rsa-3072 rsa-4096 ml-dsa-44 ml-dsa-65 ml-dsa-87 \
	p256-ml-dsa-44 rsa3072-ml-dsa-44 p384-ml-dsa-65 p521-ml-dsa-87; do
	"$PQTLS" certs --sig "$alg" --intermediates 1 --out "$T/$alg" > "$T/$alg.txt"
	verify "$T/$alg"
	[ "$(grep -c 'BEGIN CERTIFICATE' "$T/$alg/chain.pem")" = 2 ] || fail "$alg: chain.pem should hold leaf + 1 intermediate"
	grep -q "chain.pem DER bytes: *$(der_sum "$T/$alg") " "$T/$alg.txt" || fail "$alg: table DER sum differs from openssl's"
	grep -q 'PRIVATE KEY' "$T/$alg/leaf.key" || fail "$alg: no leaf.key"
done
grep -q 'SIZE EMULATION' "$T/p256-ml-dsa-44.txt" || fail "composite not named as an emulation"

# Mixed levels, 0 and 4 intermediates.
"$PQTLS" certs --root rsa-3072 --intermediate ecdsa-p384 --leaf ed25519 --intermediates 4 --out "$T/mixed4" >/dev/null
verify "$T/mixed4"
[ "$(grep -c 'BEGIN CERTIFICATE' "$T/mixed4/chain.pem")" = 5 ] || fail "4 intermediates: chain.pem should hold 5"
"$PQTLS" certs --sig ml-dsa-44 --intermediates 0 --out "$T/zero" >/dev/null
verify "$T/zero"

# SLH-DSA as root and intermediate under an ML-DSA leaf (the 128 sets; all twelve in certs_slh_all.sh).
for set in sha2-128s sha2-128f shake-128s shake-128f; do
	"$PQTLS" certs --root "slh-dsa-$set" --intermediate "slh-dsa-$set" --leaf ml-dsa-44 --out "$T/$set" > "$T/$set.txt"
	verify "$T/$set"
	grep -q "SLH-DSA" "$T/$set.txt" || fail "$set: table does not name SLH-DSA"
done
echo "ok: all algorithms verify"
