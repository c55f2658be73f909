#!/usr/bin/env bash
# A results database written by the previous schema version (tests/data/v3.db: pqtls at
# the last commit with PQ_SCHEMA_VERSION 3, `pqtls sweep --sig ecdsa-p256 --rtt 10ms,20ms
# --connections 2 --trials 1 --no-check`) is read as it is for reporting, export and merge,
# never changed by them; a sweep of another grid refuses it without upgrading it; a sweep
# of its grid resuming into it upgrades it in place (every column the column table has and
# the file lacks, with its default; the views made again; version 4) and measures the
# missing cell into it; the upgraded file reads like a new one (the same CSV columns).
# The read-only part needs nothing; the resume needs root (network namespaces, TUN).
set -euo pipefail
: "${PQTLS:?PQTLS must point at the pqtls binary}"
P=$PQTLS
DATA=$(cd "$(dirname "$0")/../data" && pwd)/v3.db
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "expected '$2' in $1"; }; }
command -v sqlite3 >/dev/null || { echo "skip: needs the sqlite3 tool (scripts/deps.sh installs it)"; exit 77; }
[ -f "$DATA" ] || fail "no $DATA"
q() { sqlite3 "$1" "$2"; }

cp "$DATA" "$TMP/v3.db"
[ "$(q "$TMP/v3.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 3 ] || fail "v3.db is not version 3"
[ "$(q "$TMP/v3.db" "SELECT COUNT(*) FROM pragma_table_info('conn') WHERE name = 'client_wait_us'")" = 0 ] ||
	fail "v3.db already has version 4's columns"
sum=$(sha256sum <"$TMP/v3.db")

# Read as it is: report, export, merge; the file stays byte for byte what it was.
"$P" report "$TMP/v3.db" -q -o "$TMP/v3.html" --csv "$TMP/v3-csv" >"$TMP/r.out" 2>&1 || { cat "$TMP/r.out"; fail "report of a version 3 file"; }
[ -s "$TMP/v3.html" ] && [ -s "$TMP/v3-csv/key.csv" ] || fail "the report wrote no page or key.csv"
[ "$(wc -l <"$TMP/v3-csv/key.csv")" = 3 ] || fail "key.csv: $(cat "$TMP/v3-csv/key.csv")"
"$P" sweep export "$TMP/v3.db" --csv "$TMP/v3-exp" >"$TMP/e.out" 2>&1 || { cat "$TMP/e.out"; fail "export of a version 3 file"; }
head -1 "$TMP/v3-exp/cell.csv" | grep -q ',host_nice,' || fail "cell.csv lacks the columns it reads as NULL"
head -1 "$TMP/v3-exp/cell.csv" | grep -q ',client,' || fail "cell.csv lacks client"
"$P" merge "$TMP/v3.db" -o "$TMP/merged.db" >"$TMP/m.out" 2>&1 || { cat "$TMP/m.out"; fail "merge of a version 3 file"; }
[ "$(q "$TMP/merged.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 4 ] || fail "merge's output is not version 4"
[ "$(q "$TMP/merged.db" "SELECT COUNT(*) || ' ' || SUM(client = 'pqtls') || ' ' || COUNT(host_nice) FROM cell")" = "2 2 0" ] ||
	fail "merged cells: $(q "$TMP/merged.db" "SELECT client, host_nice FROM cell")"
[ "$(sha256sum <"$TMP/v3.db")" = "$sum" ] || fail "reading changed the version 3 file"
echo "ok: a version 3 file is reported, exported and merged as it is"

if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ] || ! unshare -n true 2>/dev/null; then
	echo "skip: resuming into the file needs root, /dev/net/tun and network namespaces"; exit 77
fi
G=(--sig ecdsa-p256 --connections 2 --trials 1 --no-check -q)

