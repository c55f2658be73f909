#!/usr/bin/env bash
# Where the endpoints' waits for a CPU go when cells run at once: one sweep recorded with
# `perf sched record -a`, then every wait of a cell's client (a worker's first thread,
# `pqtls`) and server (`pqtls-srv`) laid over what ran on that CPU meanwhile: the links'
# forwarders (`pqtls-fwd`, real-time, which also run the kernel's receive path for every
# packet they write into a namespace), other clients, other servers, the keep-awake
# spinners (`pqtls-awake`), the link set-up's helpers (ip, tc, a server's exec), kernel
# threads (bench/waits.py). These waits are what bounds how many cells may run at once
# (docs/sweep.md, "What the endpoints' waits are"): this says which part of the machine
# to make cheaper. Also the CPU time of each kind over the run.
#   PQTLS=build/pqtls bash bench/waits.sh                (ttfb-size's 50 ms cells, 3 chains)
#   PQTLS=build/pqtls bash bench/waits.sh --preset ttfb-size --rtt 100ms --trials 1
# The arguments are the sweep's (no -o: the database goes beside the trace); no cell is
# measured again (--remeasure 0). OUT=DIR keeps the trace, timehist and database. The
# recording costs some CPU of its own (its share is printed); compare runs of one setup.
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
if [ "$(id -u)" != 0 ]; then echo "waits: needs root (links); skipped"; exit 0; fi
command -v perf >/dev/null || { echo "waits: needs perf (Debian: linux-perf); skipped"; exit 0; }
command -v python3 >/dev/null || { echo "waits: needs python3; skipped"; exit 0; }
[ -x "$P" ] || { echo "waits: '$P' is not an executable (set PQTLS)" >&2; exit 2; }
for a in "$@"; do
	case "$a" in -o | --out | --out=*) echo "waits: give no -o/--out: the database goes beside the trace (OUT=DIR keeps it)" >&2; exit 2 ;; esac
done
[ $# -gt 0 ] || set -- --preset ttfb-size --rtt 50ms --pad-chain-to 8KiB,40KiB,72KiB --trials 1
T=${OUT:-}
[ -n "$T" ] || { T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT; }
mkdir -p "$T"
rm -f "$T/results.db" "$T/results.db-wal" "$T/results.db-shm"
echo "waits: sweep $*; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
if ! perf sched record -a -o "$T/sched.data" -- "$P" sweep "$@" --remeasure 0 -q -o "$T/results.db" \
	>"$T/sweep.log" 2>&1; then
	echo "waits: the sweep (or perf) failed; its last lines:" >&2
	tail -5 "$T/sweep.log" >&2
	exit 1
fi
perf sched timehist -i "$T/sched.data" >"$T/timehist.txt" 2>"$T/timehist.err" || {
	echo "waits: perf sched timehist failed: $(tail -1 "$T/timehist.err")" >&2
	exit 1
}
python3 "$(dirname "$0")/waits.py" "$T/timehist.txt" "$T/results.db"
