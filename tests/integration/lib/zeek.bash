# Shared by tests/integration/zeek_*.sh (sourced; expects `set -euo pipefail`): the binary,
# python3 (the independent reference), a temporary directory removed at exit, messages.
: "${PQTLS:?PQTLS must name the pqtls binary}"
command -v python3 >/dev/null || { echo "FAIL: python3 is absent (scripts/deps.sh installs it)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/pqtls-zeek.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# expect_err CODE PATTERN CMD...: CMD exits CODE and its stderr matches PATTERN.
expect_err() {
	local code=$1 pat=$2; shift 2
	local rc=0
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = "$code" ] && grep -q -- "$pat" "$T/err" || { cat "$T/out" "$T/err"; fail "'$*' exited $rc, want $code and '$pat'"; }
	pass "$(head -1 "$T/err")"
}
