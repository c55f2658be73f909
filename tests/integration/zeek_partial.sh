#!/usr/bin/env bash
# --partial and `pqtls zeek merge` add up exactly: GNU parallel runs one summary per log
# (one file per task, as a job runner would), merge adds the partial files, and the
# result equals one run over all the logs, to the last count, trend and skipped-line list
# included. A bad partial file is refused with its name and nothing is printed.
set -euo pipefail
source "$(dirname "$0")/lib/zeek.bash"
Z=${PQTLS_SHARED:-../shared}/data/zeek
[ -d "$Z" ] || { echo "skip: ../shared is absent (no $Z: the shared Zeek logs)"; exit 77; }
command -v parallel >/dev/null || { echo "FAIL: GNU parallel is absent (scripts/deps.sh installs it)" >&2; exit 1; }

mkdir "$T/logs"
i=0
for f in "$Z"/zeek-btest-baselines-v4.0.0/*ssl*.log "$Z"/zeek-btest-baselines-v8/*__ssl*.log "$Z"/zat/*ssl*.log "$Z"/zat/json/ssl.log; do
	i=$((i + 1)); cp "$f" "$T/logs/$i.ssl.log"
done
gzip "$T/logs/3.ssl.log"
# A damaged file too, so that skipped lines must add up as well.
printf '#separator \\x09\n#fields\tts\tid.resp_h\tversion\tresumed\n#types\ttime\taddr\tstring\tbool\n1.0\t192.0.2.1\tTLSv13\tT\n1.0\tnot-an-ip\tTLSv13\tT\n1.0\t192.0.2.1\n' >"$T/logs/99.ssl.log"

rc=0
"$PQTLS" zeek summary --json --by month --top 100000 "$T"/logs/* >"$T/one.json" || rc=$?
[ "$rc" = 3 ] || fail "one run exited $rc, want 3 (lines skipped)"
# One task per file; each exits 0 or 3.
parallel --halt now,fail=1 "$PQTLS zeek summary --threads 1 --partial $T/part.{#}.json {} >/dev/null || [ \$? = 3 ]" ::: "$T"/logs/*
n=$(ls "$T"/part.*.json | wc -l)
[ "$n" = "$(ls "$T"/logs | wc -l)" ] || fail "$n partial files for $(ls "$T"/logs | wc -l) logs"
rc=0
"$PQTLS" zeek merge --json --by month --top 100000 "$T"/part.*.json >"$T/merged.json" || rc=$?
[ "$rc" = 3 ] || fail "merge exited $rc, want 3 (the parts skipped lines)"
python3 - "$T/one.json" "$T/merged.json" <<'PY' || fail "merged partials differ from one run"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d.pop("classification")
if a != b:
    for k in a:
        if a[k] != b.get(k):
            print(k, a[k], b.get(k))
    sys.exit(1)
PY
rows=$(python3 -c "import json;print(json.load(open('$T/one.json'))['rows'])")
pass "$n partial files from GNU parallel merge to exactly one run over all ($rows rows)"

# Merging is associative: merge of merges equals one merge.
"$PQTLS" zeek summary --threads 1 --partial "$T/a.json" "$T"/logs/1.ssl.log "$T"/logs/2.ssl.log >/dev/null
"$PQTLS" zeek summary --threads 1 --partial "$T/b.json" "$T"/logs/1.ssl.log >/dev/null
"$PQTLS" zeek summary --threads 1 --partial "$T/c.json" "$T"/logs/2.ssl.log >/dev/null
diff <("$PQTLS" zeek merge --csv "$T/a.json") <("$PQTLS" zeek merge --csv "$T/b.json" "$T/c.json") >/dev/null ||
	fail "two files in one run differ from two runs merged"
pass "two logs in one run = two runs merged (CSV identical)"

# Bad partial files: refused with the name, exit 1, nothing on stdout.
echo '{"pqtls_zeek_partial":1,"totals":[1,2]}' >"$T/bad1.json"
echo 'not json' >"$T/bad2.json"
for b in bad1 bad2; do
	rc=0
	"$PQTLS" zeek merge "$T/part.1.json" "$T/$b.json" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 1 ] && [ ! -s "$T/out" ] && grep -q "$b.json" "$T/err" || { cat "$T/err"; fail "$b: exit $rc"; }
	pass "$(cat "$T/err")"
done
# The same partial file twice (here by two names) would count its logs twice: refused.
rc=0
"$PQTLS" zeek merge "$T/part.1.json" "$T/../$(basename "$T")/part.1.json" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && [ ! -s "$T/out" ] && grep -q "part.1.json: the same file as" "$T/err" || { cat "$T/err"; fail "a partial twice: exit $rc"; }
pass "$(cat "$T/err")"
# A copy of a partial (the same counts under another name, another file) and two
# partials of one log (summarized twice) are refused too: each partial names the logs it
# counts (size, mtime, real path), and a log counted already is named.
cp "$T/part.1.json" "$T/copy-of-part.1.json"
rc=0
"$PQTLS" zeek merge "$T/part.1.json" "$T/copy-of-part.1.json" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && [ ! -s "$T/out" ] && grep -q "copy-of-part.1.json: counts .*1.ssl.log, which an earlier partial" "$T/err" ||
	{ cat "$T/err"; fail "a copy of a partial: exit $rc"; }
pass "$(cat "$T/err")"
rc=0 # a.json counts logs 1 and 2, b.json log 1 again
"$PQTLS" zeek merge "$T/a.json" "$T/b.json" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q "b.json: counts $T/logs/1.ssl.log, which" "$T/err" || { cat "$T/err"; fail "one log in two partials: exit $rc"; }
pass "one log summarized twice: refused"
# --partial into a directory that does not exist: exit 1, no temporary file left behind.
rc=0
"$PQTLS" zeek summary --partial "$T/nodir/p.json" "$T/logs/1.ssl.log" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q "nodir" "$T/err" || fail "--partial to a missing directory: exit $rc"
pass "$(cat "$T/err")"
