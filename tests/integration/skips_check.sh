#!/usr/bin/env bash
# scripts/check-skips.sh (run by `make test` after ctest) lets through only the
# documented skip reasons, and refuses an undocumented reason, a skip without a reason
# and a cmocka test that skipped. Runs on made-up ctest output; needs nothing built.
set -euo pipefail
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/pqtls-skips.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# block NAME OUTPUT: one test's entry in LastTest.log.
block() { printf '1/2 Testing: %s\n1/2 Test: %s\nOutput:\n----\n%s\n<end of output>\nTest Passed.\n' "$1" "$1" "$2"; }
# expect RC CTEST_OUT LOG
expect() {
	local rc=0
	printf '%s\n' "$2" >"$T/out"
	printf '%s\n' "$3" >"$T/log"
	bash "$SRC/scripts/check-skips.sh" "$T/out" "$T/log" >"$T/msg" 2>&1 || rc=$?
	[ "$rc" = "$1" ] || { cat "$T/msg"; fail "check-skips exited $rc, want $1"; }
	echo "ok: $(tail -n 1 "$T/msg")"
}
list() { printf 'The following tests did not run:\n\t  3 - %s (Skipped)\n' "$1"; }

expect 0 "100% tests passed" "$(block unit/test_core '[  PASSED  ] 3 test(s).')"
expect 0 "$(list integration/link_run)" "$(block integration/link_run 'skip: needs root (network namespaces, TUN)')"
expect 0 "$(list integration/certs_inspect_web)" \
	"$(block integration/certs_inspect_web 'skip: x/chains_manifest.csv absent (../shared not here)')"
expect 1 "$(list integration/tls_badpeers)" "$(block integration/tls_badpeers 'skip: needs python3 to play the peers')"
expect 1 "$(list integration/quiet)" "$(block integration/quiet 'nothing said')"
expect 1 "100% tests passed" "$(block unit/test_steal '[  SKIPPED ] reads_this_machine')"
