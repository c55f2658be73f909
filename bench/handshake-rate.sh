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
# The machine is shared and its speed drifts, so each measurement is repeated ROUNDS
# times, interleaved (A B A B ...), and reported as the median with the range of the
# rounds. The crypto bound is measured again in every round, just before the servers,
# and each server's share of it is taken within its round.
# Server CPU is the sum over the server's threads of the kernel's run time
# (/proc/PID/task/*/schedstat, in ns; steal time is not in it). The load keeps LOAD
# connections in flight (default 8) so that a server that is faster than one client
# core still has work queued; the "busy" column says how close the server came to
# using its whole core.
# Usage: bench/handshake-rate.sh [SECONDS per measurement, default 3]
# Environment: PQTLS (default build/pqtls), OPENSSL (default: the cached 3.5 build),
# ROUNDS (default 5), LOAD (default 8). With two or more CPUs the servers run on CPU 0
# and the clients on CPU 1 (taskset), so "one core" means one.
# OpenSSL's own cost per handshake, with no sockets, kernel or peer process, comes from
# pqtls-inmem (built beside pqtls: both sides in one thread over a memory BIO pair, the
# server's CPU counted alone); each server's CPU per handshake is also set against it.
# When valgrind is installed the clients, and the servers, are also compared by user-space
# instructions per handshake (callgrind; the difference of a short and a long run, so
# start-up cancels), which unlike CPU time does not move with the machine's other load.
# For the servers it also gives the share of those instructions spent in the bound's
# own crypto (the signature and the encapsulation): a ceiling on what the server can
# reach of the bound even if the kernel and the rest of the TLS stack cost no time of
# their own. (ML-DSA signing repeats a random number of times, so its instruction count
# moves from run to run; the count outside the crypto is the steady one.)
# VALGRIND=0 skips it. When perf works, the share of each server's CPU time
# spent in that crypto is also sampled, in the same run (PERF=0 skips it).
# Verdicts at the end, against the goals (docs/tls.md, "Goals"):
#   server: pqtls serve reaches at least 90 % of OpenSSL alone in memory (pqtls-inmem)
#           for both chains, and costs less CPU per handshake than openssl s_server in
#           the same run (medians of the rounds);
#   client: pqtls bench costs less than openssl s_time per handshake, by user-space
#           instructions (callgrind) when valgrind is present, by CPU time otherwise.
set -euo pipefail
D=${1:-3}
ROUNDS=${ROUNDS:-5}
LOAD=${LOAD:-8}
# Checked before anything runs: one argument at most, and each a whole number >= 1.
if [ "$#" -gt 1 ]; then
	echo "handshake-rate: one argument at most (usage: bench/handshake-rate.sh [SECONDS per measurement])" >&2
	exit 2
