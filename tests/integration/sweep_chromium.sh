#!/usr/bin/env bash
# client = pqtls | chromium as a sweep dimension over one emulated 50 ms link: what the
# browser cannot measure is refused before anything runs (Chromium missing, a remote
# server, QUIC, resumption), each naming why; both clients measure one ML-DSA-65 chain,
# the browser's connections carry its NetLog's times (network-only beside its own: the
# certificate verification and the request's dispatch are columns) and negotiation, and
# the browser's cell runs with its server and link on a CPU of their own; its
# network-only first byte is pqtls's client's within half a round trip (the goal is a
# quarter; half here because the NetLog's clock has 1 ms steps and this VM is shared);
# a chain the browser refuses (an Ed25519 leaf: Chromium offers no Ed25519) is a failed
# cell naming Chromium's error; a warm browser and a resuming one (driven through its
# DevTools pipe) measure a new connection each; a hung browser or pipe is killed at the
# cell's deadline, nothing of it left; a sweep killed with SIGKILL mid-navigation leaves no browser process.
source "$(dirname "$0")/link_lib.bash"
command -v sqlite3 >/dev/null || fail "needs sqlite3 (scripts/deps.sh installs it)"

refused() { # refused WHAT EXPECTED-TEXT ARGS...: exit non-zero, the text, no database
	local what=$1 text=$2
	shift 2
	if "$@" >"$TMP/out" 2>"$TMP/err"; then fail "$what was accepted"; fi
	has "$TMP/err" "$text"
	[ ! -e "$TMP/bad.db" ] || fail "$what left a database"
}
refused "a missing browser" "PQTLS_CHROMIUM is '/nonexistent'" \
	env PQTLS_CHROMIUM=/nonexistent "$P" sweep --client chromium --rtt 50ms --out "$TMP/bad.db" -q
refused "QUIC" "client chromium with transport quic" \
	"$P" sweep --client chromium --transport quic --rtt 50ms --out "$TMP/bad.db" -q
refused "a remote server" "client chromium with a remote server" \
	"$P" sweep --client chromium --server 127.0.0.1:9 --out "$TMP/bad.db" -q
refused "resumption" "client chromium with resumption" \
	"$P" sweep --client chromium --resume 0.5 --rtt 50ms --out "$TMP/bad.db" -q
refused "a pqtls client's browser state" "browser-state warm with client pqtls" \
	"$P" sweep --browser-state warm --rtt 50ms --out "$TMP/bad.db" -q
refused "resuming without tickets" "browser-state resumed with tickets 0" \
	"$P" sweep --client chromium --browser-state resumed --tickets 0 --rtt 50ms --out "$TMP/bad.db" -q
refused "bench's browser state without the browser" "--browser-state resumed needs --client chromium" \
	"$P" bench 127.0.0.1:9 --browser-state resumed --insecure -n 1
refused "bench over QUIC" "QUIC (the browser speaks HTTP/3" \
	env PQTLS_CHROMIUM=/bin/true "$P" bench 127.0.0.1:9 --client chromium --quic --insecure -n 1

