#!/usr/bin/env bash
# How often the flight model (with Linux's pacing, src/model/pace.c) agrees with the
# measurement: the ttfb-size preset scaled down (paper-50 and paper-100, chains every
# STEP from 8 KiB to 80 KiB, N connections, one trial), its study arms under cubic and its
# BBR arms in one run, then the report's own verdicts (agreement.csv: a cell agrees when
# its median handshake and TTFB over tcp_info's min RTT are within 0.25 RTT of the
# prediction). Prints the agreement per congestion control, the reasons of the others,
# and the host's load, which is what most disagreements come from on a shared VM.
#   PQTLS=build/pqtls bash bench/model-agreement.sh   (N=5 STEP=4KiB by default; OUT=DIR keeps the run)
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
N=${N:-5}
STEP=${STEP:-4KiB}
case "$N" in '' | *[!0-9]*) echo "model-agreement: N is a count of connections" >&2; exit 2 ;; esac
if [ "$(id -u)" != 0 ]; then echo "model-agreement: needs root (links); skipped"; exit 0; fi
command -v python3 >/dev/null || { echo "model-agreement: needs python3; skipped"; exit 0; }
if [ -n "${OUT:-}" ]; then
	T=$OUT
	mkdir -p "$T"
else
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
fi
rm -f "$T/results.db" "$T/results.db-wal" "$T/results.db-shm"
echo "model-agreement: ttfb-size at paper-50 and paper-100, chains 8KiB..80KiB step $STEP, $N connections," \
	"$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$P" sweep --preset ttfb-size --profile paper-50,paper-100 --pad-chain-to "8KiB..80KiB step $STEP" \
	--connections "$N" --trials 1 --no-check -q --out "$T/results.db" 2>"$T/sweep.err" || { cat "$T/sweep.err"; exit 1; }
"$P" report "$T/results.db" -o "$T/report.html" --csv "$T/csv" >/dev/null 2>"$T/report.err" ||
	{ cat "$T/report.err"; exit 1; }
python3 - "$T" <<'PY'
import collections, csv, sqlite3, sys
t = sys.argv[1]
db = sqlite3.connect(f"{t}/results.db")
# The congestion control each arm ran, as the database stores it.
cc_of = dict(db.execute("SELECT arm, MIN(cc) FROM cell GROUP BY arm"))
load = db.execute("SELECT AVG(host_steal_pct), MAX(host_steal_pct), AVG(host_runq_before) FROM cell").fetchone()
rows = list(csv.DictReader(open(f"{t}/csv/agreement.csv")))
by = collections.defaultdict(lambda: [0, 0])
why = collections.defaultdict(collections.Counter)
for r in rows:
    cc = cc_of.get(r["arm"], "?")
    by[cc][1] += 1
    if r["agrees"] == "1":
        by[cc][0] += 1
    else:
        why[cc][r["reason"].split(":")[0]] += 1
allok = sum(v[0] for v in by.values())
alln = sum(v[1] for v in by.values())
for cc, (ok, n) in sorted(by.items()):
    print(f"model-agreement: {cc}: {ok} of {n} cells agree ({100 * ok / n:.1f} %)")
    for reason, k in why[cc].most_common():
        print(f"    {k:4d} {reason}")
print(f"model-agreement: all: {allok} of {alln} ({100 * allok / max(alln, 1):.1f} %); host steal mean "
      f"{load[0] or 0:.1f} % (max {load[1] or 0:.1f} %), run queue mean {load[2] or 0:.1f}")
PY
