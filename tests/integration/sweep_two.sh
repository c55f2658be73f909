#!/usr/bin/env bash
# Two sweeps at once on one machine share its cells in flight (exp/admit.h), one of them
# at --jobs auto and one a cell at a time (--jobs 1): both grids' cells are at 1 ms RTT, a class that runs alone, so at no moment may the machine's table
# hold more than one cell in flight, whichever sweep it belongs to. A watcher reads the
# table under its lock every few milliseconds while both run (two sweeps deciding alone,
# as before the table, would overlap for most of the run and be seen); both sweeps store
# every cell; one of them says its next cell waited for the other's (the one that got the
# machine first may keep it for all its cells: the other claims room only after
# PQ_EXP_ADMIT_PATIENCE_NS, 30 s, longer than this run, unit-tested in test_exp_admit); a killed sweep's
# slots are dropped by the next reader, and the table holds nothing once both have ended;
# without a table (its directory cannot be made) a sweep says so and measures alone.
source "$(dirname "$0")/link_lib.bash"
command -v python3 >/dev/null || fail "needs python3 (scripts/deps.sh installs it)"
export PQTLS_RUN_DIR=$TMP/run
TABLE=$PQTLS_RUN_DIR/cells-0-$(( $(nproc) - 1 )) # the table of every CPU (exp/admit.h)

# watch: until the file STOP exists, the most cells in flight at one moment, the most
# sweeps holding a slot (a cell or a claim) at one moment, and how many sweeps' cells it saw.
cat >"$TMP/watch.py" <<'PY'
import fcntl, os, struct, sys, time
table, stop = sys.argv[1], sys.argv[2]
most_cells = most_sweeps = 0
ever = set()
while not os.path.exists(stop):
    try:
        with open(table, "rb") as f:
            fcntl.flock(f, fcntl.LOCK_SH)
            data = f.read()
    except FileNotFoundError:
        time.sleep(0.005)
        continue
    cells, sweeps = 0, set()
    for off in range(16, len(data) - 39, 40):
        pid, tag, limit, _pad, share, since, end = struct.unpack_from("<iiIIdqq", data, off)
        if pid:
            sweeps.add(pid)
            cells += tag >= 0
            if tag >= 0:
                ever.add(pid)
    most_cells, most_sweeps = max(most_cells, cells), max(most_sweeps, len(sweeps))
    time.sleep(0.003)
print(most_cells, most_sweeps, len(ever))
PY
python3 "$TMP/watch.py" "$TABLE" "$TMP/stop" >"$TMP/watch.out" &
watcher=$!

grid=(--rtt 1ms --sig ecdsa-p256,ml-dsa-44 --trials 4 --connections 3 --no-check)
"$P" sweep "${grid[@]}" --seed 1 --out "$TMP/a.db" >"$TMP/a.out" 2>&1 &
a=$!
"$P" sweep "${grid[@]}" --seed 2 --jobs 1 --out "$TMP/b.db" >"$TMP/b.out" 2>&1 &
b=$!
rca=0 rcb=0
wait "$a" || rca=$?
wait "$b" || rcb=$?
touch "$TMP/stop"
wait "$watcher"
[ "$rca$rcb" = 00 ] || { cat "$TMP/a.out" "$TMP/b.out"; fail "the sweeps ended $rca and $rcb"; }
has "$TMP/a.out" "8 cells measured"
has "$TMP/b.out" "8 cells measured"
read -r cells sweeps ever <"$TMP/watch.out"
[ "$ever" -ge 2 ] || fail "cells of $ever sweep(s) seen in the table; both sweeps' should be, the one at --jobs 1 too"
[ "$cells" -eq 1 ] || fail "$cells cells in flight at one moment; cells at 1 ms run alone on the machine, whose sweep they are"
cat "$TMP/a.out" "$TMP/b.out" >"$TMP/both.out"
has "$TMP/both.out" "another sweep on this machine has"
has "$TMP/both.out" "the next cell waits for room beside them"

# Once both have ended, the table is empty.
python3 - "$TABLE" <<'PY' || fail "slots left in the table after both sweeps ended"
import struct, sys
data = open(sys.argv[1], "rb").read()
sys.exit(any(struct.unpack_from("<i", data, o)[0] for o in range(16, len(data), 40)))
PY

# A sweep killed mid-run leaves slots behind; the next sweep drops them and measures.
"$P" sweep --rtt 50ms --sig ecdsa-p256 --trials 30 --connections 3 --no-check -q --out "$TMP/k.db" \
	>"$TMP/k.out" 2>&1 &
k=$!
for _ in $(seq 400); do
	python3 - "$TABLE" <<'PY' && break
import struct, sys
data = open(sys.argv[1], "rb").read()
sys.exit(0 if sum(struct.unpack_from("<i", data, o + 4)[0] >= 0 and struct.unpack_from("<i", data, o)[0] != 0
                  for o in range(16, len(data), 40)) >= 2 else 1)
PY
	sleep 0.05
done
m=$(sweep_measurer "$k")
kill -9 "$m" "$k" 2>/dev/null || true
wait "$k" 2>/dev/null || true
"$P" link down --all >/dev/null 2>&1 || true
"$P" sweep "${grid[@]}" --trials 1 --out "$TMP/c.db" >"$TMP/c.out" 2>&1 || { cat "$TMP/c.out"; fail "the sweep after a killed one"; }
has "$TMP/c.out" "2 cells measured"
if grep -q "another sweep on this machine" "$TMP/c.out"; then
	cat "$TMP/c.out"
	fail "a killed sweep's slots held the next sweep back"
fi
# A table that cannot be made (its directory under a plain file): the sweep says so,
# naming it, and measures alone; nothing is lost.
: >"$TMP/plain"
PQTLS_RUN_DIR=$TMP/plain/run "$P" sweep "${grid[@]}" --trials 1 --out "$TMP/d.db" >"$TMP/d.out" 2>&1 ||
	{ cat "$TMP/d.out"; fail "a sweep without a table of the machine's cells did not measure"; }
has "$TMP/d.out" "jobs: other sweeps' cells on this machine are not seen ($TMP/plain/run: cannot create the directory"
has "$TMP/d.out" "2 cells measured"
echo "ok: two sweeps' cells at 1 ms never in flight together (one at most; up to $sweeps sweeps held slots at once); a killed sweep's slots dropped"
