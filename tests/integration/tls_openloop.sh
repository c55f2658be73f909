#!/usr/bin/env bash
# Open loop at a rate the server cannot sustain: latency measured from each intended
# start grows through the run (the last tenth waits far longer than the first), every
# scheduled connection is made (none dropped), and the summary says it is growing.
# The rate is far above what one client loop can even start (ML-DSA-87 verification
# alone keeps it under ~1000 handshakes/s on a fast core), so overload is certain.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

num() { json_field "$1" "$2" | head -1; }
dir=$(chain ml-dsa-87)
start_serve s --certs "$dir" --threads 1
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" --rate 4000/s -d 150ms --max-inflight 32 --json >"$T/o.json"
[ "$(num "$T/o.json" ok)" = 600 ] || fail "open loop: $(num "$T/o.json" ok) of 600 scheduled connections made"
first=$(num "$T/o.json" latency_first_tenth_p50_us)
last=$(num "$T/o.json" latency_last_tenth_p50_us)
wall=$(num "$T/o.json" wall_s)
awk -v f="$first" -v l="$last" 'BEGIN { exit !(l > 3 * f && l > 100000) }' ||
	fail "open loop over capacity: latency p50 first tenth $first us, last tenth $last us (not growing)"
awk -v w="$wall" 'BEGIN { exit !(w > 0.3) }' || fail "the run took $wall s: the server kept up with 4000/s?"
pass "over capacity: latency p50 grows from $first us to $last us; 600 connections took $wall s"

"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" --rate 4000/s -d 150ms --max-inflight 32 >"$T/o.txt" || true
grep -q "growing" "$T/o.txt" || fail "the table does not say latency is growing"
pass "the table says so"
