#!/usr/bin/env bash
# Malformed Zeek input is counted by reason and reported with file and line while the
# rest is still analysed, and the exit status says lines were skipped (3): a truncated
# line, a wrong field count, a bad \x escape, binary garbage, a JSON syntax error, a gzip
# stream cut short, a header that changes mid-file into one pqtls cannot use. Every
# corrupt MaxMind DB in ../shared's bad-data folder is refused with a message naming it,
# never a crash (this test also runs under ASan+UBSan). Bad ranges, ASN lists and
# options give exit 1 or 2 with a message naming the input.
set -euo pipefail
source "$(dirname "$0")/lib/zeek.bash"

# expect CODE PATTERN CMD...: CMD exits CODE and stdout+stderr match PATTERN.
expect() {
	local code=$1 pat=$2; shift 2
	local rc=0
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = "$code" ] || { cat "$T/out" "$T/err"; fail "'$*' exited $rc, want $code"; }
	# grep reads the files itself: `cat | grep -q` fails at random under pipefail when grep
	# exits at the match and cat, still writing, gets SIGPIPE.
	grep -q -- "$pat" "$T/out" "$T/err" || { cat "$T/out" "$T/err"; fail "'$*': output lacks '$pat'"; }
}

H=$'#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tts\tid.resp_h\tversion\tresumed\tserver_name\n#types\ttime\taddr\tstring\tbool\tstring\n'
{
	printf '%s' "$H"
	printf '1700000000.1\t192.0.2.1\tTLSv13\tT\ta.example\n'          # line 7: good
	printf '1700000000.2\t192.0.2.2\tTLSv13\n'                          # 8: wrong field count
	printf '1700000000.3\t192.0.2.3\tTLSv12\tF\tbad\\xZZescape\n'       # 9: bad escape
	printf '1700000000.4\t192.0.2\x01\x02\xff\tTLSv12\tF\tb\n'          # 10: binary garbage
	printf '1700000000.5\t192.0.2.5\tTLSv12\tF\tb.example\n'           # 11: good
	printf '#fields\tts\tversion\n#types\ttime\tstring\n'               # 12-13: header without id.resp_h
	printf '1700000000.6\tTLSv13\n'                                     # 14: under the unusable header
	printf '%s' "$H"                                                    # 15-20: a good header again
	printf '1700000000.7\t192.0.2.7\tTLSv13\tF\tc.example\n'           # 21: good
	printf '1700000000.8\t192.0.2.8\tTLSv13\tT\ttrunc'                 # 22: no newline at the end
} >"$T/bad.log"
expect 3 "lines skipped" "$PQTLS" zeek summary --json "$T/bad.log"
python3 - "$T/out" "$T/bad.log" <<'PY' || fail "bad.log: wrong counts or lines"
import json, sys
j = json.load(open(sys.argv[1]))
sk = j["skipped"]
want = {"FIELDS": 1, "ESCAPE": 1, "BINARY": 1, "HEADER": 2, "TRUNCATED": 1}
got = {k: v for k, v in sk.items() if k not in ("total", "first")}
assert got == want, got
lines = [(e["reason"], e["line"]) for e in sk["first"]]
assert lines == [("FIELDS", 8), ("ESCAPE", 9), ("BINARY", 10), ("HEADER", 12), ("HEADER", 14), ("TRUNCATED", 22)], lines
assert all(e["file"] == sys.argv[2] for e in sk["first"])
assert j["rows"] == 3 and j["categories"]["All"]["resumption_all"]["k"] == 1, j["categories"]["All"]
PY
pass "TSV: 6 bad lines counted by reason with file:line, the 3 good rows still analysed"

{
	echo '{"ts":1700000000.1,"id.resp_h":"192.0.2.1","version":"TLSv13","resumed":true}'
	echo '{"ts":1700000000.2,"id.resp_h":"192.0.2.2","version":"TLSv13","resumed":tru'
	echo '["not", "an", "object"]'
	echo '{"ts":"2023-11-14T22:13:20.000000Z","id.resp_h":"2001:db8::1","version":"TLSv12","resumed":false}'
	echo '{"ts":1700000000.4,"id.resp_h":"999.1.1.1","version":"TLSv12"}'
} >"$T/bad.json"
expect 3 "lines skipped" "$PQTLS" zeek summary --json "$T/bad.json"
python3 - "$T/out" <<'PY' || fail "bad.json: wrong counts"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["skipped"]["JSON"] == 2 and j["skipped"]["ADDR"] == 1 and j["rows"] == 2, j["skipped"]
assert [e["line"] for e in j["skipped"]["first"]] == [2, 3, 5]
PY
pass "JSON: syntax error and non-object counted, bad address counted, the rest analysed"

