#!/usr/bin/env bash
# The libFuzzer targets (fuzz/fuzz_NAME.c, seeds in fuzz/corpus/NAME/), built with clang
# in their own directory, and run one after another.
#
#   scripts/fuzz.sh short   each target for FUZZ_SHORT_SECONDS (default 3) on the fixed
#                           corpus plus what earlier runs found; part of `make test`
#   scripts/fuzz.sh long    each target for FUZZ_SECONDS (default 300); `make fuzz`
#
# Environment: BUILD_FUZZ (default build-fuzz), PQTLS_OPENSSL (the prefix CMake gets;
# default: what build/openssl-prefix says), FUZZ_TARGETS (names to run; default all).
# New inputs a run finds go to BUILD_FUZZ/corpus/NAME, crashes to BUILD_FUZZ/artifacts/.
# Without clang or libFuzzer the run is skipped with the reason (exit 0: an optional part).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case $mode in
short) secs=${FUZZ_SHORT_SECONDS:-3} ;;
long) secs=${FUZZ_SECONDS:-300} ;;
*) echo "usage: scripts/fuzz.sh short|long" >&2; exit 2 ;;
esac
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: seconds must be a positive whole number, not '$secs'" >&2; exit 2; }
B=${BUILD_FUZZ:-build-fuzz}
OSSL=${PQTLS_OPENSSL:-$(cat build/openssl-prefix 2>/dev/null || echo system)}

if ! command -v clang >/dev/null; then
	echo "fuzz: skipped: clang is not installed (Debian: clang, libclang-rt-14-dev)"
	exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! clang -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
	echo "fuzz: skipped: clang cannot link libFuzzer (Debian: libclang-rt-14-dev)"
	exit 0
fi

CC=clang cmake -S . -B "$B" -DPQTLS_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug -DPQTLS_OPENSSL="$OSSL" >/dev/null
cmake --build "$B" -j "$(nproc)" >/dev/null
mkdir -p "$B/artifacts"
names=${FUZZ_TARGETS:-$(ls fuzz/fuzz_*.c | sed 's|fuzz/fuzz_||; s|\.c$||')}
failed=0
for name in $names; do
	exe=$B/fuzz_$name
	[ -x "$exe" ] || { echo "fuzz: no target fuzz/fuzz_$name.c" >&2; exit 2; }
	mkdir -p "$B/corpus/$name"
	seeds=fuzz/corpus/$name
	[ -d "$seeds" ] || seeds=
	log=$B/fuzz_$name.log
	# The first corpus directory receives what the run finds; the repo's stays fixed.
	if "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$B/artifacts/$name-" "$B/corpus/$name" $seeds >"$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "fuzz: $name: clean, ${execs:-?} executions in ${secs} s"
	else
		echo "fuzz: $name: FAILED (log: $log; the input is in $B/artifacts/)" >&2
		tail -n 30 "$log" >&2
		failed=1
	fi
done
exit $failed
