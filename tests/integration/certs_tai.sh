#!/usr/bin/env bash
# Trust anchor identifiers (certs --tai): chain.pem is the leaf alone and trust.pem holds
# the intermediates the client already has, then the root. A client whose store holds
# trust.pem verifies the leaf up to the real root (OpenSSL CLI and a TLS handshake); one
# with root.pem alone fails. The manifest and --inspect count the bytes left out, the
# first flight shrinks by exactly those bytes (against the same certificates sent whole),
# and the handshake bytes a client receives are the model's. Refusals: no intermediate to
# leave out (intermediates 0, an MTC), two pad sizes that disagree; exit 2, nothing left.
set -euo pipefail
. "$(dirname "$0")/certs_lib.bash"
command -v python3 >/dev/null || { echo "skip: python3 needed to read JSON"; exit 77; }
SP=
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$T"' EXIT
jq_() { python3 -c "import json, sys; m = json.load(open(sys.argv[1])); print($2)" "$1"; }

D="$T/tai"
"$PQTLS" certs --sig ml-dsa-44 --intermediates 2 --tai --out "$D" --json > "$T/tai.json"
[ "$(grep -c 'BEGIN CERTIFICATE' "$D/chain.pem")" = 1 ] || fail "chain.pem is not the leaf alone"
[ "$(grep -c 'BEGIN CERTIFICATE' "$D/trust.pem")" = 3 ] || fail "trust.pem is not 2 intermediates + root"

# The client with the intermediates verifies up to the real root; without them it fails.
out=$("$OPENSSL" verify -show_chain -CAfile "$D/trust.pem" "$D/chain.pem") || fail "verify with trust.pem: $out"
grep -q "depth=3: CN=pqtls root" <<<"$out" || fail "verification did not reach the root: $out"
out=$("$OPENSSL" verify -CAfile "$D/root.pem" "$D/chain.pem" 2>&1) && fail "verified without the intermediates: $out"
grep -q "unable to get local issuer certificate" <<<"$out" || fail "root.pem alone: $out"
echo "trust.pem: verified to the root; root.pem alone: unable to get local issuer certificate"

# What was left out, as counted, against the intermediates' DER measured by the CLI.
held=0
awk -v d="$T" '/BEGIN CERT/{i++} {print > (d "/.h" i ".pem")}' "$D/trust.pem"
for i in 1 2; do held=$((held + $("$OPENSSL" x509 -in "$T/.h$i.pem" -outform DER | wc -c))); done
[ "$(jq_ "$T/tai.json" "m['trust_anchor_identifiers']['held_der_bytes']")" = "$held" ] ||
	fail "manifest held_der_bytes, CLI $held: $(jq_ "$T/tai.json" "m['trust_anchor_identifiers']")"
[ "$(jq_ "$T/tai.json" "m['trust_anchor_identifiers']['certificate_msg_bytes_saved']")" = $((held + 10)) ] ||
	fail "Certificate message saving is not DER + 5 per certificate"
"$PQTLS" certs --inspect "$D" | grep -q "2 intermediates left out ($held DER bytes" || fail "--inspect does not count them"

# The same certificates sent whole: the flight is larger by exactly the bytes left out.
cat "$D/chain.pem" "$T/.h1.pem" "$T/.h2.pem" > "$T/whole.pem"
"$PQTLS" certs --inspect "$T/whole.pem" --json > "$T/whole.json"
python3 - "$T/tai.json" "$T/whole.json" <<'PY'
import json, sys
tai, whole = (json.load(open(p)) for p in sys.argv[1:3])
t = tai["trust_anchor_identifiers"]
for g in ("X25519", "X25519MLKEM768"):
    a = [f for f in tai["tls13"]["flights"] if f["group"] == g][0]["flight_bytes"]
    b = [f for f in whole["tls13"]["flights"] if f["group"] == g][0]["flight_bytes"]
    if b - a != t["certificate_msg_bytes_saved"]:
        sys.exit(f"{g}: whole flight {b} - TAI flight {a} != {t['certificate_msg_bytes_saved']} left out")
if t["flight_bytes_saved"] != t["certificate_msg_bytes_saved"]:
    sys.exit(f"flight_bytes_saved {t['flight_bytes_saved']}")
print(f"first flight {b} -> {a} bytes: -{b - a}, the {t['held_certificates']} intermediates' entries")
PY

# A handshake: the client with trust.pem receives the model's bytes; with root.pem it fails.
serve_dir "$D"
addr=$(cat "$T/addr")
rx=$(bench_rx "$D/trust.pem")
python3 - "$T/tai.json" $rx <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
rx, cert = int(sys.argv[2]), int(sys.argv[3])
f = [x for x in m["tls13"]["flights"] if x["group"] == "X25519MLKEM768"][0]
model = f["server_hello_bytes"] + f["encrypted_extensions_bytes"] + m["tls13"]["certificate_msg_bytes"] + \
    f["certificate_verify_bytes"] + f["finished_bytes"]
if cert != m["tls13"]["certificate_msg_bytes"] or rx != model:
    sys.exit(f"received {rx} handshake bytes (Certificate {cert}), the model {model} ({m['tls13']['certificate_msg_bytes']})")
print(f"handshake over TCP: {rx} bytes received = the model's (Certificate {cert}: the leaf alone)")
PY
set +e
"$PQTLS" bench "$addr" --ca "$D/root.pem" --groups X25519MLKEM768 -n 1 > "$T/bad.txt" 2>&1
rc=$?
set -e
[ "$rc" != 0 ] || fail "a client without the intermediates connected: $(cat "$T/bad.txt")"
grep -qi "verif\|certificate" "$T/bad.txt" || fail "the failed client does not say why: $(cat "$T/bad.txt")"
stop_server
echo "bench with root.pem alone: refused (exit $rc)"

# Refusals: exit 2, the input named with what is accepted, no directory left.
refused() { # refused MESSAGE [options]
	local want=$1 out rc
	shift
	set +e
	out=$("$PQTLS" certs --sig ml-dsa-44 --tai --out "$T/bad" "$@" 2>&1)
	rc=$?
	set -e
	[ "$rc" = 2 ] || fail "certs --tai $* exited $rc: $out"
	grep -qF -- "$want" <<<"$out" || fail "certs --tai $*: $out"
	[ ! -e "$T/bad" ] || fail "certs --tai $* left $T/bad behind"
}
refused "--tai: trust anchor identifiers leave out the intermediates the client holds, and this chain has none (intermediates 0); accepted: --tai with --intermediates 1..4 and no --mtc" --intermediates 0
refused "a Merkle Tree Certificate is the leaf alone" --intermediates 0 --mtc landmark
refused "--pad-leaf-to 8000 and --pad-chain-to 9000 with --tai: the chain sent is the leaf alone" \
	--pad-leaf-to 8000 --pad-chain-to 9000
# --pad-chain-to with --tai pads the chain sent: the leaf.
"$PQTLS" certs --sig ml-dsa-44 --tai --pad-chain-to 9000 --out "$T/pad" > /dev/null
[ "$(leaf_der "$T/pad")" = 9000 ] || fail "--tai --pad-chain-to 9000: leaf $(leaf_der "$T/pad")"
echo "ok"
