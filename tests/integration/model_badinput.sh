#!/usr/bin/env bash
# pqtls model refuses what cannot be modelled, naming the option and what it accepts
# (exit 2), at once: an MSS of 0 or past an IPv4 packet, a --step of 0, and a range of
# more rows than a sweep's range may have (0..16MiB at --step 1 ran for minutes). The
# limits themselves are accepted. Needs no root.
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # CODE PATTERN ARGS...
	local code=$1 pat=$2 rc=0
	shift 2
	timeout 20 "$P" model "$@" >"$T/o" 2>"$T/e" || rc=$?
	[ "$rc" = "$code" ] || { cat "$T/e"; fail "model $*: exit $rc, want $code"; }
	[ -z "$pat" ] || grep -qF -- "$pat" "$T/e" || { cat "$T/e"; fail "model $*: no '$pat'"; }
	echo "ok: model $*: ${pat:-exit $code}"
}
expect 2 "--mss: 0 is not a TCP payload per segment; give 88..65495 bytes" --mss 0
expect 2 "--mss: 65496 is not a TCP payload" --mss 65496
expect 2 "--step: 0 bytes would never reach the range's end" --chain-bytes 4KiB..8KiB --step 0
expect 2 "--chain-bytes 0..16MiB with --step 1 is 16777217 rows; at most 1000" --chain-bytes 0..16MiB --step 1
expect 2 "--rwnd: 1000 bytes is not a receive window for an MSS of 1448; give 0 (no limit) or 1448..1GiB" --rwnd 1000
expect 2 "--rwnd: 'lots' is not a size" --rwnd lots
expect 0 "" --rwnd 1448
# the window holds a large flight back at initcwnd 46: one round trip more than without it
with=$("$P" model --sig emu-uov-is-pkc --initcwnd 46 --rwnd 64512 --chain-bytes 130000..131000 --step 1000 --json |
	python3 -c "import json,sys; print(json.load(sys.stdin)['sizes'][0]['handshake_rtts'])")
without=$("$P" model --sig emu-uov-is-pkc --initcwnd 46 --chain-bytes 130000..131000 --step 1000 --json |
	python3 -c "import json,sys; print(json.load(sys.stdin)['sizes'][0]['handshake_rtts'])")
[ "$with" = 4 ] && [ "$without" = 3 ] || fail "UOV at initcwnd 46: $with round trips with the window, $without without"
expect 0 "" --mss 88
expect 0 "" --mss 65495
expect 0 "" --chain-bytes 4KiB..80KiB --step 1KiB
rows=$("$P" model --chain-bytes 1000..1999 --step 1 --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)['sizes']))")
[ "$rows" -ge 900 ] && [ "$rows" -le 1000 ] || fail "1000 rows at the cap: $rows"
expect 2 "is 1001 rows" --chain-bytes 1000..2000 --step 1
# The loss model: 0-50 % and a Gilbert burst of at least 1, refused with the range.
expect 2 "--loss: 51% is outside the model's range; give 0% to 50%" --loss 51%
expect 2 "--burst: 0.5 packets is no Gilbert-Elliott mean burst; give 1 to 1000 packets" --loss 6% --burst 0.5
expect 2 "--loss-unit" --loss 6% --loss-unit flow
expect 0 "" --loss 0% --trials 200
expect 0 "" --loss 50% --trials 200 --loss-unit burst
"$P" model --loss 6% --trials 2000 >"$T/o" && grep -q "handshake    p25 .* median .* p95" "$T/o" || fail "--loss 6% prints no percentiles"
med=$("$P" model --sig ecdsa-p256 -n 0 --loss 6% --rtt 100ms --trials 2000 --json | python3 -c "import json,sys; print(json.load(sys.stdin)['loss']['handshake']['median_rtts'])")
[ "$med" = 2 ] || fail "the median at 6% for a 2-segment flight: $med, want 2"
echo ok
