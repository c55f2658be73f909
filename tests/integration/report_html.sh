#!/usr/bin/env bash
# pqtls report on a database made here (tests/integration/lib/mkresults.sh, synthetic
# connections in the sweep's schema): the page, Markdown and CSV, two hosts side by side,
# the browser check (headless Chromium), and every kind of bad input refused with a clear
# message and nothing written.
set -euo pipefail
: "${PQTLS:?PQTLS must point at the pqtls binary}"
P=$PQTLS
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v sqlite3 >/dev/null || { echo "FAIL: no sqlite3 tool (scripts/deps.sh installs it for the tests)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qF -- "$2" "$1" || { echo "--- $1:"; head -c 3000 "$1"; fail "expected '$2' in $1"; }; }

bash "$SRC/tests/integration/lib/mkresults.sh" "$T/one.db"
bash "$SRC/tests/integration/lib/mkresults.sh" "$T/two.db" lab-a lab-b

# One host: page, terminal table, Markdown, CSV.
"$P" report "$T/one.db" -o "$T/one.html" --csv "$T/csv" >"$T/out" 2>"$T/err"
has "$T/err" "wrote $T/one.html"
has "$T/out" "host lab-a"
has "$T/out" "+70.25 [+69.60, +70.70] ms"  # ml-dsa-65 minus ecdsa TTFB at 70 ms (fixed seed)
has "$T/out" "no measurable difference"     # ml-dsa-44 at 70 ms
has "$T/one.html" "<table class=\"sort key\">"
has "$T/one.html" "agrees: the first step lies in 10.0-12.0 kB"
has "$T/one.html" "Measured steps of at least half a round trip: ecdsa-p256 pad: 10.00-12.00 kB (+1.00 RTT);"
has "$T/one.html" "model: ecdsa-p256 cliff 11.50 kB"
! grep -q "http://\|https://" "$T/one.html" || fail "the page refers to the network"
for f in key.csv cdf.csv agreement.csv; do [ -s "$T/csv/$f" ] || fail "no $f"; done
has "$T/csv/key.csv" '"lab-a","p-ml-dsa-65-70000-0--1","ml-dsa-65","ml-dsa-65","ml-dsa-65","ml-dsa-65","0","0","0","70000","/",0,16,211.850,'
"$P" report "$T/one.db" -o "$T/one2.html" --md -q >"$T/md"
[ ! -s "$T/md" ] || fail "--quiet printed a table"
"$P" report "$T/one.db" -o "$T/one2.html" --md >"$T/md"
# what an arm fixes once, in its arms table; a grid point's row holds what varies within the arms
has "$T/md" '| ml-dsa-65 | ml-dsa-65 | ml-dsa-65 | ml-dsa-65 | 0 % | no |'
has "$T/md" '| ml-dsa-65 | natural | 70 ms | / | 16 (0) | 211.85 \[211.30, 212.20\] |'
# The same seed gives the same page, byte for byte (the page's own name aside).
"$P" report "$T/one.db" -o "$T/again.html" -q
cmp -s "$T/one.html" <(sed "s|again.html|one.html|g" "$T/again.html") ||
	{ diff <(sed "s|again.html|one.html|g" "$T/again.html") "$T/one.html" | head -5; fail "the same seed gave another page"; }

# Two hosts: both in the key tables, side by side, and in the figures.
"$P" report "$T/two.db" -o "$T/two.html" -q
has "$T/two.html" "<div class=\"hosts\"><section><h3>host lab-a</h3>"
has "$T/two.html" "<section><h3>host lab-b</h3>"
has "$T/two.html" "fig-size-h1-r1"

# The browser: no console message, every figure rendered, a screenshot.
bash "$SRC/tests/integration/lib/browser_check.sh" "$T/two.html" "$T/shot.png" fig-size fig-cdf fig-ttlb fig-agreement ||
	fail "the browser check failed"

# Bad input: clear messages, exit 1, no report written.
expect_fail() { # db message
	rm -f "$T/bad.html"
	if "$P" report "$1" -o "$T/bad.html" >"$T/o" 2>"$T/e"; then fail "report accepted $1"; fi
	has "$T/e" "$2"
	[ ! -e "$T/bad.html" ] || fail "a report was written from $1"
}
expect_fail "$T/missing.db" "$T/missing.db: cannot open it: No such file or directory"
printf 'this is not a database, it is a text file long enough to have a header......................................................' >"$T/text.db"
expect_fail "$T/text.db" "is not an SQLite database"
sqlite3 "$T/other.db" "CREATE TABLE t (x); INSERT INTO t VALUES (1);"
expect_fail "$T/other.db" "not a pqtls results database (it has no meta table"
# the version this pqtls reads, as its own schema says
V=$("$P" sweep --schema | sed -n 's/^PRAGMA user_version = \([0-9]*\);$/\1/p')
cp "$T/one.db" "$T/newer.db"
sqlite3 "$T/newer.db" "UPDATE meta SET value = '9' WHERE key = 'schema_version'"
expect_fail "$T/newer.db" "has schema version 9; this pqtls reads version $V (a newer pqtls"
"$P" sweep --schema | sqlite3 "$T/empty.db"
sqlite3 "$T/empty.db" "INSERT INTO meta VALUES ('schema_version', '$V')"
expect_fail "$T/empty.db" "holds no measured cell"
# Locked: another process holds an exclusive lock (rollback journal) for longer than
# the reader's 2 s busy wait.
cp "$T/one.db" "$T/locked.db"
sqlite3 "$T/locked.db" "PRAGMA journal_mode=DELETE" >/dev/null
# The locker says when it holds the lock and keeps it until told to let go: no sleep
# decides whether the report meets it.
printf 'BEGIN EXCLUSIVE;\nUPDATE meta SET value = value;\n.shell touch %s\n.shell while [ ! -e %s ]; do sleep 0.05; done\nCOMMIT;\n' \
	"$T/locked.held" "$T/locked.release" | sqlite3 "$T/locked.db" &
locker=$!
for _ in $(seq 1 400); do [ -e "$T/locked.held" ] && break; sleep 0.05; done
[ -e "$T/locked.held" ] || fail "the locking sqlite3 never took its lock"
expect_fail "$T/locked.db" "is locked by another process"
touch "$T/locked.release"
wait "$locker"
# An unwritable output: refused, the old file untouched, no temporary file left. Root
# writes through directory permissions, so as root the directory is a read-only mount
# (a tmpfs remounted read-only); otherwise a directory without write permission.
ro=$T/ro
mkdir "$ro"
if [ "$(id -u)" = 0 ]; then
	mount -t tmpfs -o size=64k tmpfs "$ro" || fail "cannot mount a tmpfs as root"
	echo old >"$ro/keep.html"
	mount -o remount,ro "$ro" || { umount "$ro"; fail "cannot remount the tmpfs read-only"; }
else
	echo old >"$ro/keep.html"
	chmod 0555 "$ro"
fi
rc=0
"$P" report "$T/one.db" -o "$ro/keep.html" 2>"$T/e" || rc=$?
[ "$(cat "$ro/keep.html")" = old ] || fail "the old report in the read-only directory changed"
left=$(ls "$ro")
if [ "$(id -u)" = 0 ]; then umount "$ro"; else chmod 0755 "$ro"; fi
[ "$rc" = 1 ] || { cat "$T/e"; fail "report into a read-only directory: exit $rc, want 1"; }
has "$T/e" "cannot create $ro/keep.html.tmp"
[ "$left" = keep.html ] || fail "files left in the read-only directory: $left"
if "$P" report "$T/one.db" -o "$T/nodir/r.html" 2>"$T/e"; then fail "wrote into a missing directory"; fi
has "$T/e" "cannot create $T/nodir/r.html.tmp"
! ls "$T"/*.tmp.* >/dev/null 2>&1 || fail "a temporary file was left"
# Usage errors exit 2.
set +e
"$P" report 2>"$T/e"; [ $? = 2 ] || fail "no database: not a usage error"
"$P" report a.db b.db c.db 2>"$T/e"; [ $? = 2 ] || fail "three databases: not a usage error" # two are set side by side (report_compare.sh)
set -e
echo ok
