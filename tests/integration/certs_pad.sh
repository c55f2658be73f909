#!/usr/bin/env bash
# Exact padding through the CLI, measured by the OpenSSL CLI, and the chains still verify.
set -euo pipefail
. "$(dirname "$0")/certs_lib.bash"

check_chain() { # alg ints target
	local d="$T/c-$1-$2-$3"
	"$PQTLS" certs --sig "$1" --intermediates "$2" --pad-chain-to "$3" --out "$d" >/dev/null
	[ "$(der_sum "$d")" = "$3" ] || fail "--pad-chain-to $3 ($1, $2 int): got $(der_sum "$d")"
	verify "$d"
	rm -rf "$d"
}
check_leaf() { # alg target
	local d="$T/l-$1-$2"
	"$PQTLS" certs --sig "$1" --pad-leaf-to "$2" --out "$d" >/dev/null
	[ "$(leaf_der "$d")" = "$2" ] || fail "--pad-leaf-to $2 ($1): got $(leaf_der "$d")"
	verify "$d"
	rm -rf "$d"
}

# ECDSA: 1, 8 and 120 KiB; sizes around 128/256/65536 bytes of pad over a natural chain.
"$PQTLS" certs --sig ecdsa-p256 --intermediates 1 --out "$T/nat" >/dev/null
nat=$(der_sum "$T/nat")
# ECDSA signatures vary by a byte or two per signing, so stay a few bytes above natural.
for t in $((nat + 10)) $((nat + 12)) $((nat + 25)) 1024 8192 122880 \
	$((nat + 18 + 126)) $((nat + 18 + 127)) $((nat + 18 + 128)) $((nat + 18 + 129)) \
	$((nat + 18 + 254)) $((nat + 18 + 255)) $((nat + 18 + 256)) $((nat + 18 + 257)) \
	$((nat + 18 + 65534)) $((nat + 18 + 65535)) $((nat + 18 + 65536)) $((nat + 18 + 65537)); do
	check_chain ecdsa-p256 1 "$t"
done
for t in 4100 5000 20000 65536 70000; do check_leaf ml-dsa-44 "$t"; done
check_chain ml-dsa-65 2 20000
check_chain ed25519 0 3000
check_chain rsa-2048 4 50000

# A leaf share that DER cannot encode (an Ed25519 leaf around a 65,540-byte TBS is 65,619
# bytes, which cannot exist): the leaf's issuer takes a few bytes more instead.
"$PQTLS" certs --sig ed25519 --out "$T/ed" >/dev/null
int=$(( $(der_sum "$T/ed") - $(leaf_der "$T/ed") ))
check_chain ed25519 1 $((int + 65619))
if "$PQTLS" certs --sig ed25519 --intermediates 0 --pad-chain-to 65619 --out "$T/gap" 2> "$T/gap.err"; then
	fail "a 65,619-byte Ed25519 leaf cannot exist, yet it was made"
fi
grep -q "nearest sizes that exist: 65618 and 65620" "$T/gap.err" || fail "gap message: $(cat "$T/gap.err")"
[ ! -e "$T/gap" ] || fail "refused chain left a directory"

# Both at once: the leaf gets its size, the intermediates the rest.
"$PQTLS" certs --sig ml-dsa-44 --intermediates 2 --pad-leaf-to 6000 --pad-chain-to 16000 --out "$T/both" >/dev/null
[ "$(leaf_der "$T/both")" = 6000 ] && [ "$(der_sum "$T/both")" = 16000 ] || fail "--pad-leaf-to with --pad-chain-to"
verify "$T/both"

# The pad is random: the leaf does not compress.
"$PQTLS" certs --sig ecdsa-p256 --pad-leaf-to 30000 --out "$T/rnd" >/dev/null
z=$("$OPENSSL" x509 -in "$T/rnd/chain.pem" -outform DER | gzip -9 | wc -c)
[ "$z" -gt 29000 ] || fail "padded leaf compresses to $z bytes: the pad is not random"
echo "ok: padding exact"
