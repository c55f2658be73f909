#!/usr/bin/env bash
# A sweep stores the kernel's TCP settings as the kernel reported them, per cell: a tiny
# sweep with cc = cubic and one with cc = bbr store their congestion control, the qdisc,
# the pacing ratios, the client's quick-ACK and the offloads as read back (never
# "default"), and a spec asking for a qdisc the kernel lacks is refused before anything
# is measured (exit 2, no database), naming what the kernel offers.
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"
command -v sqlite3 >/dev/null || { echo "skip: needs sqlite3"; exit 77; }

sweep() { # sweep DB [options]
	local db=$1; shift
	"$P" sweep --sig ecdsa-p256 --group X25519 --rtt 10ms --response none --connections 1 --no-check -q \
		--out "$db" "$@" 2>"$TMP/err" || { cat "$TMP/err"; fail "sweep $* failed"; }
}
q() { sqlite3 "$1" "$2"; }

sweep "$TMP/cubic.db" --cc cubic --pacing-ss-ratio 150 --quickack on
[ "$(q "$TMP/cubic.db" "SELECT cc FROM cell")" = cubic ] || fail "cubic not stored: $(q "$TMP/cubic.db" 'SELECT cc FROM cell')"
[ "$(q "$TMP/cubic.db" "SELECT qdisc || ' ' || pacing_ss_ratio || ' ' || pacing_ca_ratio || ' ' || quickack FROM cell")" = \
	"pfifo_fast 150 120 1" ] || fail "read-back columns: $(q "$TMP/cubic.db" 'SELECT qdisc, pacing_ss_ratio, pacing_ca_ratio, quickack FROM cell')"
[ "$(q "$TMP/cubic.db" "SELECT tso || gso FROM cell")" = "01" ] || fail "offloads: $(q "$TMP/cubic.db" 'SELECT tso, gso FROM cell')"
# the client's receive window as read back, what the flight model takes (model/tcp.h)
[ "$(q "$TMP/cubic.db" "SELECT client_rwnd_bytes > 0 FROM cell")" = 1 ] ||
	fail "client_rwnd_bytes not stored: $(q "$TMP/cubic.db" 'SELECT client_rwnd_bytes FROM cell')"

sweep "$TMP/bbr.db" --cc bbr --gso off
[ "$(q "$TMP/bbr.db" "SELECT cc || ' ' || qdisc || ' ' || pacing_ss_ratio || ' ' || quickack || ' ' || gso FROM cell")" = \
	"bbr pfifo_fast 200 0 0" ] || fail "bbr read-back: $(q "$TMP/bbr.db" 'SELECT cc, qdisc, pacing_ss_ratio, quickack, gso FROM cell')"

# No cc asked: the namespace's default by name.
sweep "$TMP/none.db"
[ "$(q "$TMP/none.db" "SELECT cc FROM cell")" = "$(cat /proc/sys/net/ipv4/tcp_congestion_control)" ] ||
	fail "the default cc stored as '$(q "$TMP/none.db" 'SELECT cc FROM cell')'"

# A qdisc the kernel lacks: refused before measuring, naming what it has.
for qd in fq fq_codel; do
	rc=0
	"$P" sweep --sig ecdsa-p256 --rtt 10ms --connections 1 --qdisc $qd --no-check -q --out "$TMP/q.db" 2>"$TMP/qerr" || rc=$?
	if [ "$rc" = 0 ]; then
		[ "$(q "$TMP/q.db" "SELECT qdisc FROM cell")" = $qd ] || fail "qdisc $qd not read back"
		rm -f "$TMP/q.db"
	else
		[ "$rc" = 2 ] || { cat "$TMP/qerr"; fail "qdisc $qd: exit $rc, expected 2"; }
		has "$TMP/qerr" "this kernel has no '$qd' qdisc (it offers: pfifo_fast"
		[ ! -e "$TMP/q.db" ] || fail "the refused spec left a database"
	fi
done
echo ok
