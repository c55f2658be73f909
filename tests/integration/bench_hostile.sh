#!/usr/bin/env bash
# pqtls bench against what a measurement must survive: outputs it cannot write (refused
# before the first connection, not after the run), a body trickled or endless, a signal
# mid-run, a server that exits mid-run.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

ecdsa=$(chain ecdsa-p256)

# Outputs that cannot be written fail before any connection: the server saw none.
start_serve out --certs "$ecdsa"
mkdir "$T/dir"
expect_fail 1 "--csv: cannot create /nonexistent/dir/x.csv.tmp" \
	"$PQTLS" bench "$ADDR_out" --insecure -n 5 --csv /nonexistent/dir/x.csv
expect_fail 1 "--csv: $T/dir is a directory" "$PQTLS" bench "$ADDR_out" --insecure -n 5 --csv "$T/dir"
expect_fail 1 "--jsonl: cannot create /proc/version.tmp" \
	"$PQTLS" bench "$ADDR_out" --insecure -n 5 --csv "$T/ok.csv" --jsonl /proc/version
[ ! -e "$T/ok.csv" ] && [ ! -e "$T/ok.csv.tmp" ] || fail "a refused run left $T/ok.csv behind"
stop_serve out
grep -q "served 0 connections" "$T/out.out" || { cat "$T/out.out"; fail "bench connected before refusing its outputs"; }
pass "no connection was made for a run whose outputs cannot be written"

# Hostile TLS peers (python's ssl): "trickle" answers a request with a head and then one
# body byte every 0.5 s, "endless" with a body that never ends, neither with a length;
# "cut" promises 1000 bytes, sends 10 and closes.
command -v python3 >/dev/null || { echo "skip: needs python3 to play the hostile servers"; exit 77; }
cat >"$T/hostile.py" <<'PY'
import socket, ssl, sys, threading, time
mode, chain, key = sys.argv[1:4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(chain, key)
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
def serve(c):
    try:
        t = ctx.wrap_socket(c, server_side=True)
        t.recv(4096)
        if mode == "cut":  # the head promises 1000 bytes; 10 come, then the close
            t.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 10)
            t.unwrap()
            return
        t.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")
        while True:
            t.sendall(b"x" if mode == "trickle" else b"x" * 16384)
            time.sleep(0.5 if mode == "trickle" else 0.01)
    except Exception:
        pass
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
for mode in trickle endless cut; do
	python3 "$T/hostile.py" $mode "$ecdsa/chain.pem" "$ecdsa/leaf.key" >"$T/$mode.port" 2>"$T/$mode.err" &
	PIDS+=($!)
	wait_for "$T/$mode.port" . 10 || { cat "$T/$mode.err"; fail "python TLS peer did not start"; }
done

# took CMD...: runs CMD (at most 60 s, so a run that would go on for ever fails the test
# rather than hanging it) and sets SECS to how long it took.
took() {
	local t0=$SECONDS
	expect_fail 1 "$1" timeout 60 "${@:2}"
	SECS=$((SECONDS - t0))
}

# A body trickled a byte every 0.5 s makes progress within every --timeout: the total
# per-connection limit ends it (2 s here; the bound asserted leaves room for this shared
# machine).
took "not finished within the per-connection time limit: not finished 2000 ms after it started (in the response)" \
	"$PQTLS" bench "127.0.0.1:$(cat "$T/trickle.port")" --insecure -n 1 --timeout 3s --conn-timeout 2s
[ "$SECS" -le 10 ] || fail "a trickled body held bench for $SECS s against --conn-timeout 2s"

# An endless body, -d 2s and --timeout 1s: the run ends at its duration plus one
# per-phase timeout of grace, cutting the connection still reading.
took "still running when the run ended: past the run's duration" \
	"$PQTLS" bench "127.0.0.1:$(cat "$T/endless.port")" --insecure -d 2s --timeout 1s --jsonl "$T/endless.jsonl"
[ "$SECS" -le 12 ] || fail "bench -d 2s --timeout 1s against an endless body took $SECS s"
grep -q '"error_kind":"cut_off"' "$T/endless.jsonl" || fail "the cut connection is not in the records"
pass "bench ends on time against a trickled and an endless body"

# A body cut after its head: said so, with how far it got (not "before the response").
expect_fail 1 "server closed the connection early: after the response head, mid-body (10 bytes in, 990 to go)" \
	"$PQTLS" bench "127.0.0.1:$(cat "$T/cut.port")" --insecure -n 1

# SIGTERM mid-run (SIGINT is handled the same, but a script's background job ignores it):
# the records measured so far are written, complete (CSV and JSONL agree).
start_serve sig --certs "$ecdsa"
"$PQTLS" bench "$ADDR_sig" --insecure -d 30s --csv "$T/sig.csv" --jsonl "$T/sig.jsonl" >/dev/null 2>"$T/sig.err" &
bpid=$!
sleep 2
kill -TERM $bpid
rc=0
wait $bpid || rc=$?
[ "$rc" = 1 ] && grep -q "interrupted by a signal after" "$T/sig.err" || { cat "$T/sig.err"; fail "SIGTERM: exit $rc"; }
rows=$(($(wc -l <"$T/sig.csv") - 1))
[ "$rows" -ge 1 ] && [ "$rows" = "$(wc -l <"$T/sig.jsonl")" ] || fail "SIGTERM: $rows CSV rows, $(wc -l <"$T/sig.jsonl") JSON lines"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/sig.jsonl" || fail "SIGTERM: JSONL does not parse"
[ ! -e "$T/sig.csv.tmp" ] && [ ! -e "$T/sig.jsonl.tmp" ] || fail "SIGTERM left temporary files"
pass "SIGTERM after 2 s: $rows records written to CSV and JSONL"
stop_serve sig

# A server that exits mid-run (serve -d 1s): bench backs off on refused connections and
# stops after PQ_LOAD_REFUSED_IN_ROW (16) of them in a row, with the records it has.
start_serve dying --certs "$ecdsa" --duration 1s
took "16 connections in a row were refused (has the server exited?)" \
	"$PQTLS" bench "$ADDR_dying" --insecure -d 20s --jsonl "$T/dying.jsonl"
refused=$(grep -c '"error_kind":"refused"' "$T/dying.jsonl" || true)
[ "$refused" = 16 ] || fail "$refused refused connections recorded, want the 16 that stopped the run"
[ "$SECS" -lt 20 ] || fail "the run against a server that exited went on for its whole duration"
pass "a server that exits: stopped after $SECS s with $(wc -l <"$T/dying.jsonl") records, 16 of them refused"
