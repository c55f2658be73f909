#!/usr/bin/env bash
# Every preset of `pqtls sweep --presets`, scaled down (one trial, a few connections, a
# subset of its values through the sweep's options), measured for real across emulated
# links, and its report read: one key-table row per grid point (terminal and key.csv
# against the database's distinct point_keys), captions naming the link the preset ran
# on (its profile or RTT, never "0 ms" for a link that is not 0 ms), each study row the
# preset exists for, and the page opened in headless Chromium without a console message.
# Needs root and network namespaces. PQTLS_PRESETS_KEEP=DIR keeps each preset's
# database, page, text and screenshot in DIR (docs/report.md was written from them).
set -euo pipefail
: "${PQTLS:?PQTLS must point at the pqtls binary}"
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
	echo "SKIP: the presets run across emulated links (no root/namespaces)"
	exit 77
fi
command -v sqlite3 >/dev/null || { echo "FAIL: no sqlite3 tool (scripts/deps.sh installs it for the tests)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
KEEP=${PQTLS_PRESETS_KEEP:-}
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qF -- "$2" "$1" || fail "$3: expected '$2' in $(basename "$1")"; }

# preset NAME SWEEP-OPTIONS... -- then the checks read $T/NAME.*
measure() {
	local name=$1
	shift
	# a cell over the link's or the host's budget measured again up to twice: a busy
	# machine's moment does not decide a caption
	"$PQTLS" sweep --preset "$name" --trials 1 --remeasure 2 --no-check -q --out "$T/$name.db" "$@" >"$T/$name.sweep" 2>&1 ||
		{ tail -n 20 "$T/$name.sweep"; fail "$name: the sweep failed"; }
	# shown with a failure: the sweep's last line and any cell that did not measure all
	tail -n 1 "$T/$name.sweep"
	sqlite3 "$T/$name.db" "SELECT '$name cell ' || cell_id || ' (' || arm || ', ' || rtt_us || ' us): ' || status || ': ' ||
		COALESCE(failure_reason, '') FROM cell WHERE status != 'ok'"
	"$PQTLS" report "$T/$name.db" -o "$T/$name.html" --csv "$T/$name.csv" >"$T/$name.txt" 2>"$T/$name.err" ||
		{ cat "$T/$name.err"; fail "$name: the report failed"; }
	# One row per grid point: key.csv and the terminal against the database.
	local points rows term
	points=$(sqlite3 "$T/$name.db" "SELECT COUNT(DISTINCT host_name || '|' || point_key) FROM cell")
	rows=$(($(wc -l <"$T/$name.csv/key.csv") - 1))
	[ "$rows" = "$points" ] || fail "$name: key.csv has $rows rows for $points grid points"
	term=$(awk '/^host .*one row per grid point/ { on = 1; getline; next } on && /^$/ { on = 0 } on' "$T/$name.txt" | wc -l)
	[ "$term" = "$points" ] || { cat "$T/$name.txt"; fail "$name: the terminal table has $term rows for $points grid points"; }
	# No caption says a link is at 0 ms unless the database has a 0 ms link.
	if ! sqlite3 "$T/$name.db" "SELECT 1 FROM cell WHERE rtt_us = 0" | grep -q 1; then
		if grep -q "at 0 ms RTT" "$T/$name.html"; then fail "$name: a caption says 0 ms RTT"; fi
	fi
	[ -z "$KEEP" ] || { mkdir -p "$KEEP" && cp -r "$T/$name".* "$KEEP/"; }
}

browser() { # NAME FIGURE-PREFIX...
	local name=$1
	shift
	bash "$SRC/tests/integration/lib/browser_check.sh" "$T/$name.html" "$T/$name.png" "$@" >"$T/$name.browser" 2>&1 ||
		{ cat "$T/$name.browser"; fail "$name: the browser check failed"; }
	[ -z "$KEEP" ] || cp "$T/$name.png" "$KEEP/"
}

measure quick --connections 3 --rtt 1ms,70ms
grep -q "^blog (seeds/000): handshake, ML-DSA-65 leaf only (.* kB) vs ECDSA P-256 leaf + 1 int. (.* kB), X25519MLKEM768, at 70 ms RTT$" "$T/quick.txt" ||
	fail "quick: no blog row for the leaf-only chain at 70 ms"
