#!/usr/bin/env bash
# How fast `pqtls zeek summary` reads ssl.log, beside peers measured in the same run:
#   - an awk script that only counts `resumed` (column from each #fields header),
#   - a Python reader in the style of zat's LogReader (a dict per row), counting the same,
#   - for gzip input, `zcat > /dev/null`, the cost of decompression alone.
# The log is built from the real rows of the Zeek logs in ../shared/data/zeek (every TSV
# ssl log with its own header block, so the file has many blocks and both schemas), with
# id.resp_h spread over SERVERS addresses (half drawn from the shipped CDN/cloud ranges)
# and ts over 16 months, repeated to SIZE bytes; it lives in a temporary directory under
# /tmp and is deleted at the end. pqtls classifies with the built-in ranges and, when the
# MaxMind test DB is there, by ASN too (its test DB covers few addresses: the lookups are
# real, most answers empty).
#   SIZE=2G SERVERS=200000 DIST=uniform|zipf THREADS=$(nproc) bash bench/zeek-throughput.sh
# BASE=/path/to/an/older/pqtls adds that build, 1 thread, timed just before this one's
# (a before/after comparison on the same file under the same load).
# KEEP=path only builds the log and moves it there (no timing), e.g. a small one for
# callgrind, whose instruction counts are stable on a busy machine:
#   SIZE=20M SERVERS=2000 KEEP=/tmp/cg.log bash bench/zeek-throughput.sh
#   valgrind --tool=callgrind --toggle-collect=pq_zeek_run build/pqtls zeek summary --threads 1 /tmp/cg.log
# Goal (issue 11): >= 1 GB/s per core on uncompressed TSV while classifying.
set -euo pipefail
PQTLS=${PQTLS:-build/pqtls}
SHARED=${PQTLS_SHARED:-$(dirname "$0")/../../shared}
Z=$SHARED/data/zeek
SIZE=${SIZE:-2G}
SERVERS=${SERVERS:-200000}
DIST=${DIST:-uniform} # uniform: every server as likely (no locality, the hard case); zipf: popularity 1/rank
THREADS=${THREADS:-$(nproc)}
PY_MB=${PY_MB:-200}
BASE=${BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "zeek-throughput: BASE=$BASE is not an executable" >&2; exit 1; }
[ -x "$PQTLS" ] || { echo "zeek-throughput: PQTLS=$PQTLS is not built" >&2; exit 1; }
[ -d "$Z" ] || { echo "zeek-throughput: $Z is absent (set PQTLS_SHARED)" >&2; exit 1; }
case $SIZE in *G) bytes=$((${SIZE%G} << 30)) ;; *M) bytes=$((${SIZE%M} << 20)) ;; *) bytes=$SIZE ;; esac
T=$(mktemp -d /tmp/pqtls-zeek-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT

echo "zeek-throughput: building a $SIZE log from the real rows of $Z in $T" >&2
python3 - "$T/big.log" "$bytes" "$SERVERS" "$DIST" "$(dirname "$0")/../data/zeek/cdncheck-sources_data.json.gz" \
	"$Z"/zeek-btest-baselines-v4.0.0/*ssl*.log "$Z"/zeek-btest-baselines-v8/*__ssl*.log "$Z"/zat/ssl.log "$Z"/zat/tor_ssl.log <<'PY'
import gzip, ipaddress, json, random, sys
out, size, nserv, dist, ranges, logs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6:]
rng = random.Random(11)
nets = [ipaddress.ip_network(c) for g in ("cdn", "cloud") for v in json.load(gzip.open(ranges))[g].values() for c in v]
nets = [n for n in nets if n.version == 4]
pool = []
for i in range(nserv):
    if i % 2:
        n = rng.choice(nets)
        pool.append(str(n.network_address + rng.randrange(n.num_addresses)).encode())
    else:
        pool.append(b"%d.%d.%d.%d" % (rng.randrange(1, 224), rng.randrange(256), rng.randrange(256), rng.randrange(1, 255)))
if dist == "zipf":
    import bisect, itertools
    cum = list(itertools.accumulate(1.0 / (k + 1) for k in range(nserv)))
    pick = lambda: pool[min(bisect.bisect(cum, rng.random() * cum[-1]), nserv - 1)]
else:
    pick = lambda: rng.choice(pool)
blocks = []
for path in logs:
    head, rows, col, tcol = [], [], None, None
    for line in open(path, "rb"):
        if line.startswith(b"#"):
            if not line.startswith(b"#close") and not line.startswith(b"###"):
                head.append(line)
            if line.startswith(b"#fields"):
                f = line.rstrip(b"\n").split(b"\t")[1:]
                col, tcol = f.index(b"id.resp_h"), f.index(b"ts")
        elif col is not None:
            rows.append(line.rstrip(b"\n").split(b"\t"))
    if rows:
        blocks.append((b"".join(head), rows, col, tcol))
t0, span = 1735689600, 16 * 30 * 86400
written = 0
with open(out, "wb") as f:
    while written < size:
        for head, rows, col, tcol in blocks:
            # ~4 MiB of distinct rows per header block, as hourly rotated logs: the block's
            # real rows again and again, each with its own server and time.
            chunk, n = [head], 0
            while n < 4 << 20:
                for r in rows:
                    r = list(r)
                    r[col] = pick()
                    r[tcol] = b"%d.%06d" % (t0 + rng.randrange(span), rng.randrange(10**6))
                    line = b"\t".join(r) + b"\n"
                    chunk.append(line)
                    n += len(line)
            data = b"".join(chunk)
            f.write(data)
            written += len(data)
PY
if [ -n "${KEEP:-}" ]; then
	mv "$T/big.log" "$KEEP"
	echo "zeek-throughput: kept $KEEP ($(grep -vc '^#' "$KEEP") rows)" >&2
	exit 0
fi
mb=$(($(stat -c %s "$T/big.log") / 1000000))
echo "zeek-throughput: $mb MB, $(grep -c '^#fields' "$T/big.log") header blocks, $SERVERS servers ($DIST); gzip -1 copy" >&2
gzip -1 -c "$T/big.log" >"$T/big.log.gz"
gzmb=$(($(stat -c %s "$T/big.log.gz") / 1000000))
cat "$T/big.log" >/dev/null # into the page cache for everyone alike

ASN=()
DB=$SHARED/data/mmdb/test-data/GeoLite2-ASN-Test.mmdb
[ -f "$DB" ] && ASN=(--asn-db "$DB")

# run LABEL MB THREADS CMD...: wall and CPU seconds; prints MB/s and MB per CPU second.
TIMEFORMAT='%R %U %S'
run() {
	local label=$1 size=$2 thr=$3; shift 3
	local t
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1 | tail -1) || true
	read -r wall user sys <<<"$t"
	awk -v l="$label" -v mb="$size" -v w="$wall" -v u="$user" -v s="$sys" -v n="$thr" 'BEGIN {
		printf "%-46s %8.0f MB %7.2f s %8.0f MB/s %8.0f MB/s/core %8.0f MB/cpu-s\n", l, mb, w, mb / w, mb / w / n, mb / (u + s) }'
}
AWK='/^#fields/ { for (i = 2; i <= NF; i++) if ($i == "resumed") c = i - 1; next } /^#/ { next } $c == "T" { n++ } END { print n }'
head -c $((PY_MB * 1000000)) "$T/big.log" | sed '$d' >"$T/py.log"
pymb=$(($(stat -c %s "$T/py.log") / 1000000))

echo "zeek-throughput: $(nproc) cores here (load $(cut -d' ' -f1 /proc/loadavg)); MB = 10^6 bytes" >&2
printf '%-46s %11s %9s %13s %18s %16s\n' reader input wall rate "per core" "per CPU-second"
[ -n "$BASE" ] && run "BASE build ($BASE), 1 thread, classifying" "$mb" 1 "$BASE" zeek summary --threads 1 "${ASN[@]}" "$T/big.log"
run "pqtls zeek summary, 1 thread, classifying" "$mb" 1 "$PQTLS" zeek summary --threads 1 "${ASN[@]}" "$T/big.log"
run "pqtls zeek summary, $THREADS threads, classifying" "$mb" "$THREADS" "$PQTLS" zeek summary --threads "$THREADS" "${ASN[@]}" "$T/big.log"
run "awk ($(readlink -f "$(command -v awk)" | xargs basename)), counts resumed only" "$mb" 1 awk -F'\t' "$AWK" "$T/big.log"
command -v gawk >/dev/null && run "gawk, counts resumed only" "$mb" 1 gawk -F'\t' "$AWK" "$T/big.log"
run "python, zat-style dict per row (${pymb} MB)" "$pymb" 1 python3 -c '
import sys
n = 0
fields = None
for line in open(sys.argv[1]):
    if line.startswith("#fields"):
        fields = line.rstrip("\n").split("\t")[1:]
    elif not line.startswith("#"):
        row = dict(zip(fields, line.rstrip("\n").split("\t")))
        n += row.get("resumed") == "T"
print(n)' "$T/py.log"
run "pqtls zeek summary, gzip input, 1 thread" "$mb" 1 "$PQTLS" zeek summary --threads 1 "${ASN[@]}" "$T/big.log.gz"
run "zcat > /dev/null (decompression alone)" "$mb" 1 sh -c "zcat '$T/big.log.gz' > /dev/null"
echo "(gzip input: $gzmb MB compressed, rates per uncompressed MB)"
