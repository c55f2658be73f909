#!/usr/bin/env bash
# OCSP staple (certs --ocsp): ocsp.der is a real OCSP response for the leaf, signed by its
# issuer (`openssl ocsp` verifies it: good); an emulated issuer's is padded by exactly its
# signature's extra bytes (the manifest says so). serve staples it in the leaf's
# CertificateEntry to a client that asks (bench --ocsp): the handshake bytes received are
# the model's (Certificate + 8 + the response), with a size-emulated chain too; a client
# that asks a server without a staple fails. An MTC is refused (exit 2, nothing left).
set -euo pipefail
. "$(dirname "$0")/certs_lib.bash"
command -v python3 >/dev/null || { echo "skip: python3 needed to read JSON"; exit 77; }
SP=
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$T"' EXIT

# ocsp_ok DIR: openssl ocsp verifies the response against the chain and says good.
ocsp_ok() {
	awk -v d="$1" '/BEGIN CERT/{i++} {print > (d "/.o" i ".pem")}' "$1/chain.pem"
	out=$("$OPENSSL" ocsp -respin "$1/ocsp.der" -issuer "$1/.o2.pem" -cert "$1/.o1.pem" -CAfile "$1/root.pem" \
		-verify_other "$1/.o2.pem" 2>&1) || fail "openssl ocsp $1: $out"
	grep -q "Response verify OK" <<<"$out" && grep -q ".o1.pem: good" <<<"$out" || fail "openssl ocsp $1: $out"
}
# model_rx JSON RX CERT: the bytes received are the manifest's (X25519MLKEM768).
model_rx() {
	python3 - "$@" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
rx, cert = int(sys.argv[2]), int(sys.argv[3])
t = m["tls13"]
f = [x for x in t["flights"] if x["group"] == "X25519MLKEM768"][0]
model = f["server_hello_bytes"] + f["encrypted_extensions_bytes"] + t["certificate_msg_bytes"] + \
    f["certificate_verify_bytes"] + f["finished_bytes"]
o = m["ocsp_staple"]
if cert != t["certificate_msg_bytes"] or rx != model:
    sys.exit(f"received {rx} (Certificate {cert}), the model {model} (Certificate {t['certificate_msg_bytes']})")
print(f"{m['spec']['leaf']}: {rx} handshake bytes = the model's, the staple {o['certificate_entry_bytes']} of them")
PY
}

for alg in ml-dsa-44 ed25519 emu-fn-dsa-512; do
	"$PQTLS" certs --sig "$alg" --ocsp --out "$T/$alg" --json > "$T/$alg.json"
	ocsp_ok "$T/$alg"
	size=$(wc -c < "$T/$alg/ocsp.der")
	python3 - "$T/$alg.json" "$size" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["ocsp_staple"]
if o["response_bytes"] != int(sys.argv[2]) or o["certificate_entry_bytes"] != int(sys.argv[2]) + 8:
    sys.exit(f"manifest {o}, ocsp.der {sys.argv[2]} bytes")
PY
done
ed=$(wc -c < "$T/ed25519/ocsp.der")
fn=$(wc -c < "$T/emu-fn-dsa-512/ocsp.der")
[ "$fn" = $((ed + 666 - 64)) ] || fail "emulated FN-DSA-512 issuer: response $fn bytes, want Ed25519's $ed + 602"
grep -q "OCSP response is signed with the issuer's real key and padded by 602 bytes" "$T/emu-fn-dsa-512.json" ||
	fail "the manifest does not say the response is padded"
echo "ocsp.der verified by openssl ocsp (good); Ed25519 issuer $ed bytes, emulated FN-DSA-512 $fn"

D="$T/ml-dsa-44"
serve_dir "$D"
model_rx "$T/ml-dsa-44.json" $(bench_rx "$D/root.pem" --ocsp)
# not asked for: no staple, and the Certificate message is the chain's alone
rx=$(bench_rx "$D/root.pem")
cm=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['tls13']['certificate_msg_bytes'])" "$T/ml-dsa-44.json")
[ "${rx#* }" = $((cm - $(wc -c < "$D/ocsp.der") - 8)) ] || fail "without --ocsp: Certificate ${rx#* }, manifest $cm"
stop_server
D="$T/emu-fn-dsa-512"
serve_dir "$D" --emulated-sig
model_rx "$T/emu-fn-dsa-512.json" $(bench_rx "$D/root.pem" --ocsp --sig-pad)
stop_server

# Asked for and missing: the handshake fails.
"$PQTLS" certs --sig ml-dsa-44 --out "$T/plain" > /dev/null
serve_dir "$T/plain"
set +e
"$PQTLS" bench "$(cat "$T/addr")" --ca "$T/plain/root.pem" --groups X25519MLKEM768 -n 1 --ocsp > "$T/bad.txt" 2>&1
rc=$?
set -e
stop_server
[ "$rc" != 0 ] || fail "bench --ocsp connected to a server without a staple"
grep -q "callback failed" "$T/bad.txt" || fail "bench --ocsp without a staple: $(cat "$T/bad.txt")"
echo "bench --ocsp against a server without a staple: refused (exit $rc)"

set +e
out=$("$PQTLS" certs --leaf ml-dsa-44 --mtc landmark --intermediates 0 --ocsp --out "$T/bad" 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "certs --ocsp --mtc exited $rc: $out"
grep -qF -- "--ocsp: a Merkle Tree Certificate is not revoked by OCSP" <<<"$out" || fail "certs --ocsp --mtc: $out"
[ ! -e "$T/bad" ] || fail "certs --ocsp --mtc left a directory"
echo "ok"
