#!/usr/bin/env bash
# pqtls check against hosts it cannot reach, inside a network namespace of our own: no
# route (ENETUNREACH), an unreachable route, and a neighbour that never answers (the SYNs
# vanish). Each ends after one probe and one --timeout at most, exit 1, naming why.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root (network namespaces)"; exit 77; fi
if ! command -v ip >/dev/null; then echo "skip: needs iproute2 (ip)"; exit 77; fi
NS=pqtls-chkun-$$
if ! ip netns add "$NS" 2>/dev/null; then echo "skip: cannot create network namespaces here"; exit 77; fi
trap 'ip netns del "$NS" 2>/dev/null || true; cleanup' EXIT

ipn() { ip -n "$NS" "$@"; }
ipn link set lo up
ipn link add v0 type veth peer name v1
ipn addr add 10.9.0.1/24 dev v0
ipn link set v0 up
ipn link set v1 up
ipn neigh add 10.9.0.2 lladdr 02:00:00:00:00:02 dev v0 nud permanent
ipn route add unreachable 198.51.100.0/24

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
