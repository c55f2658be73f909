#!/usr/bin/env bash
# --inspect on real web chains reproduces the sizes in their chains_manifest.csv.
set -euo pipefail
: "${PQTLS_SHARED:=}"
DIR="$PQTLS_SHARED/data/certs/web-chains-from-zeek-pcaps"
[ -f "$DIR/chains_manifest.csv" ] || { echo "skip: $DIR/chains_manifest.csv absent (../shared not here)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 needed to read JSON"; exit 77; }
. "$(dirname "$0")/certs_lib.bash"

n=0
while IFS=, read -r file _port ncerts der_sizes sum_der list_len body_len sha; do
	[ "$file" = file ] && continue
	"$PQTLS" certs --inspect "$DIR/$file" --json > "$T/m.json"
	got=$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
c = [x for x in m["certificates"] if x["in_chain"]]
print(",".join([str(len(c)), "+".join(str(x["der_bytes"]) for x in c), str(m["chain_der_bytes"]),
	str(m["tls12"]["certificate_list_len"]), str(m["tls12"]["certificate_msg_body_len"]),
	" ".join(x["sha256"] for x in c)]))' "$T/m.json")
	want="$ncerts,$der_sizes,$sum_der,$list_len,$body_len,$sha"
	[ "$got" = "$want" ] || fail "$file: got $got, manifest says $want"
	# The table prints the same DER sum and a TLS 1.3 Certificate message of sum + 8 + 5n.
	"$PQTLS" certs --inspect "$DIR/$file" > "$T/t.txt"
	grep -q "chain.pem DER bytes: *$sum_der " "$T/t.txt" || fail "$file: table DER sum"
	grep -q "TLS 1.3 Certificate msg: *$((sum_der + 8 + 5 * ncerts)) bytes" "$T/t.txt" || fail "$file: TLS 1.3 size"
	n=$((n + 1))
done < "$DIR/chains_manifest.csv"
[ "$n" -ge 10 ] || fail "only $n chains checked"
echo "ok: $n web chains match chains_manifest.csv"
