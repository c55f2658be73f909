# Sourced by the sweep tests that need no link (a remote sweep): P (the binary), T (a
# temporary directory), fail, and a pqtls serve on loopback standing in for the remote
# host, its address in $addr and its chain in $T/chain. Extra arguments go to serve.
set -euo pipefail
P=$(readlink -f "${PQTLS:-build/pqtls}")
T=$(mktemp -d)
spid=
trap '[ -n "$spid" ] && kill $spid 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || fail "needs python3 (scripts/deps.sh installs it)"

"$P" certs --sig ecdsa-p256 --out "$T/chain" >/dev/null
"$P" serve --certs "$T/chain" --listen 127.0.0.1:0 --ready-file "$T/addr" "$@" 2>"$T/serve.err" &
spid=$!
for _ in $(seq 1 100); do [ -s "$T/addr" ] && break; sleep 0.05; done
[ -s "$T/addr" ] || { cat "$T/serve.err"; fail "the server did not start"; }
addr=$(cat "$T/addr")
