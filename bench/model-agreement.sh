#!/usr/bin/env bash
# How often the flight model (with Linux's pacing, src/model/pace.c) agrees with the
# measurement: the ttfb-size preset scaled down (paper-50 and paper-100, chains every
# STEP from 8 KiB to 80 KiB, N connections, one trial), its study arms under cubic and its
# BBR arms in one run, then the report's own verdicts (agreement.csv: a cell agrees when
# its median handshake and TTFB over tcp_info's min RTT are within 0.25 RTT of the
# prediction). Prints the agreement per congestion control and RTT twice: over all cells,
# and over the clean ones (the cell's link and host within budget: link_ok, host_ok and
# link_check_ok not 0, docs/results.md); the marked cells are counted apart, each named with
# what was over (link late p99, unplanned drops, steal). The clean cells that differ are
# listed with the report's reason and the host's CPU pressure during the cell (PSI, the
# time some task here waited for a CPU: other work inside this VM, which steal does not
# count). The sweep runs its endpoints at nice -19 (--endpoint-nice) and measures their own
# waits for a CPU, which mark a cell (host_ok) when over a tenth of the RTT: those waits are
# what most disagreements came from on a shared VM (docs/model.md). LOAD=N runs N busy
# loops beside it in this session, and XLOAD=N in sessions of their own (a build in another
# terminal), to see it hold under load; SWEEP_ARGS are added to the sweep's.
#   PQTLS=build/pqtls bash bench/model-agreement.sh   (N=5 STEP=4KiB by default; OUT=DIR keeps the run)
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
N=${N:-5}
STEP=${STEP:-4KiB}
case "$N" in '' | *[!0-9]*) echo "model-agreement: N is a count of connections" >&2; exit 2 ;; esac
case "${LOAD:-0}${XLOAD:-0}" in *[!0-9]*) echo "model-agreement: LOAD and XLOAD are counts of busy loops" >&2; exit 2 ;; esac
if [ "$(id -u)" != 0 ]; then echo "model-agreement: needs root (links); skipped"; exit 0; fi
command -v python3 >/dev/null || { echo "model-agreement: needs python3; skipped"; exit 0; }
PSI_PID=
TMP=
# On every way out: the pressure sampler stopped, a temporary directory removed.
cleanup() {
	[ -z "$PSI_PID" ] || kill "$PSI_PID" 2>/dev/null || :
	[ -z "${BUSY:-}" ] || pkill -f "$BUSY" || :
	[ -z "$TMP" ] || rm -rf "$TMP"
}
trap cleanup EXIT
if [ -n "${OUT:-}" ]; then
	T=$OUT
	mkdir -p "$T"
else
	T=$(mktemp -d)
	TMP=$T
fi
rm -f "$T/results.db" "$T/results.db-wal" "$T/results.db-shm"
echo "model-agreement: ttfb-size at paper-50 and paper-100, chains 8KiB..80KiB step $STEP, $N connections," \
	"$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# The host's CPU pressure (PSI: the time some runnable task here waited for a CPU, which
# steal does not count: other work inside this VM) sampled twice a second, so that each
# cell's share can be set beside its verdict; nothing is sampled where the kernel lacks PSI.
PSI=/proc/pressure/cpu
: >"$T/psi.txt"
if [ -r "$PSI" ]; then
	while :; do
		echo "$(date +%s.%N) $(sed -n 's/^some .*total=//p' "$PSI")"
		sleep 0.5
	done >"$T/psi.txt" &
	PSI_PID=$!
fi
# Busy loops beside the sweep when asked: LOAD in this session, XLOAD each in its own.
# Each loop's command line names this run, so that exactly these are stopped.
BUSY="pqtls-agreement-busy-$$"
for _ in $(seq "${LOAD:-0}"); do sh -c "while :; do :; done # $BUSY" & done
for _ in $(seq "${XLOAD:-0}"); do setsid sh -c "while :; do :; done # $BUSY" & done
# shellcheck disable=SC2086 # SWEEP_ARGS is a list of words
"$P" sweep --preset ttfb-size --profile paper-50,paper-100 --pad-chain-to "8KiB..80KiB step $STEP" \
	--connections "$N" --trials 1 --no-check --out "$T/results.db" ${SWEEP_ARGS:-} >"$T/sweep.out" 2>"$T/sweep.err" ||
	{ cat "$T/sweep.err"; exit 1; }
pkill -f "$BUSY" || :
BUSY=
tail -1 "$T/sweep.out"
[ -z "$PSI_PID" ] || kill "$PSI_PID"
PSI_PID=
"$P" report "$T/results.db" -o "$T/report.html" --csv "$T/csv" >/dev/null 2>"$T/report.err" ||
	{ cat "$T/report.err"; exit 1; }
python3 - "$T" <<'PY'
import collections, csv, datetime, sqlite3, statistics, sys
t = sys.argv[1]
db = sqlite3.connect(f"{t}/results.db")
db.row_factory = sqlite3.Row
load = db.execute("SELECT AVG(host_steal_pct), MAX(host_steal_pct), AVG(host_runq_before), MIN(host_nice), MAX(host_nice), "
                  "MAX(host_group_nice) FROM cell").fetchone()
