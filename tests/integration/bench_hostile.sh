#!/usr/bin/env bash
# pqtls bench against what a measurement must survive: outputs it cannot write (refused
# before the first connection, not after the run).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

ecdsa=$(chain ecdsa-p256)

# Outputs that cannot be written fail before any connection: the server saw none.
start_serve out --certs "$ecdsa"
mkdir "$T/dir"
expect_fail 1 "--csv: cannot create /nonexistent/dir/x.csv.tmp" \
	"$PQTLS" bench "$ADDR_out" --insecure -n 5 --csv /nonexistent/dir/x.csv
expect_fail 1 "--csv: $T/dir is a directory" "$PQTLS" bench "$ADDR_out" --insecure -n 5 --csv "$T/dir"
expect_fail 1 "--jsonl: cannot create /proc/version.tmp" \
	"$PQTLS" bench "$ADDR_out" --insecure -n 5 --csv "$T/ok.csv" --jsonl /proc/version
[ ! -e "$T/ok.csv" ] && [ ! -e "$T/ok.csv.tmp" ] || fail "a refused run left $T/ok.csv behind"
stop_serve out
grep -q "served 0 connections" "$T/out.out" || { cat "$T/out.out"; fail "bench connected before refusing its outputs"; }
pass "no connection was made for a run whose outputs cannot be written"
