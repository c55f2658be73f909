#!/usr/bin/env bash
# Classification by ASN against MaxMind's GeoLite2-ASN test database: servers drawn from
# the database's own source data (../shared/data/mmdb/source-data), one per network, get
# the ASN the source data gives and the category its ASN list says; addresses outside
# every network are Unknown; ranges decide before ASNs and the report says which method
# decided each row. Expected values are computed here in Python from the source JSON.
set -euo pipefail
source "$(dirname "$0")/lib/zeek.bash"
M=${PQTLS_SHARED:-../shared}/data/mmdb
[ -f "$M/test-data/GeoLite2-ASN-Test.mmdb" ] || { echo "skip: ../shared is absent (no $M: the MaxMind test DBs)"; exit 77; }
DB=$M/test-data/GeoLite2-ASN-Test.mmdb

# The log: for each network of the source data its first address (i+1 rows, resumed on
# even i), plus addresses in no network. CDN: 15169; cloud: 7018 and 1221.
python3 - "$M/source-data/GeoLite2-ASN-Test.json" "$T" <<'PY'
import ipaddress, json, sys
src, t = json.load(open(sys.argv[1])), sys.argv[2]
nets = []
for e in src:
    for k, v in e.items():
        nets.append((ipaddress.ip_network(k), v.get("autonomous_system_number")))
def asn_of(a):
    best = None
    for n, asn in nets:
        if a.version == n.version and a in n and (best is None or n.prefixlen > best[0].prefixlen):
            best = (n, asn)
    return best[1] if best else None
cat = {15169: "CDN", 7018: "Cloud", 1221: "Cloud"}
exp = {c: {"rows": 0, "res": 0, "asn": 0, "none": 0} for c in ("CDN", "Cloud", "Other", "Unknown")}
asns = {}
rows = []
addrs = [n.network_address for n, _ in nets] + [ipaddress.ip_address(x) for x in ("203.0.113.9", "2001:db8::9")]
for i, a in enumerate(addrs):
    asn = asn_of(a)
    c = "Unknown" if not asn else cat.get(asn, "Other")
    for r in range(i % 3 + 1):
        res = "T" if (i + r) % 2 == 0 else "F"
        rows.append("%d.5\t%s\tTLSv13\t%s" % (1700000000 + i, a, res))
        exp[c]["rows"] += 1
        exp[c]["res"] += res == "T"
        exp[c]["asn" if asn else "none"] += 1
        if asn:
            asns["AS%d %s" % (asn, c)] = asns.get("AS%d %s" % (asn, c), 0) + 1
with open(t + "/asn.log", "w") as f:
    f.write("#separator \\x09\n#fields\tts\tid.resp_h\tversion\tresumed\n#types\ttime\taddr\tstring\tbool\n")
    f.write("\n".join(rows) + "\n")
json.dump({"cats": exp, "asns": asns}, open(t + "/exp.json", "w"))
PY
"$PQTLS" zeek summary --ranges none --asn-db "$DB" --cdn-asns 15169 --cloud-asns AS7018,AS1221 \
	--json --top 100000 "$T/asn.log" >"$T/got.json"
python3 - "$T/exp.json" "$T/got.json" <<'PY' || fail "ASN classification differs from the source data"
import json, sys
exp, got = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for c, e in exp["cats"].items():
    g = got["categories"][c]
    assert g["rows"] == e["rows"], (c, g["rows"], e)
    assert g["resumption_all"]["k"] == e["res"], (c, g["resumption_all"], e)
    assert g["decided_by"]["asn"] == e["asn"] and g["decided_by"]["none"] == e["none"], (c, g["decided_by"], e)
assert {a["asn"]: a["rows"] for a in got["asns"]} == exp["asns"], (got["asns"], exp["asns"])
assert exp["cats"]["CDN"]["rows"] and exp["cats"]["Cloud"]["rows"] and exp["cats"]["Other"]["rows"] and exp["cats"]["Unknown"]["rows"]
PY
pass "GeoLite2-ASN-Test: $(grep -vc '^#' "$T/asn.log") rows, categories, methods and per-ASN rows equal the source data's"

# Ranges first: a range over 1.0.0.0/24 (ASN 15169, a CDN by ASN) makes it Cloud by ranges.
printf '1.0.0.0/24 cloud test\n' >"$T/r.txt"
"$PQTLS" zeek summary --ranges "$T/r.txt" --asn-db "$DB" --cdn-asns 15169 --cloud-asns 7018 --json "$T/asn.log" >"$T/both.json"
python3 - "$T/got.json" "$T/both.json" "$T/asn.log" <<'PY' || fail "ranges should decide before ASNs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
n = sum(1 for l in open(sys.argv[3]) if l.split("\t")[1:2] == ["1.0.0.0"])
assert n > 0
assert b["categories"]["Cloud"]["decided_by"]["ranges"] == n, b["categories"]["Cloud"]["decided_by"]
assert b["categories"]["CDN"]["rows"] == a["categories"]["CDN"]["rows"] - n
PY
pass "a range decides before the ASN (1.0.0.0: CDN by ASN, Cloud by range), and the report says so"

# Without --cdn-asns the built-in lists apply (15169 is cloud there), and IPv6 works.
"$PQTLS" zeek summary --ranges none --asn-db "$DB" --json --top 100000 "$T/asn.log" >"$T/builtin.json"
python3 - "$T/builtin.json" <<'PY' || fail "built-in ASN lists"
import json, sys
g = json.load(open(sys.argv[1]))
assert any(a["asn"] == "AS15169 Cloud" for a in g["asns"]), g["asns"]
PY
pass "built-in lists: AS15169 is Cloud"
