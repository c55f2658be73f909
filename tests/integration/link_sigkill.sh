#!/usr/bin/env bash
# A link whose owner is killed with SIGKILL leaves nothing once the next pqtls link
# command has run: no namespace, no device, no process.
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"
# The programs inside sleep for a duration no other process on the machine has, so the
# checks below cannot mistake someone else's sleep for one of ours.
NAP=300.$$

$P link run --rtt 10ms -- sleep "$NAP" -- sleep "$NAP" >"$TMP/out" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true; cleanup_tmp' EXIT
# Wait (bounded) until its namespaces exist.
for _ in $(seq 100); do
	ip netns list | grep -q "^pqtls-$pid-" && break
	sleep 0.05
done
ip netns list | grep -q "^pqtls-$pid-.*-c" || { cat "$TMP/out"; fail "link of $pid never came up"; }
ns=$(ip netns list | awk -v p="pqtls-$pid-" 'index($1, p) == 1 {print $1}' | head -n 1)
ip -n "$ns" link show pq0 >/dev/null || fail "no TUN device in $ns"

kill -9 "$pid"
wait "$pid" 2>/dev/null || true

# The next command sweeps what the dead run left, and says so.
$P link run --rtt 1ms -- true -- true 2>"$TMP/err"
has "$TMP/err" "left by pid $pid, which is no longer running"
if ip netns list | grep -q "^pqtls-$pid-"; then ip netns list; fail "namespaces of $pid remain"; fi
# The sleeps inside died (with their parent, or swept with the namespace).
for _ in $(seq 50); do
	pgrep -x sleep -P "$pid" >/dev/null 2>&1 || break
	sleep 0.05
done
if ps -eo pid,args | grep -v grep | grep -qF "sleep $NAP"; then ps -eo pid,ppid,args | grep -F "sleep $NAP"; fail "processes left"; fi

# SIGTERM (and SIGINT) make a run stop its programs and remove its link itself.
$P link run --rtt 10ms -- sleep "$NAP" -- sleep "$NAP" >"$TMP/out" 2>&1 &
pid=$!
for _ in $(seq 100); do
	ip netns list | grep -q "^pqtls-$pid-.*-s" && pgrep -x sleep -P "$pid" >/dev/null && break
	sleep 0.05
done
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
[ "$rc" = 143 ] || { cat "$TMP/out"; fail "SIGTERM: exit status $rc, wanted 143"; }
has "$TMP/out" "stopping and removing the link"
if ip netns list | grep -q "^pqtls-$pid-"; then fail "SIGTERM left namespaces"; fi
if ps -eo args | grep -v grep | grep -qF "sleep $NAP"; then fail "SIGTERM left processes"; fi
echo ok
