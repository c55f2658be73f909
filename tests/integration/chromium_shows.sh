#!/usr/bin/env bash
# What Chromium shows that pqtls's client does not, over one emulated 20 ms link:
# - a server that takes X25519MLKEM768 alone: pqtls's client, offering X25519 first with
#   its share, draws a HelloRetryRequest; Chromium, sending both key shares (ML-KEM hybrid
#   and X25519), draws none and negotiates the hybrid in one round;
# - a server that takes P-256 alone, which Chromium offers without a share: Chromium draws
#   a HelloRetryRequest and sends a second ClientHello (read from its NetLog: hrr,
#   ch2_bytes), so the check above can fail.
# Skips with the reason without root or Chromium.
source "$(dirname "$0")/link_lib.bash"
command -v sqlite3 >/dev/null || fail "needs sqlite3 (scripts/deps.sh installs it)"
CHROMIUM=${PQTLS_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
	echo "skip: no Chromium (scripts/deps.sh installs Debian's chromium; PQTLS_CHROMIUM names another)"
	exit 77
fi
q() { sqlite3 "$1" "$2"; }

DB=$TMP/mlkem.db
"$P" sweep --client pqtls,chromium --sig ecdsa-p256 --rtt 20ms --groups X25519:X25519MLKEM768 --key-share X25519 \
	--server-groups X25519MLKEM768 --connections 2 --no-check -q --out "$DB" >"$TMP/out" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "the ML-KEM-only sweep failed"; }
[ "$(q "$DB" "SELECT COUNT(*) FROM conn_cell WHERE client = 'pqtls' AND error_kind = 'ok' AND hrr = 1
	AND tls_group = 'X25519MLKEM768' AND ch2_bytes > 1216")" = 2 ] ||
	{ q "$DB" "SELECT client, error_kind, hrr, tls_group, ch1_bytes, ch2_bytes FROM conn_cell"; fail "pqtls's client against the ML-KEM-only server"; }
[ "$(q "$DB" "SELECT COUNT(*) FROM conn_cell WHERE client = 'chromium' AND error_kind = 'ok' AND hrr = 0
	AND ch2_bytes = 0 AND tls_group = 'X25519MLKEM768' AND ch1_bytes > 1216 + 32")" = 2 ] ||
	{ q "$DB" "SELECT client, error_kind, hrr, tls_group, ch1_bytes, ch2_bytes FROM conn_cell"; fail "Chromium against the ML-KEM-only server"; }

DB=$TMP/p256.db
"$P" sweep --client chromium --sig ecdsa-p256 --rtt 20ms --group P-256 --server-groups P-256 --connections 1 \
	--no-check -q --out "$DB" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "the P-256-only sweep failed"; }
[ "$(q "$DB" "SELECT COUNT(*) FROM conn_cell WHERE error_kind = 'ok' AND hrr = 1 AND ch2_bytes > 0
	AND ch2_bytes < ch1_bytes")" = 1 ] ||
	{ q "$DB" "SELECT error_kind, error_detail, hrr, tls_group, ch1_bytes, ch2_bytes FROM conn_cell"; fail "Chromium against the P-256-only server: no HelloRetryRequest read"; }
q "$TMP/mlkem.db" "SELECT client, hrr, tls_group, ch1_bytes, ch2_bytes, ROUND(handshake_us / 1000.0, 1) FROM conn_cell"
q "$TMP/p256.db" "SELECT hrr, tls_group, ch1_bytes, ch2_bytes, ROUND(handshake_us / 1000.0, 1) FROM conn_cell"
echo "ok: two key shares spare Chromium the HelloRetryRequest pqtls's one-share offer draws; a P-256-only server draws one"
