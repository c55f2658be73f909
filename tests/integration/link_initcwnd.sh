#!/usr/bin/env bash
# Real kernel TCP across the link: with cubic, MSS 1448 and a 50 ms RTT, the time from
# connect to the last byte steps by one RTT between 14,480 and 14,496 bytes (initcwnd 10)
# and again between 43,440 and 43,488 (the second flight of 20); initcwnd 20 moves the
# first step to 28,960. Margins are RTT-sized: a step is "more than half an RTT later".
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"

cat >"$TMP/client.sh" <<'EOS'
set -e
for n in $SIZES; do
	# best of 5: a vCPU stall (this VM sees tens of ms of steal time) must not make a step
	"$P" link probe-client --bytes "$n" -n 5 "$PQTLS_SERVER_ADDR" | sort -n -k2 | head -n 1
done
EOS

run() { # run OUT [link options]
	local out=$1; shift
	$P link run --rtt 50ms --cc cubic --wait-port 5201 "$@" -- \
		"$P" link probe-server --port 5201 -- env P="$P" SIZES="$SIZES" bash "$TMP/client.sh" >"$out" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "link run failed"; }
	has "$TMP/err" "unplanned 0"
}
ms() { awk -v n="$2" '$1 == n {print $2}' "$1"; }
step() { # step FILE A B: B takes at least half an RTT (25 ms) longer than A, less than 1.5 RTT
	local a b
	a=$(ms "$1" "$2")
	b=$(ms "$1" "$3")
	awk -v a="$a" -v b="$b" 'BEGIN { exit !(b - a > 25 && b - a < 75) }' ||
		{ cat "$1"; fail "no one-RTT step between $2 ($a ms) and $3 ($b ms)"; }
}
flat() { # flat FILE A B: within half an RTT of each other
	local a b
	a=$(ms "$1" "$2")
	b=$(ms "$1" "$3")
	awk -v a="$a" -v b="$b" 'BEGIN { d = b - a; if (d < 0) d = -d; exit !(d < 25) }' ||
		{ cat "$1"; fail "unexpected step between $2 ($a ms) and $3 ($b ms)"; }
}

SIZES="1000 14480 14496 43440 43488"
run "$TMP/default"
# One RTT of handshake + one of data for the first window (plus generous slack).
awk -v m="$(ms "$TMP/default" 14480)" 'BEGIN { exit !(m > 95 && m < 125) }' ||
	{ cat "$TMP/default"; fail "14480 bytes did not arrive in 2 RTT"; }
flat "$TMP/default" 1000 14480
step "$TMP/default" 14480 14496
flat "$TMP/default" 14496 43440
step "$TMP/default" 43440 43488

SIZES="14496 28960 28976"
run "$TMP/icw20" --initcwnd 20
flat "$TMP/icw20" 14496 28960
step "$TMP/icw20" 28960 28976
cat "$TMP/default" "$TMP/icw20"
echo ok
