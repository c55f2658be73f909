#!/usr/bin/env bash
# Full TLS 1.3 handshakes per second and CPU time per handshake, from one run on this
# machine, side by side:
#   clients: pqtls bench vs openssl s_time, against the same openssl s_server;
#   servers: pqtls serve (one worker) vs openssl s_server, under the same pqtls bench load;
# for an ECDSA P-256 and an ML-DSA-65 chain, with OpenSSL's default groups (so
# X25519MLKEM768), and the crypto bound of each server from `openssl speed` of the same
# build: one signature plus one X25519MLKEM768 encapsulation (which includes the X25519
# half) per full handshake.
#
# The machine is shared, so each measurement is repeated ROUNDS times, interleaved (A B
# A B ...), and reported as the median with the range of the rounds.
# Usage: bench/handshake-rate.sh [SECONDS per measurement, default 3]
# Environment: PQTLS (default build/pqtls), OPENSSL (default: the cached 3.5 build),
# ROUNDS (default 3). With two or more CPUs the servers run on CPU 0 and the clients on
# CPU 1 (taskset), so "one core" means one.
# When valgrind is installed the clients, and the servers, are also compared by user-space
# instructions per handshake (callgrind; the difference of a short and a long run, so
# start-up cancels), which unlike CPU time does not move with the machine's other load.
# VALGRIND=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/integration/lib/common.sh
D=${1:-3}
ROUNDS=${ROUNDS:-3}

pin_server=() pin_client=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_server=(taskset -c 0) pin_client=(taskset -c 1)
fi
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
speed() { "${pin_server[@]}" "$OPENSSL" speed -seconds 2 "$@" 2>/dev/null; }
# speed_col NAME N: the Nth column from the end on the line naming NAME.
speed_col() { awk -v n="$2" -v name="$1" 'index($0, name) { v = $(NF - n + 1) } END { print v }'; }
# per_hs N ELAPSED USER SYS: "handshakes/s CPU-us-per-handshake"
per_hs() { awk -v n="$1" -v e="$2" -v u="$3" -v s="$4" 'BEGIN { printf "%.0f %.0f\n", n / e, (u + s) * 1e6 / n }'; }

client_s_time() {
	/usr/bin/time -f '%e %U %S' -o "$T/t.time" "${pin_client[@]}" "$OPENSSL" s_time \
		-connect "$1" -new -time "$D" >"$T/t.out" 2>&1
	local el us sy
	read -r el us sy <"$T/t.time"
	per_hs "$(awk '/connections in .* real seconds/ { print $1 }' "$T/t.out")" "$el" "$us" "$sy"
}

client_pqtls() {
	/usr/bin/time -f '%e %U %S' -o "$T/b.time" "${pin_client[@]}" "$PQTLS" bench "$1" --insecure \
		--requests-per-conn 0 -d "${D}s" --json >"$T/b.json"
	local el us sy
	read -r el us sy <"$T/b.time"
	per_hs "$(json_field "$T/b.json" ok)" "$el" "$us" "$sy"
}

# server_load ADDR PID: the same pqtls bench load (2 in flight, handshake only); the
# server's CPU from /proc.
server_load() {
	local c0 c1 n
	c0=$(cpu_ticks "$2")
	"${pin_client[@]}" "$PQTLS" bench "$1" --insecure --requests-per-conn 0 -c 2 -d "${D}s" --json >"$T/l.json"
	c1=$(cpu_ticks "$2")
	n=$(json_field "$T/l.json" ok)
	awk -v r="$(json_field "$T/l.json" conns_per_s)" -v c="$((c1 - c0))" -v t="$ticks" -v n="$n" \
		'BEGIN { printf "%.0f %.0f\n", r, c / t * 1e6 / n }'
}

