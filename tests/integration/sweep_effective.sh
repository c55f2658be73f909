#!/usr/bin/env bash
# Every cell stores what was in force, whatever set it: a sweep over the real link with
# `--profile paper-50` (the paper's TTFB sweep sets its RTT by profile) stores rtt_us =
# 50000, not 0; the congestion control is the one the kernel runs on the server side (the
# route's when given, else the namespace's, which a fresh namespace made here reports too),
# never 'default'; the initial window, MTU and MSS are the ones in force; the forwarder's
# tuning from the environment is stored with the command line.
source "$(dirname "$0")/link_lib.bash"
command -v sqlite3 >/dev/null || fail "needs sqlite3 (scripts/deps.sh installs it)"

DB=$TMP/e.db
PQTLS_LINK_EARLY_US=150 "$P" sweep --profile paper-50 --cc default,reno --sig ecdsa-p256 --connections 3 --no-check -q --out "$DB" \
	>"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "the sweep failed"; }
has "$TMP/out" "2 cells measured"
q() { sqlite3 "$DB" "$1"; }
[ "$(q "SELECT COUNT(*) FROM cell WHERE rtt_us = 50000 AND link_profile = 'paper-50' AND jitter_us = 0 AND loss_pct = 0")" = 2 ] ||
	{ q "SELECT link_profile, rtt_us, jitter_us, loss_pct FROM cell"; fail "the profile's RTT is not what was stored"; }
# the forwarder's tuning from the environment (here its default value) is stored with
# the command line, so a run measured on a tuned link says so
[ "$(q "SELECT COUNT(*) FROM run WHERE command_line LIKE 'PQTLS_LINK_EARLY_US=150 pqtls sweep --%'")" = 1 ] ||
	{ q "SELECT command_line FROM run"; fail "the forwarder's tuning is not in the stored command line"; }
# the namespace's congestion control as a new network namespace reports it
ns_cc=$(unshare -n cat /proc/sys/net/ipv4/tcp_congestion_control)
[ -n "$ns_cc" ] || fail "cannot read a namespace's tcp_congestion_control"
got=$(q "SELECT cc FROM cell ORDER BY cc = 'reno', cell_index" | tr '\n' ' ')
[ "$got" = "$ns_cc reno " ] ||
	fail "cc stored as '$got'; the kernel runs '$ns_cc' where the route sets none, and reno where it does"
[ "$(q "SELECT COUNT(*) FROM cell WHERE cc IS NULL OR cc = 'default'")" = 0 ] || fail "a cell stored cc 'default' or NULL"
[ "$(q "SELECT COUNT(*) FROM cell WHERE initcwnd_segs = 10 AND mtu_bytes = 1500 AND mss_bytes = 1448")" = 2 ] ||
	{ q "SELECT initcwnd_segs, mtu_bytes, mss_bytes FROM cell"; fail "initcwnd, MTU or MSS in force not stored"; }
# The link really had the profile's RTT: no connection saw less than 50 ms (a lower bound
# only; the upper side depends on a busy machine).
[ "$(q "SELECT COUNT(*) FROM conn WHERE error_kind = 'ok' AND min_rtt_us >= 49000")" = 6 ] ||
	{ q "SELECT error_kind, min_rtt_us FROM conn"; fail "the connections did not see the profile's RTT"; }
echo "ok: paper-50 stored as rtt_us 50000; cc '$ns_cc' read back and 'reno' from the route; initcwnd 10, MTU 1500, MSS 1448"
