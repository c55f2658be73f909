#!/usr/bin/env bash
# A sweep on a share of a machine (core/cpus.h): --jobs auto counts the CPUs this process
# may use, not the machine's: under an affinity mask of one CPU (taskset, a Slurm or
# container cpuset) auto is one CPU's count (PQ_EXP_JOBS_PER_CPU, read from --help) at once and the first line says why; inside a cgroup
# with a CPU quota of 1.5 CPUs (Kubernetes' limits.cpu, systemd's CPUQuota) the same, the
# keep-awake spinners are not started (their cycles would count against the quota; the
# log says so; the default polling idle, charged to no cgroup, still is, and the run row
# says which ran) and the sweep's last lines say how long the quota throttled it, during how
# many cells; the run row stores the CPUs it could use and the quota, each cell its
# throttling (NULL without a quota). The
# cgroup half needs a cgroup file system with the cpu controller that root may write
# (v1's cpu hierarchy or v2's with cpu in its subtree) and skips with the reason without.
source "$(dirname "$0")/link_lib.bash"
command -v taskset >/dev/null || fail "needs taskset (util-linux; scripts/deps.sh installs it)"
command -v sqlite3 >/dev/null || fail "needs the sqlite3 tool (scripts/deps.sh installs it for the tests)"
N=$(nproc --all)
[ "$N" -ge 2 ] || { echo "skip: one CPU online: nothing to restrict"; exit 77; }

cat >"$TMP/g.spec" <<'SPEC'
name = cpus-test
rtt = 50ms, 100ms
trials = 35
connections = 2
sig = ecdsa-p256
SPEC
S=$TMP/g.spec # 70 cells: more than one CPU's count, and than two CPUs' (40 here)
PER=$("$P" sweep --help | sed -n 's/.*auto: \([0-9][0-9]*\) per CPU.*/\1/p' | head -n 1)
[ -n "$PER" ] && [ "$PER" -ge 2 ] && [ "$PER" -lt 35 ] || fail "sweep --help does not say auto's count per CPU (2..34): '$PER'"

# The whole machine: PER per CPU online (up to 64; the grid's 70 cells are more), no note.
want=$((PER * N))
[ "$want" -le 64 ] || want=64
"$P" sweep "$S" --dry-run >"$TMP/all.out"
has "$TMP/all.out" "with up to $want at once (auto: $PER per CPU on $N CPUs"
if grep -q "this process may use" "$TMP/all.out"; then fail "a note on the CPUs without a restriction"; fi

# One CPU of the affinity mask: one CPU's count at once, and why.
taskset -c 0 "$P" sweep "$S" --dry-run >"$TMP/one.out"
has "$TMP/one.out" "with up to $PER at once (auto: $PER per CPU on 1 CPU;"
has "$TMP/one.out" "this process may use 1 CPU of $N online (the affinity mask allows 1)"

