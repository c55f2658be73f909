# Shared by tests/integration/tls_*.sh and bench/handshake-rate.sh: environment checks,
# a temporary directory and process cleanup, chains, and servers on free ports.
# Sourced; expects `set -euo pipefail` in the caller.

PQTLS=${PQTLS:-build/pqtls}
OPENSSL=${OPENSSL:-$HOME/.cache/pqtls/openssl-3.5.7/bin/openssl}
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ ! -x "$PQTLS" ]; then echo "skip: PQTLS=$PQTLS is not built"; exit 77; fi
if ! "$OPENSSL" version 2>/dev/null | grep -q '^OpenSSL 3\.[5-9]'; then
	echo "skip: OPENSSL=$OPENSSL is not OpenSSL >= 3.5"; exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/pqtls-test.XXXXXX")
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# expect_fail CODE PATTERN CMD...: CMD exits CODE and its stderr matches PATTERN.
expect_fail() {
	local code=$1 pat=$2; shift 2
	local rc=0
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = "$code" ] || { cat "$T/out" "$T/err"; fail "'$*' exited $rc, want $code"; }
	grep -q -- "$pat" "$T/err" || { cat "$T/err"; fail "'$*': stderr lacks '$pat'"; }
	pass "$(head -1 "$T/err")"
}

# chain KIND: prints the directory of a chain made once per test run.
chain() {
	local d=$T/chains/$1
	[ -f "$d/chain.pem" ] || OPENSSL=$OPENSSL bash "$LIB_DIR/mkchain.sh" "$1" "$d" >&2
	echo "$d"
}

# wait_for FILE PATTERN SECONDS: until FILE has a line matching PATTERN.
wait_for() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# start_serve NAME ARGS...: pqtls serve on a free loopback port. Sets ADDR_<NAME>,
# PID_<NAME>; its stdout is $T/NAME.out, stderr $T/NAME.err.
start_serve() {
	local name=$1; shift
	rm -f "$T/$name.addr"
	"$PQTLS" serve --listen 127.0.0.1:0 --ready-file "$T/$name.addr" "$@" \
		>"$T/$name.out" 2>"$T/$name.err" &
	local pid=$!
	PIDS+=("$pid")
	wait_for "$T/$name.addr" . 10 || { cat "$T/$name.err" >&2; fail "pqtls serve $name did not start"; }
	printf -v "ADDR_$name" '%s' "$(cat "$T/$name.addr")"
	printf -v "PID_$name" '%s' "$pid"
}

# stop_serve NAME: SIGTERM, wait, its summary is then in $T/NAME.out.
stop_serve() {
	local pid_var=PID_$1
	kill -TERM "${!pid_var}"
	wait "${!pid_var}" || fail "pqtls serve $1 exited with $?"
}

# start_s_server NAME ARGS...: openssl s_server on a free port (it prints ACCEPT HOST:PORT).
start_s_server() {
	local name=$1; shift
	rm -f "$T/$name.out" # a stale ACCEPT line must not pass for the new server's
	"$OPENSSL" s_server -accept 127.0.0.1:0 "$@" >"$T/$name.out" 2>"$T/$name.err" &
	local pid=$!
	PIDS+=("$pid")
	wait_for "$T/$name.out" '^ACCEPT' 10 || { cat "$T/$name.err" >&2; fail "s_server $name did not start"; }
	printf -v "ADDR_$name" '%s' "$(sed -n 's/^ACCEPT //p' "$T/$name.out" | head -1)"
	printf -v "PID_$name" '%s' "$pid"
}

# json_field FILE KEY: the values of "KEY":... in a JSON Lines file, one per line.
json_field() {
	grep -o "\"$2\":\(\"[^\"]*\"\|[^,}]*\)" "$1" | sed "s/^\"$2\"://; s/^\"//; s/\"\$//"
}

# Signature algorithm OpenSSL reports for each chain kind.
sigalg_of() {
	case $1 in
	ecdsa-p256) echo ecdsa_secp256r1_sha256 ;;
	rsa-2048) echo rsa_pss_rsae_sha256 ;;
	ml-dsa-44) echo mldsa44 ;;
	ml-dsa-65 | slh-128s) echo mldsa65 ;;
	ml-dsa-87) echo mldsa87 ;;
	esac
}

# s_server_certs DIR: the s_server options serving DIR's chain (s_server's -cert takes
# only the first certificate of a file, so the intermediates go in -cert_chain).
s_server_certs() {
	awk -v out="$1/.intermediates.pem" 'n >= 1 { print > out } /END CERTIFICATE/ { n++ }' "$1/chain.pem"
	echo "-cert $1/chain.pem -key $1/leaf.key -cert_chain $1/.intermediates.pem"
}
