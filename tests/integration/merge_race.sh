#!/usr/bin/env bash
# Two `pqtls merge` naming one new output at once: both find it absent when they start,
# and the one that finishes second must not replace the other's file (the old code
# renamed its temporary file over it, and both said they had written it: the first
# merge's result was lost without a word). The overlap is made, not hoped for: merge A
# gets a large input (40,000 connections: seconds to copy), is stopped (SIGSTOP) once its
# temporary file exists (it has checked that the output is absent), merge B writes the
# output from a small input meanwhile, then A goes on. A must fail naming the file, the
# file must be B's whole database, and no temporary file may be left. No root needed.
set -euo pipefail
: "${PQTLS:?PQTLS must point at the pqtls binary}"
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v sqlite3 >/dev/null || { echo "FAIL: no sqlite3 tool (scripts/deps.sh installs it for the tests)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: needs python3 (scripts/deps.sh installs it)" >&2; exit 1; }
T=$(mktemp -d)
apid=
cleanup() {
	if [ -n "$apid" ]; then kill -CONT "$apid" 2>/dev/null || true; kill "$apid" 2>/dev/null || true; fi
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
conns() { sqlite3 "$1" "SELECT COUNT(*) FROM conn"; }

bash "$SRC/tests/integration/lib/mkresults.sh" "$T/small.db" >/dev/null
cp "$T/small.db" "$T/big.db"
python3 - "$T/big.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(conn)")]
sel = ", ".join("conn_index + k * 100000" if c == "conn_index" else c for c in cols)
db.execute(f"INSERT INTO conn ({', '.join(cols)}) WITH RECURSIVE ks(k) AS (SELECT 1 UNION ALL SELECT k + 1 "
           f"FROM ks WHERE k < 99) SELECT {sel} FROM conn, ks")
db.commit()
PY
small=$(conns "$T/small.db") big=$(conns "$T/big.db")
[ "$big" -ge 100 ] && [ "$big" = $((small * 100)) ] || fail "the large input has $big connections, not 100 x $small"

mkdir "$T/o"
out=$T/o/all.db
"$PQTLS" merge "$T/big.db" -o "$out" >"$T/a.out" 2>"$T/a.err" &
apid=$!
# A's temporary file (all.db.tmp-PID, made after its check that all.db is absent)
for _ in $(seq 1 3000); do
	ls "$T/o" | grep -q "^all.db.tmp-$apid" && break
	kill -0 "$apid" 2>/dev/null || break
	sleep 0.01
done
kill -STOP "$apid" 2>/dev/null || { cat "$T/a.err"; fail "merge A ended before it could be held"; }
ls "$T/o" | grep -q "^all.db.tmp-$apid" || fail "merge A made no temporary file: $(ls "$T/o")"
[ ! -e "$out" ] || fail "merge A finished before it could be held (give it a larger input)"

"$PQTLS" merge "$T/small.db" -o "$out" >"$T/b.out" 2>"$T/b.err" || { cat "$T/b.err"; fail "merge B failed"; }
grep -qF "$small connections" "$T/b.out" || { cat "$T/b.out"; fail "merge B did not report its connections"; }

kill -CONT "$apid"
rca=0
wait "$apid" || rca=$?
pid=$apid apid=
[ "$rca" != 0 ] || { cat "$T/a.out"; fail "both merges said they wrote $out (A replaced B's file)"; }
grep -qF "$out was created by another process while this merge ran" "$T/a.err" ||
	{ cat "$T/a.err"; fail "merge A does not say why it wrote nothing"; }
[ "$(conns "$out")" = "$small" ] || fail "$out holds $(conns "$out") connections, not merge B's $small"
[ "$(sqlite3 "$out" "PRAGMA integrity_check")" = ok ] || fail "$out is damaged"
[ "$(ls "$T/o")" = all.db ] || fail "left beside the output: $(ls "$T/o" | tr '\n' ' ') (merge A was pid $pid)"
echo "ok: the merge that finished second wrote nothing and said why; the first's $small connections are whole"
