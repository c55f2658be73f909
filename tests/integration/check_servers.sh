#!/usr/bin/env bash
# pqtls check against three servers: pqtls serve and openssl s_server pass every probe
# (X25519MLKEM768 and the X25519 control, each whole, split, cut in the key share and
# in the SNI, a byte per segment, delayed, and through a HelloRetryRequest); a front end
# that drops any connection whose ClientHello came in more than one segment
# (lib/intolerant.py, in front of pqtls serve) fails exactly the split probes. The table
# and the JSON say the same, and the exit status says whether all passed.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

dir=$(chain ecdsa-p256)
SPLIT="split key-share sni bytes delayed"

# check_json FILE WANT_FAILING: every probe's verdict, group, HRR and segments as the
# probe's shape says (WANT_FAILING: the shapes that must fail, space-separated).
check_json() {
	python3 - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
failing = set(sys.argv[2].split())
res = doc["results"]
assert doc["probes"] == 14 and len(res) == 14, (doc["probes"], len(res))
seen = set()
for r in res:
    key = (r["group"], r["shape"])
    seen.add(key)
    ch = r["client_hello"]
    if r["shape"] in failing:
        assert not r["passed"] and not r["completed"], key
        assert r["fail"] in ("closed", "reset"), (key, r["fail"], r["detail"])
        continue
    assert r["passed"] and r["completed"] and r["fail"] == "", (key, r["detail"])
    assert r["negotiated"].lower() == r["group"].lower(), (key, r["negotiated"])
    assert r["hrr"] == (r["shape"] == "hrr"), key
    want_writes = {"whole": 1, "hrr": 1, "bytes": ch[0]["bytes"]}.get(r["shape"], 2)
    assert ch[0]["writes"] == want_writes, (key, ch[0])
    # loopback's MTU is 64 KiB: each write is its own segment, and only that
    assert ch[0]["segments"] == want_writes, (key, ch[0])
    if r["shape"] == "hrr":
        assert len(ch) == 2 and ch[1]["writes"] == 1, (key, ch)
    else:
        assert len(ch) == 1, (key, ch)
    if r["group"] == "X25519MLKEM768":
        assert ch[-1]["bytes"] > 1216, (key, ch)  # the ML-KEM share alone is 1216 bytes
    if r["shape"] == "delayed":
        assert r["handshake_ms"] >= 200, (key, r["handshake_ms"])  # includes the 200 ms pause
groups = {"X25519MLKEM768", "X25519"}
shapes = {"whole", "split", "key-share", "sni", "bytes", "delayed", "hrr"}
assert seen == {(g, s) for g in groups for s in shapes}, seen
assert doc["all_passed"] == (not failing) and doc["passed"] == 14 - 2 * len(failing)
PY
}

# table_has FILE GROUP SHAPE RESULT: the table's row for the probe says RESULT.
table_has() {
	grep -qE "^$2 +$3 +$4 " "$1" || { cat "$1"; fail "table: no '$2 $3 $4' row"; }
}

# pqtls serve and openssl s_server: every probe passes, exit 0.
start_serve p --certs "$dir"
# shellcheck disable=SC2046
start_s_server s $(s_server_certs "$dir") -www
for who in p s; do
	addr_var=ADDR_$who
	rc=0
	"$PQTLS" check "${!addr_var}" --ca "$dir/root.pem" >"$T/$who.table" || rc=$?
	[ "$rc" = 0 ] || { cat "$T/$who.table"; fail "check against $who exited $rc"; }
	grep -q "^14 of 14 probes passed$" "$T/$who.table" || { cat "$T/$who.table"; fail "$who: not all passed"; }
	for g in X25519MLKEM768 X25519; do
		for s in whole $SPLIT; do table_has "$T/$who.table" "$g" "$s" "pass +$g +no"; done
		table_has "$T/$who.table" "$g" hrr "pass +$g +yes"
	done
	"$PQTLS" check "${!addr_var}" --ca "$dir/root.pem" --json >"$T/$who.json" || fail "check --json against $who"
	check_json "$T/$who.json" "" || { cat "$T/$who.json"; fail "$who: JSON"; }
done
cat "$T/s.table"
pass "pqtls serve and openssl s_server pass all 14 probes (table and JSON)"

# The intolerant front end: the split probes fail, whole and hrr pass, exit 1.
rm -f "$T/i.addr"
python3 "$LIB_DIR/intolerant.py" "$T/i.addr" "$ADDR_p" 2>"$T/i.err" &
PIDS+=("$!")
wait_for "$T/i.addr" . 10 || { cat "$T/i.err"; fail "intolerant front end did not start"; }
ADDR_i=$(cat "$T/i.addr")
rc=0
"$PQTLS" check "$ADDR_i" >"$T/i.table" || rc=$?
[ "$rc" = 1 ] || { cat "$T/i.table"; fail "check against the intolerant server exited $rc, want 1"; }
grep -q "^4 of 14 probes passed$" "$T/i.table" || { cat "$T/i.table"; fail "intolerant: count"; }
for g in X25519MLKEM768 X25519; do
	table_has "$T/i.table" "$g" whole "pass"
	table_has "$T/i.table" "$g" hrr "pass +$g +yes"
	for s in $SPLIT; do table_has "$T/i.table" "$g" "$s" "FAIL +- +-"; done
done
grep -q "closed the connection without answering the ClientHello" "$T/i.table" || fail "intolerant: detail"
rc=0
"$PQTLS" check "$ADDR_i" --json >"$T/i.json" || rc=$?
[ "$rc" = 1 ] || fail "check --json against the intolerant server exited $rc, want 1"
check_json "$T/i.json" "$SPLIT" || { cat "$T/i.json"; fail "intolerant: JSON"; }
cat "$T/i.table"
pass "the intolerant server fails the 10 split probes and passes whole and hrr (table and JSON)"

# --shapes and --control none narrow the run; the hrr probe names a server taking the share.
"$PQTLS" check "$ADDR_i" --shapes whole,hrr --control none --json >"$T/n.json" || fail "narrowed run"
python3 -c "
import json, sys
d = json.load(open('$T/n.json'))
assert [(r['group'], r['shape']) for r in d['results']] == [('X25519MLKEM768', 'whole'), ('X25519MLKEM768', 'hrr')], d
assert d['all_passed']" || fail "--shapes/--control none"
# One tuple of both groups (no '/'): OpenSSL's server takes any share within it.
start_serve one --certs "$dir" --groups X25519MLKEM768:X25519
rc=0
"$PQTLS" check "$ADDR_one" --shapes hrr --control none --hrr-share X25519 >"$T/h.table" || rc=$?
[ "$rc" = 1 ] || { cat "$T/h.table"; fail "a server taking the hrr share must fail the probe"; }
grep -q "negotiated x25519, not X25519MLKEM768" "$T/h.table" || { cat "$T/h.table"; fail "hrr detail"; }
pass "--shapes, --control none, and an hrr probe whose share the server takes"
