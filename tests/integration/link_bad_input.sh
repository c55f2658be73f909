#!/usr/bin/env bash
# Bad input gets a message naming the input and exit status 2; missing privileges get
# a message naming what is needed. None of these need root.
set -euo pipefail
: "${PQTLS:?}"
P=$PQTLS
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect() { # expect STATUS NEEDLE -- ARGS...
	local want=$1 needle=$2; shift 3
	set +e
	"$P" "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	set -e
	[ "$rc" = "$want" ] || { cat "$TMP/err"; fail "pqtls $*: status $rc, wanted $want"; }
	grep -qF -- "$needle" "$TMP/err" || { cat "$TMP/err"; fail "pqtls $*: no '$needle' in the message"; }
}

expect 2 "negative" -- link run --rtt -5ms -- true -- true
expect 2 "delay" -- link run --delay 1h -- true -- true
expect 2 "--loss" -- link run --loss 150% -- true -- true
expect 2 "--mtu: 500" -- link run --mtu 500 -- true -- true
# link profiles shows which profiles reorder, and why, in the table and in --json.
"$P" link profiles >"$TMP/prof"
grep -q '^aws-fast .* reorder ' "$TMP/prof" && grep -q '^us-west .* kept ' "$TMP/prof" ||
	{ cat "$TMP/prof"; fail "link profiles does not show the order column"; }
grep -q 'as netem did in the study' "$TMP/prof" && grep -q 'handshake-timeout 60s' "$TMP/prof" ||
	{ cat "$TMP/prof"; fail "link profiles does not explain reordering or the lossy handshake timeout"; }
"$P" link profiles --json | grep -q '"name":"aws-lossy",[^}]*"reorder":true,"serve_handshake_timeout_ms":60000' ||
	fail "link profiles --json lacks reorder / serve_handshake_timeout_ms"

# Each range error names the option given, not its neighbours.
expect 2 "--mtu: 70000 is out of range (accepted: 576 to 9000)" -- link run --mtu 70000 -- true -- true
expect 2 "--initcwnd: 99999999 is out of range" -- link run --initcwnd 99999999 -- true -- true
grep -q -- "--mtu\|--initrwnd" "$TMP/err" && fail "the --initcwnd message names other options: $(cat "$TMP/err")"
# A rate that rounds to 0 bit/s would silently be unlimited.
expect 2 "--rate: '0.0001bit' is below 1 bit/s" -- link run --rate 0.0001bit -- true -- true
expect 2 "unknown profile 'mars'" -- link run --profile mars -- true -- true
expect 2 "missing command" -- link run --rtt 10ms -- true
expect 2 "missing command" -- link run --rtt 10ms
expect 2 "--queue" -- link run --rate 10Mbit --queue lots -- true -- true
expect 2 "needs a rate" -- link run --queue 10p -- true -- true
expect 2 "--burst-loss" -- link run --burst-loss 1% -- true -- true
expect 2 "--cc" -- link run --cc vegas -- true -- true
expect 2 "not a link name" -- link down nonsense
expect 2 "client or server" -- link exec pqtls-1-0 middle -- true

# The forwarder's tuning from the environment: each variable outside its range is refused,
# named, with what it accepts, before any link is made (link up would print a name).
PQTLS_LINK_NICE=abc expect 2 "PQTLS_LINK_NICE: 'abc' is not accepted (accepted: a whole number from -20 to 19" -- link run --rtt 10ms -- true -- true
PQTLS_LINK_RT_PRIO=100 expect 2 "PQTLS_LINK_RT_PRIO: '100' is not accepted (accepted: a whole number from 0 to 99" -- link up --rtt 10ms
[ ! -s "$TMP/out" ] || fail "link up printed a link name with a refused environment: $(cat "$TMP/out")"
PQTLS_LINK_BATCH_US=501 expect 2 "from 0 to 500 us" -- link check --rtt 10ms
PQTLS_LINK_EARLY_US=-1 expect 2 "PQTLS_LINK_EARLY_US: '-1'" -- link run --rtt 10ms -- true -- true
PQTLS_LINK_COMP_US=40us expect 2 "PQTLS_LINK_COMP_US: '40us'" -- link run --rtt 10ms -- true -- true

# Without privileges: the message names what is missing.
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	set +e
	setpriv --reuid=65534 --regid=65534 --clear-groups "$P" link run --rtt 10ms -- true -- true 2>"$TMP/err"
	rc=$?
	set -e
	[ "$rc" = 1 ] || { cat "$TMP/err"; fail "unprivileged run: status $rc"; }
	grep -q "CAP_NET_ADMIN" "$TMP/err" || { cat "$TMP/err"; fail "no CAP_NET_ADMIN in the message"; }
else
	echo "note: setpriv or root missing; privilege message not tested"
fi
echo ok
