#!/usr/bin/env python3
"""Where the endpoints' waits for a CPU went (bench/waits.sh): reads `perf sched timehist`
of a sweep and, for every wait of a cell's client or server (the time it was runnable and
not running, as the kernel's run_delay counts it), what ran on the CPU it then ran on
during that wait. Optionally the sweep's results database, for its connections and for
the waits the cells stored (to compare with the trace's).

    python3 bench/waits.py TIMEHIST [RESULTS.db]
"""
import bisect
import collections
import re
import sqlite3
import sys
import urllib.parse

# Thread names as pqtls gives them (src/core/sched.h); a process's first thread stays
# `pqtls`: a worker's (the process that also holds a `pqtls-fwd` thread) is the cell's
# client, any other is the sweep's own (its dispatcher, a server's first thread).
KINDS = [
    ("pqtls-fwd", "forwarders (real-time; with the kernel's receive path of what they write)"),
    ("pqtls-srv", "servers"),
    ("pqtls", "clients (a worker's first thread)"),
    ("sweep", "the sweep's own processes (dispatcher; servers' first threads)"),
    ("pqtls-awake", "keep-awake spinners (SCHED_IDLE)"),
    ("setup", "link set-up (ip, tc) and servers' start (exec)"),
    ("kernel", "kernel threads (kworker, ksoftirqd, rcu, ...)"),
    ("idle", "idle (the wake-up itself)"),
    ("perf", "perf, recording"),
    ("other", "anything else"),
]
LABEL = dict(KINDS)
LINE = re.compile(r"^\s*(\d+\.\d+)\s+\[(\d+)\]\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")
TASK = re.compile(r"^(.*)\[(\d+)(?:/(\d+))?\]$")


def kind(name):
    if name in ("pqtls-fwd", "pqtls-srv", "pqtls", "pqtls-awake", "perf"):
        return name
    if name in ("ip", "tc", "exe"):
        return "setup"
    if name == "<idle>":
        return "idle"
    if re.match(r"^(kworker|ksoftirqd|rcu|migration|kcompactd|kdamond|kthreadd|khugepaged|kswapd)", name):
        return "kernel"
    return "other"


def read(path):
    raw, workers = [], set()
    try:
        lines = open(path, errors="replace").readlines()
    except OSError as e:
        sys.exit("waits: cannot read the trace %s: %s" % (path, e.strerror))
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        end, cpu, task = float(m.group(1)), int(m.group(2)), m.group(3)
        delay, run = float(m.group(5)) / 1e3, float(m.group(6)) / 1e3
        t = TASK.match(task)
        name, pid = (t.group(1), int(t.group(3) or t.group(2))) if t else (task, -1)
        if name == "pqtls-fwd":
            workers.add(pid)
        raw.append((end - run, end, cpu, name, pid, delay))
    runs = []  # (start, end, cpu, kind, sch_delay_s)
    for s, e, cpu, name, pid, delay in raw:
        k = kind(name)
        if k == "pqtls" and pid not in workers:
            k = "sweep"
        runs.append((s, e, cpu, k, delay))
    return runs


def read_db(path):
    """The sweep's cells, connections and stored waits; read-only (a missing file is not made)."""
    try:
        db = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(path), uri=True)
        cells, conns = db.execute("select count(*), sum(connections) from cell").fetchone()
        row = db.execute("select avg(host_client_wait_p50_us), avg(host_server_wait_p50_us),"
                         " avg(host_cells_at_once) from cell").fetchone()
    except sqlite3.Error as e:
        sys.exit("waits: %s is not a pqtls results database (%s); give the sweep's -o file" % (path, e))
    return cells, conns, {"pqtls": row[0], "pqtls-srv": row[1], "at_once": row[2]}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: waits.py TIMEHIST [RESULTS.db]")
    runs = read(sys.argv[1])
    if not runs:
        sys.exit("waits: no scheduling events in %s (perf sched timehist printed nothing)" % sys.argv[1])
    span = max(r[1] for r in runs) - min(r[0] for r in runs)
    by_cpu = collections.defaultdict(list)
    busy = collections.Counter()
    for s, e, cpu, k, _ in runs:
        by_cpu[cpu].append((s, e, k))
        busy[k] += e - s
    starts = {}
    for cpu, lst in by_cpu.items():
        lst.sort()
        starts[cpu] = [x[0] for x in lst]
    waited = collections.Counter()
    blame = {k: collections.Counter() for k in ("pqtls", "pqtls-srv")}
    for s, e, cpu, k, delay in runs:
        if k not in blame or delay <= 0:
            continue
        a, b = s - delay, s
        waited[k] += delay
        lst, i = by_cpu[cpu], max(0, bisect.bisect_left(starts[cpu], a) - 1)
        covered = 0.0
        while i < len(lst) and lst[i][0] < b:
            o = min(lst[i][1], b) - max(lst[i][0], a)
            if o > 0:
                blame[k][lst[i][2]] += o
                covered += o
            i += 1
        if delay > covered:
            blame[k]["idle"] += delay - covered
    conns = cells = None
    stored = {}
    if len(sys.argv) == 3:
        cells, conns, stored = read_db(sys.argv[2])
    print("trace: %.1f s, %d CPUs%s" % (span, len(by_cpu), "" if cells is None else
          "; %d cells, %d connections, %.1f cells at once on average" % (cells, conns, stored["at_once"] or 0)))
    print("\nCPU time by kind (share of one CPU over the trace):")
    for k, label in KINDS:
        if busy[k] > 0:
            print("  %-70s %8.1f s %6.1f %%" % (label, busy[k], 100 * busy[k] / span))
    for k, who in (("pqtls", "clients"), ("pqtls-srv", "servers")):
        total = waited[k]
        if total <= 0:
            continue
        per = "" if not conns else "; %.2f ms a connection" % (1e3 * total / conns)
        if stored.get(k) is not None:
            per += " (the cells stored a median connection's %.2f ms on average)" % (stored[k] / 1e3)
        print("\nthe %s waited %.1f s for a CPU in all%s; on that CPU meanwhile:" % (who, total, per))
        for culprit, v in blame[k].most_common():
            print("  %-70s %8.2f s %6.1f %%" % (LABEL[culprit], v, 100 * v / total))


if __name__ == "__main__":
    main()
