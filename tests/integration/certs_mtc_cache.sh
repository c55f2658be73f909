#!/usr/bin/env bash
# MTC size emulation, composite emulation naming, the chain cache, and --json.
set -euo pipefail
. "$(dirname "$0")/certs_lib.bash"
command -v python3 >/dev/null || { echo "skip: python3 needed to read JSON"; exit 77; }

json() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# MTC: leaf-only chains that verify against root.pem, sized by the documented formula.
"$PQTLS" certs --leaf ml-dsa-44 --mtc landmark --mtc-tree-size 4400000 --out "$T/lm" --json > "$T/lm.json"
verify "$T/lm"
[ "$(grep -c 'BEGIN CERTIFICATE' "$T/lm/chain.pem")" = 1 ] || fail "MTC chain is not leaf-only"
[ "$(json "$T/lm.json" 'm["spec"]["mtc_proof_bytes"]')" = $((18 + 32 * 23)) ] || fail "landmark proof bytes"
json "$T/lm.json" 'm["emulation"]' | grep -q "not an MTC implementation" || fail "MTC not named an emulation"
cmp -s "$T/lm.json" "$T/lm/manifest.json" || fail "--json differs from manifest.json"
"$PQTLS" certs --leaf ml-dsa-44 --mtc standalone --out "$T/sa" --json > "$T/sa.json"
verify "$T/sa"
[ "$(json "$T/sa.json" 'm["spec"]["mtc_tree_size"]')" = 2500 ] || fail "standalone default tree size"
[ "$(json "$T/sa.json" 'm["spec"]["mtc_proof_bytes"]')" = $((18 + 32 * 12 + 7 + 2420)) ] || fail "standalone proof bytes"
lm=$(leaf_der "$T/lm"); sa=$(leaf_der "$T/sa")
[ "$sa" -gt "$lm" ] || fail "standalone ($sa) should exceed landmark ($lm)"
"$PQTLS" certs --help | grep -q "SIZE EMULATION (not an MTC implementation)" || fail "help does not call MTC an emulation"

# Composite: named as an emulation in the manifest.
"$PQTLS" certs --sig p384-ml-dsa-65 --out "$T/comp" --json > "$T/comp.json"
json "$T/comp.json" 'm["certificates"][0]["key_alg"]' | grep -q "p384-ml-dsa-65 (emulated)" || fail "composite key_alg"
[ "$(json "$T/comp.json" 'm["tls13"]["leaf_signature_bytes"]')" = $((3309 + 104)) ] || fail "composite CertificateVerify"

# Cache: the second run reuses the same chain (same bytes) and does not sign again.
"$PQTLS" certs --root slh-dsa-sha2-128s --intermediate slh-dsa-sha2-128s --leaf ml-dsa-44 --pad-chain-to 30000 --json > "$T/c1.json"
dir=$(json "$T/c1.json" 'm["dir"]')
case "$dir" in "$PQTLS_CACHE"/chains/*) ;; *) fail "cache dir $dir not under PQTLS_CACHE" ;; esac
sum1=$(sha256sum "$dir/chain.pem")
start=$(date +%s%N)
"$PQTLS" certs --root slh-dsa-sha2-128s --intermediate slh-dsa-sha2-128s --leaf ml-dsa-44 --pad-chain-to 30000 --json > "$T/c2.json"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$(sha256sum "$dir/chain.pem")" = "$sum1" ] || fail "cached chain was re-made"
[ "$(json "$T/c2.json" 'm["chain_der_bytes"]')" = 30000 ] || fail "cached chain size"
# Signing even one SLH-DSA-128s certificate takes ~300 ms here; a hit only reads files.
[ "$ms" -lt 2000 ] || fail "cache hit took $ms ms"
verify "$dir"
echo "ok: MTC emulation, composite naming, cache ($ms ms on a hit)"