has "$T/quick.html" "fig-size-h0-r1" quick
browser quick fig-size fig-rtt fig-cdf

measure blog-certsize --connections 3 --rtt 1ms,70ms --group X25519MLKEM768
has "$T/blog-certsize.txt" "at 1 ms RTT" blog-certsize
grep -q "^blog (seeds/000): handshake, ML-DSA-65 leaf + 1 int. (.* kB) vs ECDSA P-256 leaf + 1 int. (.* kB), X25519MLKEM768, at 70 ms RTT$" \
	"$T/blog-certsize.txt" || fail "blog-certsize: no blog row for the chains with an intermediate at 70 ms"
browser blog-certsize fig-rtt fig-cdf

measure blog-payload --connections 10
has "$T/blog-payload.txt" "1 MiB response: time to last byte p95 and p99" blog-payload
browser blog-payload fig-cdf

measure ttfb-size --connections 3 --profile paper-50 --pad-chain-to "8KiB..16KiB step 2KiB"
has "$T/ttfb-size.txt" "paper Figure 5 (seeds/003): where TTFB steps up by a round trip as the chain grows, ecdsa-p256 chain (arm ecdsa-p256 padded), 50 ms RTT" ttfb-size
has "$T/ttfb-size.txt" "paper Table VIII (seeds/003)" ttfb-size
has "$T/ttfb-size.html" "against the chain&#39;s DER size at 50 ms RTT" ttfb-size
browser ttfb-size fig-size

measure ttfb-intermediates --connections 3 --profile paper-10 --intermediates 0,1,2
has "$T/ttfb-intermediates.txt" "paper Table V (seeds/003): TTFB from the leaf alone to leaf + 2 intermediates, ML-DSA-44, X25519, at 10 ms RTT" ttfb-intermediates
browser ttfb-intermediates fig-cdf

measure cliff-move --connections 3 --pad-chain-to "11KiB..13KiB step 512"
has "$T/cliff-move.txt" "paper Figure 5 (seeds/003)" cliff-move
has "$T/cliff-move.html" "at 20 ms RTT" cliff-move
browser cliff-move fig-size

measure ttfb-rtt --connections 3 --profile paper-0,paper-10,paper-50
for row in "ECDSA X.509" "ML-DSA (" "SLH-DSA" "MTC + ML-DSA" "Session resumption"; do
	has "$T/ttfb-rtt.txt" "paper Table VI (seeds/003): TTFB across RTTs, $row" ttfb-rtt
done
has "$T/ttfb-rtt.html" "(profile paper-50, host" ttfb-rtt
browser ttfb-rtt fig-rtt fig-cdf

measure mtc-cdn --connections 3 --profile paper-10
has "$T/mtc-cdn.txt" "do MTC or compression save a round trip for an ML-DSA-44 chain? (10 ms RTT)" mtc-cdn
browser mtc-cdn fig-cdf

# five connections a cell: a slowdown point needs two good ones in each arm's cell
measure ttlb --connections 5 --profile aws-fast,aws-lowbw --response 1KiB,64KiB
has "$T/ttlb.txt" "AWS (seeds/004, abstract): TTLB slowdown of ML-DSA-65 + X25519MLKEM768 over ECDSA + X25519 against the response size, profile aws-fast" ttlb
has "$T/ttlb.txt" "profile aws-lowbw" ttlb
has "$T/ttlb.html" "on profile aws-lowbw, at 35 ms RTT" ttlb
browser ttlb fig-ttlb

measure loss --connections 6 --rtt 50ms --loss 0%,5%
has "$T/loss.txt" "Paquin et al. (2019): handshake percentiles against loss, key exchange X25519 vs X25519MLKEM768 (ECDSA), 50 ms RTT" loss
has "$T/loss.html" "against the link&#39;s loss (each way) at 50 ms RTT" loss
browser loss fig-loss

measure webpki --connections 2 --rtt 50ms
has "$T/webpki.html" 'id="candidates"' webpki
has "$T/webpki.html" "<td class=\"l\">sqisign-i (emu)</td>" webpki
has "$T/webpki.html" "QUIC 50 ms" webpki

echo "ok: eleven presets, scaled down: one row per grid point, captions with their links, the studies' rows, no console message"
