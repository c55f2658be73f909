#!/usr/bin/env bash
# Cells measured at once (`pqtls sweep --jobs N`, src/exp/jobs.c): the same cells as a
# serial run, cell by cell (keys, parameters, chain sizes, connection counts; timings
# differ by nature and are not compared here: bench/jobs.sh compares them), each worker on
# links of its own; a --jobs run's shard merges with a serial shard into the whole grid;
# the dispatcher killed with SIGKILL mid-run leaves every stored cell whole, its workers
# end after their cells with their links taken down, and the same command measures the
# rest; --jobs refuses what is not 1..64 or auto before anything is written.
source "$(dirname "$0")/link_lib.bash"
command -v python3 >/dev/null || fail "needs python3 (scripts/deps.sh installs it)"

cat >"$TMP/g.spec" <<'SPEC'
name = jobs-test
rtt = 5ms, 30ms, 60ms
trials = 2
connections = 4
[arm ecdsa]
sig = ecdsa-p256
[arm mldsa]
sig = ml-dsa-44
SPEC
S=$TMP/g.spec

# Bad input: refused with the option and the accepted range, exit 2, nothing written.
for bad in 0 -1 65 abc 2x ""; do
	rc=0
	"$P" sweep "$S" --no-check --jobs "$bad" --out "$TMP/bad.db" >"$TMP/bad.out" 2>"$TMP/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "--jobs '$bad': exit $rc, expected 2"
	has "$TMP/bad.err" "--jobs: '$bad' is not a number of cells at once; use auto or 1 to 64"
	[ ! -e "$TMP/bad.db" ] || fail "--jobs '$bad' left a database"
done
# --remeasure and --keep-awake, the options beside it, the same way
for bad in "--remeasure 9:--remeasure: 9 is out of range; use 0 to 5" "--remeasure x:--remeasure" \
	"--keep-awake maybe:--keep-awake: 'maybe' is not one of on|off|poll|spin"; do
	rc=0
	# shellcheck disable=SC2086
	"$P" sweep "$S" --no-check ${bad%%:*} --out "$TMP/bad.db" >"$TMP/bad.out" 2>"$TMP/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "${bad%%:*}: exit $rc, expected 2"
	has "$TMP/bad.err" "${bad#*:}"
	[ ! -e "$TMP/bad.db" ] || fail "${bad%%:*} left a database"
done
echo "ok: --jobs 0, -1, 65, abc, 2x and '', --remeasure 9 and x, --keep-awake maybe refused before anything is written"

# The dry run says how many at once and why; a remote server is one at a time.
"$P" sweep "$S" --dry-run --jobs 4 | head -n 1 >"$TMP/dry"
has "$TMP/dry" "12 cells (shard 1/1), about"
has "$TMP/dry" "with up to 4 at once (--jobs 4)"
"$P" sweep --server 127.0.0.1:9 --group X25519,X25519MLKEM768 --dry-run | head -n 1 >"$TMP/dry-remote"
has "$TMP/dry-remote" "up to 1 at once (one cell at a time: the server is remote"

"$P" sweep "$S" --no-check --jobs 4 --out "$TMP/j4.db" >"$TMP/j4.out" 2>"$TMP/j4.err" ||
	{ cat "$TMP/j4.err"; fail "the --jobs 4 run failed"; }
has "$TMP/j4.err" "at up to 4 at once (--jobs 4)"
has "$TMP/j4.out" "12 cells measured, 0 already done, 0 failed; 48 connections, 0 failed; complete"
# Each worker brings up links of its own: more links than the grid's three conditions.
ups=$(grep -c "^link up: " "$TMP/j4.err" || true)
[ "$ups" -gt 3 ] || { cat "$TMP/j4.err"; fail "$ups links brought up: the cells did not run on links of their own"; }
"$P" sweep "$S" --no-check --jobs 1 -q --out "$TMP/j1.db" >"$TMP/j1.out" 2>&1 || { cat "$TMP/j1.out"; fail "serial run"; }

cat >"$TMP/same.py" <<'PY'
import sqlite3, sys
COLS = ("cell_key, point_key, link_key, cell_index, trial, arm, chain_leaf, chain_intermediate, chain_root, "
        "chain_intermediates, chain_der_bytes, cert_msg_bytes, first_flight_bytes, tls_group, rtt_us, "
        "connections, status")
