#!/usr/bin/env bash
# `make run`'s pipeline end to end, small: the quick preset of pqtls sweep (its nine arms,
# chains and servers in one process) at one 50 ms link, then the report from the database.
# Asserts what the run exists to show: an ML-DSA-65 leaf+intermediate flight (15.7 kB, 11
# segments) needs one more round trip than an ECDSA one, an ML-DSA-65 leaf alone does not,
# 0-RTT brings the first byte a round trip sooner than plain resumption, and the report is
# written. Round trips are counted against the path's min RTT, and the bounds are half an
# RTT wide, and each is a median of 5 connections, so the vCPU stalls this shared machine shows
# (one of three connections 25 ms late was seen under ASan) cannot flip the verdict. The link
# self-check is stored but not enforced (--no-check): on this shared VM its 2 ms p99 budget
# is often missed, and sweep_*.sh test the check's effect.
set -euo pipefail
P=${PQTLS:-build/pqtls}
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ "$(id -u)" != 0 ]; then echo "skip: needs root (network namespaces, TUN)"; exit 77; fi
command -v python3 >/dev/null || { echo "skip: make run's report needs python3"; exit 77; }
T=$(mktemp -d /tmp/pqtls-quick-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$P" sweep --preset quick --rtt 50ms --trials 1 --connections 5 --no-check --out "$T/out/results.db" \
	>"$T/log" 2>&1 || { cat "$T/log"; fail "the quick sweep failed"; }
python3 "$SRC/scripts/quick-report.py" "$T/out" "$P" >>"$T/log" 2>&1 || { cat "$T/log"; fail "the report failed"; }
cat "$T/log"
[ -s "$T/out/report.html" ] || fail "no report.html"
[ "$(grep -o "<svg" "$T/out/report.html" | wc -l)" = 2 ] || fail "report lacks its two charts (handshake, first byte)"
grep -q "^ecdsa-p256 .*fits" "$T/log" || fail "the key table lacks the ecdsa-p256 row with its flight"
python3 - "$T/out/summary.json" <<'PY' || fail "summary does not show the initial-window cliff"
import json, sys
s = json.load(open(sys.argv[1]))
arms = s["arms"]
assert len(arms) == 9, sorted(arms)
for name, by_rtt in arms.items():
    v = by_rtt["50ms"]
    assert v["ok"] == v["n"] == 5, (name, v)
r = lambda a: arms[a]["50ms"]["handshake_rtts_p50"]
assert r("ecdsa-p256") < 1.5, r("ecdsa-p256")
assert r("ml-dsa-65-leaf-only") < 1.5, r("ml-dsa-65-leaf-only")
assert r("ml-dsa-65") > 1.5, r("ml-dsa-65")
assert r("ml-dsa-65 resumed") < 1.5, r("ml-dsa-65 resumed")
assert arms["ml-dsa-65 resumed"]["50ms"]["resumed"] == 5
# 0-RTT: every request went early, and its answer came at least half an RTT sooner.
z = arms["ml-dsa-65 0-RTT"]["50ms"]
assert z["resumed"] == z["early_accepted"] == 5, z
t = lambda a: arms[a]["50ms"]["ttfb_p50_ms"]
assert t("ml-dsa-65 resumed") - t("ml-dsa-65 0-RTT") >= 25, (t("ml-dsa-65 resumed"), t("ml-dsa-65 0-RTT"))
print("ok: TLS round trips at 50 ms: ecdsa %.2f, ml-dsa-65 leaf only %.2f, ml-dsa-65 %.2f, resumed %.2f"
      % (r("ecdsa-p256"), r("ml-dsa-65-leaf-only"), r("ml-dsa-65"), r("ml-dsa-65 resumed")))
print("ok: TTFB at 50 ms: resumed %.1f ms, 0-RTT %.1f ms" % (t("ml-dsa-65 resumed"), t("ml-dsa-65 0-RTT")))
PY
echo ok