# Another grid: refused, the file not upgraded.
rc=0
"$P" sweep "${G[@]}" --rtt 30ms --out "$TMP/v3.db" >"$TMP/o.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "a sweep of another grid wrote into the version 3 file"
has "$TMP/o.out" "holds another grid"
# (its journal mode is set and reset on the way, so the bytes of its header may differ)
[ "$(q "$TMP/v3.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 3 ] || fail "a refused sweep upgraded the file"
[ "$(q "$TMP/v3.db" "SELECT COUNT(*) FROM pragma_table_info('conn') WHERE name = 'client_wait_us'")" = 0 ] ||
	fail "a refused sweep added columns"

# Its grid, one cell missing: upgraded in place, the cell measured into it.
q "$TMP/v3.db" "DELETE FROM conn WHERE cell_id = (SELECT MAX(cell_id) FROM cell); DELETE FROM cell WHERE cell_id = (SELECT MAX(cell_id) FROM cell)"
"$P" sweep "${G[@]}" --rtt 10ms,20ms --out "$TMP/v3.db" >"$TMP/s.out" 2>&1 || { cat "$TMP/s.out"; fail "resuming into a version 3 file"; }
[ "$(q "$TMP/v3.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 4 ] || fail "meta.schema_version is not 4"
[ "$(q "$TMP/v3.db" "PRAGMA user_version")" = 4 ] || fail "user_version is not 4"
[ "$(q "$TMP/v3.db" "SELECT COUNT(*) FROM cell")" = 2 ] || fail "cells: $(q "$TMP/v3.db" "SELECT cell_key FROM cell")"
[ "$(q "$TMP/v3.db" "SELECT COUNT(*) FROM run")" = 2 ] || fail "the resume added no run row"
# the old cell keeps NULL waits; the new one has its connections and the later columns
[ "$(q "$TMP/v3.db" "SELECT COUNT(*) FROM cell WHERE host_client_wait_p50_us IS NULL AND cell_id = (SELECT MIN(cell_id) FROM cell)")" = 1 ] ||
	fail "the old cell's waits are not NULL"
[ "$(q "$TMP/v3.db" "SELECT COUNT(*) FROM conn WHERE cell_id = (SELECT MAX(cell_id) FROM cell) AND error_kind = 'ok'")" = 2 ] ||
	fail "the resumed cell's connections are not there"
q "$TMP/v3.db" "SELECT browser_ttfb_network_us, client FROM conn_cell LIMIT 1" >/dev/null || fail "the views were not made again"
[ "$(q "$TMP/v3.db" "PRAGMA integrity_check")" = ok ] || fail "the upgraded file is not intact"
"$P" report "$TMP/v3.db" -q -o "$TMP/up.html" --csv "$TMP/up-csv" >"$TMP/r2.out" 2>&1 || { cat "$TMP/r2.out"; fail "report of the upgraded file"; }

# The upgraded file exports the columns of a new file, in the same order.
"$P" sweep "${G[@]}" --rtt 10ms --out "$TMP/new.db" >"$TMP/n.out" 2>&1 || { cat "$TMP/n.out"; fail "a new sweep"; }
"$P" sweep export "$TMP/v3.db" --csv "$TMP/up-exp" >/dev/null
"$P" sweep export "$TMP/new.db" --csv "$TMP/new-exp" >/dev/null
for t in run link_check cell conn; do
	[ "$(head -1 "$TMP/up-exp/$t.csv")" = "$(head -1 "$TMP/new-exp/$t.csv")" ] || fail "$t.csv: the upgraded file's columns differ from a new file's"
	[ "$(head -1 "$TMP/v3-exp/$t.csv")" = "$(head -1 "$TMP/new-exp/$t.csv")" ] || fail "$t.csv: the version 3 file read as it is differs from a new file's"
done

# Resuming again: nothing to measure, nothing to upgrade.
"$P" sweep "${G[@]}" --rtt 10ms,20ms --out "$TMP/v3.db" >"$TMP/s2.out" 2>&1 || { cat "$TMP/s2.out"; fail "a second resume"; }
[ "$(q "$TMP/v3.db" "SELECT COUNT(*) FROM cell")" = 2 ] || fail "a second resume measured again"
echo "ok: a sweep resuming into a version 3 file upgrades it in place and measures into it"