fi
for v in "SECONDS=$D" "ROUNDS=$ROUNDS" "LOAD=$LOAD"; do
	if ! [[ ${v#*=} =~ ^[1-9][0-9]*$ ]]; then
		echo "handshake-rate: ${v%%=*} '${v#*=}' is not a whole number of at least 1" \
			"(usage: bench/handshake-rate.sh [SECONDS per measurement]; ROUNDS and LOAD from the environment)" >&2
		exit 2
	fi
done
cd "$(dirname "$0")/.."
source tests/integration/lib/common.sh

pin_server=() pin_client=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_server=(taskset -c 0) pin_client=(taskset -c 1)
fi
# cpu_ns PID: run time of all the process's threads so far, in ns.
cpu_ns() { cat "/proc/$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'; }
speed() { "${pin_server[@]}" "$OPENSSL" speed -seconds 1 "$@" 2>/dev/null; }
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

# server_load ADDR PID: the same pqtls bench load (LOAD in flight, handshake only) for
# every server; prints "handshakes/s CPU-us-per-handshake busy-%" from the server's
# run time.
server_load() {
	local c0 c1 n
	c0=$(cpu_ns "$2")
	"${pin_client[@]}" "$PQTLS" bench "$1" --insecure --requests-per-conn 0 -c "$LOAD" -d "${D}s" \
		--json >"$T/l.json"
	c1=$(cpu_ns "$2")
	n=$(json_field "$T/l.json" ok)
	awk -v r="$(json_field "$T/l.json" conns_per_s)" -v c="$((c1 - c0))" -v n="$n" \
		-v e="$(json_field "$T/l.json" wall_s)" \
		'BEGIN { printf "%.0f %.0f %.0f\n", r, c / 1e3 / n, 100 * c / 1e9 / e }'
}

# perf_share ADDR PID SIGN-FUNCTION: under the same load, the share of the server's CPU
# time (user and kernel, sampled by perf with DWARF call graphs) spent inside
# SIGN-FUNCTION and mlx_kem_encapsulate: the bound's own crypto, timed in the same run
# as everything else the server does, so the machine's drift cancels. If the crypto
# ran as fast inside the server as under openssl speed, this would equal the share of
# the bound the server reaches.
perf_share() {
	perf record -q -e cpu-clock -F 1999 --call-graph dwarf,16384 -p "$2" -o "$T/perf.data" \
		-- sleep "$D" >/dev/null 2>&1 &
	local pp=$!
	"${pin_client[@]}" "$PQTLS" bench "$1" --insecure --requests-per-conn 0 -c "$LOAD" -d "${D}s" \
		--json >"$T/pl.json"
	wait "$pp" || true
	perf report -i "$T/perf.data" --children --sort sym -g none 2>/dev/null |
		awk -v f="$3" '$NF == f || $NF == "mlx_kem_encapsulate" { sub("%", "", $1); s += $1 }
			END { printf "%.0f", s }'
}

# inmem DIR: "server-us client-us" per handshake of OpenSSL alone, in memory, on the
# servers' CPU (pqtls-inmem).
inmem() { "${pin_server[@]}" "$INMEM" "$1" "$2" | awk '{ print $1, $2 }'; }

# bound SIGN-ALGORITHM SIGN-LABEL: "us-per-handshake" of the crypto bound, measured now:
# one signature and one X25519MLKEM768 encapsulation, from openssl speed on the
# servers' CPU.
bound() {
	local sign encaps
	sign=$(speed "$1" | speed_col "$2" 2)
	encaps=$(speed X25519MLKEM768 | speed_col X25519MLKEM768 2)
	awk -v s="$sign" -v e="$encaps" 'BEGIN { printf "%.1f\n", 1e6 / s + 1e6 / e }'
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
# incl FILE FUNCTION: the instructions of FUNCTION and all it calls, from a callgrind file.
incl() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk -v f="$2" '{ n = $1; gsub(",", "", n) } $0 ~ ":" f " " && n ~ /^[0-9]+$/ { s += n } END { print s + 0 }'
}
# ir_server DIR pqtls|s_server SIGN-FUNCTION: the server under callgrind, loaded by pqtls bench (not under
# callgrind) with 20 and then 80 handshake-only connections; each server stops by SIGTERM
# (pqtls serve) or after -naccept connections (s_server) and reports its total. Prints
# "M-instructions-per-handshake crypto-% M-instructions-outside-it": the share in SIGN-FUNCTION (the signature
# proper) and mlx_kem_encapsulate (the hybrid encapsulation, X25519 half included), the
# work the crypto bound counts (OpenSSL 3.5's internal names).
ir_server() {
	local n pid addr
	for n in 20 80; do
		rm -f "$T/irs.addr" "$T/irs.out"
		if [ "$2" = pqtls ]; then
			valgrind --tool=callgrind --callgrind-out-file="$T/cgs.$n" "$PQTLS" serve --certs "$1" \
				--listen 127.0.0.1:0 --ready-file "$T/irs.addr" >/dev/null 2>"$T/vgsrv.$n" &
			pid=$!
			PIDS+=("$pid")
			wait_for "$T/irs.addr" . 60 || fail "pqtls serve under valgrind did not start"
			addr=$(cat "$T/irs.addr")
		else
			# shellcheck disable=SC2046
			valgrind --tool=callgrind --callgrind-out-file="$T/cgs.$n" "$OPENSSL" s_server \
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
	local a b ca cb
	a=$(collected "$T/vgsrv.20") b=$(collected "$T/vgsrv.80")
	ca=$(($(incl "$T/cgs.20" "$3") + $(incl "$T/cgs.20" mlx_kem_encapsulate)))
	cb=$(($(incl "$T/cgs.80" "$3") + $(incl "$T/cgs.80" mlx_kem_encapsulate)))
	awk -v a="$a" -v b="$b" -v ca="$ca" -v cb="$cb" \
		'BEGIN { printf "%.2f %.0f %.2f", (b - a) / 60 / 1e6, (cb > ca ? 100 * (cb - ca) / (b - a) : 0),
			(b - a - (cb - ca)) / 60 / 1e6 }'
}
INMEM=${INMEM:-$(dirname "$PQTLS")/pqtls-inmem}
use_inmem=0
[ -x "$INMEM" ] && use_inmem=1
use_valgrind=0
use_perf=0
[ "${PERF:-1}" != 0 ] && command -v perf >/dev/null && perf record -q -e cpu-clock -o "$T/probe.data" -- true \
	>/dev/null 2>&1 && use_perf=1
[ "${VALGRIND:-1}" != 0 ] && command -v valgrind >/dev/null && use_valgrind=1

# step TEXT: what is running now, on stderr (the table comes at the end, on stdout).
started=$SECONDS
step() { printf 'handshake-rate: [%3d s] %s\n' "$((SECONDS - started))" "$*" >&2; }

out=()
verdicts=()
SERVER_GOAL=90 # % of OpenSSL alone in memory
# verdict CHAIN WHO MET DETAIL: one line of the verdict block.
verdict() { verdicts+=("$(printf '%-11s %-7s %-8s %s' "$1" "$2" "$([ "$3" = 1 ] && echo met || echo 'NOT met')" "$4")"); }
# lt A B: 1 when A < B (numbers), else 0.
lt() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? 1 : 0 }'; }
line() { out+=("$(printf '%-11s %-46s %20s %20s %10s' "$@")"); }
# ratio FILE-A COL-A FILE-B COL-B: per round (line), 100 * A's column / B's column: the
# share of a bound (microseconds per handshake in A) that a server (in B) reaches.
ratio() { awk -v a="$2" -v b="$4" 'NR == FNR { v[FNR] = $a; next } { printf "%.1f\n", 100 * v[FNR] / $b }' "$1" "$3"; }

for kind in ecdsa-p256 ml-dsa-65; do
	dir=$(chain "$kind")
	case $kind in
	ecdsa-p256) signalg=ecdsap256 signcol="ecdsa (nistp256)" signfn=ossl_ecdsa_sign signame="ECDSA P-256 sign" nmem=600 ;;
	ml-dsa-65) signalg=ML-DSA-65 signcol=ML-DSA-65 signfn=ossl_ml_dsa_sign signame="ML-DSA-65 sign" nmem=300 ;;
	esac

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

	for f in c_stime c_pqtls s_ossl s_pqtls bound mem; do : >"$T/$f"; done
	for ((r = 0; r < ROUNDS; r++)); do
		step "$kind: round $((r + 1))/$ROUNDS: clients, crypto bound, servers (~$((4 * D + 5)) s)"
		client_s_time "$ss_addr" >>"$T/c_stime"
		client_pqtls "$ss_addr" >>"$T/c_pqtls"
		bound "$signalg" "$signcol" >>"$T/bound"
		[ "$use_inmem" = 1 ] && inmem "$dir" "$nmem" >>"$T/mem"
		server_load "$ss_addr" "$ss" >>"$T/s_ossl"
		server_load "$ps_addr" "$ps" >>"$T/s_pqtls"
	done
	if [ "$use_perf" = 1 ]; then
		step "$kind: perf samples of both servers (~$((2 * D + 10)) s)"
		perf_ss=$(perf_share "$ss_addr" "$ss" "$signfn")
		perf_ps=$(perf_share "$ps_addr" "$ps" "$signfn")
	fi
	ratio "$T/bound" 1 "$T/s_pqtls" 2 >"$T/r_pqtls"
	ratio "$T/bound" 1 "$T/s_ossl" 2 >"$T/r_ossl"
	awk '{ printf "%.0f %.1f\n", 1e6 / $1, $1 }' "$T/bound" >"$T/bound2"
	if [ "$use_valgrind" = 1 ]; then
		step "$kind: instructions under callgrind, clients then servers (a minute or two)"
		ir_st=$(ir_s_time "$ss_addr")
		ir_pq=$(ir_pqtls "$ss_addr")
	fi
	kill "$ss" "$ps"
	if [ "$use_valgrind" = 1 ]; then
		read -r irs_ss share_ss rest_ss <<<"$(ir_server "$dir" s_server "$signfn")"
		read -r irs_ps share_ps rest_ps <<<"$(ir_server "$dir" pqtls "$signfn")"
	fi

	line "$kind" "client: openssl s_time -new" "$(summary "$T/c_stime" 1)" "$(summary "$T/c_stime" 2)" ""
	line "$kind" "client: pqtls bench --requests-per-conn 0" "$(summary "$T/c_pqtls" 1)" "$(summary "$T/c_pqtls" 2)" ""
	line "$kind" "server: openssl s_server" "$(summary "$T/s_ossl" 1)" "$(summary "$T/s_ossl" 2)" \
		"$(median "$T/s_ossl" 3) %"
	line "$kind" "server: pqtls serve --threads 1" "$(summary "$T/s_pqtls" 1)" "$(summary "$T/s_pqtls" 2)" \
		"$(median "$T/s_pqtls" 3) %"
	line "$kind" "crypto bound: $signame + KEM encaps" "$(summary "$T/bound2" 1)" "$(summary "$T/bound2" 2)" ""
	if [ "$use_inmem" = 1 ]; then
		awk '{ printf "%.0f %.1f\n", 1e6 / $1, $1 }' "$T/mem" >"$T/mem2"
		line "$kind" "OpenSSL alone, in memory: server side" "$(summary "$T/mem2" 1)" "$(summary "$T/mem2" 2)" ""
	fi
	out+=("$(printf '%-11s pqtls serve reaches %s %% of its crypto bound per CPU-second' "$kind" \
		"$(summary "$T/r_pqtls" 1)")")
	out+=("$(printf '%-11s openssl s_server reaches %s %% of the same bound' "$kind" "$(summary "$T/r_ossl" 1)")")
	if [ "$use_inmem" = 1 ]; then
		ratio "$T/mem" 1 "$T/s_pqtls" 2 >"$T/m_pqtls"
		ratio "$T/mem" 1 "$T/s_ossl" 2 >"$T/m_ossl"
		ratio "$T/bound" 1 "$T/mem2" 2 >"$T/m_bound"
		out+=("$(printf '%-11s OpenSSL alone, in memory, reaches %s %% of the crypto bound: the ceiling for a server on its default handshake' \
			"$kind" "$(summary "$T/m_bound" 1)")")
		out+=("$(printf '%-11s pqtls serve reaches %s %% of OpenSSL alone in memory; openssl s_server %s %%' \
			"$kind" "$(summary "$T/m_pqtls" 1)" "$(summary "$T/m_ossl" 1)")")
	fi
	if [ "$use_perf" = 1 ]; then
		out+=("$(printf '%-11s share of server CPU time in that crypto, same run (perf): s_server %s %%, pqtls serve %s %%' \
			"$kind" "$perf_ss" "$perf_ps")")
	fi
	out+=("$(printf '%-11s pqtls bench costs %s %% of the CPU of s_time per handshake' "$kind" \
		"$(awk -v b="$(median "$T/c_pqtls" 2)" -v s="$(median "$T/c_stime" 2)" 'BEGIN { printf "%.0f", 100 * b / s }')")")
	if [ "$use_valgrind" = 1 ]; then
		out+=("$(printf '%-11s user-space instructions per handshake (callgrind): s_time %s M, pqtls bench %s M (%s %%)' \
			"$kind" "$ir_st" "$ir_pq" "$(awk -v a="$ir_pq" -v b="$ir_st" 'BEGIN { printf "%.1f", 100 * a / b }')")")
		out+=("$(printf '%-11s user-space instructions per handshake (callgrind): s_server %s M, pqtls serve %s M' \
			"$kind" "$irs_ss" "$irs_ps")")
		out+=("$(printf '%-11s   in the bound'"'"'s crypto (sign + encaps): s_server %s %%, pqtls serve %s %%: the ceiling by instructions' \
			"$kind" "$share_ss" "$share_ps")")
		out+=("$(printf '%-11s   outside it: s_server %s M, pqtls serve %s M (%s %%)' "$kind" "$rest_ss" "$rest_ps" \
			"$(awk -v a="$rest_ps" -v b="$rest_ss" 'BEGIN { printf "%.1f", 100 * a / b }')")")
	fi

	# The verdicts: medians of the rounds, each set against the peer of the same run.
	cpu_ps=$(median "$T/s_pqtls" 2) cpu_ss=$(median "$T/s_ossl" 2)
	below=$(lt "$cpu_ps" "$cpu_ss")
	if [ "$use_inmem" = 1 ]; then
		share=$(median "$T/m_pqtls" 1)
		enough=$(awk -v s="$share" -v g="$SERVER_GOAL" 'BEGIN { print (s >= g) ? 1 : 0 }')
		verdict "$kind" server "$((enough && below))" \
			"$share % of OpenSSL alone in memory (goal >= $SERVER_GOAL %); $cpu_ps us CPU per handshake, s_server $cpu_ss us (goal below)"
	else
		verdict "$kind" server 0 "cannot tell: $INMEM is not built (pqtls serve $cpu_ps us, s_server $cpu_ss us per handshake)"
	fi
	if [ "$use_valgrind" = 1 ]; then
		verdict "$kind" client "$(lt "$ir_pq" "$ir_st")" \
			"$ir_pq M user-space instructions per handshake, s_time $ir_st M (callgrind; goal below)"
	else
		cb=$(median "$T/c_pqtls" 2) cs=$(median "$T/c_stime" 2)
		verdict "$kind" client "$(lt "$cb" "$cs")" \
			"$cb us CPU per handshake, s_time $cs us (no valgrind: CPU time; goal below)"
	fi
done

echo "handshake rate: $(nproc) CPUs$([ ${#pin_server[@]} -gt 0 ] && echo ', servers on CPU 0, clients on CPU 1'), ${D} s per measurement, $LOAD connections in flight for the servers, median (range) of $ROUNDS interleaved rounds, $("$OPENSSL" version | cut -d' ' -f1-2)"
printf '%-11s %-46s %20s %20s %10s\n' chain what handshakes/s "CPU us/handshake" "busy"
printf '%s\n' "${out[@]}"
echo "verdict (server: >= $SERVER_GOAL % of OpenSSL alone in memory and below openssl s_server's CPU per handshake; client: below openssl s_time):"
printf '%s\n' "${verdicts[@]}"
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); other work on this machine adds noise)"