def cells(path):
    db = sqlite3.connect(path)
    return db.execute(f"SELECT {COLS}, (SELECT COUNT(*) FROM conn n WHERE n.cell_id = c.cell_id), "
                      "(SELECT COUNT(*) FROM conn n WHERE n.cell_id = c.cell_id AND error_kind = 'ok') "
                      "FROM cell c ORDER BY cell_key").fetchall()
a, b = cells(sys.argv[1]), cells(sys.argv[2])
assert len(a) == len(b) == int(sys.argv[3]), (len(a), len(b))
for x, y in zip(a, b):
    assert x == y, ("differs", x, y)
print("ok: %d cells equal, cell by cell" % len(a))
PY
python3 "$TMP/same.py" "$TMP/j4.db" "$TMP/j1.db" 12 || fail "the --jobs 4 run differs from the serial one"

# The binary rebuilt (or removed) under a running sweep: the cells started after it still
# run their servers from the file the sweep runs, none fails (by path, every cell started
# while the linker wrote the binary failed with exit 127).
cp "$P" "$TMP/pqtls-copy"
"$TMP/pqtls-copy" sweep "$S" --no-check -q --jobs 2 --out "$TMP/rb.db" >"$TMP/rb.out" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
	[ -e "$TMP/rb.db" ] && break
	sleep 0.05
done
rm -f "$TMP/pqtls-copy"
printf '#!/bin/sh\nexit 127\n' >"$TMP/pqtls-copy"
chmod +x "$TMP/pqtls-copy"
wait $pid || { cat "$TMP/rb.out"; fail "the sweep whose binary was replaced failed"; }
has "$TMP/rb.out" "12 cells measured, 0 already done, 0 failed; 48 connections, 0 failed; complete"
echo "ok: a sweep whose binary is replaced mid-run measures every cell"

# Shards and jobs compose: shard 1/2 at --jobs 3 and 2/2 serially merge into the whole grid.
"$P" sweep "$S" --no-check -q --jobs 3 --shard 1/2 --out "$TMP/s1.db" >"$TMP/s1.out" 2>&1 || { cat "$TMP/s1.out"; fail "shard 1"; }
"$P" sweep "$S" --no-check -q --jobs 1 --shard 2/2 --out "$TMP/s2.db" >"$TMP/s2.out" 2>&1 || { cat "$TMP/s2.out"; fail "shard 2"; }
"$P" merge "$TMP/s1.db" "$TMP/s2.db" -o "$TMP/m.db" >"$TMP/m.out" || fail "merge of a --jobs shard and a serial one"
python3 "$TMP/same.py" "$TMP/m.db" "$TMP/j1.db" 12 || fail "the merged shards differ from the serial run"

# Each cell stores how many were in flight when it was handed out (cells at once lengthen
# a TTFB a little: docs/sweep.md): 1 serially; at --jobs 4, the 5 ms cells alone, the 60 ms
# ones beside others (their time scale allows 4: 12 cells, so some start beside three),
# never more than 4; the merged file keeps each shard's.
# One value of a query on a results database.
q() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }
[ "$(q "$TMP/j1.db" "SELECT COUNT(*) FROM cell WHERE host_cells_at_once = 1")" = 12 ] || fail "a serial cell not stored as one at a time"
[ "$(q "$TMP/j4.db" "SELECT MAX(host_cells_at_once) FROM cell")" -le 4 ] || fail "a --jobs 4 cell stored as beside more than 4"
[ "$(q "$TMP/j4.db" "SELECT COUNT(*) FROM cell WHERE rtt_us = 5000 AND host_cells_at_once = 1")" = 4 ] ||
	fail "a 5 ms cell of the --jobs 4 run not stored as alone"
[ "$(q "$TMP/j4.db" "SELECT MAX(host_cells_at_once) FROM cell WHERE rtt_us = 60000")" -gt 1 ] ||
	fail "no 60 ms cell of the --jobs 4 run stored as measured beside another"
[ "$(q "$TMP/j4.db" "SELECT COUNT(*) FROM cell WHERE host_cells_at_once IS NULL")" = 0 ] || fail "a --jobs 4 cell without its count"
[ "$(q "$TMP/m.db" "SELECT COUNT(*) FROM cell WHERE host_cells_at_once IS NULL")" = 0 ] || fail "the merge lost a cell's count"
echo "ok: each cell stores the cells at once it was handed out beside (1 serially, at most 4 at --jobs 4, kept by merge)"

