#!/usr/bin/env bash
# The time estimate (src/exp/preflight.c, docs/sweep.md "The time estimate") against what
# was measured: each stored cell's wall time beside the estimate of the same cell alone,
# joined by the cell's key (`pqtls sweep ... --dry-run` prints both), summed per group.
# The peer is the measured run itself; a ratio (estimate over measured) near 1 means the
# dispatcher orders the links rightly and `--dry-run`, `--presets` and the ETA say the
# truth. Measures nothing: give a database a sweep wrote and the sweep's own arguments.
#   bash bench/estimate.sh out/loss/results.db --preset loss
#   GROUP="link_profile || ' ' || response_bytes" bash bench/estimate.sh ttlb.db --preset ttlb
# GROUP is an SQL expression over the cell table (default: the link profile and RTT).
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
command -v sqlite3 >/dev/null || { echo "estimate: needs sqlite3; skipped"; exit 0; }
if [ $# -eq 0 ]; then # as `make bench` runs it: the quick reproduction's results, if any
	[ -r out/quick/results.db ] || { echo "estimate: no out/quick/results.db (make run writes it); skipped"; exit 0; }
	set -- out/quick/results.db --preset quick
fi
if [ $# -lt 2 ]; then
	echo "estimate: give a results database and the sweep's arguments, e.g. out/quick/results.db --preset quick" >&2
	exit 2
fi
DB=$1
shift
[ -r "$DB" ] || { echo "estimate: cannot read '$DB'" >&2; exit 2; }
GROUP=${GROUP:-"COALESCE(NULLIF(link_profile, ''), 'rtt') || ' ' || (rtt_us / 1000) || ' ms'"}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$P" sweep "$@" --dry-run | tail -n +2 | awk '{sub(/s$/, "", $3); print $2 "|" $3}' >"$T/est"
[ -s "$T/est" ] || { echo "estimate: the dry run listed no cells" >&2; exit 2; }
sqlite3 "file:$DB?mode=ro" >"$T/out" <<SQL
CREATE TEMP TABLE e(k TEXT PRIMARY KEY, s REAL);
.mode list
.import $T/est e
.headers on
.mode column
SELECT $GROUP AS grp, COUNT(*) AS cells, ROUND(SUM(e.s)) AS estimate_s,
       ROUND(SUM(cell.wall_us) / 1e6) AS measured_s, ROUND(SUM(e.s) / (SUM(cell.wall_us) / 1e6), 2) AS ratio
FROM cell JOIN e ON e.k = cell.cell_key GROUP BY 1 ORDER BY 1;
.headers off
.mode list
.separator '  '
SELECT 'all cells:', COUNT(*), ROUND(SUM(e.s)), ROUND(SUM(cell.wall_us) / 1e6),
       ROUND(SUM(e.s) / (SUM(cell.wall_us) / 1e6), 2) FROM cell JOIN e ON e.k = cell.cell_key;
SQL
cat "$T/out"
n=$(sqlite3 "file:$DB?mode=ro" "SELECT COUNT(*) FROM cell")
m=$(awk 'END {print NR}' "$T/est")
echo "estimate: $DB holds $n cells, the sweep's grid $m; the rows above join the two by cell key"
