#!/usr/bin/env bash
# Full TLS 1.3 handshakes per second and CPU time per handshake, from one run on this
# machine, side by side:
#   clients: pqtls bench vs openssl s_time, against the same openssl s_server;
#   servers: pqtls serve (one worker) vs openssl s_server, under the same pqtls bench load;
# for an ECDSA P-256 and an ML-DSA-65 chain, with OpenSSL's default groups (so
# X25519MLKEM768), and the crypto bound of each server from `openssl speed` of the same
# build: one signature plus one X25519MLKEM768 encapsulation (which includes the X25519
# half) per full handshake.
# Usage: bench/handshake-rate.sh [SECONDS per measurement, default 5]
# PQTLS and OPENSSL come from the environment (defaults: build/pqtls, the cached openssl).
# With two or more CPUs the server runs on CPU 0 and the clients on CPU 1 (taskset).
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/integration/lib/common.sh
D=${1:-5}

pin_server=() pin_client=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_server=(taskset -c 0) pin_client=(taskset -c 1)
fi
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# speed_rate ALG COLUMN: ops/s from `openssl speed` (COLUMN from the end: 1 = last).
speed() { "${pin_server[@]}" "$OPENSSL" speed -seconds 2 "$@" 2>/dev/null; }
speed_col() { awk -v n="$2" -v name="$1" 'index($0, name) { v = $(NF - n + 1) } END { print v }'; }

rows=()
row() { rows+=("$(printf '%-11s %-44s %12s %18s' "$@")"); }

for kind in ecdsa-p256 ml-dsa-65; do
	dir=$(chain "$kind")
	case $kind in
	ecdsa-p256) sign=$(speed ecdsap256 | speed_col "ecdsa (nistp256)" 2); signame="ECDSA P-256 sign" ;;
	ml-dsa-65) sign=$(speed ML-DSA-65 | speed_col "ML-DSA-65" 2); signame="ML-DSA-65 sign" ;;
	esac
	encaps=$(speed X25519MLKEM768 | speed_col X25519MLKEM768 2)
	bound_us=$(awk -v s="$sign" -v e="$encaps" 'BEGIN { printf "%.1f", 1e6 / s + 1e6 / e }')
	bound_rate=$(awk -v b="$bound_us" 'BEGIN { printf "%.0f", 1e6 / b }')

	# Clients against one openssl s_server.
	rm -f "$T/ss.out"
	# shellcheck disable=SC2046
	"${pin_server[@]}" "$OPENSSL" s_server -accept 127.0.0.1:0 $(s_server_certs "$dir") -www \
		>"$T/ss.out" 2>"$T/ss.err" &
	ss=$!
	PIDS+=("$ss")
	wait_for "$T/ss.out" '^ACCEPT' 10 || fail "s_server did not start"
	addr=$(sed -n 's/^ACCEPT //p' "$T/ss.out")

	/usr/bin/time -f '%e %U %S' -o "$T/t.time" "${pin_client[@]}" "$OPENSSL" s_time \
		-connect "$addr" -new -time "$D" >"$T/t.out" 2>&1
	n=$(awk '/connections in .* real seconds/ { print $1 }' "$T/t.out")
	read -r el us sy <"$T/t.time"
	row "$kind" "client: openssl s_time -new" "$(awk -v n="$n" -v e="$el" 'BEGIN { printf "%.0f", n / e }')" \
		"$(awk -v n="$n" -v u="$us" -v s="$sy" 'BEGIN { printf "%.0f", (u + s) * 1e6 / n }')"
	stime_cpu=$(awk -v n="$n" -v u="$us" -v s="$sy" 'BEGIN { print (u + s) * 1e6 / n }')

	/usr/bin/time -f '%e %U %S' -o "$T/b.time" "${pin_client[@]}" "$PQTLS" bench "$addr" --insecure \
		--requests-per-conn 0 -d "${D}s" --json >"$T/b.json"
	n=$(json_field "$T/b.json" ok)
	read -r el us sy <"$T/b.time"
	row "$kind" "client: pqtls bench --requests-per-conn 0" "$(awk -v n="$n" -v e="$el" 'BEGIN { printf "%.0f", n / e }')" \
		"$(awk -v n="$n" -v u="$us" -v s="$sy" 'BEGIN { printf "%.0f", (u + s) * 1e6 / n }')"
	bench_cpu=$(awk -v n="$n" -v u="$us" -v s="$sy" 'BEGIN { print (u + s) * 1e6 / n }')

	# Servers under the same pqtls bench load (2 in flight, handshake only).
	load() {
		local c0 c1
		c0=$(cpu_ticks "$2")
		"${pin_client[@]}" "$PQTLS" bench "$1" --insecure --requests-per-conn 0 -c 2 -d "${D}s" --json >"$T/l.json"
		c1=$(cpu_ticks "$2")
		n=$(json_field "$T/l.json" ok)
		rate=$(json_field "$T/l.json" conns_per_s)
		cpu_us=$(awk -v c="$((c1 - c0))" -v t="$ticks" -v n="$n" 'BEGIN { printf "%.0f", c / t * 1e6 / n }')
	}
	load "$addr" "$ss"
	row "$kind" "server: openssl s_server" "$(printf '%.0f' "$rate")" "$cpu_us"
	kill "$ss"

	rm -f "$T/p.addr"
	"${pin_server[@]}" "$PQTLS" serve --certs "$dir" --listen 127.0.0.1:0 --ready-file "$T/p.addr" \
		>"$T/p.out" 2>"$T/p.err" &
	ps=$!
	PIDS+=("$ps")
	wait_for "$T/p.addr" . 10 || fail "pqtls serve did not start"
	load "$(cat "$T/p.addr")" "$ps"
	serve_cpu=$cpu_us
	row "$kind" "server: pqtls serve --threads 1" "$(printf '%.0f' "$rate")" "$cpu_us"
	kill "$ps"
	row "$kind" "crypto bound: $signame + X25519MLKEM768 encaps" "$bound_rate" "$bound_us"
	rows+=("$(printf '%-11s pqtls serve reaches %s %% of its crypto bound per CPU-second (goal 80 %%);' "$kind" \
		"$(awk -v b="$bound_us" -v c="$serve_cpu" 'BEGIN { printf "%.0f", 100 * b / c }')")")
	rows+=("$(printf '%-11s pqtls bench costs %s %% of the CPU of s_time per handshake (goal below 100 %%)' "$kind" \
		"$(awk -v b="$bench_cpu" -v s="$stime_cpu" 'BEGIN { printf "%.0f", 100 * b / s }')")")
done

echo "handshake rate, $(nproc) CPUs$([ ${#pin_server[@]} -gt 0 ] && echo ', server pinned to CPU 0, clients to CPU 1'), ${D} s per measurement, $("$OPENSSL" version | cut -d' ' -f1-2)"
printf '%-11s %-44s %12s %18s\n' chain what handshakes/s "CPU us/handshake"
printf '%s\n' "${rows[@]}"
echo "(load average now: $(cut -d' ' -f1-3 /proc/loadavg); other work on this machine adds noise)"
