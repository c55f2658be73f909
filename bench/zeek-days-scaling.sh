#!/usr/bin/env bash
# `zeek summary --by day` against the number of distinct days: logs of N and 4N rows,
# one day each (ts = i days from 1995-01-01, so up to ~38,000 plausible days and the rest
# past 2100), timed in the same run. Linear time in rows prints a ratio near 4 for 4x
# the rows; the quadratic trend of old printed ~14 (8,000 -> 32,000 days: 0.28 -> 3.8 s).
# A peer in the same run: `wc -l` over the same files (the cost of reading them at all).
# --ranges none: the built-in ranges take a fixed ~1 s to load, which would hide the ratio.
#   N=50000 bash bench/zeek-days-scaling.sh      (PQTLS=path/to/pqtls; BASE=older build)
set -euo pipefail
PQTLS=${PQTLS:-build/pqtls}
N=${N:-50000}
BASE=${BASE:-}
[ -x "$PQTLS" ] || { echo "zeek-days-scaling: PQTLS=$PQTLS is not built" >&2; exit 1; }
T=$(mktemp -d /tmp/pqtls-zeek-days.XXXXXX)
trap 'rm -rf "$T"' EXIT
for n in "$N" $((4 * N)); do
	python3 - "$T/$n.log" "$n" <<'PY'
import sys
out, n = sys.argv[1], int(sys.argv[2])
with open(out, "w") as f:
    f.write("#fields\tts\tid.resp_h\tversion\tresumed\n")
    for i in range(n):
        f.write("%d\t10.0.%d.%d\tTLSv13\tT\n" % (788918400 + i * 86400, i % 200, i % 250 + 1))
PY
done
# best of three: the least disturbed by other load on a shared machine
secs() {
	local best=
	for _ in 1 2 3; do
		local t0 t1
		t0=$(date +%s.%N)
		"$@" >/dev/null
		t1=$(date +%s.%N)
		best=$(python3 -c "t=$t1-$t0; b='$best'; print(t if not b or t < float(b) else b)")
	done
	echo "$best"
}
for bin in "$PQTLS" ${BASE:+"$BASE"}; do
	a=$(secs "$bin" zeek summary "$T/$N.log" --by day --threads 1 --ranges none)
	b=$(secs "$bin" zeek summary "$T/$((4 * N)).log" --by day --threads 1 --ranges none)
	python3 -c "print('%s: %d rows %.3f s, %d rows %.3f s: x%.2f for x4 rows (linear: ~4)' % ('$bin', $N, $a, 4 * $N, $b, $b / $a))"
done
a=$(secs wc -l "$T/$N.log")
b=$(secs wc -l "$T/$((4 * N)).log")
python3 -c "print('wc -l (peer): x%.2f for x4 rows' % ($b / $a))"
