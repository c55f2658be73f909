#!/usr/bin/env bash
# Every preset at full size, one after another, at the sweep's default concurrency
# (`--jobs auto`, src/exp/jobs.c), each into a database of its own, then its page. Per
# preset: the cells, the wall time of the sweep against the sweep's own estimates (one
# cell at a time and at the concurrency used, from `pqtls sweep --presets` in the same
# run), the cells over the link's or the host's budget, and the cells measured again. The
# serial estimate is the peer: measuring every preset serially takes about 7 hours here,
# too long to repeat in a bench. Goal (issue: a full study in minutes): every preset in
# <= 45 min, ttfb-size in <= 15 min, >= 95 % of cells within their budgets.
#   PQTLS=build/pqtls bash bench/presets.sh                 (every preset)
#   PRESETS="ttfb-size loss" OUT=/tmp/full bash bench/presets.sh
# LANES runs several sweeps at once, each lane's presets one after another, the lanes
# side by side (their cells share the machine's admission, exp/admit.h); every preset
# must be in one lane, and the total is the wall time until the last lane ends:
#   LANES="ttfb-size blog-payload | loss ttlb" OUT=/tmp/full bash bench/presets.sh
# OUT (default: a temporary directory, removed at the end) keeps the databases and pages.
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
if [ "$(id -u)" != 0 ]; then echo "presets: needs root (links); skipped"; exit 0; fi
command -v sqlite3 >/dev/null || { echo "presets: needs sqlite3; skipped"; exit 0; }
EST=$(mktemp)
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	T=$OUT
	trap 'rm -f "$EST"' EXIT
else
	T=$(mktemp -d)
	trap 'rm -rf "$T" "$EST"' EXIT
fi
"$P" sweep --presets >"$EST"
ALL=$(awk 'NR > 1 && $2 ~ /^[0-9]+$/ && $1 !~ /^\(/ {print $1}' "$EST")
if [ -n "${LANES:-}" ]; then PRESETS=$(echo "$LANES" | tr '|' ' '); fi
PRESETS=${PRESETS:-$ALL}
for p in $PRESETS; do
	grep -q "^$p " "$EST" || { echo "presets: '$p' is not a preset; one of: $(echo $ALL)" >&2; exit 2; }
done
echo "presets: $(echo $PRESETS | wc -w) presets, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)${LANES:+, lanes: $LANES}"
# one preset: its sweep, its page, its row (on stdout); 1 when the sweep failed
one() {
	local p=$1 t0 t1 s cells marked again se je
	t0=$(date +%s.%N)
	"$P" sweep --preset "$p" -q --out "$T/$p.db" >"$T/$p.log" 2>&1 || { tail -n 20 "$T/$p.log"; return 1; }
	t1=$(date +%s.%N)
	"$P" report "$T/$p.db" -q -o "$T/$p.html" >/dev/null
	s=$(echo "$t1 - $t0" | bc)
	read -r cells marked < <(sqlite3 -separator ' ' "$T/$p.db" \
		"SELECT COUNT(*), COALESCE(SUM(link_ok = 0 OR host_ok = 0), 0) FROM cell")
	again=$(grep -o '[0-9]* cells\? measured again' "$T/$p.log" | grep -o '^[0-9]*' || true)
	read -r se je < <(awk -v p="$p" '$1 == p {print $3, $4}' "$EST")
	printf '%-20s %6s %8.0fs %9s %9s %8s %8s %7.0fs\n' "$p" "$cells" "$s" "$se" "$je" "$marked" "${again:-0}" \
		"$(echo "$t1 - $T0" | bc)"
}
printf '%-20s %6s %9s %9s %9s %8s %8s %8s\n' preset cells measured serial-est jobs-est "marked" again ended
T0=$(date +%s.%N)
if [ -n "${LANES:-}" ]; then
	IFS='|' read -r -a lanes <<<"$LANES"
	pids=()
	for i in "${!lanes[@]}"; do
		( for p in ${lanes[$i]}; do one "$p" || exit 1; done ) >"$T/lane$i.rows" &
		pids+=($!)
	done
	rc=0
	for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
	cat "$T"/lane*.rows | sort -k8,8n
	[ "$rc" = 0 ] || exit 1
else
	for p in $PRESETS; do one "$p" || exit 1; done
fi
printf 'all presets: %.1f min (wall time from the first sweep to the last page)\n' "$(echo "($(date +%s.%N) - $T0) / 60" | bc -l)"
