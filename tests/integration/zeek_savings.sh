#!/usr/bin/env bash
# pqtls zeek savings: the resumption rate of each category from Zeek logs times the gap
# between the fresh and resumed median TTFB of a sweep's results database, per chain and
# RTT. The database here has the sweep's own schema (`pqtls sweep --schema`), its rows put
# in by Python (the cell and conn columns that savings reads through pqtls's one results
# reader); the expected medians and savings are computed in Python (statistics.median) from
# the same rows. Cells of a remote server (RTT and loss NULL, no chain described) are a
# group of their own with an empty RTT, never RTT 0. A newer schema, a file that is no
# database, a number stored as text, and a sweep without resumed arms are refused.
set -euo pipefail
source "$(dirname "$0")/lib/zeek.bash"
command -v sqlite3 >/dev/null || { echo "FAIL: sqlite3 is absent (scripts/deps.sh installs it)" >&2; exit 1; }

# Rows: two chains at 50 and 100 ms, fresh and resumed, some failed, some lossy, some 0-RTT.
# The database has pqtls's own schema (`pqtls sweep --schema`); rows are put in with every
# NOT NULL column of cell and conn filled (0 or ''), then the columns savings reads.
"$PQTLS" sweep --schema | sqlite3 "$T/results.db"
# the version this pqtls reads, as its own schema says
V=$("$PQTLS" sweep --schema | sed -n 's/^PRAGMA user_version = \([0-9]*\);$/\1/p')
python3 - "$T" "$V" <<'PY'
import json, random, sqlite3, sys
random.seed(7)
db = sqlite3.connect(sys.argv[1] + "/results.db")
db.execute("INSERT INTO meta VALUES('schema_version', ?)", (sys.argv[2],))
def insert(table, values):
    cols = {}
    for _, name, typ, notnull, _, pk in db.execute("PRAGMA table_info(%s)" % table):
        if notnull and not pk:
            cols[name] = "" if typ == "TEXT" else 0
    cols.update(values)
    db.execute("INSERT INTO %s (%s) VALUES (%s)" % (table, ", ".join(cols), ", ".join("?" * len(cols))), list(cols.values()))
rows = []
cell_of = {}
REMOTE = "the remote server's chain"  # what savings calls a chain no cell described
for chain, extra in (("ml-dsa-65 leaf <- 1 x ml-dsa-65, 11003 B", 1.0), ("ecdsa-p256, 751 B", 0.0),
                     (REMOTE, 0.5)):
    for rtt in ((None,) if chain == REMOTE else (50000, 100000)):
        for i in range(41):
            for resumed in (0, 1):
                ttfb = (rtt or 30000) * (3 + extra - resumed) + random.randrange(-900, 900)
                kind = "timeout_handshake" if i == 7 else "ok"
                loss = None if chain == REMOTE else 1.0 if i == 8 else 0.0
                early = 1 if (resumed and i == 9) else 0
                key = (chain, rtt, loss)
                if key not in cell_of:
                    cell_of[key] = len(cell_of) + 1
                    insert("cell", {"cell_id": cell_of[key], "cell_key": "k%d" % cell_of[key],
                                    "chain_desc": None if chain == REMOTE else chain,
                                    "chain_leaf": "remote" if chain == REMOTE else "ecdsa-p256",
                                    "rtt_us": rtt, "loss_pct": loss, "c2s_loss_pct": loss})
                n = len(rows)
                insert("conn", {"cell_id": cell_of[key], "conn_index": n, "resumed": resumed, "early_sent": early,
                                "error_kind": kind, "ttfb_us": ttfb if kind == "ok" else None})
                rows.append([chain, rtt, resumed, early, kind, loss or 0, ttfb if kind == "ok" else None])
db.commit()
json.dump(rows, open(sys.argv[1] + "/rows.json", "w"))
PY

# Logs: 3 CDN rows resumed of 4, 1 Other of 4, via a ranges file.
printf '198.51.100.0/24 cdn edge\n' >"$T/r.txt"
{
	printf '#separator \\x09\n#fields\tts\tid.resp_h\tversion\tresumed\n#types\ttime\taddr\tstring\tbool\n'
	for i in 1 2 3 4; do printf '1.0\t198.51.100.%d\tTLSv13\t%s\n' $i "$([ $i -le 3 ] && echo T || echo F)"; done
	for i in 1 2 3 4; do printf '1.0\t8.8.8.%d\tTLSv13\t%s\n' $i "$([ $i -le 1 ] && echo T || echo F)"; done
} >"$T/ssl.log"
"$PQTLS" zeek savings --sweep "$T/results.db" --ranges "$T/r.txt" --csv "$T/ssl.log" >"$T/out.csv"
python3 - "$T/rows.json" "$T/out.csv" <<'PY' || fail "savings differ from the independent computation"
import csv, json, statistics, sys
groups = {}
for chain, rtt, res, early, kind, loss, ttfb in json.load(open(sys.argv[1])):
    if kind != "ok" or loss != 0 or early != 0:
        continue
    # a remote server's RTT is unknown (None here): its CSV rtt_ms is empty
    groups.setdefault((chain, "" if rtt is None else rtt), {}).setdefault(res, []).append(float(ttfb))