CHROMIUM=${PQTLS_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
	echo "skip: no Chromium (scripts/deps.sh installs Debian's chromium; PQTLS_CHROMIUM names another)"
	exit 77
fi

DB=$TMP/c.db
"$P" sweep --client pqtls,chromium --sig ml-dsa-65 --rtt 50ms --connections 3 --no-check -q --out "$DB" \
	>"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "the sweep failed"; }
has "$TMP/out" "2 cells measured"
q() { sqlite3 "$DB" "$1"; }
[ "$(q "SELECT COUNT(DISTINCT link_key) FROM cell")" = 1 ] || fail "the clients did not share one link"
[ -n "$(q "SELECT chromium_version FROM run WHERE chromium_version GLOB '[0-9]*.*'")" ] ||
	fail "the run's manifest lacks Chromium's version"
[ "$(q "SELECT COUNT(*) FROM conn_cell WHERE client = 'chromium' AND error_kind = 'ok' AND tls_group = 'X25519MLKEM768'
	AND sigalg = 'mldsa65' AND ch1_bytes > 1500 AND ch1_segs = 2 AND browser_conns >= 1 AND browser_verify_us > 0
	AND browser_flight_us > connect_us AND browser_flight_us <= handshake_us
	AND browser_request_net_us >= handshake_us AND browser_ttfb_net_us > browser_request_net_us")" = 3 ] ||
	{ q "SELECT * FROM conn_cell WHERE client = 'chromium'"; fail "the browser's connections"; }
[ "$(q "SELECT COUNT(*) FROM conn_cell WHERE client = 'pqtls' AND error_kind = 'ok' AND browser_flight_us IS NULL
	AND browser_conns IS NULL")" = 3 ] || fail "pqtls's connections carry the browser's columns"
# The browser's cell runs as on two machines: its server on one CPU, the browser on the
# others, as read back, and at 50 ms the link's forwarder beside the server; under 10 ms
# RTT beside the browser. pqtls's client cell shares every CPU.
if [ "$(nproc)" -ge 2 ]; then
	[ "$(q "SELECT COUNT(*) FROM cell WHERE client = 'chromium' AND host_server_cpus GLOB '[0-9]*'
		AND host_client_cpus GLOB '[0-9]*' AND host_server_cpus <> host_client_cpus
		AND link_fwd_cpus = host_server_cpus")" = 1 ] ||
		{ q "SELECT client, host_server_cpus, host_client_cpus, link_fwd_cpus FROM cell"; fail "the browser's cell not split"; }
	"$P" sweep --client chromium --sig ecdsa-p256 --rtt 1ms --connections 1 --no-check -q --out "$TMP/near.db" \
		>"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "the 1 ms sweep failed"; }
	[ "$(sqlite3 "$TMP/near.db" "SELECT COUNT(*) FROM cell WHERE host_server_cpus GLOB '[0-9]*'
		AND host_server_cpus <> host_client_cpus AND link_fwd_cpus = host_client_cpus")" = 1 ] ||
		{ sqlite3 "$TMP/near.db" "SELECT host_server_cpus, host_client_cpus, link_fwd_cpus FROM cell"
		  fail "at 1 ms the forwarder is not beside the browser"; }
fi
[ "$(q "SELECT COUNT(*) FROM cell WHERE client = 'pqtls' AND host_server_cpus IS NULL AND host_client_cpus IS NULL
	AND link_fwd_cpus IS NULL")" = 1 ] || fail "pqtls's client cell stored as split"
# network-only first byte: the server's first flight in, then one request round trip
python3 - "$DB" <<'PY' || fail "the browser's network-only first byte against pqtls's client"
import sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
rows = lambda sql: [r[0] for r in db.execute(sql)]
pq = statistics.median(rows("SELECT ttfb_us FROM conn_cell WHERE client = 'pqtls'"))
br = statistics.median(rows("SELECT browser_ttfb_network_us FROM conn_cell WHERE client = 'chromium'"))
# the split sums to the browser's whole first byte
for whole, parts in db.execute("SELECT ttfb_us, browser_ttfb_network_us + browser_verify_us + browser_dispatch_us "
                               "+ browser_read_us FROM conn_cell WHERE client = 'chromium'"):
    assert abs(whole - parts) < 1, (whole, parts)
rtt = rows("SELECT rtt_us FROM cell LIMIT 1")[0]
print(f"pqtls TTFB {pq / 1e3:.1f} ms, browser network-only {br / 1e3:.1f} ms ({(br - pq) / rtt:+.2f} RTT)")
sys.exit(0 if abs(br - pq) <= 0.5 * rtt else 1)
PY

# A warm browser (another origin first) and a resuming one (the same URL twice, the
# server closing each connection), driven through the DevTools pipe: each measured
# connection is a new one, the warm one a full handshake with its verification, the
# resumed one without (the resumed count of sockets may hold one more: docs/tls.md).
"$P" sweep --client chromium --browser-state warm,resumed --sig ml-dsa-65 --rtt 50ms --connections 2 --no-check -q \
	--out "$TMP/w.db" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "the warm and resumed sweep failed"; }
w() { sqlite3 "$TMP/w.db" "$1"; }
[ "$(w "SELECT COUNT(*) FROM conn_cell WHERE browser_state = 'warm' AND error_kind = 'ok' AND resumed = 0
	AND browser_verify_us > 0 AND browser_conns = 1 AND sigalg = 'mldsa65'")" = 2 ] ||
	{ w "SELECT * FROM conn_cell"; fail "the warm browser's connections"; }
