#!/usr/bin/env bash
# What a handshake under loss pays, packet by packet (docs/model.md, "Loss"): one loss
# cell's connections across a real link, captured on both sides of it (dumpcap in the
# client's and in the server's namespace: every packet each side sent, lost or not, and
# every packet it received), then per connection: the SYNs and SYN-ACKs sent and lost, each
# data segment of the ClientHello and of the server's flight sent and lost, every
# retransmission with how long after the segment's previous copy it went (RTO, tail loss
# probe, RACK), the lost ACKs, and the handshake's time in round trips beside the client's
# own record (pqtls bench --csv); at the end, the counts over all connections beside
# what the loss model assumes.
#   PQTLS=build/pqtls bash bench/loss-capture.sh          (SIG=ml-dsa-44 GROUP=X25519 RTT=195.6ms LOSS=15% N=40)
#   OUT=DIR keeps the captures, the client's CSV, the report (loss-capture.txt) and each
#   namespace's cached TCP metrics at the end (metrics-*.txt: empty when no connection's RTT
#   can set the next one's first RTO)
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
SIG=${SIG:-ml-dsa-44}
GROUP=${GROUP:-X25519}
RTT=${RTT:-195.6ms}
LOSS=${LOSS:-15%}
N=${N:-40}
SEED=${SEED:-7}
PORT=8443
case "$N" in '' | *[!0-9]*) echo "loss-capture: N is a count of connections" >&2; exit 2 ;; esac
if [ "$(id -u)" != 0 ]; then echo "loss-capture: needs root (links); skipped"; exit 0; fi
for t in dumpcap tshark python3; do
	command -v "$t" >/dev/null || { echo "loss-capture: needs $t; skipped"; exit 0; }
done
TMP=
cleanup() { [ -z "$TMP" ] || rm -rf "$TMP"; }
trap cleanup EXIT
if [ -n "${OUT:-}" ]; then
	T=$(readlink -f "$OUT")
	mkdir -p "$T"
else
	T=$(mktemp -d)
	TMP=$T
fi
rm -f "$T"/c.pcapng "$T"/s.pcapng "$T"/conn.csv
"$P" certs --sig "$SIG" --intermediates 0 --out "$T/certs" --force >/dev/null
# Each side captures in its own namespace and stops its own capture: the server's when the
# link's grace SIGTERMs its shell, the client's once bench has ended (dumpcap flushes on
# SIGTERM); both stop by themselves after an hour at the latest.
CAP='dumpcap -q -i any -f "tcp port '$PORT'" -a duration:3600 -w'
SRV="$CAP $T/s.pcapng & d=\$!; trap 'ip tcp_metrics show >$T/metrics-server.txt; kill \$s \$d; wait' TERM; \"$P\" serve --certs $T/certs --groups $GROUP \
--listen {server}:$PORT --handshake-timeout 120s & s=\$!; wait \$s"
CLI="$CAP $T/c.pcapng & d=\$!; sleep 2; \"$P\" bench {server}:$PORT --ca $T/certs/root.pem --servername localhost \
--groups $GROUP -n $N --timeout 120s --conn-timeout 180s --csv $T/conn.csv >$T/bench.out; r=\$?; sleep 1; \
ip tcp_metrics show >$T/metrics-client.txt; kill \$d; wait \$d; exit \$r"
"$P" link run --rtt "$RTT" --loss "$LOSS" --seed "$SEED" --cc cubic --qdisc pfifo_fast --wait-port $PORT \
	--grace 5s -- sh -c "$SRV" -- sh -c "$CLI" 2>"$T/link.err" || { cat "$T/link.err"; exit 1; }
grep "link: backend" "$T/link.err" || :
python3 "$(dirname "$0")/loss-capture.py" --rtt "$RTT" --loss "$LOSS" "$T/c.pcapng" "$T/s.pcapng" "$T/conn.csv" |
	tee "$T/loss-capture.txt"
