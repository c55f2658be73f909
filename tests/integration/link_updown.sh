#!/usr/bin/env bash
# Interactive use: `link up` prints a name and returns; `link exec` runs programs on
# either side; `link down` removes the namespaces and what runs inside them.
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"

name=$($P link up --rtt 20ms 2>"$TMP/err")
trap '$P link down "$name" >/dev/null 2>&1 || true; cleanup_tmp' EXIT
has "$TMP/err" "backend userspace"
ip netns list | grep -q "^$name-c" || fail "no client namespace for $name"
ip netns list | grep -q "^$name-s" || fail "no server namespace for $name"

# A port of this test's own, so pgrep below finds no other test's probe server.
PORT=$((20000 + $$ % 20000))
$P link exec "$name" server -- "$P" link probe-server --port "$PORT" &
wait_listening "$name" "$PORT" || fail "the probe server in $name does not listen"
$P link exec "$name" client -- "$P" link probe-client --port "$PORT" --bytes 5000 {server} >"$TMP/out"
has "$TMP/out" "5000 "
ms=$(awk '{print $2}' "$TMP/out")
awk -v m="$ms" 'BEGIN { exit !(m > 35 && m < 80) }' || fail "5000 bytes took $ms ms on a 20 ms RTT link"

# exit status passes through
set +e
$P link exec "$name" client -- sh -c 'exit 5'
rc=$?
set -e
[ "$rc" = 5 ] || fail "exec exit status $rc, wanted 5"

$P link down "$name" 2>"$TMP/err"
has "$TMP/err" "removed $name"
if ip netns list | grep -q "^$name-"; then fail "namespaces remain after down"; fi
for _ in $(seq 50); do pgrep -f "probe-server --port $PORT" >/dev/null || break; sleep 0.05; done
! pgrep -f "probe-server --port $PORT" >/dev/null || fail "server inside the link survived link down"
set +e
$P link down "$name" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "second down gave $rc"
has "$TMP/err" "no link named"

# A `link up` owner killed with SIGKILL (it may linger as an unreaped zombie) is swept
# by the next command, together with what ran inside.
name=$($P link up --rtt 5ms 2>/dev/null)
NAP=300.$$ # a duration no other process has, so pgrep finds only ours
$P link exec "$name" server -- sleep "$NAP" &
for _ in $(seq 100); do pgrep -f "^sleep $NAP" >/dev/null && break; sleep 0.05; done
owner=$(cut -d- -f2 <<<"$name")
kill -9 "$owner"
# SIGKILL is delivered when the owner next runs, which on a busy VM can take a while: wait
# (up to 10 s) until it is gone or a zombie, which is what the sweep looks for.
for _ in $(seq 200); do
	st=$(awk '{print $3}' "/proc/$owner/stat" 2>/dev/null || true)
	[ -z "$st" ] || [ "$st" = Z ] && break
	sleep 0.05
done
$P link run -- true -- true 2>"$TMP/err"
has "$TMP/err" "removed namespace $name-c left by pid"
if ip netns list | grep -q "^$name-"; then fail "namespaces of a killed owner remain"; fi
for _ in $(seq 50); do pgrep -f "^sleep $NAP" >/dev/null || break; sleep 0.05; done
! pgrep -f "^sleep $NAP" >/dev/null || fail "process inside a swept link survived"
echo ok
