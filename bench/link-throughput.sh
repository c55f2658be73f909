#!/usr/bin/env bash
# Throughput of one TCP flow through the userspace link at 0 ms and 50 ms RTT, beside a
# plain veth pair between two namespaces measured in the same run. Targets: >= 1 Gbit/s
# at 0 ms and >= 500 Mbit/s at 50 ms, with no unplanned drops, and the forwarder's release
# lateness p99 <= 1 ms.
#
# Then what a measurement beside traffic sees: a UDP echo probe (one every 10 ms, from the
# client namespace to the server's) during a bulk download on a 50 ms link, at several
# rates. Target: probe RTT p99 <= RTT + the queue's delay at that rate + 2 ms.
#   PQTLS=build/pqtls bash bench/link-throughput.sh   (BYTES=500000000 by default;
#   PROBE_SECONDS=4 per probe run; RATES="100Mbit:32KiB 400Mbit:64KiB 500Mbit:64KiB";
#   RTTS="0 50ms" for the single-flow part, RTTS= to skip it;
#   PROBE_RT=1 runs the probe and its echo server in SCHED_FIFO 5, so their own waits for
#   a CPU on a loaded machine drop out and what is left is the link's)
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
BYTES=${BYTES:-500000000}
PROBE_SECONDS=${PROBE_SECONDS:-4}
RATES=${RATES:-100Mbit:32KiB 400Mbit:64KiB 500Mbit:64KiB}
PY=python3
[ "${PROBE_RT:-0}" = 1 ] && PY="chrt -f 5 python3"
if [ "$(id -u)" != 0 ]; then echo "link-throughput: needs root; skipped"; exit 0; fi
command -v python3 >/dev/null || { echo "link-throughput: needs python3 for the UDP probe; skipped"; exit 0; }

A=pqtlsbench-$$-a
B=pqtlsbench-$$-b
T=$(mktemp -d)
srv=
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null || true
	ip netns del "$A" 2>/dev/null || true
	ip netns del "$B" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT

# lateness STATS-LINE: "p99 X (budget 1 ms) PASS|MISS" from a run's stats line.
lateness() {
	local p99
	p99=$(sed -nE 's/.*release lateness p50 [^p]* p99 ([0-9.]+ [mun]?s) .*/\1/p' <<<"$1")
	awk -v v="$p99" 'BEGIN { split(v, a, " "); m = a[2] == "ms" ? 1 : a[2] == "us" ? 1e-3 : a[2] == "ns" ? 1e-6 : 1e3;
		printf "lateness p99 %s (budget 1 ms) %s", v, (a[1] * m <= 1) ? "PASS" : "MISS" }'
}

echo "link-throughput: $BYTES bytes per flow, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), probe: $PY"

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

for rtt in ${RTTS-0 50ms}; do
	out=$("$P" link run --backend userspace --rtt "$rtt" --wait-port 5201 -- "$P" link probe-server --port 5201 -- \
		"$P" link probe-client --bytes "$BYTES" {server} 2>&1)
	mbit=$(awk '/^[0-9]+ [0-9.]+ [0-9.]+$/ {print $3}' <<<"$out")
	stats=$(grep "link: backend" <<<"$out")
	unplanned=$(sed -E 's/.*unplanned ([0-9]+).*/\1/' <<<"$stats")
	target=$([ "$rtt" = 0 ] && echo 1000 || echo 500)
	verdict=$(awk -v m="$mbit" -v t="$target" -v u="$unplanned" 'BEGIN { print (m >= t && u == 0) ? "PASS" : "MISS" }')
	printf 'link rtt %-6s : %s Mbit/s (target %s), unplanned drops %s  %s; %s\n' "$rtt" "$mbit" "$target" \
		"$unplanned" "$verdict" "$(lateness "$stats")"
	echo "  $stats"
done

# The UDP echo probe: "echo PORT" answers every datagram; "probe HOST PORT FLAG" sends one
# every 10 ms until FLAG exists and prints "n p50 p99 max" of the RTTs in ms.
cat >"$T/udp.py" <<'PY'
import os, socket, struct, sys, time
if sys.argv[1] == "echo":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", int(sys.argv[2])))
    while True:
        b, a = s.recvfrom(64); s.sendto(b, a)
host, port, flag = sys.argv[2], int(sys.argv[3]), sys.argv[4]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.001)
rtts, seq, nxt = [], 0, time.monotonic()
while not os.path.exists(flag):
    now = time.monotonic()
    if now >= nxt:
        s.sendto(struct.pack("!Id", seq, now), (host, port)); seq += 1; nxt += 0.010
    try:
        b = s.recv(64); _, t = struct.unpack("!Id", b); rtts.append((time.monotonic() - t) * 1e3)
    except socket.timeout:
        pass
rtts.sort()
q = lambda f: rtts[min(len(rtts) - 1, int(f * len(rtts)))] if rtts else float("nan")
print(f"{len(rtts)} {q(0.5):.2f} {q(0.99):.2f} {rtts[-1] if rtts else float('nan'):.2f}")
PY
for rq in $RATES unlimited; do
	rate=${rq%%:*} queue=${rq#*:}
	args=(--rtt 50ms) qms=0 bytes=$BYTES
	if [ "$rq" != unlimited ]; then
		args+=(--rate "$rate" --queue "$queue")
		# the queue's delay when full, and enough bytes for PROBE_SECONDS at the rate
		read -r qms bytes < <(python3 -c "
import re,sys
def num(s, units):
    m = re.fullmatch(r'([0-9.]+)([A-Za-z]+)', s); return float(m.group(1)) * units[m.group(2)]
r = num('$rate', {'kbit': 1e3, 'Mbit': 1e6, 'Gbit': 1e9})
q = num('$queue', {'KiB': 1024, 'MiB': 1 << 20, 'KB': 1e3})
print(f'{q * 8 / r * 1e3:.2f} {int(r / 8 * $PROBE_SECONDS)}')")
	fi
	rm -f "$T/flag"
	out=$("$P" link run --backend userspace "${args[@]}" --wait-port 5201 -- \
		bash -c "$PY '$T/udp.py' echo 5300 & exec '$P' link probe-server --port 5201" -- \
		bash -c "$PY '$T/udp.py' probe {server} 5300 '$T/flag' >'$T/udp.out' & sleep 0.3;
			'$P' link probe-client --bytes $bytes {server} >'$T/bulk.out'; touch '$T/flag'; wait" 2>&1) ||
		{ echo "$out"; echo "link-throughput: the probe run at $rq failed"; exit 1; }
	read -r n p50 p99 max <"$T/udp.out"
	stats=$(grep "link: backend" <<<"$out")
	budget=$(awk -v q="$qms" 'BEGIN { printf "%.2f", 50 + q + 2 }')
	verdict=$(awk -v p="$p99" -v b="$budget" 'BEGIN { print (p <= b) ? "PASS" : "MISS" }')
	printf 'probe beside bulk, 50 ms, %-8s queue %-6s: %s probes, RTT p50 %s p99 %s max %s ms (budget %s) %s; bulk %s Mbit/s; %s\n' \
		"$rate" "$([ "$rq" = unlimited ] && echo - || echo "$queue")" "$n" "$p50" "$p99" "$max" "$budget" "$verdict" \
		"$(awk '{print $3}' "$T/bulk.out")" "$(lateness "$stats")"
done
