#!/usr/bin/env bash
# pqtls check against hosts it cannot reach (lib/unreach.bash): no route, an unreachable
# route, and a neighbour that never answers (the SYNs vanish). Each ends after one probe
# and one --timeout at most, exit 1, naming why.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/unreach.bash" pqtls-chkun

# expect ADDR PATTERN: one probe, exit 1, PATTERN on stderr, within one timeout.
expect() {
	local rc=0 t0=$SECONDS
	ip netns exec "$NS" "$PQTLS" check "$1" --timeout 1s >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 1 ] || { cat "$T/out" "$T/err"; fail "$1: exited $rc, want 1"; }
	grep -q -- "$2" "$T/err" || { cat "$T/err"; fail "$1: stderr lacks '$2'"; }
	grep -q "0 of 14 probes passed; the others were not run" "$T/out" || { cat "$T/out"; fail "$1: ran on"; }
	# One timeout is 1 s; fourteen would be 14 s. 5 s leaves room for a slow machine.
	[ $((SECONDS - t0)) -le 5 ] || fail "$1: took $((SECONDS - t0)) s"
	pass "$1: $(tail -1 "$T/err")"
}

expect 192.0.2.1:443 "Network is unreachable"
expect 198.51.100.1:443 "No route to host"
expect 10.9.0.2:443 "no TCP connection within 1.0 s"
