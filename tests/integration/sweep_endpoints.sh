#!/usr/bin/env bash
# The endpoints of every cell run at the nice the sweep asks (by default PQ_EXP_ENDPOINT_NICE,
# -19, so other work on the machine delays the measured connections less), read back and
# stored with their session group's, beside how long the client and the server waited for
# a CPU in each connection; the sweep measures in a session of its own, so the caller's
# session group is never changed, and a sweep whose parent is killed ends;
# a nice out of range is refused before anything runs, naming the range. What is asserted is
# where the values come from (set, read back, stored), not how busy this machine is.
source "$(dirname "$0")/link_lib.bash"
command -v sqlite3 >/dev/null || fail "needs sqlite3 (scripts/deps.sh installs it)"
q() { sqlite3 "$1" "$2"; }
group() { sed -n 's/^.* nice \(-\{0,1\}[0-9]*\)$/\1/p' /proc/self/autogroup 2>/dev/null; }
g0=$(group)
# Autogroups on, but no group here: the caller is in the kernel's default group (a job
# runner's child that never started a session, as CI's). The sweep then measures in place
# (its threads' nice weighs directly against every session) and stores no group; the
# killed-parent check below starts its sweep in a session of its own (setsid), so the
# session path is tested there too.
grouped=0 insession=()
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ] && [ -e /proc/self/autogroup ]; then
	grouped=1
	[ -n "$g0" ] || insession=(setsid)
fi

DB=$TMP/n.db
"$P" sweep --rtt 20ms --sig ecdsa-p256 --connections 4 --no-check -q --out "$DB" >"$TMP/out" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "the sweep failed"; }
has "$TMP/out" "the endpoints (nice -19"
[ "$(q "$DB" "SELECT host_nice FROM cell")" = -19 ] || fail "host_nice is not -19: $(q "$DB" "SELECT host_nice FROM cell")"
if [ -n "$g0" ] && [ "$(cat /proc/sys/kernel/sched_autogroup_enabled)" = 1 ]; then
	[ "$(q "$DB" "SELECT host_group_nice FROM cell")" = -19 ] || fail "the session's group ran at $(q "$DB" "SELECT host_group_nice FROM cell"), not -19"
	[ "$(group)" = "$g0" ] || fail "the caller's session group was left at $(group), not its $g0"
else
	[ "$(q "$DB" "SELECT host_group_nice IS NULL FROM cell")" = 1 ] || fail "a group nice was stored without autogroups"
fi
# every connection's wait, and the cell's medians and largest as the connections have them
if [ -r /proc/thread-self/schedstat ]; then
	[ "$(q "$DB" "SELECT COUNT(*) FROM conn WHERE client_wait_us >= 0")" = 4 ] || fail "a connection has no client wait"
	[ "$(q "$DB" "SELECT host_client_wait_max_us = (SELECT MAX(client_wait_us) FROM conn) FROM cell")" = 1 ] ||
		fail "the cell's largest client wait is not its connections' largest"
	[ "$(q "$DB" "SELECT host_client_wait_p50_us <= host_client_wait_max_us AND host_server_wait_p50_us <= host_server_wait_max_us
		AND host_server_wait_p50_us >= 0 FROM cell")" = 1 ] || fail "the waits' medians and largest are not in order"
	# a wait is part of the connection's time: never more than the whole connection
	[ "$(q "$DB" "SELECT COUNT(*) FROM conn WHERE client_wait_us > end_us + 1")" = 0 ] || fail "a wait longer than its connection"
fi
[ "$(q "$DB" "SELECT host_ok IS NOT NULL FROM cell")" = 1 ] || fail "no host verdict"
# At 20 ms pqtls's client shares every CPU; a cell under 10 ms RTT, which runs alone, runs
# as on two machines: its server on a CPU of its own, the client and the link's forwarder
# on the others, as read back (serially and with cells at once alike); on one CPU, or on a
# link slow enough to run beside others, it shares as before.
[ "$(q "$DB" "SELECT COUNT(*) FROM cell WHERE host_server_cpus IS NULL AND host_client_cpus IS NULL
	AND link_fwd_cpus IS NULL")" = 1 ] || fail "the 20 ms cell stored as split"
