#!/usr/bin/env bash
# The links' release lateness with the CPUs kept awake each way (`pqtls sweep --keep-awake
# poll`, the default where the machine has it, and `spin`: src/core/awake.c) and without,
# in the same run: one small grid of cheap classical arms at 70 and 148 ms (where the CPUs
# sleep most), measured alternately in each of MODES (default "poll spin off") ROUNDS times, one cell at a time (JOBS=1, default) or at once (JOBS=auto), no
# cell measured again (--remeasure 0) so every attempt counts. Per run: the cells whose
# release lateness p99 went over the link's 1 ms budget and over 0.5 ms, the mean p50 and
# p99, the host's steal (a busy vCPU may be taken away more often than an idle one), the
# endpoints' waits for a CPU (the mean of the cells' median client and server waits, and
# the largest cell's) and cells over the host's budget, and the sweep's wall time.
# Meaningful on a quiet machine: busy CPUs do not halt.
#   PQTLS=build/pqtls bash bench/awake.sh        (ROUNDS=2 JOBS=1 by default)
# GRID replaces the grid's options, e.g. many cells at once, where the awake spinners and
# the endpoints compete for the CPUs:
#   GRID='--sig ecdsa-p256,ml-dsa-44 --profile paper-50 --pad-chain-to 8KiB,10KiB,12KiB,14KiB,16KiB
#     --cc cubic,bbr --trials 2 --connections 20' JOBS=auto bash bench/awake.sh
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
ROUNDS=${ROUNDS:-2}
JOBS=${JOBS:-1}
MODES=${MODES:-poll spin off}
for m in $MODES; do case "$m" in on | off | poll | spin) ;; *) echo "awake: MODES takes on, off, poll and spin, not '$m'" >&2; exit 2 ;; esac; done
case "$ROUNDS" in *[!0-9]* | "") echo "awake: ROUNDS is a count" >&2; exit 2 ;; esac
if [ "$(id -u)" != 0 ]; then echo "awake: needs root (links); skipped"; exit 0; fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
GRID=${GRID:---sig ecdsa-p256,rsa-2048,ml-dsa-44 --rtt 70ms,148ms --trials 2 --connections 8}
read -r -a ARGS <<<"$GRID"
ARGS+=(--no-check -q --remeasure 0 --jobs "$JOBS")
echo "awake: $ROUNDS rounds, --jobs $JOBS, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
	for mode in $MODES; do
		t0=$(date +%s.%N)
		"$P" sweep "${ARGS[@]}" --keep-awake $mode --out "$T/$mode$r.db" >/dev/null 2>&1
		t1=$(date +%s.%N)
		sqlite3 "$T/$mode$r.db" "SELECT 'round $r, --keep-awake $mode: ' || COUNT(*) || ' cells, p99 > 1 ms: ' ||
			SUM(link_late_p99_us > 1000) || ', p99 > 0.5 ms: ' || SUM(link_late_p99_us > 500) ||
			', mean p50 ' || printf('%.0f', AVG(link_late_p50_us)) || ' us, mean p99 ' ||
			printf('%.0f', AVG(link_late_p99_us)) || ' us; endpoints wait ' ||
			printf('%.0f', AVG((host_client_wait_p50_us + host_server_wait_p50_us) / 2)) || ' us (median, mean of cells; largest ' ||
			printf('%.0f', MAX(MAX(host_client_wait_max_us, host_server_wait_max_us))) || ' us); host: steal ' ||
			printf('%.1f', AVG(host_steal_pct)) ||
			' % on average, ' || SUM(host_ok = 0) || ' cells over its budget; ' || printf('%.1f', $t1 - $t0) || ' s'
			FROM cell"
	done
done
