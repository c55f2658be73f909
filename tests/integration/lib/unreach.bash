# Sourced by tls_unreachable.sh and check_unreachable.sh, after common.sh: a network
# namespace of our own ($NS, removed on exit) where every way of not reaching a host is at
# hand: 192.0.2.1 has no route at all (ENETUNREACH), 198.51.100.0/24 an "unreachable"
# route (EHOSTUNREACH), 203.0.113.0/24 a blackhole route (connect says EINVAL), and
# 10.9.0.2 a neighbour that never answers, so the SYNs vanish and only a timeout ends the
# wait. Skips (77) without root, iproute2 or namespaces. $1: the namespace's name prefix.
if [ "$(id -u)" != 0 ]; then echo "skip: needs root (network namespaces)"; exit 77; fi
if ! command -v ip >/dev/null; then echo "skip: needs iproute2 (ip)"; exit 77; fi
NS=$1-$$
if ! ip netns add "$NS" 2>/dev/null; then echo "skip: cannot create network namespaces here"; exit 77; fi
trap 'ip netns del "$NS" 2>/dev/null || true; cleanup' EXIT

ipn() { ip -n "$NS" "$@"; }
ipn link set lo up
ipn link add v0 type veth peer name v1
ipn addr add 10.9.0.1/24 dev v0
ipn link set v0 up
ipn link set v1 up
# 10.9.0.2 "is" on v0's link (a permanent neighbour entry, so no ARP failure), but
# nothing there answers: v1 has no address and drops what it receives.
ipn neigh add 10.9.0.2 lladdr 02:00:00:00:00:02 dev v0 nud permanent
ipn route add unreachable 198.51.100.0/24
ipn route add blackhole 203.0.113.0/24
