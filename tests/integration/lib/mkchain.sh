#!/usr/bin/env bash
# Test helper: make a root -> intermediate -> leaf chain with the OpenSSL 3.5 CLI, in the
# directory layout `pqtls certs` writes, so `pqtls serve --certs DIR` takes either:
#   DIR/chain.pem  leaf then intermediate      DIR/leaf.key  the leaf's private key
#   DIR/root.pem   the trust anchor (for --ca)
# Usage: mkchain.sh KIND DIR
#   KIND: ecdsa-p256 | rsa-2048 | ml-dsa-44 | ml-dsa-65 | ml-dsa-87 | slh-128s
#   (slh-128s: ML-DSA-65 leaf under SLH-DSA-SHA2-128s intermediate and root;
#    slh-256f: the same under SLH-DSA-SHA2-256f, with extra names on the leaf so the
#    Certificate message passes OpenSSL's 100 KiB receive cap)
# OPENSSL from the environment (default: openssl on PATH). Leaf names: localhost, 127.0.0.1.
set -euo pipefail
kind=${1:?usage: mkchain.sh KIND DIR}
dir=${2:?usage: mkchain.sh KIND DIR}
ossl=${OPENSSL:-openssl}

case $kind in
ecdsa-p256) ca=(-algorithm EC -pkeyopt ec_paramgen_curve:P-256); leaf=("${ca[@]}") ;;
rsa-2048) ca=(-algorithm RSA -pkeyopt rsa_keygen_bits:2048); leaf=("${ca[@]}") ;;
ml-dsa-44) ca=(-algorithm ML-DSA-44); leaf=("${ca[@]}") ;;
ml-dsa-65) ca=(-algorithm ML-DSA-65); leaf=("${ca[@]}") ;;
ml-dsa-87) ca=(-algorithm ML-DSA-87); leaf=("${ca[@]}") ;;
slh-128s) ca=(-algorithm SLH-DSA-SHA2-128s); leaf=(-algorithm ML-DSA-65) ;;
slh-256f) ca=(-algorithm SLH-DSA-SHA2-256f); leaf=(-algorithm ML-DSA-65) ;;
*) echo "mkchain.sh: unknown KIND '$kind' (ecdsa-p256 rsa-2048 ml-dsa-44 ml-dsa-65 ml-dsa-87 slh-128s slh-256f)" >&2; exit 2 ;;
esac

mkdir -p "$dir"
tmp=$(mktemp -d "$dir/.mkchain.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# ML-DSA/SLH-DSA sign without a separate digest; -sha256 only for the classical kinds.
dgst=()
case $kind in ecdsa-p256 | rsa-2048) dgst=(-sha256) ;; esac

printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n' >ca.ext
sans=DNS:localhost,IP:127.0.0.1
if [ "$kind" = slh-256f ]; then
	for i in 1 2 3 4 5 6 7 8; do sans+=",DNS:name-$i.padding-to-pass-the-100-kib-certificate-cap.pqtls.test"; done
fi
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' "$sans" >leaf.ext

"$ossl" genpkey "${ca[@]}" -out root.key 2>/dev/null
"$ossl" req -x509 -new -key root.key -subj /CN=pqtls-root -days 30 -nodes "${dgst[@]}" \
	-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
	-out root.pem
"$ossl" genpkey "${ca[@]}" -out int.key 2>/dev/null
"$ossl" req -new -key int.key -subj /CN=pqtls-int -nodes -out int.csr
"$ossl" x509 -req -in int.csr -CA root.pem -CAkey root.key -CAcreateserial -days 30 \
	"${dgst[@]}" -extfile ca.ext -out int.pem 2>/dev/null
"$ossl" genpkey "${leaf[@]}" -out leaf.key 2>/dev/null
"$ossl" req -new -key leaf.key -subj /CN=localhost -nodes -out leaf.csr
"$ossl" x509 -req -in leaf.csr -CA int.pem -CAkey int.key -CAcreateserial -days 30 \
	"${dgst[@]}" -extfile leaf.ext -out leaf.pem 2>/dev/null
"$ossl" verify -CAfile root.pem -untrusted int.pem leaf.pem >/dev/null

cat leaf.pem int.pem >chain.pem
mv chain.pem leaf.key root.pem "$dir/"
