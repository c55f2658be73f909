#!/usr/bin/env bash
# pqtls zeek summary on the real Zeek logs in ../shared/data/zeek (old and new ssl.log
# schemas, several header blocks, IPv6, \x2c escapes, logs without `resumed`): every count
# of the Table III layout equals an independent count (tests/integration/lib/zeek_ref.py,
# Python written from Zeek's format documentation); the same traffic as TSV, as JSON lines
# (epoch and ISO-8601 ts) and gzip gives identical numbers; the thread count and the chunk
# size change nothing; resumption is unknown, not zero, where the log has no `resumed`.
set -euo pipefail
source "$(dirname "$0")/lib/zeek.bash"
Z=${PQTLS_SHARED:-../shared}/data/zeek
[ -d "$Z" ] || { echo "skip: ../shared is absent (no $Z: the shared Zeek logs)"; exit 77; }
REF="$(dirname "$0")/lib/zeek_ref.py"

mapfile -t LOGS < <(ls "$Z"/zeek-btest-baselines-v4.0.0/*ssl*.log "$Z"/zeek-btest-baselines-v8/*__ssl*.log \
	"$Z"/zat/ssl.log "$Z"/zat/tor_ssl.log "$Z"/zat/json/ssl.log)
# Some servers of these logs as CDN and cloud ranges (with a longer prefix inside a shorter
# one), so that every category has rows; the rest are Other (public) or Unknown (private).
cat >"$T/ranges.txt" <<'R'
54.230.0.0/16 cdn cloudfront
74.125.0.0/16 cloud google
74.125.224.0/24 cdn google-edge
2001:4860::/32 cdn google6
69.147.64.0/24 cloud yahoo
R

# compare REF.json PQTLS.json LABEL: every Table III count of every category is equal.
compare() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
ref, got, label = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
bad = []
if ref["rows"] != got["rows"]:
    bad.append(f"rows {got['rows']} != {ref['rows']}")
if ref["skipped"] != got["skipped"]["total"]:
    bad.append(f"skipped {got['skipped']['total']} != {ref['skipped']}")
pairs = {"tls13": "tls13_adoption", "all": "resumption_all", "t13": "resumption_tls13", "est": "resumption_established"}
for cat, r in ref["categories"].items():
    g = got["categories"][cat]
    for k in ("rows", "version_unset", "resumed_unknown"):
        if r[k] != g[k]:
            bad.append(f"{cat}.{k} {g[k]} != {r[k]}")
    for rk, gk in pairs.items():
        if r[rk] != [g[gk]["k"], g[gk]["n"]]:
            bad.append(f"{cat}.{gk} {g[gk]['k']}/{g[gk]['n']} != {r[rk][0]}/{r[rk][1]}")
top = {e["group"]: e["rows"] for e in got["groups"]}
for k, v in top.items():
    if ref["groups"].get(k) != v:
        bad.append(f"group {k} {v} != {ref['groups'].get(k)}")
for e in got["server_names"]:
    if ref["server_names"].get(e["server_name"]) != e["rows"]:
        bad.append(f"server_name {e['server_name']} {e['rows']} != {ref['server_names'].get(e['server_name'])}")
if bad:
    print(label + ": " + "; ".join(bad[:8]))
    sys.exit(1)
PY
}

python3 "$REF" count --ranges "$T/ranges.txt" "${LOGS[@]}" >"$T/ref.json"
rc=0
"$PQTLS" zeek summary --ranges "$T/ranges.txt" --json --top 1000 "${LOGS[@]}" >"$T/all.json" || rc=$?
[ "$rc" = 0 ] || fail "summary of the real logs exited $rc"
compare "$T/ref.json" "$T/all.json" "real logs" || fail "pqtls differs from the reference"
python3 - "$T/all.json" <<'PY' || fail "each category should have rows"
import json, sys
c = json.load(open(sys.argv[1]))["categories"]
sys.exit(0 if all(c[k]["rows"] > 0 for k in ("CDN", "Cloud", "Other", "Unknown")) else 1)
PY
pass "$(python3 -c "import json;d=json.load(open('$T/ref.json'));print(d['rows'])") rows, every Table III count equals the reference"
# Beside the paper's Table III: a row per metric, the paper's figures, this data's counts
# (the same as the categories'), and a verdict on the finding (CDNs above non-CDN).
python3 - "$T/all.json" <<'PY' || fail "the Table III rows beside the paper"
import json, sys
d = json.load(open(sys.argv[1]))
rows, cats = d["study"], d["categories"]
assert [r["what"].split(",")[0] for r in rows] == ["Table III: TLS 1.3 adoption", "Table III: resumption",
                                                  "Table III: resumption"], rows
assert "CDN 80.30 %, non-CDN 35.44 %" in rows[1]["theirs"], rows[1]
for r, m in zip(rows, ("tls13_adoption", "resumption_all", "resumption_tls13")):
    for cat in ("CDN", "Other"):
        c = cats[cat][m]
        want = "%s n/a" % cat if not c["n"] else "(%d/%d)" % (c["k"], c["n"])
        assert want in r["here"], (r, c)
    assert r["agrees"] in (-1, 0, 1) and r["verdict"].startswith(
        {1: "agrees", 0: "differs", -1: "cannot be judged"}[r["agrees"]]), r
PY
"$PQTLS" zeek summary --ranges "$T/ranges.txt" "${LOGS[@]}" >"$T/all.txt" || fail "the text summary failed"
grep -q "^Table III: resumption, all versions, CDN against non-CDN$" "$T/all.txt" &&
	grep -q "^  verdict: " "$T/all.txt" || fail "the text summary has no Table III rows beside the paper"
pass "Table III beside the paper: three rows, this data's counts, a verdict each"

# The v4 baseline has `resumed`; the zat 2014 log does not: unknown there, never zero.
"$PQTLS" zeek summary --json "$Z/zat/ssl.log" >"$T/old.json"
python3 - "$T/old.json" "$Z/zat/ssl.log" <<'PY' || fail "a log without resumed must report resumption unknown"
import json, sys
g = json.load(open(sys.argv[1]))["categories"]["All"]
rows = sum(1 for l in open(sys.argv[2]) if not l.startswith("#") and l.strip())
assert g["resumption_all"]["n"] == 0 and g["resumption_all"]["rate"] is None, g["resumption_all"]
assert g["resumed_unknown"] + g["version_unset"] == rows, (g, rows)
PY
pass "zat ssl.log (no resumed column): resumption n/a, $(grep -vc '^#' "$Z/zat/ssl.log") rows unknown"

mapfile -t TSV < <(for f in "${LOGS[@]}"; do grep -q '^#fields' "$f" && echo "$f"; done)
# The same traffic as JSON lines (epoch and ISO ts), and gzip: identical numbers.
strip() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [d.pop(k) for k in ('files','bytes','header_blocks','classification')]; d['skipped'].pop('first'); print(json.dumps(d, sort_keys=True))" "$1"; }
i=0
for f in "${LOGS[@]}"; do
	grep -q '^#fields' "$f" || continue
	i=$((i + 1))
	python3 "$REF" tojson "$f" >"$T/j$i.log"
	python3 "$REF" tojson --iso "$f" >"$T/i$i.log"
	gzip -c "$f" >"$T/g$i.log.gz"
done
for v in j i g; do
	"$PQTLS" zeek summary --ranges "$T/ranges.txt" --json --by day --top 1000 $(ls "$T"/$v*.log*) >"$T/$v.json"
done
"$PQTLS" zeek summary --ranges "$T/ranges.txt" --json --by day --top 1000 "${TSV[@]}" >"$T/t.json"
for v in j i g; do
	[ "$(strip "$T/t.json")" = "$(strip "$T/$v.json")" ] || { diff <(strip "$T/t.json" | tr ',' '\n') <(strip "$T/$v.json" | tr ',' '\n') | head; fail "TSV and $v differ"; }
done
pass "$i TSV logs = the same as JSON lines (epoch ts) = JSON (ISO ts) = gzip, trend included"

# Threads and chunk sizes: a log of many header blocks cut into 1 KiB pieces.
cat "${TSV[@]}" "$Z/zat/tor_ssl.log" >"$T/cat.log"
"$PQTLS" zeek summary --ranges "$T/ranges.txt" --json --threads 1 "$T/cat.log" >"$T/c1.json" || fail "concatenated TSV: lines skipped"
for args in "--threads 4 --chunk 1KiB" "--threads 2 --chunk 3000" "--threads 3 --chunk 100"; do
	"$PQTLS" zeek summary --ranges "$T/ranges.txt" --json $args "$T/cat.log" >"$T/cn.json" || fail "$args: exit $?"
	[ "$(strip "$T/c1.json")" = "$(strip "$T/cn.json")" ] || fail "$args changes the numbers"
done
python3 "$REF" count --ranges "$T/ranges.txt" "$T/cat.log" >"$T/cref.json"
compare "$T/cref.json" "$T/c1.json" "concatenated" || fail "concatenated log differs from the reference"
pass "concatenated log ($(grep -c '^#fields' "$T/cat.log") header blocks): 1 thread = 4 threads in 1 KiB chunks = the reference"

# Text and CSV carry the same k/n as JSON.
"$PQTLS" zeek summary --ranges "$T/ranges.txt" --csv "${LOGS[@]}" >"$T/all.csv"
python3 - "$T/all.csv" "$T/all.json" <<'PY' || fail "CSV and JSON differ"
import csv, json, sys
j = json.load(open(sys.argv[2]))["categories"]
for r in csv.DictReader(open(sys.argv[1])):
    m = j[r["category"]][r["metric"]]
    assert (int(r["k"]), int(r["n"])) == (m["k"], m["n"]), (r, m)
PY
"$PQTLS" zeek summary --ranges "$T/ranges.txt" "${LOGS[@]}" >"$T/all.txt"
grep -q "^TLS 1.3 adoption" "$T/all.txt" && grep -q "^resumption, TLS 1.3" "$T/all.txt" || fail "text table lacks rows"
pass "CSV k/n equal JSON; the text table has the Table III rows"
