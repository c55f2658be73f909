#!/usr/bin/env bash
# pqtls check on bad input: a host that does not resolve, a port nobody listens on, a
# server that takes the ClientHello and never answers (the run ends within one
# --timeout), and options it cannot take. Each names the input and what would do, with
# exit 1 (the server) or 2 (usage); --help teaches the shapes.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

expect_fail 2 "cannot resolve host 'no-such-host.invalid'" "$PQTLS" check no-such-host.invalid:443
expect_fail 2 "is not HOST:PORT" "$PQTLS" check localhost
expect_fail 2 "port '0'" "$PQTLS" check 127.0.0.1:0
expect_fail 2 "'nope' in 'whole,nope' is not a probe shape" "$PQTLS" check 127.0.0.1:9 --shapes whole,nope
expect_fail 2 "--group: 'NOPE768' is not a group this OpenSSL knows; known: " "$PQTLS" check 127.0.0.1:9 --group NOPE768
expect_fail 2 "take one group each" "$PQTLS" check 127.0.0.1:9 --group X25519MLKEM768:X25519
expect_fail 2 "is a group under test" "$PQTLS" check 127.0.0.1:9 --hrr-share X25519
expect_fail 2 "positive duration" "$PQTLS" check 127.0.0.1:9 --timeout 0s
expect_fail 2 "excludes --no-sni" "$PQTLS" check 127.0.0.1:9 --servername a --no-sni
expect_fail 2 "nothing left to probe" "$PQTLS" check 127.0.0.1:9 --shapes sni --no-sni
expect_fail 2 "cannot load roots" "$PQTLS" check 127.0.0.1:9 --ca "$T/none.pem"

# A port nobody listens on: one probe, exit 1, the table says the rest did not run.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
expect_fail 1 "127.0.0.1:$port: connection refused" "$PQTLS" check "127.0.0.1:$port"
grep -q "0 of 14 probes passed; the others were not run" "$T/out" || { cat "$T/out"; fail "refused: table"; }
rc=0
"$PQTLS" check "127.0.0.1:$port" --json >"$T/r.json" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || fail "refused --json exited $rc"
python3 -c "
import json
d = json.load(open('$T/r.json'))
assert d['stopped'] and not d['all_passed'] and len(d['results']) == 1, d
assert d['results'][0]['fail'] == 'refused', d" || fail "refused: JSON"

# A listener that accepts and never answers: the first probe times out, nothing else runs.
rm -f "$T/mute.addr"
python3 -c "
import os, socket, sys, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(16)
open(sys.argv[1] + '.tmp', 'w').write('127.0.0.1:%d\n' % s.getsockname()[1])
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
held = []
while True: held.append(s.accept())" "$T/mute.addr" &
PIDS+=("$!")
wait_for "$T/mute.addr" . 10 || fail "mute listener did not start"
t0=$SECONDS
expect_fail 1 "no handshake within 1.0 s (0 bytes received); is it a TLS server?" \
	"$PQTLS" check "$(cat "$T/mute.addr")" --timeout 1s
# One 1 s timeout, not fourteen: 10 s leaves room for a loaded machine.
[ $((SECONDS - t0)) -le 10 ] || fail "the mute server took $((SECONDS - t0)) s"
grep -qE "^X25519 +whole +FAIL" "$T/out" || { cat "$T/out"; fail "mute: the control's whole probe goes first"; }

"$PQTLS" check --help >"$T/help"
for w in whole split key-share sni bytes delayed hrr "HelloRetryRequest" "Exit 0 when every probe passed"; do
	grep -q -- "$w" "$T/help" || fail "--help does not mention $w"
done
pass "--help teaches the shapes and the exit status"
