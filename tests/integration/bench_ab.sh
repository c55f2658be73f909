#!/usr/bin/env bash
# bench/ab.sh, two builds and one sweep alternated: what it refuses (named, exit 2, before
# any sweep), a sweep that fails (its log on stderr, exit 1), what `make bench` gives it
# (nothing: skipped), and one small round that prints a row per build and the ratio.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
AB="$(dirname "$0")/../../bench/ab.sh"
P=$(readlink -f "$PQTLS")

out=$(bash "$AB")
grep -q "skipped" <<<"$out" || fail "ab.sh with nothing given did not skip: $out"
pass "nothing to compare: skipped, exit 0 (as make bench runs it)"
if [ "$(id -u)" != 0 ]; then echo "skip: the rest needs root (links)"; exit 77; fi
A=$P expect_fail 2 "set A and B to two pqtls binaries" bash "$AB" --rtt 10ms
A=/nonexistent B=$P expect_fail 2 "'/nonexistent' is not an executable" bash "$AB" --rtt 10ms
A=$P B=$P ROUNDS=x expect_fail 2 "ROUNDS='x': use a count from 1" bash "$AB" --rtt 10ms
A=$P B=$P expect_fail 2 "give the sweep's arguments" bash "$AB"
A=$P B=$P ROUNDS=1 expect_fail 1 "'0' is not a number of cells at once" bash "$AB" --rtt 10ms --jobs 0
grep -q "ab: the sweep of A (round 1) failed" "$T/err" || { cat "$T/err"; fail "the failed sweep was not named"; }

A=$P B=$P ROUNDS=1 OUT="$T/ab" bash "$AB" --sig ecdsa-p256 --rtt 10ms --connections 2 >"$T/ab.out"
grep -qE '^1 +A +[0-9.]+ +1 ' "$T/ab.out" && grep -qE '^1 +B +[0-9.]+ +1 ' "$T/ab.out" ||
	{ cat "$T/ab.out"; fail "a round lacks a row per build"; }
grep -q "B is x[0-9.]* of A's speed" "$T/ab.out" || { cat "$T/ab.out"; fail "no ratio"; }
[ -f "$T/ab/A1.db" ] && [ -f "$T/ab/B1.db" ] || fail "OUT did not keep the databases"
pass "one round: a row per build, the ratio, the databases kept in OUT"
