#!/usr/bin/env bash
# QUIC across a 100 ms pqtls link (the userspace forwarder carries UDP as it does TCP):
# the handshake takes the round trips the model's QUIC view predicts. An ECDSA P-256
# flight fits the server's 3x amplification budget (one round trip to handshake done);
# an ML-DSA-65 leaf + intermediate (about 16 kB) does not, and waits for the client's
# address to be validated: one round trip more. --wait-port --wait-udp waits for the
# QUIC server's UDP socket. The bounds below fail a missed or extra round trip; a busy
# machine's moment (under ASan beside other jobs it once made a handshake 1.53 RTT) is met
# by measuring again, up to three times in all, as `pqtls sweep --remeasure` does: a model
# that is wrong by a round trip fails every attempt.
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"
command -v python3 >/dev/null || { echo "skip: needs python3 to read JSON"; exit 77; }

for kind in ecdsa-p256 ml-dsa-65; do
	"$P" certs --sig "$kind" --out "$TMP/$kind" >/dev/null
	"$P" model --certs "$TMP/$kind" --json >"$TMP/$kind.model.json"
done
measure() {
for kind in ecdsa-p256 ml-dsa-65; do
	rm -f "$TMP/$kind.jsonl"
	"$P" link run --rtt 100ms --wait-port 4433 --wait-udp -- \
		"$P" serve --quic --certs "$TMP/$kind" --groups X25519MLKEM768 --listen '{server}:4433' -- \
		"$P" bench {server}:4433 --quic --ca "$TMP/$kind/root.pem" --servername localhost \
		--groups X25519MLKEM768 --response-size 1000 -n 4 --jsonl "$TMP/$kind.jsonl" \
		>"$TMP/$kind.log" 2>&1 || { cat "$TMP/$kind.log"; fail "link run over QUIC ($kind)"; }
done
}

judge() {
python3 - "$TMP" <<'PY'
import json, statistics, sys
tmp = sys.argv[1]
for kind in ("ecdsa-p256", "ml-dsa-65"):
    recs = [json.loads(l) for l in open(f"{tmp}/{kind}.jsonl")]
    extra = json.load(open(f"{tmp}/{kind}.model.json"))["quic"]["extra_rtts"]
    assert all(r["error_kind"] == "ok" and r["tls_group"] == "X25519MLKEM768" for r in recs), recs
    hs = statistics.median(r["handshake_us"] for r in recs) / 100000
    ttfb = statistics.median(r["ttfb_us"] for r in recs) / 100000
    # Round trips: 1 + the model's extra ones to handshake done, one more to the first
    # byte. Bounds: a tenth of a round trip below (nothing can be faster than the path)
    # and 0.45 above: the handshake's CPU time, which under ASan on this shared 2-vCPU
    # machine came to 18 ms, stays well inside 45 ms, and a missed or extra round trip
    # (100 ms) cannot.
    want = 1 + extra
    assert -0.1 < hs - want < 0.45, f"{kind}: handshake {hs:.2f} RTT, the model says {want}"
    assert -0.1 < ttfb - want - 1 < 0.45, f"{kind}: TTFB {ttfb:.2f} RTT, the model says {want + 1}"
    held = {r["quic_amp_held"] for r in recs}
    assert held == {extra > 0}, f"{kind}: amplification held {held}, the model's extra round trips {extra}"
    print(f"ok: {kind} over QUIC at 100 ms: handshake {hs:.2f} RTT, TTFB {ttfb:.2f} RTT, model {want}/{want + 1}")
PY
}

for attempt in 1 2 3; do
	measure
	judge 2>"$TMP/judge.err" && exit 0
	echo "attempt $attempt: $(tail -n 1 "$TMP/judge.err")"
done
fail "three attempts missed the model's round trips"
