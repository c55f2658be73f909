# Shared by the link_*.sh tests (sourced; not a test itself).
# Skips (exit 77) with a reason when the machine cannot build links.
: "${PQTLS:?PQTLS must point at the pqtls binary}"
P=$PQTLS
if [ "$(id -u)" != 0 ]; then echo "skip: needs root (network namespaces, TUN)"; exit 77; fi
if [ ! -c /dev/net/tun ]; then echo "skip: no /dev/net/tun"; exit 77; fi
if ! command -v ip >/dev/null; then echo "skip: needs iproute2 (ip)"; exit 77; fi
if ! unshare -n true 2>/dev/null; then echo "skip: cannot create network namespaces here"; exit 77; fi

TMP=$(mktemp -d)
cleanup_tmp() { rm -rf "$TMP"; }
trap cleanup_tmp EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# assert that file $1 contains the fixed string $2
has() { grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "expected '$2' in $1"; }; }
# The process that measures for a `pqtls sweep` started as PID: its child that leads a
# session of its own (the sweep measures there when that raises the endpoints' group,
# docs/sweep.md), else PID itself. A cell's server is a child of that process.
sweep_measurer() {
	local c
	for c in $(pgrep -P "$1" -x pqtls); do
		[ "$(ps -o sess= -p "$c" | tr -d ' ')" = "$c" ] && { echo "$c"; return; }
	done
	echo "$1"
}
