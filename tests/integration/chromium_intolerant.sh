#!/usr/bin/env bash
# Chromium's ClientHello against `pqtls check`'s intolerant front end (lib/intolerant.py:
# it drops any connection whose ClientHello came in more than one TCP segment), on the
# server side of an emulated 20 ms link (MSS 1448): pqtls's client offering
# X25519MLKEM768 alone (a ClientHello of about 1.4 kB) fits one segment and passes;
# Chromium's (about 1.9 kB: two key shares, GREASE, ECH) takes two and fails as `pqtls
# check`'s split probe does, the failure named from its NetLog; and so does pqtls's client
# with OpenSSL's default offer, whose two key shares (X25519MLKEM768 and X25519) make its
# ClientHello a few bytes longer than one segment. Skips with the reason without root or
# Chromium.
source "$(dirname "$0")/link_lib.bash"
CHROMIUM=${PQTLS_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
	echo "skip: no Chromium (scripts/deps.sh installs Debian's chromium; PQTLS_CHROMIUM names another)"
	exit 77
fi
LIB=$(cd "$(dirname "$0")/lib" && pwd)
PORT=$((20000 + $$ % 20000))
"$P" certs --sig ecdsa-p256 --out "$TMP/chain" >/dev/null || fail "pqtls certs"
# the server side: pqtls serve on its loopback, the front end on the link's address
cat >"$TMP/server.sh" <<EOF
"$P" serve --certs "$TMP/chain" --listen 127.0.0.1:$((PORT + 1)) --ready-file "$TMP/serve.ready" &
for _ in \$(seq 100); do [ -s "$TMP/serve.ready" ] && break; sleep 0.1; done
exec python3 "$LIB/intolerant.py" "$TMP/front.ready" 127.0.0.1:$((PORT + 1)) "\$PQTLS_SERVER_ADDR:$PORT"
EOF
cat >"$TMP/client.sh" <<EOF
"$P" bench "\$PQTLS_SERVER_ADDR:$PORT" --groups X25519MLKEM768 --insecure -n 2 --jsonl "$TMP/pqtls.jsonl" \
	>"$TMP/pqtls.out" 2>&1
"$P" bench "\$PQTLS_SERVER_ADDR:$PORT" --insecure -n 1 --jsonl "$TMP/default.jsonl" >"$TMP/default.out" 2>&1
"$P" bench "\$PQTLS_SERVER_ADDR:$PORT" --client chromium --insecure -n 2 --jsonl "$TMP/chromium.jsonl" \
	>"$TMP/chromium.out" 2>&1
exit 0
EOF
"$P" link run --rtt 20ms --wait-port "$PORT" -- sh "$TMP/server.sh" -- sh "$TMP/client.sh" >"$TMP/out" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "the link run failed"; }
python3 - "$TMP" <<'PY' || { cat "$TMP/pqtls.out" "$TMP/chromium.out"; fail "the clients against the intolerant front end"; }
import json, sys
rows = lambda name: [json.loads(l) for l in open(f"{sys.argv[1]}/{name}.jsonl")]
pq, br, df = rows("pqtls"), rows("chromium"), rows("default")
assert len(pq) == 2 and len(br) == 2 and len(df) == 1, (len(pq), len(br), len(df))
# OpenSSL's default offer: two key shares, over one segment by a few bytes (record header: 5)
assert df[0]["error_kind"] != "ok" and df[0]["ch1_bytes"] + 5 > 1448, df[0]
for r in pq:  # one segment: through the front end to the server
    assert r["error_kind"] == "ok" and r["ch1_segs"] == 1 and r["tls_group"] == "X25519MLKEM768", r
for r in br:  # two segments: dropped, as the split probe is
    # (bench does not know the link's MSS: ch1_segs is 0, unknown; the bytes say two)
    assert r["error_kind"] != "ok" and r["ch1_bytes"] + 5 > 1448, r
    assert "net_error" in (r["error_detail"] or ""), r
print("pqtls, X25519MLKEM768 alone:", [(r["ch1_bytes"], r["ch1_segs"], r["error_kind"]) for r in pq])
print("pqtls, OpenSSL's default offer:", [(r["ch1_bytes"], r["error_kind"]) for r in df])
print("chromium:", [(r["ch1_bytes"], r["ch1_segs"], r["error_kind"], r["error_detail"]) for r in br])
PY
echo "ok: Chromium's two-segment ClientHello fails at the intolerant front end where pqtls's one-segment one passes"