# Each group of agreement.csv (host, arm, RTT, chain, response; trials pooled) with its
# cells' congestion control and fidelity, as the database stores them. A group is marked
# when one of its cells is (docs/results.md: link_ok = 0, host_ok = 0 or link_check_ok = 0;
# the budgets are the sweep's, not restated here) and its reason names the measured value.
cells = collections.defaultdict(list)
for c in db.execute("SELECT * FROM cell"):
    cells[(c["host_name"], c["arm"], str(c["rtt_us"]), str(c["chain_der_bytes"]), str(c["response_bytes"]))].append(c)


def marks(cs):
    why = []
    for c in cs:
        if c["link_ok"] == 0:
            late, unpl = c["link_late_p99_us"], c["link_drop_unplanned_pkts"]
            if unpl:
                why.append(f"link dropped {unpl} packets it was not asked to")
            if late is not None:
                why.append(f"link late p99 {late / 1e3:.1f} ms")
        if c["host_ok"] == 0:
            steal = c["host_steal_pct"]
            wait = sum(w for w in (c["host_client_wait_p50_us"], c["host_server_wait_p50_us"]) if w is not None)
            if steal is not None and steal > 10:
                why.append(f"host steal {steal:.1f} %")
            why.append(f"the endpoints waited {wait / 1e3:.1f} ms for a CPU")
        if c["link_check_ok"] == 0:
            why.append("the link missed its self-check")
    return ", ".join(dict.fromkeys(why))


psi = [tuple(map(float, l.split())) for l in open(f"{t}/psi.txt") if len(l.split()) == 2]


def pressure(cs):
    """The share of the cells' wall time some task waited for a CPU (PSI some), %; None
    without samples. started_at has whole seconds: the window is widened by one."""
    waited = span = 0.0
    for c in cs:
        t0 = datetime.datetime.strptime(c["started_at"], "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        t1 = t0 + c["wall_us"] / 1e6 + 1
        w = [s for s in psi if t0 <= s[0] <= t1]
        if len(w) >= 2:
            waited += w[-1][1] - w[0][1]
            span += (w[-1][0] - w[0][0]) * 1e6
    return 100 * waited / span if span else None


rows = list(csv.DictReader(open(f"{t}/csv/agreement.csv")))
pres = {True: [], False: []}
clean_miss = []
# (cc, rtt) -> [agree all, all, agree clean, clean]
by = collections.defaultdict(lambda: [0, 0, 0, 0])
why = collections.defaultdict(collections.Counter)
marked = []
for r in rows:
    cs = cells.get((r["host"], r["arm"], r["rtt_us"], r["chain_der_bytes"], r["response_bytes"]), [])
    cc = cs[0]["cc"] if cs else "?"
    rtt = f"{int(r['rtt_us']) / 1000:g} ms"
    ok = r["agrees"] == "1"
    m = marks(cs)
    for key in ((cc, rtt), (cc, "all"), ("all", rtt), ("all", "all")):
        b = by[key]
        b[0] += ok
        b[1] += 1
        if not m:
            b[2] += ok
            b[3] += 1
    if m:
        marked.append(f"{cc} {rtt} {r['arm']} {r['chain_der_bytes']} B: {'agrees' if ok else 'differs'}; {m}")
    else:
        pr = pressure(cs)
        if pr is not None:
            pres[ok].append(pr)
        if not ok:
            why[cc][r["reason"].split(":")[0]] += 1
            p = "" if pr is None else f"; CPU pressure {pr:.0f} %"
            clean_miss.append(f"{cc} {rtt} {r['arm']} {r['chain_der_bytes']} B: {r['reason'].split(':')[0]}{p}")


def pct(a, n):
    return f"{a} of {n} ({100 * a / n:.1f} %)" if n else "0 of 0"


print("model-agreement: cells that agree: all cells | clean cells (link and host within budget)")
for (cc, rtt), (a, n, ca, cn) in sorted(by.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
    print(f"    {cc:6s} {rtt:7s} {pct(a, n):20s} | {pct(ca, cn)}")
for cc in sorted(why):
    print(f"model-agreement: {cc}: clean cells that differ, by reason")
    for reason, k in why[cc].most_common():
        print(f"    {k:4d} {reason}")
for line in clean_miss:
    print(f"    {line}")
for ok, name in ((True, "agree"), (False, "differ")):
    if pres[ok]:
        v = sorted(pres[ok])
        print(f"model-agreement: CPU pressure (PSI some) of the clean cells that {name}: median "
              f"{statistics.median(v):.0f} %, max {v[-1]:.0f} % ({len(v)} cells)")
print(f"model-agreement: {len(marked)} marked cells (counted apart above), each with its reason:")
for line in marked:
    print(f"    {line}")
print(f"model-agreement: host steal mean {load[0] or 0:.1f} % (max {load[1] or 0:.1f} %), run queue mean "
      f"{load[2] or 0:.1f}; the endpoints at nice {load[3]}..{load[4]}, their session group at {load[5]}")
PY
