#!/usr/bin/env bash
# The sweep engine's own cost, beside `pqtls bench` alone on the same kind of link.
#
# 1. Per connection: N handshake-only connections (ECDSA P-256, X25519) at 1 ms RTT, once by
#    `pqtls bench` against `pqtls serve` across `pqtls link run`, once as one cell of
#    `pqtls sweep`, ROUNDS times alternating. For each: wall time per connection minus the
#    connections' own mean duration (what the loop around them costs), and the median
#    handshake. The sweep's figure includes everything a cell adds (server start and stop
#    in-process, host load samples, the SQLite transaction), spread over the cell's N
#    connections. Goal: the difference under 2 % of a 1 ms-RTT handshake.
# 2. The quick preset against the make run it replaced (scripts/quick-run.sh, taken from
#    git history), measurement only (the report is the same script either way).
#   PQTLS=build/pqtls bash bench/sweep-overhead.sh   (N=200 ROUNDS=3 QUICK=1 by default)
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
SRC=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-200}
ROUNDS=${ROUNDS:-3}
QUICK=${QUICK:-1}
case "$N$ROUNDS" in *[!0-9]*) echo "sweep-overhead: N and ROUNDS are counts" >&2; exit 2 ;; esac
if [ "$(id -u)" != 0 ]; then echo "sweep-overhead: needs root (links); skipped"; exit 0; fi
command -v python3 >/dev/null || { echo "sweep-overhead: needs python3; skipped"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$P" certs --sig ecdsa-p256 --out "$T/chain" >/dev/null
echo "sweep-overhead: $N connections per run, $ROUNDS rounds, 1 ms RTT, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
	"$P" link run --rtt 1ms --wait-port 8443 -- \
		"$P" serve --certs "$T/chain" --listen 0.0.0.0:8443 --groups X25519 -- \
		"$P" bench "{server}:8443" --servername localhost --ca "$T/chain/root.pem" --groups X25519 \
		--requests-per-conn 0 -n "$N" --json --jsonl "$T/bench$r.jsonl" >"$T/bench$r.json" 2>"$T/bench$r.err" ||
		{ cat "$T/bench$r.err"; exit 1; }
	"$P" sweep --sig ecdsa-p256 --group X25519 --rtt 1ms --response none --connections "$N" --seed "$r" \
		--no-check -q --out "$T/sweep$r.db" >/dev/null 2>"$T/sweep$r.err" || { cat "$T/sweep$r.err"; exit 1; }
done
python3 - "$T" "$ROUNDS" "$N" <<'PY'
import json, sqlite3, statistics, sys
t, rounds, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bench, sweep = [], []
for r in range(1, rounds + 1):
    # the bench summary is the first JSON object; the server's own report follows it
    text = open(f"{t}/bench{r}.json").read()
    s = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]
    recs = [json.loads(l) for l in open(f"{t}/bench{r}.jsonl")]
    ends = [x["end_us"] for x in recs if x.get("end_us") is not None]
    hs = statistics.median(x["handshake_us"] for x in recs if x.get("handshake_us") is not None)
    bench.append((s["wall_s"] * 1e6 / n - statistics.mean(ends), hs))
    db = sqlite3.connect(f"{t}/sweep{r}.db")
    wall = db.execute("SELECT wall_us FROM cell").fetchone()[0]
    mean_end = db.execute("SELECT AVG(end_us) FROM conn").fetchone()[0]
    hs = db.execute("SELECT handshake_p50_us FROM cell_stats").fetchone()[0]
    sweep.append((wall / n - mean_end, hs))
med = lambda xs: statistics.median(xs)
bo, so = med([b[0] for b in bench]), med([s[0] for s in sweep])
bh, sh = med([b[1] for b in bench]), med([s[1] for s in sweep])
print(f"  pqtls bench alone : loop overhead {bo:8.1f} us/conn, handshake p50 {bh / 1e3:.3f} ms")
print(f"  pqtls sweep (cell): loop overhead {so:8.1f} us/conn, handshake p50 {sh / 1e3:.3f} ms")
print(f"  sweep engine's own cost: {so - bo:+.1f} us per connection = {(so - bo) / bh * 100:+.2f} % of the "
      f"handshake (goal < 2 %); handshake p50 sweep/bench {sh / bh:.3f}")
PY

[ "$QUICK" = 1 ] || exit 0
# The old make run, from the commit before it was removed (its report is not timed).
gone=$(git -C "$SRC" log -1 --format=%H --diff-filter=D -- scripts/quick-run.sh 2>/dev/null || true)
if [ -z "$gone" ]; then echo "  (scripts/quick-run.sh is not in this checkout's history: old make run not timed)"; exit 0; fi
mkdir -p "$T/old/scripts"
git -C "$SRC" show "$gone^:scripts/quick-run.sh" >"$T/old/scripts/quick-run.sh"
printf 'import sys\nsys.exit(0)\n' >"$T/old/scripts/quick-report.py" # measurement only
s=$(date +%s.%N)
PQTLS_OUT=$T/old/out bash "$T/old/scripts/quick-run.sh" "$P" >"$T/old.log" 2>&1 || { tail -5 "$T/old.log"; echo "  old make run failed"; exit 1; }
m=$(date +%s.%N)
"$P" sweep --preset quick --no-check -q --out "$T/quick.db" >/dev/null 2>"$T/quick.err" || { cat "$T/quick.err"; exit 1; }
e=$(date +%s.%N)
python3 -c "import sys; o, n = float(sys.argv[2]) - float(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2]); print(f'  quick: old make run (quick-run.sh) {o:.1f} s, pqtls sweep --preset quick {n:.1f} s ({n / o:.2f}x)')" "$s" "$m" "$e"
