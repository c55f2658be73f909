#!/usr/bin/env bash
# SCTs as sweep dimensions (scts, sct-alg): one spec says "two keys and five signatures"
# and each cell's chain is the one `pqtls certs --scts N --sct-alg ALG` makes (the same
# DER bytes, stored per cell beside the count and the algorithm); a count that cannot fit
# a certificate, SCTs on an MTC and a bare candidate name are refused before anything is
# measured (exit 2, no database), each naming the input. scts = 0 with two algorithms is
# one cell: the algorithm of no SCT is irrelevant.
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"
command -v sqlite3 >/dev/null || { echo "skip: needs sqlite3"; exit 77; }
command -v python3 >/dev/null || { echo "skip: needs python3"; exit 77; }

refused() { # refused WHAT [options]: exit 2, the message, no database
	local what=$1; shift
	set +e
	"$P" sweep --sig ecdsa-p256 --rtt 10ms --connections 1 --out "$TMP/bad.db" "$@" 2>"$TMP/err"
	local rc=$?
	set -e
	[ "$rc" = 2 ] || { cat "$TMP/err"; fail "$* exited $rc, not 2"; }
	has "$TMP/err" "$what"
	[ ! -e "$TMP/bad.db" ] || fail "$* left a database behind"
}
refused "--scts: 9 is out of range; use 0 to 8" --scts 9
refused "scts 4: 4 SCTs with 17088-byte slh-dsa-sha2-128f signatures exceed a SignedCertificateTimestampList's 65,535 bytes; at most 3 fit" \
	--scts 4 --sct-alg slh-dsa-sha2-128f
refused "scts 2: a Merkle Tree Certificate is its own transparency proof" --scts 2 --mtc landmark --intermediates 0
refused "--sct-alg: 'fn-dsa-512' is not a signature OpenSSL 3.5 implements" --scts 2 --sct-alg fn-dsa-512

cat >"$TMP/s.spec" <<'SPEC'
name = scts
sig = ecdsa-p256
group = X25519
rtt = 10ms
response = none
connections = 1
scts = 0, 2
sct-alg = ecdsa-p256, ml-dsa-44
SPEC
"$P" sweep "$TMP/s.spec" --no-check -q --out "$TMP/s.db" 2>"$TMP/err" || { cat "$TMP/err"; fail "sweep failed"; }
rows=$(sqlite3 "$TMP/s.db" "SELECT chain_scts || ' ' || chain_sct_alg || ' ' || chain_der_bytes FROM cell ORDER BY chain_scts, chain_sct_alg")
echo "$rows"
# three cells, not four: without SCTs their algorithm changes no chain (one cell stands for both)
[ "$(echo "$rows" | wc -l)" = 3 ] || fail "expected 3 cells: $rows"
# Each cell's chain, made by hand: the same DER bytes.
while read -r n alg der; do
	[ "$n" = 0 ] && continue
	"$P" certs --sig ecdsa-p256 --scts "$n" --sct-alg "$alg" --out "$TMP/c-$alg" >/dev/null
	want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['chain_der_bytes'])" "$TMP/c-$alg/manifest.json")
	# ECDSA signatures vary by a byte or two per certificate: within 4 bytes
	[ $((der - want)) -le 4 ] && [ $((want - der)) -le 4 ] || fail "$n $alg SCTs: cell chain $der bytes, certs $want"
done <<<"$rows"
base=$(sqlite3 "$TMP/s.db" "SELECT MIN(chain_der_bytes) FROM cell WHERE chain_scts = 0")
ml=$(sqlite3 "$TMP/s.db" "SELECT chain_der_bytes FROM cell WHERE chain_scts = 2 AND chain_sct_alg = 'ml-dsa-44'")
# two ML-DSA-44 SCTs: 2 x (2 + 47 + 2,420) and the list's framing, about 4.95 kB more
[ $((ml - base)) -ge 4900 ] && [ $((ml - base)) -le 5000 ] || fail "two ML-DSA-44 SCTs added $((ml - base)) bytes"
# no SCTs: the algorithm is not stored as if it mattered
[ "$(sqlite3 "$TMP/s.db" "SELECT DISTINCT chain_sct_alg FROM cell WHERE chain_scts = 0")" = none ] || fail "sct_alg stored without SCTs"
echo "ok"
