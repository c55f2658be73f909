#!/usr/bin/env bash
# --pcap writes a file tshark opens, with exactly as many packets as the link says it
# carried; --loss drops are counted as configured loss.
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"
command -v tshark >/dev/null || { echo "skip: needs tshark"; exit 77; }

$P link run --rtt 10ms --loss 2% --seed 5 --pcap "$TMP/x.pcap" --wait-port 5201 -- \
	"$P" link probe-server --port 5201 -- "$P" link probe-client --bytes 300000 {server} 2>"$TMP/err" >/dev/null ||
	{ cat "$TMP/err"; fail "run failed"; }
line=$(grep "link: backend" "$TMP/err")
up=$(sed -E 's/.*c->s ([0-9]+) pkts.*/\1/' <<<"$line")
down=$(sed -E 's/.*s->c ([0-9]+) pkts.*/\1/' <<<"$line")
lost=$(sed -E 's/.*loss ([0-9]+),.*/\1/' <<<"$line")
[ -z "$(find "$TMP" -name "x.pcap.tmp.*")" ] || fail "temporary file left"
count=$(tshark -r "$TMP/x.pcap" 2>/dev/null | wc -l)
[ "$count" = $((up + down)) ] || { echo "$line"; fail "pcap has $count packets, link says $((up + down))"; }
# tshark decodes them as TCP between the link's addresses
tcp=$(tshark -r "$TMP/x.pcap" -Y "ip.src==10.77.0.2 && tcp.srcport==5201" 2>/dev/null | wc -l)
[ "$tcp" -gt 100 ] || fail "only $tcp TCP packets from the server in the pcap"
[ "$lost" -gt 0 ] || { echo "$line"; fail "2 % loss dropped nothing"; }
# A pcap that cannot be written is refused before anything runs.
set +e
$P link run --pcap /nonexistent/dir/x.pcap -- true -- true 2>"$TMP/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "unwritable pcap: status $rc"
has "$TMP/err" "--pcap"
echo "pcap $count packets = link $up + $down; loss drops $lost"
echo ok
