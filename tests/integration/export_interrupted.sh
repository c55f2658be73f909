#!/usr/bin/env bash
# An interrupted `sweep export` leaves nothing half-written: SIGINT, SIGTERM or SIGHUP
# mid-way through --jsonl FILE, --csv into a new DIR and --csv into an existing DIR (which
# holds a file of the user's) ends with exit 128 + the signal, a message naming the
# output, and no FILE, no DIR, no *.tmp.* file or staging directory; the existing DIR
# keeps exactly what it held. The old export died on the signal and left its temporary
# file (one was 68 GB), and --csv an incomplete set of files.
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -CONT $pid 2>/dev/null && kill -KILL $pid 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v sqlite3 >/dev/null || fail "needs the sqlite3 shell (scripts/deps.sh installs it)"

# A database whose export takes about a second: the fixture's 400 connections doubled
# five times (12,800; about 40 MB of JSON lines).
bash "$SRC/tests/integration/lib/mkresults.sh" "$T/r.db" >/dev/null
for _ in 1 2 3 4 5; do
	sqlite3 "$T/r.db" "CREATE TEMP TABLE t AS SELECT * FROM conn;
		UPDATE t SET conn_index = conn_index + (SELECT MAX(conn_index) + 1 FROM conn);
		INSERT INTO conn SELECT * FROM t;"
done

# interrupt SIG OUTPUT_DIR EXPORT_ARGS...: starts the export (every signal at its default
# disposition, as in a terminal), stops it once its temporary file or staging directory
# is in OUTPUT_DIR (mid-way), sends SIG, lets it go on, and checks how it ended.
interrupt() {
	local sig=$1 out=$2 rc=0
	shift 2
	env --default-signal "$P" sweep export "$T/r.db" "$@" >/dev/null 2>"$T/e" &
	pid=$!
	for _ in $(seq 1000); do
		[ -n "$(find "$out" -name '*.tmp.*' -print -quit)" ] && break
		sleep 0.01
	done
	kill -STOP "$pid"
	[ -n "$(find "$out" -name '*.tmp.*' -print -quit)" ] ||
		fail "$*: the export had not begun, or had ended, by the signal"
	kill "-$sig" "$pid"
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	pid=
	left=$(find "$out" -name '*.tmp.*')
	[ -z "$left" ] || fail "$* on SIG$sig left $left"
	[ "$rc" = $((128 + $(kill -l "$sig"))) ] || { cat "$T/e"; fail "$* on SIG$sig: exit $rc"; }
	grep -q "stopped; the export to .* was not made, and nothing of it is left" "$T/e" ||
		{ cat "$T/e"; fail "$* on SIG$sig: no message"; }
}

for sig in INT TERM HUP; do
	mkdir "$T/out"
	interrupt "$sig" "$T/out" --jsonl "$T/out/c.jsonl"
	[ ! -e "$T/out/c.jsonl" ] || fail "--jsonl on SIG$sig: the file exists"
	interrupt "$sig" "$T/out" --csv "$T/out/new"
	[ ! -e "$T/out/new" ] || fail "--csv into a new directory on SIG$sig: it exists: $(ls -A "$T/out/new")"
	mkdir "$T/out/old"
	echo mine >"$T/out/old/keep.txt"
	interrupt "$sig" "$T/out" --csv "$T/out/old"
	[ "$(ls -A "$T/out/old")" = keep.txt ] || fail "--csv into a directory on SIG$sig left: $(ls -A "$T/out/old")"
	[ "$(ls -A "$T/out")" = old ] || fail "SIG$sig left: $(ls -A "$T/out")"
	echo "ok: SIG$sig: --jsonl, --csv new, --csv existing: nothing left; $(head -1 "$T/e")"
	rm -rf "$T/out"
done
# Not interrupted: the whole set, and the file.
"$P" sweep export "$T/r.db" --csv "$T/all" >/dev/null
[ "$(ls "$T/all" | wc -l)" = 6 ] || fail "--csv wrote $(ls "$T/all")"
echo ok
