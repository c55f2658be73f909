#!/usr/bin/env bash
# The size model against the wire: an OpenSSL s_server on 127.0.0.1 serves each chain and
# s_client -msg reports the handshake message sizes, which must equal the manifest's.
set -euo pipefail
. "$(dirname "$0")/certs_lib.bash"
command -v python3 >/dev/null || { echo "skip: python3 needed to read JSON"; exit 77; }
SP=
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$T"' EXIT

# check NAME GROUP SIG_TOLERANCE -- pqtls certs options...
check() {
	local name=$1 group=$2 tol=$3 d="$T/$1" port i
	shift 4
	"$PQTLS" certs "$@" --out "$d" --json > "$d.json"
	awk '/BEGIN CERT/{i++} i>1' "$d/chain.pem" > "$d.ints"
	local chainopt=()
	[ -s "$d.ints" ] && chainopt=(-cert_chain "$d.ints")
	# s_server quits on EOF from stdin: give it a FIFO that stays open until it is done.
	rm -f "$T/stdin" && mkfifo "$T/stdin"
	"$OPENSSL" s_server -accept 127.0.0.1:0 -cert "$d/chain.pem" "${chainopt[@]}" -key "$d/leaf.key" \
		-groups "$group" -naccept 1 < "$T/stdin" > "$d.srv" 2>&1 &
	SP=$!
	exec 3> "$T/stdin"
	for i in $(seq 50); do grep -q '^ACCEPT' "$d.srv" && break; sleep 0.1; done
	port=$(sed -n 's/^ACCEPT 127.0.0.1:\([0-9]*\)$/\1/p' "$d.srv")
	[ -n "$port" ] || fail "$name: s_server did not start: $(cat "$d.srv")"
	# s_client's exit status reflects the close after EOF on stdin, not the handshake.
	echo | timeout 20 "$OPENSSL" s_client -connect "127.0.0.1:$port" -groups "$group" -CAfile "$d/root.pem" \
		-verify_return_error -msg > "$d.cli" 2>&1 || true
	grep -q 'Verify return code: 0 (ok)' "$d.cli" || fail "$name: handshake failed: $(tail -5 "$d.cli")"
	exec 3>&-
	kill "$SP" 2>/dev/null || true
	wait "$SP" 2>/dev/null || true
	SP=
	python3 - "$d.json" "$d.cli" "$group" "$tol" "$name" <<'PY'
import json, re, sys
m = json.load(open(sys.argv[1]))
seen = {}
for line in open(sys.argv[2]):
    r = re.match(r"<<< TLS 1.3, Handshake \[length ([0-9a-f]+)\], (\w+)", line)
    if r and r.group(2) not in seen:
        seen[r.group(2)] = int(r.group(1), 16)
f = [x for x in m["tls13"]["flights"] if x["group"].lower() == sys.argv[3].lower()][0]
tol = int(sys.argv[4])
model = {"ServerHello": f["server_hello_bytes"], "EncryptedExtensions": f["encrypted_extensions_bytes"],
         "Certificate": m["tls13"]["certificate_msg_bytes"], "Finished": f["finished_bytes"],
         "CertificateVerify": 4 + 2 + 2 + m["tls13"]["leaf_signature_bytes_on_wire"]}
for k, v in model.items():
    got = seen.get(k)
    slack = tol if k == "CertificateVerify" else 0
    if got is None or abs(got - v) > slack:
        sys.exit(f"{sys.argv[5]}: {k} on the wire {got}, model {v}")
print(f"{sys.argv[5]}: wire = model ({', '.join(f'{k} {seen[k]}' for k in model)})")
PY
}

check mldsa65-20k X25519MLKEM768 0 -- --sig ml-dsa-65 --pad-chain-to 20000
check slh-ca X25519 0 -- --root slh-dsa-sha2-128f --intermediate slh-dsa-sha2-128f --leaf ml-dsa-44 --intermediates 2
check ecdsa SecP256r1MLKEM768 2 -- --sig ecdsa-p256 --pad-leaf-to 3000
check mtc MLKEM768 0 -- --leaf ml-dsa-44 --mtc landmark
check composite X25519MLKEM768 0 -- --sig p256-ml-dsa-44
check rsa-big X25519MLKEM768 0 -- --sig rsa-2048 --intermediates 3 --pad-chain-to 70000
echo "ok: handshake message sizes on the wire equal the model"