assert len(groups) == 5, groups
rate = {"CDN": 3 / 4, "Other": 1 / 4, "All": 4 / 8}
got = list(csv.DictReader(open(sys.argv[2])))
assert len(got) == len(groups) * 3, (len(got), len(groups))  # Cloud has no rows: left out
for r in got:
    g = groups[(r["chain"], r["rtt_ms"] and round(float(r["rtt_ms"]) * 1000))]
    fresh, resumed = statistics.median(g[0]) / 1000, statistics.median(g[1]) / 1000
    assert abs(float(r["ttfb_fresh_ms"]) - fresh) < 1e-3 and abs(float(r["ttfb_resumed_ms"]) - resumed) < 1e-3, r
    want = rate[r["category"]] * (fresh - resumed)
    assert abs(float(r["saving_ms"]) - want) < 1e-3, (r, want)
    assert float(r["saving_lo_ms"]) <= want <= float(r["saving_hi_ms"]), r
    assert abs(float(r["saving_pct"]) - 100 * want / fresh) < 0.01, r
PY
pass "$(($(wc -l <"$T/out.csv") - 1)) savings rows ((2 chains x 2 RTTs + the remote's) x CDN/Other/All) equal Python's medians and rates"
"$PQTLS" zeek savings --sweep "$T/results.db" --ranges "$T/r.txt" "$T/ssl.log" >"$T/out.txt"
grep -q "^ml-dsa-65 leaf" "$T/out.txt" || fail "table lacks the chain"
grep -Eq "^the remote server's chain +remote " "$T/out.txt" || fail "table does not show the remote's RTT as remote"
pass "the table shows the remote server's RTT as remote"
# Beside the paper's Figure 7: its rates (80.30 %, 35.44 %) times these gains of one round
# trip (50 and 100 ms): 40.1 and 80.3 ms for CDNs, inside its 40-80 and 75-155 ms.
python3 - "$T/out.txt" <<'PY' || fail "the Figure 7 rows"
import re, sys
t = open(sys.argv[1]).read()
assert "Beside the paper (arXiv 2604.24869" in t, t
for rtt, lo, hi in ((50, 40, 80), (100, 75, 155)):
    m = re.search(r"Figure 7: the saving resumption brings at %d ms RTT.*\n  theirs:  %d-%d ms.*\n  here: +2 chains past a "
                  r"threshold: CDN ([0-9.]+)-([0-9.]+) ms.*\n  verdict: agrees" % (rtt, lo, hi), t)
    assert m, (rtt, t)
    assert all(abs(float(x) - 0.8030 * rtt) < 0.02 * rtt for x in m.groups()), m.groups()
assert re.search(r"CDNs' saving against non-CDN's.*\n.*\n  here: +x[0-9.]+ \[", t), t
PY
pass "beside the paper's Figure 7: its rates times these gains inside its ranges, with a verdict"
"$PQTLS" zeek summary --ranges "$T/r.txt" --partial "$T/p.json" "$T/ssl.log" >/dev/null
"$PQTLS" zeek savings --sweep "$T/results.db" --partials --csv "$T/p.json" | diff - "$T/out.csv" >/dev/null ||
	fail "savings from a partial file differ from savings from the log"
pass "the same from a --partial file"

sqlite3 "$T/v9.db" "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('schema_version','9');"
expect_err 1 "v9.db has schema version 9; this pqtls reads version $V" "$PQTLS" zeek savings --sweep "$T/v9.db" "$T/ssl.log"
expect_err 1 "ssl.log: is not an SQLite database" "$PQTLS" zeek savings --sweep "$T/ssl.log" "$T/ssl.log"
cp "$T/results.db" "$T/text.db"
sqlite3 "$T/text.db" "UPDATE conn SET ttfb_us = 'NaN' WHERE conn_index = 3"
expect_err 1 "text.db: conn (cell_id 1, conn_index 3): ttfb_us holds 'NaN': not a number" \
	"$PQTLS" zeek savings --sweep "$T/text.db" "$T/ssl.log"
cp "$T/results.db" "$T/fresh.db"
sqlite3 "$T/fresh.db" "DELETE FROM conn WHERE resumed = 1"
expect_err 1 "no chain was measured both fresh and resumed" "$PQTLS" zeek savings --sweep "$T/fresh.db" "$T/ssl.log"
expect_err 2 "--sweep RESULTS.db is required" "$PQTLS" zeek savings "$T/ssl.log"