# A worker that cannot bring up a link (the test program's fault, as a machine out of
# namespaces or descriptors): its cell goes back to the others, the sweep says so and
# measures every cell (with no other worker left it would fail naming the reason).
: "${PQTLS_FAULTS:?PQTLS_FAULTS must point at the pqtls-faults test program}"
"$PQTLS_FAULTS" sweep "$S" --no-check --jobs 3 --fault-no-link-worker 2 --out "$TMP/nl.db" >"$TMP/nl.out" 2>"$TMP/nl.err" ||
	{ cat "$TMP/nl.err"; fail "a sweep with one worker short of links failed"; }
has "$TMP/nl.err" "jobs: a worker could not bring up a link (link (rtt"
has "$TMP/nl.err" "the test's fault: no link in this process); measuring with 2"
has "$TMP/nl.out" "12 cells measured, 0 already done, 0 failed"
rc=0
"$PQTLS_FAULTS" sweep "$S" --no-check --jobs 1 --shard 1/4 --fault-no-link-worker 1 --out "$TMP/nl1.db" >/dev/null 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "a serial sweep took the workers' fault (exit $rc)"
echo "ok: a worker without links hands its cell back; the others measure the whole grid"

# A fast link is self-checked once, by the dispatcher, with the machine to itself, before
# the workers start (each worker's own check of it beside the cells in flight measured
# their load, not the link): two workers each measure a cell on a 1 Gbit/s link, and both
# cells name that one check, stored before either cell. A 1 Mbit/s link is checked by
# each worker that brings it up, as before.
cat >"$TMP/fast.spec" <<'SPEC'
name = jobs-fast-check
rtt = 40ms
rate = 1Gbit
trials = 1
connections = 2
[arm ecdsa]
sig = ecdsa-p256
[arm mldsa]
sig = ml-dsa-44
SPEC
"$P" sweep "$TMP/fast.spec" --jobs 2 --out "$TMP/fast.db" >"$TMP/fast.out" 2>"$TMP/fast.err" ||
	{ cat "$TMP/fast.err"; fail "the fast-link sweep failed"; }
