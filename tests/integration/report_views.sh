#!/usr/bin/env bash
# One percentile (src/stats/sample.h): the SQL views (cell_stats, arm_stats) and pqtls
# report give the same median and p95 of every grid point and phase, to the last digit
# the report prints (key.csv's 3 decimals of a millisecond: the views' microseconds over
# 1000, formatted the same way). First on the synthetic database of lib/mkresults.sh,
# then on a real sweep (root and namespaces: 25 connections per cell, so the p95 is
# shown). Before the change the views took the nearest-rank p95 and the report an
# interpolated one, and they differed on every cell.
set -euo pipefail
: "${PQTLS:?PQTLS must point at the pqtls binary}"
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# agree DB: every arm_stats median and p95 equals key.csv's, and there are some of each.
agree() {
	"$PQTLS" report "$1" -o "$T/r.html" --csv "$T/csv" -q || fail "report of $1"
	python3 - "$1" "$T/csv/key.csv" <<'PY' || fail "the views and the report differ on $1"
import csv, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = {}
for r in csv.DictReader(open(sys.argv[2])):  # one row per grid point
    rows[(r["host"], r["point_key"])] = r
seen = {"median_ms": 0, "p95_ms": 0}
bad = 0
for host, pk, *vals in db.execute(
        "SELECT host_name, point_key, handshake_p50_us, handshake_p95_us, ttfb_p50_us, ttfb_p95_us, "
        "ttlb_p50_us, ttlb_p95_us FROM arm_stats"):
    r = rows.get((host, pk))
    for i, phase in enumerate(["handshake", "ttfb", "ttlb"]):
        for j, stat in enumerate(["median_ms", "p95_ms"]):
            v = vals[2 * i + j]
            col = phase + "_" + stat
            if v is None or r is None or r[col] == "":
                if v is not None and r is None:
                    print(f"{host} {pk} {phase}: in arm_stats, not in key.csv"); bad += 1
                continue
            want = f"{v / 1000:.3f}"
            seen[stat] += 1
            if want != r[col]:
                print(f"{host} {pk} {phase} {col}: view {want}, report {r[col]}"); bad += 1
# cell_stats on single-trial cells is the same computation over one cell.
print("compared:", seen)
sys.exit(1 if bad or not seen["median_ms"] or not seen["p95_ms"] else 0)
PY
}

bash "$SRC/tests/integration/lib/mkresults.sh" "$T/fixture.db"
# 16 connections per grid point in the fixture: give two points 24 (p95 shown from 20).
sqlite3 "$T/fixture.db" "INSERT INTO conn SELECT cell_id, conn_index + 100, intended_us, start_us, connect_us,
	client_hello_us, server_hello_us, handshake_us * 1.0137, request_us, ttfb_us * 1.0071, ttlb_us * 1.0213,
	$(sqlite3 "$T/fixture.db" "SELECT group_concat(name, ', ') FROM pragma_table_info('conn') WHERE cid > 10")
	FROM conn WHERE conn_index < 4 AND cell_id IN (SELECT cell_id FROM cell WHERE arm IN ('ecdsa-p256', 'ml-dsa-65'))"
agree "$T/fixture.db"
echo "ok: the fixture's views and report agree"

if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
	echo "SKIP: the real sweep needs root and network namespaces (no root/namespaces)"
	exit 77
fi
"$PQTLS" sweep --name views --sig ecdsa-p256,ml-dsa-65 --rtt 20ms --connections 25 --trials 1 \
	--out "$T/real.db" -q --no-check >"$T/sweep.out" 2>&1 || { cat "$T/sweep.out"; fail "the sweep failed"; }
agree "$T/real.db"
echo "ok: a real sweep's views and report agree"
