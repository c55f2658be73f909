#!/usr/bin/env bash
# A slow but healthy download over QUIC: --timeout is "no progress for T", so a body that
# arrives steadily for about twice the timeout is a success, over HTTP/3 (bench --http3
# against ngtcp2's server) as over hq-interop (against pqtls serve --quic). 48,000 bytes
# across a 64 kbit/s downlink take about 6 s; the timeout is 3 s. (Over HTTP/3 the body's
# bytes used not to count as progress: "timed out waiting for the response: no progress
# for 3000 ms" while bytes were still arriving.)
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"
GTLS=${GTLSSERVER:-$(command -v gtlsserver || echo /usr/sbin/gtlsserver)}
[ -x "$GTLS" ] || { echo "skip: needs ngtcp2-server (gtlsserver; scripts/deps.sh installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: needs python3 to read JSON"; exit 77; }

# GnuTLS 3.7 has neither ML-KEM nor ML-DSA: ECDSA P-256 and X25519.
"$P" certs --sig ecdsa-p256 --out "$TMP/ecdsa" >/dev/null
mkdir -p "$TMP/htdocs/bytes"
head -c 48000 /dev/zero >"$TMP/htdocs/bytes/48000"
link=(--rate-down 64kbit --wait-port 4433 --wait-udp)
client=(--quic --ca "$TMP/ecdsa/root.pem" --servername localhost --groups X25519 -n 1 --timeout 3s)

"$P" link run "${link[@]}" -- \
	"$GTLS" -q '{server}' 4433 "$TMP/ecdsa/leaf.key" "$TMP/ecdsa/chain.pem" -d "$TMP/htdocs" -- \
	"$P" bench '{server}:4433' "${client[@]}" --http3 --path /bytes/48000 --jsonl "$TMP/h3.jsonl" \
	>"$TMP/h3.log" 2>&1 || { cat "$TMP/h3.log"; fail "a slow HTTP/3 body failed at --timeout 3s"; }
"$P" link run "${link[@]}" -- \
	"$P" serve --quic --certs "$TMP/ecdsa" --groups X25519 --listen '{server}:4433' -- \
	"$P" bench '{server}:4433' "${client[@]}" --response-size 48000 --jsonl "$TMP/hq.jsonl" \
	>"$TMP/hq.log" 2>&1 || { cat "$TMP/hq.log"; fail "a slow hq-interop body failed at --timeout 3s"; }

python3 - "$TMP" <<'PY'
import json, sys
for proto in ("h3", "hq"):
    r = json.loads(open(f"{sys.argv[1]}/{proto}.jsonl").readline())
    assert r["error_kind"] == "ok" and r["body_bytes"] == 48000, r
    body_s = (r["ttlb_us"] - r["ttfb_us"]) / 1e6
    # The point of the test: the body took longer than the 3 s timeout, and passed.
    assert body_s > 3.5, f"{proto}: the body took only {body_s:.1f} s: not slower than the timeout"
    print(f"ok: {proto}: 48000 bytes over {body_s:.1f} s at --timeout 3s")
PY
