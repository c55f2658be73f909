#!/usr/bin/env bash
# Cells at once against one at a time, in the same run (src/exp/jobs.c, docs/sweep.md):
# one grid measured serially (--jobs 1), with --jobs auto and serially again, ROUNDS times,
# into separate databases. For each pair of runs: the wall time ratio, the cells marked over
# the link's or the host's budget, and per grid point whether the two runs differ measurably
# (pqtls's own comparison, `pqtls report A.db B.db`: the bootstrap 95 % interval of the
# difference of medians, TTFB or handshake, holds 0 or not), with two other readings from
# key.csv (one median inside the other's interval; the intervals overlap). The two serial
# runs are the peer: the concurrent run cannot agree with a serial one more often than two
# serial runs agree with each other. Goal (issue: a full study in minutes): the same answers
# at >= 95 % of grid points, in a fraction of the time.
#   PQTLS=build/pqtls bash bench/jobs.sh          (GRID=quick ROUNDS=1 by default)
#   GRID=ttfb-size: the ttfb-size preset scaled to 50 and 100 ms, 8-40 KiB in 4 KiB steps
#   GRID=ttfb-200: its 200 ms cells, 8, 40 and 72 KiB (60 cells, 4.6 min serially): where
#     the most cells run at once, the median shift is the concurrency's cost to the answer
#   JOBS=N: the concurrent run's --jobs (default auto)
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
ROUNDS=${ROUNDS:-1}
GRID=${GRID:-quick}
JOBS=${JOBS:-auto}
case "$ROUNDS" in *[!0-9]* | "") echo "jobs: ROUNDS is a count" >&2; exit 2 ;; esac
if [ "$(id -u)" != 0 ]; then echo "jobs: needs root (links); skipped"; exit 0; fi
command -v python3 >/dev/null || { echo "jobs: needs python3; skipped"; exit 0; }
case "$GRID" in
quick) ARGS=(--preset quick --trials 2 --connections 8) ;;
ttfb-size) ARGS=(--preset ttfb-size --profile paper-50,paper-100 --pad-chain-to "8KiB..40KiB step 4KiB" --trials 1 --connections 8) ;;
ttfb-200) ARGS=(--preset ttfb-size --rtt 200ms --pad-chain-to 8KiB,40KiB,72KiB --trials 1 --connections 5) ;;
*) echo "jobs: GRID is quick, ttfb-size or ttfb-200" >&2; exit 2 ;;
esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

run() { # NAME JOBS
	local t0 t1
	t0=$(date +%s.%N)
	"$P" sweep "${ARGS[@]}" --no-check -q --jobs "$2" --out "$T/$1.db" >"$T/$1.out" 2>&1 || { cat "$T/$1.out"; exit 1; }
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc >"$T/$1.s"
	"$P" report "$T/$1.db" -q -o "$T/$1.html" --csv "$T/$1.csv" >/dev/null
}
cmp() { # A B: pqtls's own comparison of two runs (bootstrap difference per shared grid point)
	"$P" report "$T/$1.db" "$T/$2.db" -q -o "$T/$1-$2.html" --csv "$T/$1-$2.csv" >/dev/null
}

echo "jobs: grid $GRID (${ARGS[*]}), --jobs $JOBS against --jobs 1, $ROUNDS rounds, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
# Each round: serial, --jobs auto, serial again. The two serial runs are the peer: how often
# two runs of the same code one cell at a time agree is the most the concurrent run can.
for r in $(seq 1 "$ROUNDS"); do
	run "serial$r" 1
	run "auto$r" "$JOBS"
	run "again$r" 1
	cmp "serial$r" "again$r"
	cmp "serial$r" "auto$r"
	cmp "again$r" "auto$r"
	python3 - "$T" "$r" "$JOBS" <<'PY'
import csv, sqlite3, statistics, sys
T, r, J = sys.argv[1], sys.argv[2], sys.argv[3]
def key(name):
    rows = {}
    for x in csv.DictReader(open(f"{T}/{name}{r}.csv/key.csv")):
        ph = "ttfb" if x["ttfb_median_ms"] else "handshake"
        rows[x["point_key"]] = tuple(float(x[f"{ph}_{k}"]) for k in ("median_ms", "ci_lo_ms", "ci_hi_ms"))
    return rows
def marked(name):
    db = sqlite3.connect(f"{T}/{name}{r}.db")
    return db.execute("SELECT COUNT(*), SUM(link_ok = 0 OR host_ok = 0), "
                      "SUM(link_late_p99_us > 500) FROM cell").fetchone()
def compare(A, B):
    a, b = runs[A], runs[B]
    shared = [k for k in a if k in b]
    inside = sum(1 for k in shared if a[k][1] <= b[k][0] <= a[k][2] or b[k][1] <= a[k][0] <= b[k][2])
    overlap = sum(1 for k in shared if a[k][1] <= b[k][2] and b[k][1] <= a[k][2])
    diff = [b[k][0] - a[k][0] for k in shared]
    same, boot, differ = 0, 0, []
    for x in csv.DictReader(open(f"{T}/{A}{r}-{B}{r}.csv/compare.csv")):
        if x["in"] != "both":
            continue
        boot += float(x["diff_lo_ms"]) <= 0 <= float(x["diff_hi_ms"])
        if x["measurable"] == "0":
            same += 1
        else:
            differ.append(f"{x['arm']} at {rtt[x['point_key']]:g} ms: {float(x['diff_ms']):+.2f} ms "
                          f"[{float(x['diff_lo_ms']):+.2f}, {float(x['diff_hi_ms']):+.2f}]")
    return len(shared), same, boot, inside, overlap, statistics.mean(diff), statistics.median(diff), differ
runs = {n: key(n) for n in ("serial", "auto", "again")}
rtt = {x["point_key"]: float(x["rtt_us"]) / 1000 for x in csv.DictReader(open(f"{T}/serial{r}.csv/key.csv"))}
secs = {n: float(open(f"{T}/{n}{r}.s").read()) for n in runs}
print(f"round {r}: serial {secs['serial']:.1f} s and {secs['again']:.1f} s, --jobs {J} {secs['auto']:.1f} s: "
      f"x{(secs['serial'] + secs['again']) / 2 / secs['auto']:.2f} faster")
for n in runs:
    c, m, l = marked(n)
    print(f"  {n:6}: cells over a budget {m} of {c}; release lateness p99 > 0.5 ms in {l} of {c}")
for a, b in (("serial", "again"), ("serial", "auto"), ("again", "auto")):
    n, same, boot, inside, overlap, mean, med, differ = compare(a, b)
    print(f"  {a} -> {b}: no measurable difference (pqtls report A B: the interval of the difference holds 0, "
          f"or is within the endpoints' waits for a CPU) at {same} of {n} grid points ({100 * same / max(n, 1):.0f} %); "
          f"the bootstrap interval alone holds 0 at {boot} ({100 * boot / max(n, 1):.0f} %); "
          f"one median inside the other's 95 % interval "
          f"at {inside} ({100 * inside / max(n, 1):.0f} %); intervals overlap at {overlap} "
          f"({100 * overlap / max(n, 1):.0f} %); median shift {mean:+.2f} ms mean, {med:+.2f} ms median")
    for x in differ:
        print(f"      differs: {x}")
PY
done
