#!/usr/bin/env bash
# bench/waits.sh, where a sweep's endpoints waited for a CPU: what it refuses (named, exit 2,
# before any sweep), an empty trace refused by its reader, and one small traced sweep whose
# report names the cell's forwarder and server by their threads' names (src/core/sched.h).
# Its sweep brings up a link (network namespaces): it runs alone.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
W="$(dirname "$0")/../../bench/waits.sh"
WPY="$(dirname "$0")/../../bench/waits.py"
P=$(readlink -f "$PQTLS")

if command -v python3 >/dev/null; then
	expect_fail 1 "no scheduling events in /dev/null" python3 "$WPY" /dev/null
	expect_fail 1 "usage: waits.py TIMEHIST" python3 "$WPY"
	expect_fail 1 "cannot read the trace $T/none.txt" python3 "$WPY" "$T/none.txt"
	echo "  1.000001 [0000]  pqtls[7]  0.000  0.010  0.100" >"$T/one.txt"
	expect_fail 1 "$T/none.db is not a pqtls results database" python3 "$WPY" "$T/one.txt" "$T/none.db"
	[ ! -e "$T/none.db" ] || fail "a missing database was created"
	printf 'not sqlite' >"$T/bad.db"
	expect_fail 1 "$T/bad.db is not a pqtls results database" python3 "$WPY" "$T/one.txt" "$T/bad.db"
fi
if [ "$(id -u)" != 0 ]; then echo "skip: the rest needs root (links)"; exit 77; fi
if ! command -v perf >/dev/null; then
	out=$(PQTLS=$P bash "$W")
	grep -q "needs perf.*skipped" <<<"$out" || fail "without perf it did not skip: $out"
	pass "without perf: skipped, exit 0"
	echo "skip: the traced sweep needs perf (linux-perf)"
	exit 77
fi
PQTLS=/nonexistent expect_fail 2 "'/nonexistent' is not an executable" bash "$W"
PQTLS=$P expect_fail 2 "give no -o/--out" bash "$W" --rtt 10ms -o "$T/x.db"
[ ! -e "$T/x.db" ] || fail "a refused run wrote its database"
PQTLS=$P expect_fail 1 "the sweep (or perf) failed" bash "$W" --rtt 10ms --jobs 0
grep -q "'0' is not a number of cells at once" "$T/err" || { cat "$T/err"; fail "the sweep's own message was not shown"; }

PQTLS=$P OUT="$T/w" bash "$W" --sig ecdsa-p256 --rtt 10ms --connections 4 --no-check >"$T/w.out"
grep -q "^trace: .* 1 cells, 4 connections" "$T/w.out" || { cat "$T/w.out"; fail "no trace line with the cell and its connections"; }
grep -qE "^  forwarders \(real-time.* [0-9.]+ s +[0-9.]+ %$" "$T/w.out" ||
	{ cat "$T/w.out"; fail "the link's forwarder (pqtls-fwd) is not in the CPU time"; }
grep -qE "^  servers +[0-9.]+ s" "$T/w.out" || { cat "$T/w.out"; fail "the cell's server (pqtls-srv) is not in the CPU time"; }
[ -s "$T/w/timehist.txt" ] && [ -f "$T/w/results.db" ] || fail "OUT did not keep the trace and the database"
pass "one traced cell: its forwarder and server by name, the trace and database kept in OUT"