# summary FILE COLUMN: "median (min-max)" of a column over the rounds.
summary() {
	sort -n -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.0f (%.0f-%.0f)", m, v[1], v[NR] }'
}
median() { sort -n -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Instructions per handshake under callgrind: (Ir(long) - Ir(short)) / (n(long) - n(short)).
collected() { sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$1"; }
ir_pqtls() {
	local n
	for n in 20 80; do
		valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$PQTLS" bench "$1" --insecure \
			--requests-per-conn 0 -n "$n" >/dev/null 2>"$T/vg.$n"
	done
	awk -v a="$(collected "$T/vg.20")" -v b="$(collected "$T/vg.80")" 'BEGIN { printf "%.2f", (b - a) / 60 / 1e6 }'
}
ir_s_time() {
	local t
	for t in 2 6; do
		valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$OPENSSL" s_time -connect "$1" \
			-new -time "$t" >"$T/st.$t" 2>"$T/vgs.$t"
	done
	awk -v a="$(collected "$T/vgs.2")" -v b="$(collected "$T/vgs.6")" \
		-v na="$(awk '/real seconds/ { print $1 }' "$T/st.2")" -v nb="$(awk '/real seconds/ { print $1 }' "$T/st.6")" \
		'BEGIN { printf "%.2f", (b - a) / (nb - na) / 1e6 }'
}
# ir_server DIR pqtls|s_server: the server under callgrind, loaded by pqtls bench (not under
# callgrind) with 20 and then 80 handshake-only connections; each server stops by SIGTERM
# (pqtls serve) or after -naccept connections (s_server) and reports its total.
ir_server() {
	local n pid addr
	for n in 20 80; do
		rm -f "$T/irs.addr" "$T/irs.out"
		if [ "$2" = pqtls ]; then
			valgrind --tool=callgrind --callgrind-out-file="$T/cgs.out" "$PQTLS" serve --certs "$1" \
				--listen 127.0.0.1:0 --ready-file "$T/irs.addr" >/dev/null 2>"$T/vgsrv.$n" &
			pid=$!
			PIDS+=("$pid")
			wait_for "$T/irs.addr" . 60 || fail "pqtls serve under valgrind did not start"
			addr=$(cat "$T/irs.addr")
		else
			# shellcheck disable=SC2046
			valgrind --tool=callgrind --callgrind-out-file="$T/cgs.out" "$OPENSSL" s_server \
				-accept 127.0.0.1:0 $(s_server_certs "$1") -www -naccept "$n" >"$T/irs.out" 2>"$T/vgsrv.$n" &
			pid=$!
			PIDS+=("$pid")
			wait_for "$T/irs.out" '^ACCEPT' 60 || fail "s_server under valgrind did not start"
			addr=$(sed -n 's/^ACCEPT //p' "$T/irs.out")
		fi
		"$PQTLS" bench "$addr" --insecure --requests-per-conn 0 -n "$n" --json >"$T/irs.json"
		[ "$(json_field "$T/irs.json" ok)" = "$n" ] || fail "$2 under valgrind: not all $n handshakes made"
		[ "$2" = pqtls ] && kill -TERM "$pid"
		wait "$pid" || true
	done
	awk -v a="$(collected "$T/vgsrv.20")" -v b="$(collected "$T/vgsrv.80")" 'BEGIN { printf "%.2f", (b - a) / 60 / 1e6 }'
}
use_valgrind=0
[ "${VALGRIND:-1}" != 0 ] && command -v valgrind >/dev/null && use_valgrind=1

out=()
line() { out+=("$(printf '%-11s %-46s %20s %20s' "$@")"); }

for kind in ecdsa-p256 ml-dsa-65; do
	dir=$(chain "$kind")
	case $kind in
	ecdsa-p256) sign=$(speed ecdsap256 | speed_col "ecdsa (nistp256)" 2); signame="ECDSA P-256 sign" ;;
	ml-dsa-65) sign=$(speed ML-DSA-65 | speed_col "ML-DSA-65" 2); signame="ML-DSA-65 sign" ;;
	esac
	encaps=$(speed X25519MLKEM768 | speed_col X25519MLKEM768 2)
	bound_us=$(awk -v s="$sign" -v e="$encaps" 'BEGIN { printf "%.1f", 1e6 / s + 1e6 / e }')

	rm -f "$T/ss.out" "$T/p.addr"
	# shellcheck disable=SC2046
	"${pin_server[@]}" "$OPENSSL" s_server -accept 127.0.0.1:0 $(s_server_certs "$dir") -www \
		>"$T/ss.out" 2>"$T/ss.err" &
	ss=$!
	"${pin_server[@]}" "$PQTLS" serve --certs "$dir" --listen 127.0.0.1:0 --ready-file "$T/p.addr" \
		>"$T/p.out" 2>"$T/p.err" &
	ps=$!
	PIDS+=("$ss" "$ps")
	wait_for "$T/ss.out" '^ACCEPT' 10 || fail "s_server did not start"
	wait_for "$T/p.addr" . 10 || fail "pqtls serve did not start"
	ss_addr=$(sed -n 's/^ACCEPT //p' "$T/ss.out")
	ps_addr=$(cat "$T/p.addr")

	: >"$T/c_stime" && : >"$T/c_pqtls" && : >"$T/s_ossl" && : >"$T/s_pqtls"
	for ((r = 0; r < ROUNDS; r++)); do
		client_s_time "$ss_addr" >>"$T/c_stime"
		client_pqtls "$ss_addr" >>"$T/c_pqtls"
		server_load "$ss_addr" "$ss" >>"$T/s_ossl"
		server_load "$ps_addr" "$ps" >>"$T/s_pqtls"
	done
	if [ "$use_valgrind" = 1 ]; then
		ir_st=$(ir_s_time "$ss_addr")
		ir_pq=$(ir_pqtls "$ss_addr")
	fi
	kill "$ss" "$ps"
	if [ "$use_valgrind" = 1 ]; then
		irs_ss=$(ir_server "$dir" s_server)
		irs_ps=$(ir_server "$dir" pqtls)
	fi

	line "$kind" "client: openssl s_time -new" "$(summary "$T/c_stime" 1)" "$(summary "$T/c_stime" 2)"
	line "$kind" "client: pqtls bench --requests-per-conn 0" "$(summary "$T/c_pqtls" 1)" "$(summary "$T/c_pqtls" 2)"
	line "$kind" "server: openssl s_server" "$(summary "$T/s_ossl" 1)" "$(summary "$T/s_ossl" 2)"
	line "$kind" "server: pqtls serve --threads 1" "$(summary "$T/s_pqtls" 1)" "$(summary "$T/s_pqtls" 2)"
	line "$kind" "crypto bound: $signame + KEM encaps" \
		"$(awk -v b="$bound_us" 'BEGIN { printf "%.0f", 1e6 / b }')" "$bound_us"
	out+=("$(printf '%-11s pqtls serve reaches %s %% of its crypto bound per CPU-second (goal 80 %%)' "$kind" \
		"$(awk -v b="$bound_us" -v c="$(median "$T/s_pqtls" 2)" 'BEGIN { printf "%.0f", 100 * b / c }')")")
	out+=("$(printf '%-11s openssl s_server reaches %s %% of the same bound' "$kind" \
		"$(awk -v b="$bound_us" -v c="$(median "$T/s_ossl" 2)" 'BEGIN { printf "%.0f", 100 * b / c }')")")
	out+=("$(printf '%-11s pqtls bench costs %s %% of the CPU of s_time per handshake (goal below 100 %%)' "$kind" \
		"$(awk -v b="$(median "$T/c_pqtls" 2)" -v s="$(median "$T/c_stime" 2)" 'BEGIN { printf "%.0f", 100 * b / s }')")")
	if [ "$use_valgrind" = 1 ]; then
		out+=("$(printf '%-11s user-space instructions per handshake (callgrind): s_time %s M, pqtls bench %s M (%s %%)' \
			"$kind" "$ir_st" "$ir_pq" "$(awk -v a="$ir_pq" -v b="$ir_st" 'BEGIN { printf "%.1f", 100 * a / b }')")")
		out+=("$(printf '%-11s user-space instructions per handshake (callgrind): s_server %s M, pqtls serve %s M (%s %%)' \
			"$kind" "$irs_ss" "$irs_ps" "$(awk -v a="$irs_ps" -v b="$irs_ss" 'BEGIN { printf "%.1f", 100 * a / b }')")")
	fi
done

echo "handshake rate: $(nproc) CPUs$([ ${#pin_server[@]} -gt 0 ] && echo ', servers on CPU 0, clients on CPU 1'), ${D} s per measurement, median (range) of $ROUNDS interleaved rounds, $("$OPENSSL" version | cut -d' ' -f1-2)"
printf '%-11s %-46s %20s %20s\n' chain what handshakes/s "CPU us/handshake"
printf '%s\n' "${out[@]}"
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); other work on this machine adds noise)"
