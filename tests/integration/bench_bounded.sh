#!/usr/bin/env bash
# pqtls bench holds no per-connection records: its rows go to --csv/--jsonl as each
# connection finishes and its summary is built from bounded state, so peak memory does
# not grow with the run's length. A write that fails mid-run (here a file size limit)
# fails the run with the output named and leaves neither the file nor its .tmp.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

[ -x /usr/bin/time ] || { echo "skip: needs /usr/bin/time (GNU time) for the peak RSS"; exit 77; }
ecdsa=$(chain ecdsa-p256)
start_serve s --certs "$ecdsa"

# Peak RSS in KB of a handshake-only run of N connections with both outputs.
peak() {
	/usr/bin/time -f "%M" -o "$T/rss.$1" "$PQTLS" bench "$ADDR_s" --insecure -n "$1" -c 8 \
		--requests-per-conn 0 --groups x25519 --csv "$T/b$1.csv" --jsonl "$T/b$1.jsonl" \
		--json >"$T/b$1.json"
	[ "$(($(wc -l <"$T/b$1.csv") - 1))" = "$1" ] || fail "$1 connections: $(wc -l <"$T/b$1.csv") CSV lines"
	[ "$(wc -l <"$T/b$1.jsonl")" = "$1" ] || fail "$1 connections: $(wc -l <"$T/b$1.jsonl") JSONL lines"
	[ "$(json_field "$T/b$1.json" ok | head -1)" = "$1" ] || fail "$1 connections: not all ok"
	tail -1 "$T/rss.$1"
}
# 11000 is past the 10000 values a series keeps exactly, so the buckets are in use.
# The records alone of 10500 more connections would take 10500 x ~0.5 KB = 5 MB (the
# library before this change grew by 5.9 MB here); the bounded summary takes under 2 MB.
# Under ASan+UBSan freed memory sits in a quarantine (RSS says nothing about what is
# held) and the run is ten times slower: there only the rows are checked, on a short run.
if grep -aq __asan_init "$PQTLS"; then
	peak 300 >/dev/null
	pass "sanitizer build: 300 rows streamed (peak RSS is checked by the normal build)"
else
	small=$(peak 500)
	large=$(peak 11000)
	[ $((large - small)) -lt 3072 ] ||
		fail "peak RSS grew from $small KB (500 connections) to $large KB (11000): more than 3 MB"
	pass "peak RSS $small KB for 500 connections, $large KB for 11000 (rows streamed, summary bounded)"
fi

# A file size limit of 64 KB: the CSV (~0.4 KB a row) fails a few hundred rows in.
set +e
(
	ulimit -f 64
	trap '' XFSZ
	exec "$PQTLS" bench "$ADDR_s" --insecure -n 2000 -c 4 --requests-per-conn 0 \
		--groups x25519 --csv "$T/full.csv" >"$T/full.out" 2>"$T/full.err"
)
rc=$?
set -e
[ "$rc" = 1 ] || fail "a failing --csv write exited $rc, not 1: $(cat "$T/full.err")"
grep -q -- "--csv: cannot write $T/full.csv: File too large" "$T/full.err" ||
	fail "the write error does not name the output: $(cat "$T/full.err")"
[ -z "$(find "$T" -name "full.csv*")" ] || fail "a failed write left $(find "$T" -name "full.csv*")"
pass "a write error mid-run: exit 1, '$(head -1 "$T/full.err")', nothing left"