n=$(grep -c "checking a fast link with the machine to itself" "$TMP/fast.err" || true)
[ "$n" = 1 ] || { cat "$TMP/fast.err"; fail "the fast link was not checked once before the cells ($n)"; }
[ "$(grep -c "as checked with the machine to itself at the sweep's start" "$TMP/fast.err")" -ge 1 ] ||
	{ cat "$TMP/fast.err"; fail "no worker took the sweep's check"; }
[ "$(q "$TMP/fast.db" "SELECT COUNT(DISTINCT link_check_id) FROM cell")" = 1 ] || fail "the two cells name different checks"
[ "$(q "$TMP/fast.db" "SELECT COUNT(*) FROM cell WHERE link_check_id = (SELECT MAX(link_check_id) FROM link_check)")" = 2 ] ||
	fail "the cells do not name the sweep's last check"
[ "$(q "$TMP/fast.db" "SELECT COUNT(*) FROM cell WHERE link_check_ok IS NULL")" = 0 ] || fail "a cell without its check's verdict"
sed "s/1Gbit/1Mbit/" "$TMP/fast.spec" >"$TMP/slow.spec"
"$P" sweep "$TMP/slow.spec" --jobs 2 --out "$TMP/slow.db" >"$TMP/slow.out" 2>"$TMP/slow.err" ||
	{ cat "$TMP/slow.err"; fail "the slow-link sweep failed"; }
! grep -q "machine to itself" "$TMP/slow.err" || { cat "$TMP/slow.err"; fail "a 1 Mbit/s link was checked as a fast one"; }
[ "$(q "$TMP/slow.db" "SELECT COUNT(DISTINCT link_check_id) FROM cell")" = 2 ] || fail "the 1 Mbit/s cells' workers did not check their own links"
echo "ok: a 1 Gbit/s link checked once before the cells, both cells on that check; 1 Mbit/s links by each worker"

# When that check cannot bring its link up (the test program's fault, as a machine out of
# namespaces or descriptors), the sweep stops before any worker starts: a non-zero exit, a
# message naming the check, the cell's arm and why, no cell stored, no namespace left.
ns_before=$(ip netns list 2>/dev/null | grep -c '^pqtls-' || true)
rc=0
"$PQTLS_FAULTS" sweep "$TMP/fast.spec" --jobs 2 --fault-no-link-precheck --out "$TMP/fnl.db" >"$TMP/fnl.out" 2>"$TMP/fnl.err" || rc=$?
[ "$rc" != 0 ] || { cat "$TMP/fnl.err"; fail "a sweep whose fast link could not be checked exited 0"; }
has "$TMP/fnl.err" "the check of a fast link before the cells start ($TMP/fast.spec:8); nothing was measured"
has "$TMP/fnl.err" "nothing was measured: link (rtt 40.0 ms, rate 1.00 Gbit/s"
has "$TMP/fnl.err" "the test's fault: no link in this process"
! grep -q "worker" "$TMP/fnl.err" || { cat "$TMP/fnl.err"; fail "workers started after the check failed"; }
[ ! -e "$TMP/fnl.db" ] || [ "$(q "$TMP/fnl.db" "SELECT COUNT(*) FROM cell")" = 0 ] || fail "cells stored after the check failed"
[ "$(ip netns list 2>/dev/null | grep -c '^pqtls-' || true)" = "$ns_before" ] || fail "the failed check left a namespace"
echo "ok: a fast link that cannot be checked stops the sweep before the cells, naming the check"

# SIGKILL to the process that dispatches (the sweep's measuring process) while workers
# measure: every stored cell is whole, the workers end (after their cells) and leave no
# namespace, and the same command measures exactly the rest.
# (Cells of 2 s each, four at once, three rounds: the kill lands with cells in flight and
# at least a round unmeasured.)
cat >"$TMP/k.spec" <<'SPEC'
name = jobs-kill
rtt = 80ms
trials = 6
connections = 6
[arm ecdsa]
sig = ecdsa-p256
[arm mldsa]
sig = ml-dsa-44
SPEC
DB=$TMP/k.db
count() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$DB" "$1" 2>/dev/null || echo 0; }
"$P" sweep "$TMP/k.spec" --no-check -q --jobs 4 --out "$DB" >"$TMP/k.out" 2>"$TMP/k.err" &
pid=$!
for _ in $(seq 1 300); do
	[ "$(count 'SELECT COUNT(*) FROM cell')" -ge 1 ] && break
	kill -0 $pid 2>/dev/null || { cat "$TMP/k.err"; fail "the sweep ended before it could be killed"; }
	sleep 0.1
done
m=$(sweep_measurer $pid)
workers=$(pgrep -P "$m" -x pqtls | tr '\n' ' ')
[ -n "$workers" ] || fail "no worker processes under the measuring process $m"
kill -9 "$m"
wait $pid 2>/dev/null || true
for _ in $(seq 1 300); do
	alive=0
	for w in $workers; do kill -0 "$w" 2>/dev/null && alive=1; done
	[ $alive = 0 ] && break
	sleep 0.1
done
[ $alive = 0 ] || fail "workers outlived the killed sweep by 30 s: $workers"
for w in $workers $m; do
	if ip netns list | grep -q "^pqtls-$w-"; then ip netns list; fail "worker $w left its namespaces"; fi
done
cells=$(count 'SELECT COUNT(*) FROM cell')
# at most the first round of four (one seen stored, the others ending with it) and the
# four in flight at the kill: never the whole grid
[ "$cells" -ge 1 ] && [ "$cells" -le 8 ] || fail "after the kill: $cells cells (expected 1 to 8 of 12)"
[ "$(count 'SELECT COUNT(*) FROM conn')" = $((cells * 6)) ] || fail "after the kill: a cell is partial"
"$P" sweep "$TMP/k.spec" --no-check -q --jobs 4 --out "$DB" >"$TMP/k2.out" 2>&1 || { cat "$TMP/k2.out"; fail "the resumed sweep failed"; }
has "$TMP/k2.out" "$((12 - cells)) cells measured, $cells already done"
"$P" sweep "$TMP/k.spec" --no-check -q --jobs 1 --out "$TMP/k1.db" >"$TMP/k1.out" 2>&1 || { cat "$TMP/k1.out"; fail "serial run"; }
python3 "$TMP/same.py" "$DB" "$TMP/k1.db" 12 || fail "the resumed database differs from a serial run"
echo "ok: killed with $cells of 12 cells stored, workers ended with their links down, resumed to the same 12"
