#!/usr/bin/env bash
# pqtls zeek savings: the resumption rate of each category from Zeek logs times the gap
# between the fresh and resumed median TTFB of a sweep's results database, per chain and
# RTT. The database here is built with the sqlite3 CLI in the shape docs/results.md of the
# sweep documents (meta.schema_version, the conn_cell columns savings reads); the expected
# medians and savings are computed in Python (statistics.median) from the same rows. A
# newer schema, a file that is no database, and a sweep without resumed arms are refused.
set -euo pipefail
source "$(dirname "$0")/lib/zeek.bash"
command -v sqlite3 >/dev/null || { echo "FAIL: sqlite3 is absent (scripts/deps.sh installs it)" >&2; exit 1; }

# Rows: two chains at 50 and 100 ms, fresh and resumed, some failed, some lossy, some 0-RTT.
python3 - "$T" <<'PY'
import random, sys
random.seed(7)
rows = []
for chain, extra in (("ml-dsa-65 leaf <- 1 x ml-dsa-65, 11003 B", 1.0), ("ecdsa-p256, 751 B", 0.0)):
    for rtt in (50000, 100000):
        for i in range(41):
            for resumed in (0, 1):
                ttfb = rtt * (3 + extra - resumed) + random.randrange(-900, 900)
                kind = "timeout_handshake" if i == 7 else "ok"
                loss = 1.0 if i == 8 else 0.0
                early = 1 if (resumed and i == 9) else 0
                rows.append((chain, rtt, resumed, early, kind, loss, ttfb if kind == "ok" else "NULL"))
with open(sys.argv[1] + "/db.sql", "w") as f:
    f.write("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);\n")
    f.write("INSERT INTO meta VALUES('schema_version','2');\n")
    f.write("CREATE TABLE conn_cell(chain_desc TEXT, rtt_us INTEGER, resumed INTEGER, early_sent INTEGER,"
            " error_kind TEXT, loss_pct REAL, ttfb_us REAL);\n")
    for r in rows:
        f.write("INSERT INTO conn_cell VALUES('%s',%d,%d,%d,'%s',%g,%s);\n" % r)
PY
sqlite3 "$T/results.db" <"$T/db.sql"

# Logs: 3 CDN rows resumed of 4, 1 Other of 4, via a ranges file.
printf '198.51.100.0/24 cdn edge\n' >"$T/r.txt"
{
	printf '#separator \\x09\n#fields\tts\tid.resp_h\tversion\tresumed\n#types\ttime\taddr\tstring\tbool\n'
	for i in 1 2 3 4; do printf '1.0\t198.51.100.%d\tTLSv13\t%s\n' $i "$([ $i -le 3 ] && echo T || echo F)"; done
	for i in 1 2 3 4; do printf '1.0\t8.8.8.%d\tTLSv13\t%s\n' $i "$([ $i -le 1 ] && echo T || echo F)"; done
} >"$T/ssl.log"
"$PQTLS" zeek savings --sweep "$T/results.db" --ranges "$T/r.txt" --csv "$T/ssl.log" >"$T/out.csv"
python3 - "$T/db.sql" "$T/out.csv" <<'PY' || fail "savings differ from the independent computation"
import csv, re, statistics, sys
rows = re.findall(r"VALUES\('([^']*)',(\d+),(\d),(\d),'(\w+)',([\d.]+),([\d.NUL]+)\)", open(sys.argv[1]).read())
groups = {}
for chain, rtt, res, early, kind, loss, ttfb in rows:
    if kind != "ok" or float(loss) != 0 or early != "0":
        continue
    groups.setdefault((chain, int(rtt)), {}).setdefault(int(res), []).append(float(ttfb))
rate = {"CDN": 3 / 4, "Other": 1 / 4, "All": 4 / 8}
got = list(csv.DictReader(open(sys.argv[2])))
assert len(got) == len(groups) * 3, (len(got), len(groups))  # Cloud has no rows: left out
for r in got:
    g = groups[(r["chain"], round(float(r["rtt_ms"]) * 1000))]
    fresh, resumed = statistics.median(g[0]) / 1000, statistics.median(g[1]) / 1000
    assert abs(float(r["ttfb_fresh_ms"]) - fresh) < 1e-3 and abs(float(r["ttfb_resumed_ms"]) - resumed) < 1e-3, r
    want = rate[r["category"]] * (fresh - resumed)
    assert abs(float(r["saving_ms"]) - want) < 1e-3, (r, want)
    assert float(r["saving_lo_ms"]) <= want <= float(r["saving_hi_ms"]), r
    assert abs(float(r["saving_pct"]) - 100 * want / fresh) < 0.01, r
PY
pass "$(($(wc -l <"$T/out.csv") - 1)) savings rows (2 chains x 2 RTTs x CDN/Other/All) equal Python's medians and rates"
"$PQTLS" zeek savings --sweep "$T/results.db" --ranges "$T/r.txt" "$T/ssl.log" | grep -q "^ml-dsa-65 leaf" || fail "table lacks the chain"
"$PQTLS" zeek summary --ranges "$T/r.txt" --partial "$T/p.json" "$T/ssl.log" >/dev/null
"$PQTLS" zeek savings --sweep "$T/results.db" --partials --csv "$T/p.json" | diff - "$T/out.csv" >/dev/null ||
	fail "savings from a partial file differ from savings from the log"
pass "the same from a --partial file"

sqlite3 "$T/v3.db" "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('schema_version','3');"
expect_err 1 "v3.db has schema version 3; this pqtls reads 1 to 2" "$PQTLS" zeek savings --sweep "$T/v3.db" "$T/ssl.log"
expect_err 1 "not a pqtls sweep results database" "$PQTLS" zeek savings --sweep "$T/ssl.log" "$T/ssl.log"
sqlite3 "$T/fresh.db" <<'SQL'
CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('schema_version','2');
CREATE TABLE conn_cell(chain_desc TEXT, rtt_us INTEGER, resumed INTEGER, early_sent INTEGER, error_kind TEXT, loss_pct REAL, ttfb_us REAL);
INSERT INTO conn_cell VALUES('x', 50000, 0, 0, 'ok', 0, 150000);
SQL
expect_err 1 "no chain was measured both fresh and resumed" "$PQTLS" zeek savings --sweep "$T/fresh.db" "$T/ssl.log"
expect_err 2 "--sweep RESULTS.db is required" "$PQTLS" zeek savings "$T/ssl.log"
