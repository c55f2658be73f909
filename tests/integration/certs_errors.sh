#!/usr/bin/env bash
# Bad input: a clear message naming the input, a non-zero exit, and nothing half-written.
set -euo pipefail
. "$(dirname "$0")/certs_lib.bash"

# expect CODE PATTERN -- command...: exit code and stderr pattern.
expect() {
	local code=$1 pat=$2 rc=0
	shift 3
	"$@" > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" = "$code" ] || fail "'$*' exited $rc, expected $code: $(cat "$T/err")"
	grep -q -- "$pat" "$T/err" || fail "'$*': message lacks '$pat': $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "'$*' printed to stdout on failure"
}
# Nothing but what the test made itself may be in the output parent.
only() {
	local want=$1 have
	have=$(ls -A "$T/out-parent" | tr '\n' ' ')
	[ "$have" = "$want" ] || fail "left behind in the output directory's parent: '$have' (expected '$want')"
}
mkdir "$T/out-parent"
P="$T/out-parent"

expect 2 "unknown signature algorithm 'dilithium3'; accepted: ecdsa-p256" -- "$PQTLS" certs --sig dilithium3 --out "$P/a"
expect 2 "--leaf: unknown signature algorithm 'foo'" -- "$PQTLS" certs --leaf foo --out "$P/a"
expect 2 "no TLS 1.3 signature code point for SLH-DSA" -- "$PQTLS" certs --leaf slh-dsa-sha2-128s --out "$P/a"
grep -q -- "--root slh-dsa-sha2-128s --intermediate slh-dsa-sha2-128s --leaf ml-dsa-65" "$T/err" ||
	fail "SLH-DSA leaf message does not name way (1)"
expect 2 "padded to SLH-DSA's size" -- "$PQTLS" certs --sig slh-dsa-shake-256f --out "$P/a"
expect 2 "--intermediates" -- "$PQTLS" certs --intermediates 5 --out "$P/a"
# Values that would silently mean something else.
expect 2 "--pad-chain-to: 0 bytes is not a size to pad to" -- "$PQTLS" certs --pad-chain-to 0 --out "$P/a"
expect 2 "--out: the directory name is empty" -- "$PQTLS" certs --out ""
expect 2 "--root and --intermediate do not apply" -- "$PQTLS" certs --mtc landmark --root ed25519 --out "$P/a"
expect 2 "--mtc-cosigner needs --mtc standalone" -- "$PQTLS" certs --mtc-cosigner ml-dsa-44 --out "$P/a"
expect 2 "--mtc-tree-size" -- "$PQTLS" certs --mtc landmark --mtc-tree-size 1 --out "$P/a"
expect 1 "--pad-chain-to 5000: below the chain's natural size; the smallest is" -- \
	"$PQTLS" certs --sig ml-dsa-44 --pad-chain-to 5000 --out "$P/a"
expect 1 "--pad-leaf-to 100 (leaf): below the leaf's natural size; the smallest is" -- \
	"$PQTLS" certs --sig ed25519 --pad-leaf-to 100 --out "$P/a"
only ""

# An existing directory needs --force, and --force only replaces a previous chain.
"$PQTLS" certs --sig ed25519 --out "$P/chain" >/dev/null
old=$(sha256sum "$P/chain/chain.pem")
expect 1 "--out $P/chain: already exists" -- "$PQTLS" certs --sig ed25519 --out "$P/chain"
[ "$(sha256sum "$P/chain/chain.pem")" = "$old" ] || fail "existing chain changed without --force"
"$PQTLS" certs --sig ed25519 --out "$P/chain" --force >/dev/null
[ "$(sha256sum "$P/chain/chain.pem")" != "$old" ] || fail "--force did not replace the chain"
mkdir "$P/mine" && echo keep > "$P/mine/notes.txt"
expect 1 "not a chain directory" -- "$PQTLS" certs --sig ed25519 --out "$P/mine" --force
[ -f "$P/mine/notes.txt" ] || fail "--force removed a user's file"
echo x > "$P/file"
expect 1 "$P/file/sub" -- "$PQTLS" certs --sig ed25519 --out "$P/file/sub"
expect 1 "cannot write into $P/missing" -- "$PQTLS" certs --sig ed25519 --out "$P/missing/sub"
only "chain file mine "

# --inspect of things that are not PEM chains.
expect 1 "not a PEM file of certificates" -- "$PQTLS" certs --inspect "$P/file"
expect 1 "no such file" -- "$PQTLS" certs --inspect "$P/nope.pem"
"$OPENSSL" x509 -in "$P/chain/chain.pem" -outform DER -out "$P/leaf.der"
expect 1 "not a PEM file of certificates" -- "$PQTLS" certs --inspect "$P/leaf.der"
expect 2 "cannot be combined with --out" -- "$PQTLS" certs --inspect "$P/chain/chain.pem" --out "$P/b"
echo "ok: bad input refused cleanly"