if [ "$(nproc)" -ge 2 ]; then
	for j in 1 auto; do
		"$P" sweep --rtt 1ms,50ms --sig ecdsa-p256,ml-dsa-44 --connections 2 --no-check -q --jobs $j \
			--out "$TMP/split$j.db" 2>"$TMP/err" || { cat "$TMP/err"; fail "the 1 ms sweep failed (--jobs $j)"; }
		[ "$(q "$TMP/split$j.db" "SELECT COUNT(*) FROM cell WHERE rtt_us = 1000 AND host_server_cpus GLOB '[0-9]*'
			AND host_client_cpus GLOB '[0-9]*' AND host_server_cpus <> host_client_cpus
			AND link_fwd_cpus = host_client_cpus AND host_cells_at_once = 1")" = 2 ] ||
			{ q "$TMP/split$j.db" "SELECT rtt_us, host_cells_at_once, host_server_cpus, host_client_cpus, link_fwd_cpus FROM cell"
			  fail "a 1 ms cell of pqtls's client not split (--jobs $j)"; }
		[ "$(q "$TMP/split$j.db" "SELECT COUNT(*) FROM cell WHERE rtt_us = 50000 AND host_server_cpus IS NULL
			AND host_client_cpus IS NULL AND link_fwd_cpus IS NULL")" = 2 ] || fail "a 50 ms cell stored as split (--jobs $j)"
	done
	# held to one CPU (an affinity mask) there is nothing to split: the cell is measured
	# and stored as sharing every CPU it may use; so is a 1 ms link slow enough (1 Mbit/s)
	# that its cells run beside others
	command -v taskset >/dev/null || fail "needs taskset (util-linux; scripts/deps.sh installs it)"
	taskset -c 0 "$P" sweep --rtt 1ms --sig ecdsa-p256 --connections 2 --no-check -q --out "$TMP/one.db" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "the 1 ms sweep on one CPU failed"; }
	"$P" sweep --rtt 1ms --rate 1Mbit --sig ecdsa-p256 --connections 2 --no-check -q --out "$TMP/slow.db" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "the 1 ms, 1 Mbit/s sweep failed"; }
	for d in one slow; do
		[ "$(q "$TMP/$d.db" "SELECT COUNT(*) FROM cell WHERE status = 'ok' AND host_server_cpus IS NULL
			AND host_client_cpus IS NULL AND link_fwd_cpus IS NULL")" = 1 ] ||
			{ q "$TMP/$d.db" "SELECT status, host_server_cpus, host_client_cpus, link_fwd_cpus FROM cell"
			  fail "the $d 1 ms cell stored as split, or not measured"; }
	done
fi

# asked for the machine's default: stored as such
"$P" sweep --rtt 20ms --sig ecdsa-p256 --connections 2 --no-check -q --endpoint-nice 0 --out "$TMP/z.db" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "the sweep at nice 0 failed"; }
[ "$(q "$TMP/z.db" "SELECT host_nice FROM cell")" = 0 ] || fail "host_nice is not 0 with --endpoint-nice 0"
[ -z "$g0" ] || [ "$(group)" = "$g0" ] || fail "the session's group changed at nice 0"

# The parent killed outright: its child (the measurement, in a session of its own) hears
# SIGTERM and ends after its cell, and the caller's session was never changed. The sweep
# is long enough (3 x 40 connections at 50 ms) to be mid-cell when its parent dies.
if [ "$grouped" = 1 ]; then
	"${insession[@]}" "$P" sweep --rtt 50ms --sig ecdsa-p256,ml-dsa-44,ml-dsa-65 --connections 40 --no-check -q --jobs 1 --out "$TMP/k.db" \
		>"$TMP/k.out" 2>&1 &
	parent=$!
	child=
	for _ in $(seq 300); do # its child appears once the grid is checked: up to 30 s here
		child=$(pgrep -P "$parent" -x pqtls || :)
		[ -z "$child" ] || break
		sleep 0.1
	done
	[ -n "$child" ] || { kill "$parent"; fail "the sweep did not measure in a child of its own"; }
	[ "$(ps -o comm= -p "$parent")" = pqtls ] || fail "the sweep's parent is not pqtls (setsid forked?)"
	[ "$(ps -o sess= -p "$child" | tr -d ' ')" = "$child" ] || fail "the measuring child is not in a session of its own"
	# inside a cell: its server process (a child of the measuring one) is there
	for _ in $(seq 600); do
		pgrep -P "$child" -x pqtls >/dev/null && break
		sleep 0.1
	done
	pgrep -P "$child" -x pqtls >/dev/null || { kill "$parent"; fail "the sweep never started a cell"; }
	[ "$(group)" = "$g0" ] || fail "the caller's session group changed to $(group) while the sweep ran"
	kill -9 "$parent"
	wait "$parent" 2>/dev/null || :
	# it ends after the cell in progress: 40 connections of about 4 RTT, 8 s at most here;
	# 60 s allows for a busy machine
	for _ in $(seq 600); do
		kill -0 "$child" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$child" 2>/dev/null; then kill -9 "$child"; fail "the child outlived its killed parent by 60 s"; fi
	[ "$(group)" = "$g0" ] || fail "the caller's session group was left at $(group)"
	[ "$(q "$TMP/k.db" "SELECT end_status FROM run")" = interrupted ] ||
		fail "the run whose parent was killed is '$(q "$TMP/k.db" "SELECT end_status FROM run")', not interrupted"
fi

# out of range: refused before anything runs, nothing written
for bad in 20 -21 x; do
	if "$P" sweep --rtt 20ms --endpoint-nice "$bad" --out "$TMP/bad.db" 2>"$TMP/err"; then fail "--endpoint-nice $bad accepted"; fi
	has "$TMP/err" "endpoint-nice"
	[ ! -e "$TMP/bad.db" ] || fail "a database was written for --endpoint-nice $bad"
done
# pqtls bench --nice: the same range, refused before any connection
for bad in 20 -21 x; do
	rc=0
	"$P" bench --nice "$bad" 127.0.0.1:9 >"$TMP/o" 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "bench --nice $bad: exit $rc, want 2"
	has "$TMP/err" "--nice"
done
echo "ok: the endpoints ran at nice -19 (their own session's group -19; the caller's stayed ${g0:-none, the default group}${insession:+; the killed-parent sweep in a session of its own}), read back and stored with their waits; a killed parent's child ended; 0 as asked; 20, -21, x refused"
