#!/usr/bin/env bash
# Hosts that cannot be reached give a clear message per kind and exit 1, and the run
# stops after its first failures instead of repeating them. Inside a network namespace
# of our own, one address has no route at all (ENETUNREACH), one an "unreachable" route
# (EHOSTUNREACH), one a blackhole route (connect says EINVAL), and one a neighbour that
# never answers, so the SYNs vanish and only --timeout ends the wait.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/unreach.bash" pqtls-unreach

# expect ADDR PATTERN KIND: pqtls bench in the namespace exits 1 with PATTERN on stderr,
# stops after the first failures, and its CSV has a complete row of error kind KIND.
expect() {
	local rc=0 t0=$SECONDS
	ip netns exec "$NS" "$PQTLS" bench "$1" --insecure -n 5 --timeout 1s --csv "$T/u.csv" \
		>"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 1 ] || { cat "$T/out" "$T/err"; fail "$1: exited $rc, want 1"; }
	grep -q -- "$2" "$T/err" || { cat "$T/err"; fail "$1: stderr lacks '$2'"; }
	grep -q "stopped after the first failures" "$T/err" || { cat "$T/err"; fail "$1: did not stop early"; }
	# One timeout is 1 s; 5 connections waited out one after another would take 5 s.
	# 4 s leaves room for a slow machine and still fails a run that did not stop early.
	[ $((SECONDS - t0)) -le 4 ] || fail "$1: took $((SECONDS - t0)) s"
	grep -q ",$3," "$T/u.csv" && ! [ -e "$T/u.csv.tmp" ] || { cat "$T/u.csv"; fail "$1: CSV lacks a '$3' row"; }
	pass "$1: $(tail -1 "$T/err")"
}

expect 192.0.2.1:443 "TCP connect failed: Network is unreachable" connect
expect 198.51.100.1:443 "TCP connect failed: No route to host" connect
expect 203.0.113.1:443 "TCP connect failed: .*blackhole" connect
expect 10.9.0.2:443 "timed out in TCP connect: no progress for 1000 ms" timeout_connect