# A gzip stream cut short: the lines before the cut are analysed, the cut is reported.
python3 -c "
import random
random.seed(1)
for i in range(20000):
    print('%d.0\t198.51.100.%d\tTLSv13\t%s\tx%d.example' % (1700000000 + i, i % 200, 'TF'[i % 3 == 0], i))
" >"$T/body"
{ printf '%s' "$H"; cat "$T/body"; } | gzip -c >"$T/full.log.gz"
head -c $(($(stat -c %s "$T/full.log.gz") / 2)) "$T/full.log.gz" >"$T/cut.log.gz"
expect 3 "compressed stream damaged or cut short" "$PQTLS" zeek summary "$T/cut.log.gz"
"$PQTLS" zeek summary --json "$T/cut.log.gz" >"$T/cut.json" 2>/dev/null || true
python3 - "$T/cut.json" "$T/cut.log.gz" <<'PY' || fail "cut gzip: rows before the cut not analysed"
import json, sys, zlib
j = json.load(open(sys.argv[1]))
raw = zlib.decompressobj(31).decompress(open(sys.argv[2], "rb").read())
complete = raw[: raw.rfind(b"\n") + 1].count(b"\n") - 6  # data lines before the cut
assert j["rows"] == complete, (j["rows"], complete)
assert j["skipped"]["GZIP"] == 1, j["skipped"]
PY
pass "gzip cut at half: $(python3 -c "import json;print(json.load(open('$T/cut.json'))['rows'])") complete rows analysed (= zlib's own count), the cut reported"

# Rows appended uncompressed to a .gz log: zlib's gzread ended at them with no word (exit
# 0, the rows gone); they are counted with the file and the byte where they start (exit
# 3), the member's rows still analysed.
{ printf '%s' "$H"; printf '1700000000.1\t192.0.2.1\tTLSv13\tT\ta.example\n'; } | gzip -c >"$T/tail.log.gz"
member=$(stat -c %s "$T/tail.log.gz")
printf '1700000000.2\t192.0.2.2\tTLSv13\tF\tb.example\n' >>"$T/tail.log.gz"
expect 3 "tail.log.gz:8: data after the gzip stream that is not gzip (not read) (from byte $member:" \
	"$PQTLS" zeek summary "$T/tail.log.gz"
"$PQTLS" zeek summary --json "$T/tail.log.gz" >"$T/tail.json" 2>/dev/null || true
python3 - "$T/tail.json" "$T/tail.log.gz" <<'PY' || fail "gzip with a plain tail: wrong counts"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["rows"] == 1 and j["skipped"]["GZTAIL"] == 1, j["skipped"]
assert j["skipped"]["first"][0]["file"] == sys.argv[2]
PY
pass "a plain row appended to a gzip log: counted with its offset, not dropped"

