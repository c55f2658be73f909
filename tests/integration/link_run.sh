#!/usr/bin/env bash
# `pqtls link run`: the server starts first, the client sees the addresses, the exit
# status is the client's, the server is stopped, its output is shown, nothing is left.
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"

# A port of this test's own, so pgrep below finds no other test's probe server.
PORT=$((20000 + $$ % 20000))

# Addresses in the environment and {server} substitution; the server's output shows.
# (Each run in the background only to learn its pid: its namespaces carry it, and other
# tests may make links of their own meanwhile.)
$P link run --rtt 20ms --wait-port "$PORT" -- \
	sh -c 'echo "server at $PQTLS_SERVER_ADDR"; exec "$0" link probe-server --port "$1"' "$P" "$PORT" -- \
	sh -c 'echo "client at $PQTLS_CLIENT_ADDR to {server}"; "$0" link probe-client --port "$1" --bytes 1000 -n 3 {server}' "$P" "$PORT" \
	>"$TMP/out" 2>"$TMP/err" &
run1=$!
wait "$run1"
has "$TMP/out" "server at 10.77.0.2"
has "$TMP/out" "client at 10.77.0.1 to 10.77.0.2"
has "$TMP/out" "1000 "
has "$TMP/err" "backend userspace"
has "$TMP/err" "rtt 20.0 ms"
has "$TMP/err" "link: backend userspace; c->s"
has "$TMP/err" "unplanned 0"

# The client's exit status is the run's; a server that ignores SIGTERM is killed.
set +e
$P link run --rtt 1ms -- sh -c 'trap "" TERM; sleep 30' -- sh -c 'exit 7' 2>"$TMP/err" &
run2=$!
wait "$run2"
rc=$?
set -e
[ "$rc" = 7 ] || { cat "$TMP/err"; fail "exit status $rc, wanted the client's 7"; }

# The TCP round trip over the link takes the configured RTT (generous bounds: the
# handshake is one RTT, 1000 bytes one more; 2 x 20 ms, allow 35..80 ms).
ms=$(awk '{print $2}' "$TMP/out" | grep -E "^[0-9.]+$" | sort -n | head -n 1) # best of 3: steal time on this VM
awk -v m="$ms" 'BEGIN { exit !(m > 35 && m < 80) }' || fail "1000 bytes took $ms ms over a 20 ms RTT link"

# Nothing left behind: no namespace of either run, no server process.
if ip netns list | grep -Eq "^pqtls-($run1|$run2)-"; then ip netns list; fail "namespaces left behind"; fi
! pgrep -f "probe-server --port $PORT" >/dev/null || fail "probe server still running"

# A server that never listens: bounded wait, clear message.
set +e
$P link run --wait-port 5999 --wait-timeout 300ms -- sleep 5 -- true 2>"$TMP/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "wait-port timeout gave $rc"
has "$TMP/err" "nothing listened on TCP port 5999"
echo ok
