#!/usr/bin/env bash
# Cells at once against one at a time, in the same run (src/exp/jobs.c, docs/sweep.md):
# one grid measured serially (--jobs 1) and with --jobs auto, alternately ROUNDS times,
# into separate databases. For each pair: the wall time ratio, the cells marked over the
# link's or the host's budget in each, and, per grid point, whether the concurrent run's
# median TTFB (handshake where no response is asked) lies inside the serial run's 95 %
# interval or the serial median inside the concurrent one's (the two runs agree), from
# `pqtls report`'s key.csv. Goal (issue: a full study in minutes): the same answers at
# >= 95 % of grid points, in a fraction of the time.
#   PQTLS=build/pqtls bash bench/jobs.sh          (GRID=quick ROUNDS=1 by default)
#   GRID=ttfb-size: the ttfb-size preset scaled to 50 and 100 ms, 4-40 KiB in 4 KiB steps
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
ROUNDS=${ROUNDS:-1}
GRID=${GRID:-quick}
case "$ROUNDS" in *[!0-9]* | "") echo "jobs: ROUNDS is a count" >&2; exit 2 ;; esac
if [ "$(id -u)" != 0 ]; then echo "jobs: needs root (links); skipped"; exit 0; fi
command -v python3 >/dev/null || { echo "jobs: needs python3; skipped"; exit 0; }
case "$GRID" in
quick) ARGS=(--preset quick --trials 2 --connections 8) ;;
ttfb-size) ARGS=(--preset ttfb-size --profile paper-50,paper-100 --pad-chain-to "4KiB..40KiB step 4KiB" --trials 1 --connections 8) ;;
*) echo "jobs: GRID is quick or ttfb-size" >&2; exit 2 ;;
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

echo "jobs: grid $GRID (${ARGS[*]}), $ROUNDS rounds, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
	run "serial$r" 1
	run "auto$r" auto
	python3 - "$T" "$r" <<'PY'
import csv, sqlite3, sys
T, r = sys.argv[1], sys.argv[2]
def key(name):
    rows = {}
    for x in csv.DictReader(open(f"{T}/{name}/key.csv")):
        ph = "ttfb" if x["ttfb_median_ms"] else "handshake"
        rows[x["point_key"]] = tuple(float(x[f"{ph}_{k}"]) for k in ("median_ms", "ci_lo_ms", "ci_hi_ms"))
    return rows
def marked(name):
    db = sqlite3.connect(f"{T}/{name}.db")
    return db.execute("SELECT COUNT(*), SUM(link_ok = 0 OR host_ok = 0), "
                      "SUM(link_late_p99_us > 500) FROM cell").fetchone()
s, a = key(f"serial{r}.csv"), key(f"auto{r}.csv")
agree = sum(1 for k in s if k in a and (s[k][1] <= a[k][0] <= s[k][2] or a[k][1] <= s[k][0] <= a[k][2]))
ts, ta = (float(open(f"{T}/{n}{r}.s").read()) for n in ("serial", "auto"))
(ns, ms, ls), (na, ma, la) = marked(f"serial{r}"), marked(f"auto{r}")
print(f"round {r}: serial {ts:.1f} s, --jobs auto {ta:.1f} s: x{ts / ta:.2f} faster")
print(f"  cells over a budget: serial {ms} of {ns}, auto {ma} of {na}; release lateness p99 > 0.5 ms: "
      f"serial {ls} of {ns}, auto {la} of {na}")
print(f"  grid points whose medians agree (one inside the other's 95 % interval): {agree} of {len(s)} "
      f"({100 * agree / max(len(s), 1):.0f} %)")
PY
done
