# README.md's module map is true: every module under src/ is named in its folder's bullet
# of "Layout", and no bullet names a module that is gone (scripts/modmap.sh --check).
# Needs nothing built.
#
# First it proves it can fail, in a scratch tree: a module added to src/ that the map
# does not name, a module the map names removed from src/, a folder without a bullet.
set -euo pipefail
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
MODMAP="$SRC/scripts/modmap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_fail WORDS: the check of the scratch tree fails and says WORDS.
expect_fail() {
	if PQTLS_SRC="$tmp" bash "$MODMAP" --check "$tmp/README.md" 2>"$tmp/err"; then
		echo "FAIL: the map check passed a broken map (expected: $1)"
		exit 1
	fi
	grep -qF -- "$1" "$tmp/err" || { echo "FAIL: expected '$1' in:"; cat "$tmp/err"; exit 1; }
}

scratch() {
	rm -rf "$tmp/src" "$tmp/README.md"
	cp -r "$SRC/src" "$tmp/src"
	cp "$SRC/README.md" "$tmp/README.md"
}

scratch
printf '/* A module nobody mapped. */\n' >"$tmp/src/core/unmapped.h"
expect_fail 'src/core/ lacks `unmapped` (src/core/unmapped: A module nobody mapped.)'

scratch
rm "$tmp/src/net/probe.c" "$tmp/src/net/probe.h"
expect_fail 'src/net/ names `probe`, which src/net/ does not have'

scratch
mkdir "$tmp/src/newlayer"
printf 'int x;\n' >"$tmp/src/newlayer/thing.c"
expect_fail 'no bullet for src/newlayer/'

# The listing names every module once, each with words.
n_files=$(cd "$SRC/src" && find . -mindepth 2 -maxdepth 2 \( -name '*.c' -o -name '*.h' -o -name '*.sql' \) |
	sed -E 's#\.(c|h|sql)$##' | sort -u | wc -l)
bash "$MODMAP" >"$tmp/list"
n_listed=$(wc -l <"$tmp/list")
[ "$n_files" -eq "$n_listed" ] || { echo "FAIL: $n_files modules, $n_listed listed"; exit 1; }
if grep -F '(no comment)' "$tmp/list"; then
	echo "FAIL: modules above open with no comment (a header's first line says what it is)"
	exit 1
fi

bash "$MODMAP" --check "$SRC/README.md"
echo "ok: README.md maps all $n_listed modules of src/"
