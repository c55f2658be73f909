#!/usr/bin/env bash
# A grid run as 3 shards by GNU parallel and combined with `pqtls merge` equals the
# unsharded run cell by cell (keys, parameters, chain sizes, connection counts; timings
# differ by nature and are not compared). The same grid measured from another client host
# (a UTS namespace with another host name) merges beside it, kept apart by host_name.
# Merge refuses overlapping inputs, another grid and an existing output; export writes CSV
# and JSON lines that hold every connection.
source "$(dirname "$0")/link_lib.bash"
command -v parallel >/dev/null || fail "needs GNU parallel (scripts/deps.sh installs it)"
command -v python3 >/dev/null || fail "needs python3 (scripts/deps.sh installs it)"

cat >"$TMP/g.spec" <<'SPEC'
name = shard-test
rtt = 10ms, 20ms
trials = 2
connections = 4
[arm ecdsa]
sig = ecdsa-p256
[arm mldsa X25519]
sig = ml-dsa-44
group = X25519
SPEC
S=$TMP/g.spec
# (2 links x 2 trials) = 4 groups of cells: shard 1 gets two, shards 2 and 3 one each.
parallel --halt now,fail=1 "$P" sweep "$S" --no-check -q --shard {}/3 --out "$TMP/s{}.db" ::: 1 2 3 \
	>"$TMP/par.out" 2>&1 || { cat "$TMP/par.out"; fail "a shard failed"; }
"$P" merge "$TMP/s1.db" "$TMP/s2.db" "$TMP/s3.db" -o "$TMP/merged.db" >"$TMP/m.out" || fail "merge failed"
has "$TMP/m.out" "3 runs, 8 cells, 32 connections, 1 client host"
"$P" sweep "$S" --no-check -q --out "$TMP/whole.db" >"$TMP/w.out" 2>&1 || { cat "$TMP/w.out"; fail "unsharded run failed"; }

cat >"$TMP/same.py" <<'PY'
import sqlite3, sys
COLS = ("cell_key, point_key, link_key, cell_index, trial, arm, chain_leaf, chain_intermediate, chain_root, "
        "chain_intermediates, chain_pad_to_bytes, chain_der_bytes, cert_msg_bytes, first_flight_bytes, tls_group, "
        "tickets, resume_pct, early_data, rtt_us, loss_pct, rate_bps, mtu_bytes, cc, request_path, response_bytes, "
        "connections, warmup_conns, concurrency, client_timeout_us, server_hs_timeout_us")
def cells(path):
    db = sqlite3.connect(path)
    rows = db.execute(f"SELECT {COLS}, (SELECT COUNT(*) FROM conn n WHERE n.cell_id = c.cell_id), "
                      "(SELECT COUNT(DISTINCT tls_group) FROM conn n WHERE n.cell_id = c.cell_id AND error_kind = 'ok') "
                      "FROM cell c ORDER BY cell_key").fetchall()
    return rows
a, b = cells(sys.argv[1]), cells(sys.argv[2])
assert len(a) == len(b) == 8, (len(a), len(b))
for x, y in zip(a, b):
    assert x == y, ("differs", x, y)
print("ok: %d cells equal, cell by cell" % len(a))
PY
python3 "$TMP/same.py" "$TMP/merged.db" "$TMP/whole.db" || fail "merged shards differ from the unsharded run"

# Another client host: same grid, another host name; merged, both hosts' cells are kept.
unshare -u bash -c "hostname pqtls-other-client && '$P' sweep '$S' --no-check -q --out '$TMP/other.db'" \
	>"$TMP/o.out" 2>&1 || { cat "$TMP/o.out"; fail "the run under another host name failed"; }
"$P" merge "$TMP/whole.db" "$TMP/other.db" -o "$TMP/hosts.db" >"$TMP/h.out" || fail "merge of two hosts failed"
has "$TMP/h.out" "16 cells, 64 connections, 2 client hosts"

# Refusals: an input twice, another grid, an existing output.
rc=0; "$P" merge "$TMP/s1.db" "$TMP/s1.db" -o "$TMP/twice.db" 2>"$TMP/e" || rc=$?
[ "$rc" = 2 ] || fail "merging a file twice: exit $rc"; has "$TMP/e" "is also in an earlier input: the inputs overlap"
[ ! -e "$TMP/twice.db" ] || fail "a refused merge left its output"
"$P" sweep "$S" --rtt 15ms --no-check -q --trials 1 --connections 1 --out "$TMP/other-grid.db" >/dev/null 2>&1 || fail "other grid run"
rc=0; "$P" merge "$TMP/s1.db" "$TMP/other-grid.db" -o "$TMP/x.db" 2>"$TMP/e" || rc=$?
[ "$rc" = 2 ] || fail "merging two grids: exit $rc"; has "$TMP/e" "holds another grid than"
rc=0; "$P" merge "$TMP/s1.db" -o "$TMP/merged.db" 2>"$TMP/e" || rc=$?
[ "$rc" = 2 ] || fail "merge onto an existing file: exit $rc"; has "$TMP/e" "exists; merge writes a new file"

# Export: every table as CSV, every connection as a JSON line.
"$P" sweep export "$TMP/merged.db" --csv "$TMP/csv" >/dev/null || fail "export --csv"
for t in run link_check cell conn cell_stats arm_stats; do [ -s "$TMP/csv/$t.csv" ] || fail "no $t.csv"; done
[ "$(wc -l <"$TMP/csv/conn.csv")" = 33 ] || fail "conn.csv is not a header and 32 rows"
"$P" sweep export "$TMP/merged.db" --jsonl "$TMP/all.jsonl" >/dev/null || fail "export --jsonl"
[ "$(wc -l <"$TMP/all.jsonl")" = 32 ] || fail "all.jsonl is not 32 lines"
python3 -c "import json,sys; [json.loads(l)['handshake_us'] for l in open(sys.argv[1])]" "$TMP/all.jsonl" || fail "jsonl unreadable"
[ "$("$P" sweep export "$TMP/merged.db" --jsonl - | wc -l)" = 32 ] || fail "--jsonl - is not 32 lines on stdout"
[ ! -e ./- ] || fail "--jsonl - wrote a file named -"
# A finished sweep leaves one file: readers (merge, export) find and leave no -wal/-shm.
for f in "$TMP"/s1.db* "$TMP"/merged.db*; do case $f in *-wal | *-shm) fail "$f left beside its database" ;; esac; done
# --csv onto a file, and an unwritable merge output, name the path and leave nothing.
rc=0; "$P" sweep export "$TMP/merged.db" --csv "$TMP/all.jsonl" 2>"$TMP/e" || rc=$?
[ "$rc" = 1 ] || fail "export --csv onto a file: exit $rc"; has "$TMP/e" "all.jsonl: exists and is not a directory"
rc=0; "$P" merge "$TMP/s1.db" -o "$TMP/nodir/m.db" 2>"$TMP/e" || rc=$?
[ "$rc" = 1 ] || fail "merge into a missing directory: exit $rc"; has "$TMP/e" "nodir/m.db: cannot write the merged database in"
echo ok
