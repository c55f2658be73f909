#!/usr/bin/env bash
# `make run`: a quick reproduction, on emulated links, of the blog's question (does the
# certificate type cost handshake time at RTT 1 / 70 / 148 ms?) and of the cliff it
# predicted but could not measure (a chain that overflows TCP's initial window).
#
# For each RTT it builds one link (`pqtls link run`), serves every chain from its own
# `pqtls serve`, and measures the arms in interleaved rounds with `pqtls bench`, so a
# noisy moment of this shared machine hits every arm alike. Every connection is kept
# as a JSON line; scripts/quick-report.py prints the key table and writes the report.
#
# Environment: PQTLS_OUT (default out/quick), PQTLS_QUICK_RTTS (default "1ms 70ms 148ms"),
# PQTLS_QUICK_ROUNDS (2), PQTLS_QUICK_PER_ROUND (8 connections per arm per round).
set -euo pipefail

pqtls=$(realpath "${1:-build/pqtls}")
src=$(cd "$(dirname "$0")/.." && pwd)
out=${PQTLS_OUT:-out/quick}
rtts=${PQTLS_QUICK_RTTS:-"1ms 70ms 148ms"}
rounds=${PQTLS_QUICK_ROUNDS:-2}
per_round=${PQTLS_QUICK_PER_ROUND:-8}

die() { echo "quick-run: $*" >&2; exit 1; }
[ -x "$pqtls" ] || die "no pqtls binary at $pqtls (run 'make build')"
[ "$(id -u)" = 0 ] || die "the emulated link needs root (CAP_NET_ADMIN and /dev/net/tun); run 'sudo make run'"

mkdir -p "$out"
out=$(realpath "$out")
rm -rf "$out/runs" "$out/chains"
mkdir -p "$out/runs" "$out/chains"

# name  pqtls certs arguments (chains are cached by their parameters: signing happens once)
chains=(
	"ecdsa-p256|--sig ecdsa-p256"
	"rsa-2048|--sig rsa-2048"
	"ml-dsa-44|--sig ml-dsa-44"
	"ml-dsa-65|--sig ml-dsa-65"
	"ml-dsa-65-leaf-only|--sig ml-dsa-65 --intermediates 0"
	"ml-dsa-65+slh-128s-CA|--root slh-dsa-sha2-128s --intermediate slh-dsa-sha2-128s --leaf ml-dsa-65"
)
# arm  chain  port-offset  extra bench arguments
arms=(
	"ecdsa-p256|ecdsa-p256|0|--groups X25519MLKEM768"
	"rsa-2048|rsa-2048|1|--groups X25519MLKEM768"
	"ml-dsa-44|ml-dsa-44|2|--groups X25519MLKEM768"
	"ml-dsa-65|ml-dsa-65|3|--groups X25519MLKEM768"
	"ml-dsa-65-leaf-only|ml-dsa-65-leaf-only|4|--groups X25519MLKEM768"
	"ml-dsa-65+slh-128s-CA|ml-dsa-65+slh-128s-CA|5|--groups X25519MLKEM768"
	"ecdsa-p256 X25519|ecdsa-p256|0|--groups X25519"
	"ml-dsa-65 resumed|ml-dsa-65|3|--groups X25519MLKEM768 --resume 1 --warmup 1"
	"ml-dsa-65 0-RTT|ml-dsa-65|3|--groups X25519MLKEM768 --resume 1 --warmup 1 --early-data"
)
base_port=8441

echo "== chains (pqtls certs)"
for c in "${chains[@]}"; do
	name=${c%%|*}
	# shellcheck disable=SC2086
	"$pqtls" certs ${c#*|} --out "$out/chains/$name" --json >/dev/null
	echo "  $name"
done

# The server side: one pqtls serve per chain; SIGTERM from the link stops them all.
cat >"$out/runs/servers.sh" <<EOF
trap 'kill \$(jobs -p) 2>/dev/null; wait' TERM INT
port=$base_port
for name in $(for c in "${chains[@]}"; do printf '%q ' "${c%%|*}"; done); do
	# 0-RTT only where an arm uses it: it makes that server's tickets single-use.
	early=\$([ "\$name" = ml-dsa-65 ] && echo --max-early-data=16KiB || true)
	"$pqtls" serve --certs "$out/chains/\$name" --listen "0.0.0.0:\$port" --groups X25519MLKEM768:X25519 \$early >>"\$SERVE_LOG" 2>&1 &
	port=\$((port + 1))
done
wait
EOF

# The client side: interleaved rounds over the arms, one JSON line per connection.
cat >"$out/runs/clients.sh" <<EOF
set -e
for round in \$(seq 1 $rounds); do
$(for a in "${arms[@]}"; do
	IFS='|' read -r arm chain off extra <<<"$a"
	file=$(echo "$arm" | tr ' +' '__')
	echo "	\"$pqtls\" bench \"\$PQTLS_SERVER_ADDR:$((base_port + off))\" --servername localhost --ca \"$out/chains/$chain/root.pem\" -n $per_round $extra --jsonl \"\$RUN_DIR/$file.r\$round.jsonl\" --json >\"\$RUN_DIR/$file.r\$round.summary.json\""
done)
	# fd 3 is the terminal of make run (stderr of the link goes to its log)
	echo "  round \$round of $rounds done (\$(date +%T))" >&3 2>/dev/null || true
done
EOF

total=$(( ${#arms[@]} * rounds * per_round ))
for rtt in $rtts; do
	dir="$out/runs/$rtt"
	mkdir -p "$dir"
	echo "== RTT $rtt: ${#arms[@]} arms x $rounds rounds x $per_round connections ($total), cubic, MTU 1500"
	SERVE_LOG="$dir/serve.log" RUN_DIR="$dir" \
		"$pqtls" link run --rtt "$rtt" --cc cubic --check --wait-port $((base_port + ${#chains[@]} - 1)) -- \
		bash "$out/runs/servers.sh" -- bash "$out/runs/clients.sh" 3>&2 2>"$dir/link.log" ||
		{ tail -n 20 "$dir/link.log" >&2; die "the run at RTT $rtt failed (log: $dir/link.log)"; }
	grep -E '^pqtls link: backend' "$dir/link.log" | sed 's/^/  /' || true
done

python3 "$src/scripts/quick-report.py" "$out" "$pqtls"
