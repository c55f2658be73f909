#!/usr/bin/env bash
# pqtls bench against peers that are not TLS servers, from the command line: one that
# answers plain HTTP and one that accepts and then says nothing. Each gives its own
# message and exit 1. (tests/unit/test_load.c covers the same peers, and a resetting one,
# without python; this shows the CLI's messages.)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
command -v python3 >/dev/null || { echo "skip: needs python3 to play the peers"; exit 77; }

# peer MODE: listens on a free loopback port, prints it, then serves MODE forever.
cat >"$T/peer.py" <<'PY'
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
print(s.getsockname()[1], flush=True)
held = []
while True:
    c, _ = s.accept()
    if sys.argv[1] == "plain":
        c.recv(4096); c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"); c.close()
    else:
        held.append(c)
PY

for mode in plain stall; do
	python3 "$T/peer.py" "$mode" >"$T/$mode.port" &
	PIDS+=($!)
	wait_for "$T/$mode.port" . 10 || fail "python peer did not start"
done

rc=0
"$PQTLS" bench "127.0.0.1:$(cat "$T/plain.port")" --insecure -n 3 >/dev/null 2>"$T/e" || rc=$?
[ "$rc" = 1 ] && grep -q "TLS protocol error: wrong version number (is it a TLS server?)" "$T/e" ||
	{ cat "$T/e"; fail "plain-TCP peer: exit $rc"; }
pass "$(cat "$T/e")"

rc=0
"$PQTLS" bench "127.0.0.1:$(cat "$T/stall.port")" --insecure -n 3 --timeout 500ms >/dev/null 2>"$T/e" || rc=$?
[ "$rc" = 1 ] && grep -q "timed out in the TLS handshake: no progress for 500 ms" "$T/e" ||
	{ cat "$T/e"; fail "stalling peer: exit $rc"; }
pass "$(cat "$T/e")"
