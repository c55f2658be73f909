#!/usr/bin/env bash
# Throughput of one TCP flow through the userspace link at 0 ms and 50 ms RTT, beside a
# plain veth pair between two namespaces measured in the same run. Targets: >= 1 Gbit/s
# at 0 ms and >= 500 Mbit/s at 50 ms, with no unplanned drops.
#   PQTLS=build/pqtls bash bench/link-throughput.sh   (BYTES=500000000 by default)
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
BYTES=${BYTES:-500000000}
if [ "$(id -u)" != 0 ]; then echo "link-throughput: needs root; skipped"; exit 0; fi

A=pqtlsbench-$$-a
B=pqtlsbench-$$-b
srv=
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null || true
	ip netns del "$A" 2>/dev/null || true
	ip netns del "$B" 2>/dev/null || true
}
trap cleanup EXIT

echo "link-throughput: $BYTES bytes per flow, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# Baseline: a veth pair between two fresh namespaces (created inside them, nothing on the host).
ip netns add "$A"
ip netns add "$B"
ip -n "$A" link add v0 type veth peer name v0 netns "$B"
ip -n "$A" addr add 10.78.0.1/30 dev v0
ip -n "$B" addr add 10.78.0.2/30 dev v0
ip -n "$A" link set v0 up
ip -n "$B" link set v0 up
ip netns exec "$A" "$P" link probe-server --port 5201 &
srv=$!
for _ in $(seq 100); do ip netns exec "$A" ss -ltn 2>/dev/null | grep -q ':5201 ' && break; sleep 0.05; done
veth=$(ip netns exec "$B" "$P" link probe-client --bytes "$BYTES" 10.78.0.1 | awk '{print $3}')
echo "veth pair       : $veth Mbit/s"

for rtt in 0 50ms; do
	out=$("$P" link run --backend userspace --rtt "$rtt" --wait-port 5201 -- "$P" link probe-server --port 5201 -- \
		"$P" link probe-client --bytes "$BYTES" {server} 2>&1)
	mbit=$(awk '/^[0-9]+ [0-9.]+ [0-9.]+$/ {print $3}' <<<"$out")
	stats=$(grep "link: backend" <<<"$out")
	unplanned=$(sed -E 's/.*unplanned ([0-9]+).*/\1/' <<<"$stats")
	target=$([ "$rtt" = 0 ] && echo 1000 || echo 500)
	verdict=$(awk -v m="$mbit" -v t="$target" -v u="$unplanned" 'BEGIN { print (m >= t && u == 0) ? "PASS" : "MISS" }')
	printf 'link rtt %-6s : %s Mbit/s (target %s), unplanned drops %s  %s\n' "$rtt" "$mbit" "$target" "$unplanned" "$verdict"
	echo "  $stats"
done
