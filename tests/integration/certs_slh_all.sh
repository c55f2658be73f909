#!/usr/bin/env bash
# All twelve SLH-DSA sets as root and intermediate (slow: the 's' sets sign in ~0.5-1 s).
set -euo pipefail
. "$(dirname "$0")/certs_lib.bash"

for hash in sha2 shake; do
	for lvl in 128 192 256; do
		for v in s f; do
			set=slh-dsa-$hash-$lvl$v
			"$PQTLS" certs --root "$set" --intermediate "$set" --leaf ml-dsa-65 --out "$T/$set" >/dev/null
			verify "$T/$set"
		done
	done
done
echo "ok: twelve SLH-DSA sets verify"
