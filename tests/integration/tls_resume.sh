#!/usr/bin/env bash
# Resumption with real tickets: after a warm-up every measured connection resumes and
# its server flight is a small fraction of a full one; a mix resumes about the asked
# fraction; with --tickets 0 nothing resumes; 0-RTT data is accepted when allowed.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

num() { json_field "$1" "$2" | head -1; }
dir=$(chain ml-dsa-65)
start_serve s --certs "$dir"

"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 30 -c 2 --json >"$T/full.json"
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 60 -c 2 --resume 1 --warmup 4 --json >"$T/res.json"
[ "$(num "$T/res.json" resumed)" = 60 ] || fail "--resume 1: $(num "$T/res.json" resumed) of 60 resumed"
full=$(num "$T/full.json" rx_handshake_bytes_full)
res=$(num "$T/res.json" rx_handshake_bytes_resumed)
awk -v f="$full" -v r="$res" 'BEGIN { exit !(f > 10000 && r > 0 && r < 0.2 * f) }' ||
	fail "resumed server flight $res B is not a small fraction of the full $full B"
pass "--resume 1: 60/60 resumed, server handshake bytes $res vs $full full"

# Handshake only (no request): the client waits for the ticket itself.
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 20 --requests-per-conn 0 --resume 1 --json >"$T/hs.json"
[ "$(num "$T/hs.json" resumed)" = 20 ] || fail "handshake-only --resume 1: $(num "$T/hs.json" resumed) of 20"
pass "handshake-only connections resume too"

# The blog's realistic mix: 80 % resumed, 20 % fresh (a fixed seed; binomial bounds).
"$PQTLS" bench "$ADDR_s" --ca "$dir/root.pem" -n 200 -c 2 --resume 0.8 --json >"$T/mix.json"
r=$(num "$T/mix.json" resumed)
[ "$r" -ge 140 ] && [ "$r" -le 185 ] || fail "--resume 0.8: $r of 200 resumed"
pass "--resume 0.8: $r of 200 resumed"
# Two client threads against two server workers: each client thread warms up and
# resumes with its own tickets; open loop too.
start_serve t --certs "$dir" --threads 2
"$PQTLS" bench "$ADDR_t" --ca "$dir/root.pem" --threads 2 -c 4 -n 40 --resume 1 --json >"$T/t.json"
[ "$(num "$T/t.json" resumed)" = 40 ] || fail "--threads 2 --resume 1: $(num "$T/t.json" resumed) of 40"
"$PQTLS" bench "$ADDR_t" --ca "$dir/root.pem" --threads 2 --rate 200/s --arrivals constant -d 500ms --json >"$T/to.json"
[ "$(num "$T/to.json" ok)" = 100 ] || fail "--threads 2 --rate 200/s -d 500ms: $(num "$T/to.json" ok) of 100"
stop_serve t
pass "--threads 2: closed loop resumes 40/40, open loop makes 100/100"
stop_serve s
grep -q "handshakes TLSv1.3 .* resumed: " "$T/s.out" || fail "serve summary does not count resumptions"

# openssl s_client resumes with a pqtls serve ticket too (and not when tickets are off,
# below).
req() { printf 'GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'; }
start_serve o --certs "$dir"
req | "$OPENSSL" s_client -connect "$ADDR_o" -sess_out "$T/sess.pem" -ign_eof >"$T/o1.txt" 2>&1
req | "$OPENSSL" s_client -connect "$ADDR_o" -sess_in "$T/sess.pem" -ign_eof >"$T/o2.txt" 2>&1
grep -q "^Reused, TLSv1.3" "$T/o2.txt" || fail "s_client did not resume with a pqtls serve ticket"
pass "openssl s_client resumes with a pqtls serve ticket"

# Tickets off: nothing to resume, and the run says so.
start_serve n --certs "$dir" --tickets 0
"$PQTLS" bench "$ADDR_n" --ca "$dir/root.pem" -n 20 --resume 1 --json >"$T/off.json"
[ "$(num "$T/off.json" resumed)" = 0 ] || fail "--tickets 0: $(num "$T/off.json" resumed) resumed"
[ "$(num "$T/off.json" ok)" = 20 ] || fail "--tickets 0: connections failed"
# In TLS 1.3 a session to save comes only with a ticket: s_client has none to write.
req | "$OPENSSL" s_client -connect "$ADDR_n" -sess_out "$T/sess0.pem" -ign_eof >"$T/n1.txt" 2>&1
grep -q "^HTTP/1.1 200 OK" "$T/n1.txt" || fail "s_client -> serve --tickets 0 failed"
[ ! -e "$T/sess0.pem" ] || fail "s_client got a resumable session although --tickets 0"
pass "--tickets 0: none of 20 resumed"

# 0-RTT: the first request goes as early data and the server accepts it.
start_serve e --certs "$dir" --max-early-data 16KiB
"$PQTLS" bench "$ADDR_e" --ca "$dir/root.pem" -n 20 --resume 1 --early-data --json >"$T/ed.json"
[ "$(num "$T/ed.json" early_accepted)" = 20 ] || fail "--early-data: $(num "$T/ed.json" early_accepted) of 20 accepted"
stop_serve e
grep -q "20 with early data" "$T/e.out" || { cat "$T/e.out"; fail "serve did not count early data"; }
pass "--early-data: 20/20 accepted"
