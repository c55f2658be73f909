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
# wait_listening NAME PORT: until something listens on TCP PORT in link NAME's server
# namespace (up to 10 s, for a busy machine); 1 when nothing did.
wait_listening() {
	local hex
	hex=$(printf '%04X' "$2")
	for _ in $(seq 200); do
		ip netns exec "$1-s" cat /proc/net/tcp | awk '$4 == "0A"' | grep -qi ":$hex " && return 0
		sleep 0.05
	done
	return 1
}
# sweep_measurer PID: the process that measures for a `pqtls sweep` (lib/sweep.bash)
source "$(dirname "${BASH_SOURCE[0]}")/lib/sweep.bash"
