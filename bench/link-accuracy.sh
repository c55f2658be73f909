#!/usr/bin/env bash
# How faithful is the userspace link? RTT error at 1/10/50/100/200 ms (UDP echo, many
# samples), achieved rate at a few configured rates, and measured loss against its
# binomial interval, all by `pqtls link check`. Prints one row per condition and a
# verdict against the targets: median RTT error <= 100 us, p99 <= 1 ms, rate within 3 %,
# loss inside its 99 % interval.
#   PQTLS=build/pqtls bash bench/link-accuracy.sh            (SAMPLES=500 by default)
set -euo pipefail
P=${PQTLS:-build/pqtls}
SAMPLES=${SAMPLES:-500}
BACKEND=${BACKEND:-userspace}
if [ "$(id -u)" != 0 ]; then echo "link-accuracy: needs root (namespaces, TUN); skipped"; exit 0; fi
command -v python3 >/dev/null || { echo "link-accuracy: needs python3 to read JSON"; exit 0; }

echo "link-accuracy: backend $BACKEND, $SAMPLES echoes per RTT, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
misses=0
row() { # row KIND LABEL JSON
	python3 - "$1" "$2" "$3" <<'PY' || misses=$((misses + 1))
import json, sys
kind, label, j = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if kind == "rtt":
    m, p = j["rtt_error_median_us"], j["rtt_error_p99_us"]
    ok = abs(m) <= 100 and abs(p) <= 1000
    print(f"rtt  {label:>8}: median {j['rtt_median_ms']:9.3f} ms ({m:+8.1f} us)  p99 ({p:+9.1f} us)  "
          f"max {j['rtt_max_ms']:9.3f} ms  n={j['rtt_samples']}  {'PASS' if ok else 'MISS'}")
elif kind == "rate":
    ok = True
    for d in ("up", "down"):
        x = j[d]
        ok &= abs(x["rate_error"]) <= 0.03
        print(f"rate {label:>8} {d:>4}: {x['rate_bps']/1e6:10.3f} Mbit/s ({x['rate_error']*100:+6.2f} %)  "
              f"{'PASS' if abs(x['rate_error']) <= 0.03 else 'MISS'}")
else:
    ok = True
    want = float(label.rstrip('%')) / 100
    for d in ("up", "down"):
        x = j[d]
        inside = x["loss_ci_low"] <= want <= x["loss_ci_high"]
        ok &= inside
        print(f"loss {label:>8} {d:>4}: {x['loss']*100:6.3f} % (99 % CI {x['loss_ci_low']*100:.3f}-"
              f"{x['loss_ci_high']*100:.3f} %)  {'PASS' if inside else 'MISS'}")
sys.exit(0 if ok else 1)
PY
}

for rtt in 1ms 10ms 50ms 100ms 200ms; do
	j=$("$P" link check --backend "$BACKEND" --rtt "$rtt" -n "$SAMPLES" --json) || true
	row rtt "$rtt" "$j"
done
for rate in 10Mbit 100Mbit 500Mbit; do
	j=$("$P" link check --backend "$BACKEND" --rtt 10ms --rate "$rate" -n 50 --json) || true
	row rate "$rate" "$j"
done
for loss in 1% 5%; do
	j=$("$P" link check --backend "$BACKEND" --rtt 10ms --loss "$loss" --seed $RANDOM -n 50 --json) || true
	row loss "$loss" "$j"
done
echo "link-accuracy: $misses condition(s) missed their target"
