#!/usr/bin/env bash
# Kernel TCP settings on a link are set and read back from the kernel (a connection across
# the link, tc, ip, sysctls, ethtool), never reported as "default"; a congestion control
# or qdisc the kernel lacks is refused before the link carries anything, naming what the
# kernel offers.
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"

readback() { # readback OUT [link options]: the read-back line of a link run
	local out=$1; shift
	$P link run --rtt 10ms "$@" -- true -- true 2>"$out" || { cat "$out"; fail "link run $* failed"; }
	has "$out" "kernel TCP as read back: "
}

readback "$TMP/cubic" --cc cubic --quickack on --pacing-ss-ratio 150 --pacing-ca-ratio 100 --gso off
has "$TMP/cubic" "cc cubic, initcwnd 10, mss 1448, pacing rate "
has "$TMP/cubic" "pacing 150%/100% (slow start/after), quickack 1,"
has "$TMP/cubic" "gso off/off (client/server)"
# The client's receive window as the server's socket saw it, and tcp_rmem as the client's
# namespace has it (a new namespace copies the host's): the window is a share of the
# default buffer, never 0 and never more than it.
read -r rmin rdef rmax < /proc/sys/net/ipv4/tcp_rmem
has "$TMP/cubic" "(tcp_rmem $rmin $rdef $rmax)"
rwnd=$(sed -n 's/.*client rwnd \([0-9]*\) (tcp_rmem.*/\1/p' "$TMP/cubic")
[ -n "$rwnd" ] && [ "$rwnd" -gt 0 ] && [ "$rwnd" -le "$rdef" ] || fail "client rwnd '$rwnd' not in 1..$rdef"

readback "$TMP/bbr" --cc bbr --initcwnd 20 --qdisc pfifo_fast
has "$TMP/bbr" "cc bbr, initcwnd 20, mss 1448, pacing rate "
has "$TMP/bbr" "qdisc pfifo_fast, pacing 200%/120%"
has "$TMP/bbr" "quickack 0"

# No cc asked: the namespace's default, by name (here the host's), never "default".
readback "$TMP/none"
host_cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control)
has "$TMP/none" "kernel TCP as read back: cc $host_cc,"
if grep -q "cc default" "$TMP/none"; then fail "read back says default"; fi

# A qdisc: refused naming what the kernel has when it lacks it, read back when it has it.
for q in fq fq_codel; do
	if $P link run --rtt 10ms --qdisc $q -- true -- true 2>"$TMP/q"; then
		has "$TMP/q" "qdisc $q,"
	else
		has "$TMP/q" "--qdisc: this kernel has no '$q' qdisc (it offers: pfifo_fast"
		if grep -q "kernel TCP as read back" "$TMP/q"; then fail "the link came up before the refusal"; fi
	fi
done
set +e
$P link run --rtt 10ms --qdisc htb -- true -- true 2>"$TMP/htb"
rc=$?
set -e
[ "$rc" = 2 ] || fail "an unknown qdisc exited $rc (a usage error is 2)"
has "$TMP/htb" "'htb' is not a qdisc pqtls sets (accepted: pfifo_fast|pfifo|bfifo"

# A congestion control the kernel lacks cannot even be asked by the link command (its
# choices are fixed); one the kernel may lack (reno is built in everywhere, bbr is not)
# is refused with the kernel's list.
if ! grep -qw bbr /proc/sys/net/ipv4/tcp_available_congestion_control; then
	set +e
	$P link run --rtt 10ms --cc bbr -- true -- true 2>"$TMP/nobbr"
	set -e
	has "$TMP/nobbr" "this kernel has no congestion control 'bbr' (it offers: "
fi
echo "ok"
