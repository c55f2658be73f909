#!/usr/bin/env bash
# Size-emulated signature schemes: every certificate of an emu-* chain is the Ed25519
# certificate plus exactly the scheme's extra public-key and signature bytes (measured by
# the OpenSSL CLI), the chain verifies as the Ed25519 it is, `serve` refuses it without
# --emulated-sig, a stock client (s_client) is refused, and a pqtls client offering the
# pad receives exactly the emulated scheme's handshake bytes (SH + EE + Certificate +
# CertificateVerify + Finished, counted by bench), on TCP; QUIC completes too.
set -euo pipefail
. "$(dirname "$0")/certs_lib.bash"
command -v python3 >/dev/null || { echo "skip: python3 needed to read JSON"; exit 77; }
SP=
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$T"' EXIT

"$PQTLS" certs --sig ed25519 --out "$T/ed" > /dev/null
ed_leaf=$(leaf_der "$T/ed")
ed_sum=$(der_sum "$T/ed")
# name pub sig
while read -r name pub sig; do
	"$PQTLS" certs --sig "$name" --out "$T/$name" --json > "$T/$name.json"
	verify "$T/$name"
	extra=$(( (pub - 32) + (sig - 64) ))
	got=$(leaf_der "$T/$name")
	[ "$got" -eq $((ed_leaf + extra)) ] || fail "$name: leaf DER $got, want $ed_leaf + $extra"
	got=$(der_sum "$T/$name")
	[ "$got" -eq $((ed_sum + 2 * extra)) ] || fail "$name: chain DER $got, want $ed_sum + 2 x $extra"
	[ "$(cat "$T/$name/sigpad")" = "$((sig - 64)) $name" ] || fail "$name: sigpad file: $(cat "$T/$name/sigpad")"
	"$PQTLS" certs --inspect "$T/$name" | grep -q "+ $((sig - 64))-byte pad = the $sig-byte emulated" ||
		fail "$name: --inspect does not show the signature pad"
done <<'LIST'
emu-fn-dsa-512 897 666
emu-fn-dsa-1024 1793 1280
emu-hawk-512 1024 555
emu-mayo-1 1420 454
emu-mayo-2 4912 186
emu-sqisign-i 65 148
emu-uov-is-pkc 66576 96
LIST
echo "7 emulated chains: DER = Ed25519 + the scheme's extra bytes, verify OK"

# Two SCTs signed by MAYO-2 logs: the leaf grows by the SCT list extension's bytes.
"$PQTLS" certs --sig ed25519 --scts 2 --sct-alg emu-mayo-2 --out "$T/sct" --json > "$T/sct.json"
verify "$T/sct"
sct=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['spec']['sct_extension_bytes'])" "$T/sct.json")
[ "$sct" -eq $((4 + 12 + 4 + 4 + 2 + 2 * (2 + 47 + 186))) ] || fail "2 MAYO-2 SCTs: $sct extension bytes"
[ "$(leaf_der "$T/sct")" -eq $((ed_leaf + sct)) ] || fail "SCT leaf: $(leaf_der "$T/sct"), want $ed_leaf + $sct"
out=$("$PQTLS" certs --sig ml-dsa-44 --scts 4 --sct-alg slh-dsa-sha2-128f --out "$T/y" 2>&1) && fail "4 SLH-DSA SCTs accepted"
grep -q "at most 3 fit" <<<"$out" || fail "SCT refusal: $out"
echo "2 MAYO-2 SCTs: leaf + $sct bytes"

# Refusals: the bare scheme name, serve without --emulated-sig, compression.
out=$("$PQTLS" certs --leaf mayo-2 --out "$T/x" 2>&1) && fail "certs accepted mayo-2"
grep -q "its size emulation (an Ed25519 key padded to its sizes) is emu-mayo-2" <<<"$out" || fail "mayo-2: $out"
[ ! -e "$T/x" ] || fail "certs left $T/x behind"
D="$T/emu-fn-dsa-512"
out=$("$PQTLS" serve --certs "$D" --listen 127.0.0.1:0 --duration 1s 2>&1) && fail "serve accepted an emulated chain"
grep -q "size emulation of emu-fn-dsa-512.*--emulated-sig" <<<"$out" || fail "serve: $out"
out=$("$PQTLS" serve --certs "$D" --emulated-sig --cert-compression zlib --listen 127.0.0.1:0 --duration 1s 2>&1) &&
	fail "serve compressed an emulated chain"
grep -q "cannot be compressed" <<<"$out" || fail "serve --cert-compression: $out"

# serve_on [--quic]: a server of $D, address in $T/addr.
serve_on() { serve_dir "$D" --emulated-sig "$@"; }
stop() { stop_server; }

serve_on
addr=$(cat "$T/addr")
rx=$(bench_rx "$D/root.pem" --sig-pad)
python3 - "$T/emu-fn-dsa-512.json" $rx <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
rx, cert = int(sys.argv[2]), int(sys.argv[3])
t = m["tls13"]
f = [x for x in t["flights"] if x["group"] == "X25519MLKEM768"][0]
der = [c["der_bytes"] for c in m["certificates"] if c["in_chain"]]
ideal_cert = 4 + 1 + 3 + sum(3 + d + 2 for d in der)           # the scheme's Certificate
ideal = f["server_hello_bytes"] + f["encrypted_extensions_bytes"] + ideal_cert + 8 + t["leaf_signature_bytes"] + f["finished_bytes"]
if cert != t["certificate_msg_bytes"] or cert != ideal_cert + t["signature_pad_bytes"]:
    sys.exit(f"Certificate on the wire {cert}, manifest {t['certificate_msg_bytes']}, scheme's {ideal_cert} + pad")
if rx != ideal:
    sys.exit(f"handshake bytes received {rx}, the emulated scheme's {ideal}")
print(f"emu-fn-dsa-512 over TCP: {rx} handshake bytes = the scheme's (Certificate {ideal_cert} + 8 + {t['leaf_signature_bytes']}-byte signature)")
PY
out=$(echo | timeout 20 "$OPENSSL" s_client -connect "$addr" -CAfile "$D/root.pem" 2>&1 || true)
# s_client prints "Verify return code: 0 (ok)" even for a refused handshake: look for the alert.
grep -q "no peer certificate available" <<<"$out" && grep -q "alert internal error" <<<"$out" ||
	fail "a stock client was not refused: $out"
stop
grep -q "callback failed: 1" "$T/srv.log" || fail "the server did not count the stock client's refusal: $(cat "$T/srv.log")"

serve_on --quic
"$PQTLS" bench "$(cat "$T/addr")" --quic --ca "$D/root.pem" --sig-pad --groups X25519MLKEM768 -n 2 > "$T/q.txt" 2>&1 ||
	fail "bench --quic --sig-pad: $(tail -3 "$T/q.txt")"
cm=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['tls13']['certificate_msg_bytes'])" "$T/emu-fn-dsa-512.json")
grep -q "handshake messages rx [0-9]* (certificate $cm)" "$T/q.txt" ||
	fail "QUIC: Certificate not the manifest's $cm: $(grep 'QUIC per' "$T/q.txt")"
stop
echo "ok"