# Corrupt MaxMind DBs: each refused with its name, exit 1, no crash.
M=${PQTLS_SHARED:-../shared}/data/mmdb
if [ -d "$M/bad-data" ]; then
	n=0
	for db in "$M"/bad-data/*/*.mmdb "$M"/test-data/MaxMind-DB-test-broken-*.mmdb "$M"/test-data/GeoIP2-City-Test-Broken-Double-Format.mmdb; do
		expect 1 "$(basename "$db")" "$PQTLS" zeek summary --asn-db "$db" "$T/bad.json"
		n=$((n + 1))
	done
	pass "$n corrupt MaxMind DBs refused, each named (e.g. $(head -c 150 "$T/err"))"
	expect 1 "GeoIP2-City' database has no ASNs" "$PQTLS" zeek summary --asn-db "$M/test-data/GeoIP2-City-Test.mmdb" "$T/bad.json"
	pass "a City DB: $(cat "$T/err")"
else
	echo "note: ../shared is absent ($M): corrupt MaxMind DBs not tried here (zeek_asn.sh skips)"
fi
expect 1 "not a readable MaxMind DB" "$PQTLS" zeek summary --asn-db "$T/bad.log" "$T/bad.json"
expect 1 "nope.mmdb" "$PQTLS" zeek summary --asn-db "$T/nope.mmdb" "$T/bad.json"

# Bad ranges and ASN lists, bad options.
printf '192.0.2.0/24 cdn x\n10.0.0.0/33 cloud y\n' >"$T/r1.txt"
expect 1 "r1.txt:2: '10.0.0.0/33' is not a CIDR prefix" "$PQTLS" zeek summary --ranges "$T/r1.txt" "$T/bad.json"
printf '192.0.2.0/24\n' >"$T/r2.txt"
expect 1 "r2.txt:1: no category" "$PQTLS" zeek summary --ranges "$T/r2.txt" "$T/bad.json"
expect 3 "lines skipped" "$PQTLS" zeek summary --ranges "cdn:$T/r2.txt" "$T/bad.json"
printf '192.0.2.0/24 mystery\n' >"$T/r3.txt"
expect 1 "category 'mystery' is neither cdn nor cloud" "$PQTLS" zeek summary --ranges "$T/r3.txt" "$T/bad.json"
echo '{"cdn":{"x":[1,2]}}' >"$T/r4.json"
expect 1 "non-string" "$PQTLS" zeek summary --ranges "$T/r4.json" "$T/bad.json"
expect 1 "'AS12x' is not an AS number" "$PQTLS" zeek summary --cdn-asns "13335,AS12x" "$T/bad.json"
expect 2 "exclusive" "$PQTLS" zeek summary --json --csv "$T/bad.json"
expect 2 "--by" "$PQTLS" zeek summary --by year "$T/bad.json"
expect 2 "--chunk: 0 is not a piece of a log" "$PQTLS" zeek summary --chunk 0 "$T/bad.json"
expect 2 "" "$PQTLS" zeek summary
expect 1 "missing.log: No such file" "$PQTLS" zeek summary "$T/missing.log"
# A directory where a file is meant: named once, with what to give.
mkdir -p "$T/adir"
expect 1 "error: $T/adir: is a directory; give a file\$" "$PQTLS" zeek summary --ranges "$T/adir" "$T/bad.json"
expect 1 "error: $T/adir: is a directory; give a file\$" "$PQTLS" zeek merge "$T/adir"
mkdir "$T/empty"
expect 1 "no ssl log files in it" "$PQTLS" zeek summary "$T/empty"
pass "bad ranges, ASN lists, options and paths: exit 1/2 with the input named"

# Each reason is the right one. A newline as #separator is named as such (not "not one
# byte"), and the rows under it, also under the #fields that follows, are a malformed
# header's, not "before any #fields header".
printf '#separator \\x0a\n#fields\tts\tid.resp_h\tversion\tresumed\n1700000000\t192.0.2.1\tTLSv13\tT\n' >"$T/nlsep.log"
expect 3 "#separator is a newline" "$PQTLS" zeek summary "$T/nlsep.log"
grep -q "nlsep.log:3: malformed header (its rows are skipped)" "$T/out" || { cat "$T/out"; fail "the row is not counted under the bad header"; }
grep -q "before any #fields" "$T/out" && { cat "$T/out"; fail "the row is counted as before any header"; }
grep -q "not one byte" "$T/out" && { cat "$T/out"; fail "a newline separator is called 'not one byte'"; }
pass "#separator \\x0a: named, its row counted under the malformed header"
# A day its month does not have is no time (its row counted, without a usable ts), not
# the next month's first days.
printf '{"ts":"2023-02-30T10:00:00Z","id.resp_h":"192.0.2.1","version":"TLSv13","resumed":true}\n' >"$T/feb30.json"
printf '{"ts":"2024-02-29T10:00:00Z","id.resp_h":"192.0.2.1","version":"TLSv13","resumed":true}\n' >>"$T/feb30.json"
expect 0 "1 without a usable ts" "$PQTLS" zeek summary --by day "$T/feb30.json"
grep -q "^2023-03" "$T/out" && { cat "$T/out"; fail "2023-02-30 was read as a day in March"; }
grep -q "^2024-02-29 " "$T/out" || { cat "$T/out"; fail "2024-02-29 is a day"; }
pass "2023-02-30 refused, 2024-02-29 kept"
# One line of 100 MB in a gzip log (past the 64 MiB limit) is one skipped line, counted
# once; its tail is not read as another line, and the row after it is counted.
python3 - "$T/long.log.gz" <<'PY'
import gzip, sys
with gzip.open(sys.argv[1], "wb", compresslevel=1) as f:
    f.write(b"#fields\tts\tid.resp_h\tversion\tresumed\n")
    chunk = b"x" * (1 << 20)
    for _ in range(100):
        f.write(chunk)
    f.write(b"\n1700000000\t192.0.2.9\tTLSv13\tT\n")
PY
expect 3 "" "$PQTLS" zeek summary "$T/long.log.gz" --json
python3 - "$T/out" <<'PY' || fail "the 100 MB line is not one skipped line"
import json, sys
j = json.load(open(sys.argv[1]))
sk = j["skipped"]
first = sk.pop("first")
assert sk == {"total": 1, "TOOLONG": 1}, sk
assert [(e["line"], e["reason"]) for e in first] == [(2, "TOOLONG")], first
assert j["rows"] == 1, j["rows"]
PY
pass "a 100 MB gzip line: one line skipped, the next row counted"
expect 0 "FILE|DIR" "$PQTLS" zeek summary --help