# A cgroup with a CPU quota of 1.5 CPUs.
CG=""
if [ -w /sys/fs/cgroup/cpu ] && [ -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
	CG=/sys/fs/cgroup/cpu/pqtls-test-$$
	mkdir "$CG"
	echo 100000 >"$CG/cpu.cfs_period_us"
	echo 150000 >"$CG/cpu.cfs_quota_us"
elif [ -e /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control; then
	CG=/sys/fs/cgroup/pqtls-test-$$
	mkdir "$CG"
	echo "150000 100000" >"$CG/cpu.max"
else
	echo "skip (the cgroup half): no writable cgroup with the cpu controller here; the affinity half passed"
	exit 0
fi
cleanup() {
	rmdir "$CG" 2>/dev/null || true
	cleanup_tmp
}
trap cleanup EXIT
inside() { bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$@"; }

inside "$P" sweep "$S" --dry-run >"$TMP/cg.out"
has "$TMP/cg.out" "with up to $PER at once (auto: $PER per CPU on 1 CPU;"
has "$TMP/cg.out" "a cgroup CPU quota of 1.50 CPUs; whole CPUs, at least 1)"

# How the CPUs are kept awake by default: the kernel's polling idle where the cpuidle
# driver has one (its time is idle, charged to no cgroup), else the spinners.
AWAKE=spin
if [ "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)" != none ] &&
	[ "$(cat /sys/devices/system/cpu/cpu0/cpuidle/state0/name 2>/dev/null)" = POLL ]; then AWAKE=poll; fi
awake_is() { # db, what run.keep_awake should be
	[ "$(sqlite3 "$1" "SELECT keep_awake FROM run")" = "$2" ] ||
		fail "$1: run.keep_awake is '$(sqlite3 "$1" "SELECT keep_awake FROM run")', not '$2'"
}

# Measured inside it: no spinners (polling, which the quota does not charge, where the
# machine has it), and the throttling counted.
inside "$P" sweep --sig ecdsa-p256 --rtt 10ms --connections 2 --no-check --out "$TMP/cg.db" \
	>"$TMP/run.out" 2>"$TMP/run.err" || { cat "$TMP/run.err"; fail "the sweep inside the cgroup failed"; }
if [ "$AWAKE" = poll ]; then
	awake_is "$TMP/cg.db" poll
else
	has "$TMP/run.err" "keep-awake off: a cgroup CPU quota of 1.50 CPUs is in force ($CG)"
	awake_is "$TMP/cg.db" off
fi
inside "$P" sweep --sig ecdsa-p256 --rtt 10ms --connections 2 --no-check --keep-awake spin --out "$TMP/cgs.db" \
	>"$TMP/runs.out" 2>"$TMP/runs.err" || { cat "$TMP/runs.err"; fail "the spinning sweep inside the cgroup failed"; }
has "$TMP/runs.err" "keep-awake off: a cgroup CPU quota of 1.50 CPUs is in force ($CG)"
awake_is "$TMP/cgs.db" off
has "$TMP/run.out" "cgroup: its CPU quota of 1.50 CPUs throttled the sweep's processes for "
has "$TMP/run.out" "1 cells measured, 0 already done, 0 failed"
grep -Eq "s in all \($CG/cpu.stat\), during [01] of its cells \(cell.host_throttled_us\)" "$TMP/run.out" ||
	fail "the throttling line does not say during how many of its 1 cell: $(grep '^cgroup:' "$TMP/run.out")"
# stored: what the run could use, the quota, and the cell's throttling (0 or more, known)
[ "$(sqlite3 "$TMP/cg.db" "SELECT cpus_usable || ' ' || cpu_quota || ' ' || cpu_count FROM run")" = "1 1.5 $N" ] ||
	fail "the run row does not store 1 usable CPU, the quota of 1.5 and $N online: $(sqlite3 "$TMP/cg.db" "SELECT cpus_usable, cpu_quota, cpu_count FROM run")"
[ "$(sqlite3 "$TMP/cg.db" "SELECT count(*) FROM cell WHERE host_throttled_us >= 0")" = 1 ] ||
	fail "the cell does not store its throttling under a quota"
# A quota that covers every CPU: counted as no restriction, and the spinners may run (they
# cannot push the sweep past it); the throttling line still reports it.
if [ -e "$CG/cpu.cfs_quota_us" ]; then echo $((N * 100000)) >"$CG/cpu.cfs_quota_us"; else echo "$((N * 100000)) 100000" >"$CG/cpu.max"; fi
inside "$P" sweep --sig ecdsa-p256 --rtt 10ms --connections 2 --no-check --out "$TMP/cg2.db" \
	>"$TMP/run3.out" 2>"$TMP/run3.err" || { cat "$TMP/run3.err"; fail "the sweep inside the wide cgroup failed"; }
if grep -q "keep-awake off" "$TMP/run3.err"; then fail "keep-awake off under a quota of every CPU"; fi
awake_is "$TMP/cg2.db" "$AWAKE"
has "$TMP/run3.out" "cgroup: its CPU quota of $N.00 CPUs throttled"
# and outside it the spinners run as before (the log says nothing of them)
"$P" sweep --sig ecdsa-p256 --rtt 10ms --connections 2 --no-check --out "$TMP/all.db" >"$TMP/run2.out" 2>"$TMP/run2.err"
if grep -q "keep-awake off" "$TMP/run2.err"; then fail "keep-awake off outside the cgroup"; fi
awake_is "$TMP/all.db" "$AWAKE"
if grep -q "^cgroup:" "$TMP/run2.out"; then fail "a quota's line outside the cgroup"; fi
[ "$(sqlite3 "$TMP/all.db" "SELECT cpus_usable || ' ' || coalesce(cpu_quota, 'none') FROM run")" = "$N none" ] ||
	fail "outside the cgroup the run row should store $N usable CPUs and no quota"
[ "$(sqlite3 "$TMP/all.db" "SELECT count(*) FROM cell WHERE host_throttled_us IS NULL")" = 1 ] ||
	fail "a cell without a quota stores a throttling"
echo "ok: auto counts the CPUs this process may use (affinity mask, cgroup quota)"
