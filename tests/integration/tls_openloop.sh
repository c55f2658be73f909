#!/usr/bin/env bash
# Open loop at a rate the server cannot sustain: latency measured from each intended
# start grows through the run (the last tenth waits far longer than the first), every
# scheduled connection is made (none dropped), and the summary says it is growing.
# Overload is made certain on any machine, fast or busy, by measuring the server's
# capacity first, in this run (closed loop, 4 in flight, as many as the open loop may
# have), and asking for four times that.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

num() { json_field "$1" "$2" | head -1; }
dir=$(chain ml-dsa-87)
start_serve s --certs "$dir" --threads 1
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 60 -c 4 --json >"$T/cap.json"
cap=$(num "$T/cap.json" conns_per_s)
rate=$(awk -v c="$cap" 'BEGIN { printf "%d", 4 * c + 1 }')
N=120
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" --rate "$rate/s" -n $N --max-inflight 4 --json >"$T/o.json" ||
	fail "the open-loop run failed (exit $?)"
[ "$(num "$T/o.json" ok)" = $N ] || fail "open loop: $(num "$T/o.json" ok) of $N scheduled connections made"
first=$(num "$T/o.json" latency_first_tenth_p50_us)
last=$(num "$T/o.json" latency_last_tenth_p50_us)
wall=$(num "$T/o.json" wall_s)
awk -v f="$first" -v l="$last" 'BEGIN { exit !(l > 3 * f) }' ||
	fail "open loop at 4x capacity: latency p50 first tenth $first us, last tenth $last us (not growing)"
# At four times its capacity the run takes about four times its schedule; twice is the
# bound (a ratio of this run's own speeds, not a time that assumes one).
awk -v w="$wall" -v n=$N -v r="$rate" 'BEGIN { exit !(w > 2 * n / r) }' ||
	fail "the run took $wall s for a $N / $rate s schedule: the server kept up with 4x its capacity?"
pass "capacity $cap/s; at $rate/s latency p50 grows from $first us to $last us; $N connections took $wall s"

rc=0
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" --rate "$rate/s" -n $N --max-inflight 4 >"$T/o.txt" || rc=$?
[ "$rc" = 0 ] || { cat "$T/o.txt"; fail "the open-loop run with a table exited $rc"; }
grep -q "growing" "$T/o.txt" || fail "the table does not say latency is growing"
pass "the table says so"
