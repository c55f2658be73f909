#!/usr/bin/env bash
# A sensor with a broken clock: 200,000 rows, each on a different day (ts = i days from
# 1970, so most lie before 1995 or after 2100). `zeek summary --by day` finishes in time
# linear in the rows (the old trend was quadratic in the days: 32,000 days took 3.8 s and
# 200,000 did not finish in a minute), its memory does not grow with the days (the
# trend keeps the plausible window, 1995-2099, at most ~38,000 days), and it says how many
# rows had an implausible time: exactly the ones outside the window, counted by Python
# beside it. The same through --partial and merge.
set -euo pipefail
source "$(dirname "$0")/lib/zeek.bash"
N=200000
# gen FILE DAY_OF_ROW: N rows, row i on day DAY_OF_ROW(i) (a Python expression in i)
gen() {
	python3 - "$1" "$N" "$2" <<'PY'
import sys
out, n, day = sys.argv[1], int(sys.argv[2]), eval("lambda i: " + sys.argv[3])
with open(out, "w") as f:
    f.write("#separator \\x09\n#fields\tts\tuid\tid.resp_h\tversion\tresumed\testablished\tserver_name\n")
    f.write("#types\ttime\tstring\taddr\tstring\tbool\tbool\tstring\n")
    for i in range(n):
        f.write("%d.5\tC%d\t10.0.%d.%d\tTLSv13\t%s\tT\tx.example\n" % (day(i) * 86400, i, i % 200, i % 250 + 1, "T" if i % 3 else "F"))
PY
}
gen "$T/days.log" "i"
want=$(python3 -c "
lo, hi = 788918400, 4102444800
print(sum(1 for i in range($N) if not lo <= i * 86400 < hi))")
# Generous bound: the linear pass takes about 0.5 s here; 60 s leaves room for a shared
# machine under load and an ASan build (~10x), while the quadratic code needs minutes.
start=$(date +%s)
timeout 60 "$PQTLS" zeek summary "$T/days.log" --by day --threads 1 >"$T/out" 2>"$T/err" ||
	{ cat "$T/err"; fail "zeek summary --by day over $N distinct days did not finish in 60 s"; }
echo "took $(($(date +%s) - start)) s"
grep -qF "$want rows with an implausible ts (before 1995 or from 2100" "$T/out" ||
	{ head -5 "$T/out"; fail "the implausible rows are not counted as $want"; }
days=$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2} ' "$T/out")
[ "$days" = $((N - want)) ] || fail "the trend has $days days, want $((N - want)) (one per plausible row)"
head -n1 "$T/out" | grep -qF "$N rows" || fail "not every row was counted: $(head -n1 "$T/out")"
pass "$N rows, $want with an implausible ts, $days days in the trend"
# JSON says it too; a partial carries it through merge; --by month groups the same rows.
"$PQTLS" zeek summary "$T/days.log" --json --partial "$T/p.part" >"$T/j"
python3 - "$T/j" "$want" <<'PY' || fail "the JSON count of implausible rows is wrong"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["rows_ts_implausible"] == int(sys.argv[2]), j["rows_ts_implausible"]
PY
"$PQTLS" zeek merge "$T/p.part" --by month >"$T/m"
grep -qF "$want rows with an implausible ts" "$T/m" || fail "merge lost the implausible count"
months=$(grep -cE '^[0-9]{4}-[0-9]{2} ' "$T/m")
[ "$months" = 1260 ] || fail "--by month: $months months, want 1260 (1995-01 to 2099-12)"
# Memory does not follow the days: peak RSS over 200,000 days is within 20 % (and 8 MB)
# of the same number of rows spread over the plausible window's 38,351 days (the most the
# trend can hold), measured with the same binary (GNU time, when present; an ASan build's
# overhead is on both sides). The old code held all 200,000 days, 136 bytes and more
# each, and a period table as large.
if [ -x /usr/bin/time ]; then
	gen "$T/window.log" "9131 + i % 38351"
	/usr/bin/time -f %M -o "$T/rss1" "$PQTLS" zeek summary "$T/window.log" --by day --threads 1 >/dev/null
	/usr/bin/time -f %M -o "$T/rss" "$PQTLS" zeek summary "$T/days.log" --by day --threads 1 >/dev/null
	one=$(cat "$T/rss1") many=$(cat "$T/rss")
	[ "$many" -le $((one + one / 5 + 8192)) ] || fail "peak RSS $many KiB over $N days, $one KiB over the window's days"
	pass "peak RSS $many KiB over $N days, $one KiB for as many rows over the window's days"
fi
echo ok