[ "$(w "SELECT COUNT(*) FROM conn_cell WHERE browser_state = 'resumed' AND error_kind = 'ok' AND resumed = 1
	AND browser_verify_us IS NULL AND browser_conns >= 1")" = 2 ] ||
	{ w "SELECT * FROM conn_cell"; fail "the resuming browser's connections"; }

# A chain the browser refuses: failed, with Chromium's reason.
"$P" sweep --client chromium --sig ed25519 --rtt 50ms --connections 1 --no-check -q --out "$TMP/ed.db" \
	>"$TMP/out" 2>"$TMP/err" || true
reason=$(sqlite3 "$TMP/ed.db" "SELECT status || ': ' || failure_reason FROM cell")
grep -q '^failed: .*net_error -[0-9]* (ERR_' <<<"$reason" || fail "an Ed25519 chain: '$reason'"

# A hung browser: killed at the deadline (4 x the per-phase timeout + 10 s), failed, and
# nothing it started left, not even a process that left its group and session.
FAKE=$TMP/fake-chromium
cat >"$FAKE" <<EOF
#!/usr/bin/env bash
[ "\${1:-}" = --version ] && { echo "Chromium 1.2.3 fake"; exit 0; }
for a; do case \$a in --user-data-dir=*) d=\${a#*=} ;; esac; done
setsid python3 -c 'import time; time.sleep(300)' "\$d" "$FAKE" &
sleep 300
EOF
chmod +x "$FAKE"
t0=$(date +%s)
PQTLS_CHROMIUM=$FAKE "$P" sweep --client chromium --rtt 50ms --timeout 200ms --connections 1 --remeasure 0 --no-check -q \
	--out "$TMP/hung.db" >"$TMP/out" 2>"$TMP/err" || true
took=$(($(date +%s) - t0))
[ "$took" -lt 60 ] || fail "the hung browser took ${took} s"
grep -q 'killed at the 10.8 s deadline' <<<"$(sqlite3 "$TMP/hung.db" "SELECT failure_reason FROM cell")" ||
	{ sqlite3 "$TMP/hung.db" "SELECT status, failure_reason FROM cell"; fail "the hung browser's cell"; }
sleep 1
! pgrep -f "$FAKE" >/dev/null || { pgrep -af "$FAKE"; fail "the hung browser outlived its cell"; }

# A browser whose DevTools pipe hangs: killed at the deadline (2 navigations x 4 x the
# per-phase timeout + 10 s), failed with the pipe's reason, nothing of it left.
PQTLS_CHROMIUM=$FAKE "$P" sweep --client chromium --browser-state warm --rtt 50ms --timeout 200ms --connections 1 \
	--remeasure 0 --no-check -q --out "$TMP/hungpipe.db" >"$TMP/out" 2>"$TMP/err" || true
grep -q 'DevTools pipe: no answer by the deadline opening its tab' \
	<<<"$(sqlite3 "$TMP/hungpipe.db" "SELECT failure_reason FROM cell")" ||
	{ sqlite3 "$TMP/hungpipe.db" "SELECT status, failure_reason FROM cell"; fail "the hung pipe's cell"; }
sleep 1
! pgrep -f "$FAKE" >/dev/null || { pgrep -af "$FAKE"; fail "the hung pipe's browser outlived its cell"; }

# A sweep killed mid-navigation leaves no browser: the browser dies with its parent and
# its children with it.
"$P" sweep --client chromium --rtt 50ms --connections 50 --no-check -q --out "$TMP/k.db" >/dev/null 2>&1 &
sweep=$!
for _ in $(seq 100); do pgrep -f 'pqtls-chromium-.*/profile' >/dev/null && break; sleep 0.1; done
left=$(pgrep -af 'pqtls-chromium-.*/profile' | grep -oE '/(dev/shm|tmp)/pqtls-chromium-[A-Za-z0-9]*' | sort -u)
m=$(sweep_measurer "$sweep")
kill -KILL "$m" "$sweep" 2>/dev/null || true
wait "$sweep" 2>/dev/null || true
for _ in $(seq 50); do pgrep -f 'pqtls-chromium-.*/profile' >/dev/null || break; sleep 0.1; done
! pgrep -f 'pqtls-chromium-.*/profile' >/dev/null || { pgrep -af 'pqtls-chromium-' | cut -c1-160; fail "a browser outlived its killed sweep"; }
# its profile stays behind (nothing was left to remove it): this one's, by name
for d in $left; do rm -rf "$d"; done
echo "ok"
