#!/usr/bin/env bash
# Two builds of pqtls, one sweep, alternated: how a change to the runner (the dispatcher's
# order, the back-off, the client's loop, a forwarder setting) moves a sweep's wall time
# and its cells over a budget, with the other build as the peer measured in the same run
# (absolute times drift on a shared VM; the ratio of alternated runs does not). Per run:
# the wall time, the cells, those marked (over the link's or the host's budget), those on
# a link whose self-check missed (the report marks them too), those measured again, the endpoints' mean median wait for a CPU (client plus server, per
# cell); then each build's mean wall time and B's speed-up over A.
#   A=/tmp/pqtls-before B=build/pqtls ROUNDS=2 bash bench/ab.sh --preset loss --connections 30
# The arguments are the sweep's (a preset or spec scaled down, options); each run writes a
# database of its own in a temporary directory (OUT keeps them). Environment settings
# for one side only: A_ENV / B_ENV, e.g. B_ENV='PQTLS_LINK_EARLY_US=30' with A = B.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then echo "ab: needs root (links); skipped"; exit 0; fi
command -v sqlite3 >/dev/null || { echo "ab: needs sqlite3; skipped"; exit 0; }
if [ -z "${A:-}" ] && [ -z "${B:-}" ] && [ $# -eq 0 ]; then # as `make bench` runs it
	echo "ab: compares two builds (A=OLD B=NEW bash bench/ab.sh SWEEP-ARGS); none given, skipped"
	exit 0
fi
[ -n "${A:-}" ] && [ -n "${B:-}" ] || { echo "ab: set A and B to two pqtls binaries (they may be the same, with A_ENV or B_ENV)" >&2; exit 2; }
[ $# -gt 0 ] || { echo "ab: give the sweep's arguments, e.g. --preset loss --connections 30" >&2; exit 2; }
A=$(readlink -f "$A")
B=$(readlink -f "$B")
for b in "$A" "$B"; do [ -x "$b" ] || { echo "ab: '$b' is not an executable" >&2; exit 2; }; done
ROUNDS=${ROUNDS:-2}
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "ab: ROUNDS='$ROUNDS': use a count from 1" >&2; exit 2 ;; esac
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	T=$OUT
else
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
fi
echo "ab: A=$A${A_ENV:+ ($A_ENV)}, B=$B${B_ENV:+ ($B_ENV)}; sweep $*; rounds: $ROUNDS; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-2s %9s %6s %7s %6s %6s %10s\n' round bld wall-s cells marked check again wait-us
declare -A sum
for r in $(seq 1 "$ROUNDS"); do
	for v in A B; do
		bin=$A env=${A_ENV:-}
		[ $v = B ] && bin=$B env=${B_ENV:-}
		db=$T/$v$r.db
		rm -f "$db" "$db-wal" "$db-shm"
		t0=$(date +%s.%N)
		env $env "$bin" sweep "$@" -q --out "$db" >"$T/$v$r.log" 2>&1 || {
			echo "ab: the sweep of $v (round $r) failed; its log's end:" >&2
			tail -n 20 "$T/$v$r.log" >&2
			exit 1
		}
		t1=$(date +%s.%N)
		s=$(echo "$t1 - $t0" | bc)
		sum[$v]=$(echo "${sum[$v]:-0} + $s" | bc)
		again=$(grep -o '[0-9]* cells\? measured again' "$T/$v$r.log" | grep -o '^[0-9]*' || echo 0)
		read -r cells marked check wait < <(sqlite3 -separator ' ' "file:$db?mode=ro" \
			"SELECT COUNT(*), SUM(link_ok = 0 OR host_ok = 0), SUM(link_check_ok = 0),
			 CAST(AVG(COALESCE(host_client_wait_p50_us, 0) + COALESCE(host_server_wait_p50_us, 0)) AS INTEGER) FROM cell")
		printf '%-6s %-2s %9.1f %6s %7s %6s %6s %10s\n' "$r" $v "$s" "$cells" "$marked" "${check:-0}" "${again:-0}" "$wait"
	done
done
a=$(echo "${sum[A]} / $ROUNDS" | bc -l)
b=$(echo "${sum[B]} / $ROUNDS" | bc -l)
printf 'ab: mean wall A %.1f s, B %.1f s: B is x%.2f of A'"'"'s speed\n' "$a" "$b" "$(echo "$a / $b" | bc -l)"
