#!/usr/bin/env bash
# The module map of src/: every module (a header, or a .c or .sql file without one, by
# its base name) with the first line of its header's comment (else of the file's own).
#
#   scripts/modmap.sh                 prints "DIR/NAME  first comment line", sorted
#   scripts/modmap.sh --check FILE    checks the map in FILE (README.md's "## Layout"):
#                                     each `src/DIR/` bullet names, in backticks, every
#                                     module of DIR and no other; exit 1 naming what is
#                                     missing or stale, 0 when the map is true
#
# Run from anywhere; the tree is the one this script is in (or $PQTLS_SRC).
set -euo pipefail

root=${PQTLS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}

# "DIR NAME" for every module under src/, sorted.
modules() {
	(cd "$root/src" && find . -mindepth 2 -maxdepth 2 -type f \( -name '*.c' -o -name '*.h' -o -name '*.sql' \) |
		sed -E 's#^\./##; s#\.(c|h|sql)$##; s#/# #' | sort -u)
}

# The first comment line of a module: its header's, else its own file's.
first_line() {
	local base=$1 f line
	for f in "$base.h" "$base.c" "$base.sql"; do
		[ -f "$f" ] || continue
		line=$(head -n 1 "$f")
		case $line in
		'/*'*) line=${line#/\*}; line=${line%\*/} ;;
		'--'*) line=${line#--} ;;
		*) continue ;;
		esac
		line=${line# }
		printf '%s\n' "${line% }"
		return
	done
	printf '(no comment)\n'
}

list() {
	modules | while read -r dir name; do
		printf '%-24s %s\n' "$dir/$name" "$(first_line "$root/src/$dir/$name")"
	done
}

# "DIR NAME" for every module the map in $1 names: in its "## Layout" section, a bullet
# that opens with `src/DIR/` names, in backticks, the modules of DIR (a backticked
# lowercase identifier; other backticked text, such as `pqtls check`, is prose).
mapped() {
	awk '
		/^## / { inlayout = ($0 == "## Layout"); next }
		!inlayout { next }
		/^- / { dir = ""; if (match($0, /^- `src\/[a-z0-9_]+\/`/)) dir = substr($0, 8, RLENGTH - 9) }
		/^$/ { dir = "" }
		dir != "" {
			line = $0
			if (substr(line, 1, 2) == "- ") sub(/^- `src\/[a-z0-9_]+\/`/, "", line)
			while (match(line, /`[^`]*`/)) {
				tok = substr(line, RSTART + 1, RLENGTH - 2)
				line = substr(line, RSTART + RLENGTH)
				if (tok ~ /^[a-z0-9_]+$/) print dir, tok
			}
		}
	' "$1" | sort -u
}

check() {
	local file=$1 rc=0 missing stale dirs
	[ -f "$file" ] || { echo "modmap: $file: no such file" >&2; exit 2; }
	dirs=$(mapped "$file" | cut -d' ' -f1 | sort -u)
	for d in $(cd "$root/src" && find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\./||' | sort); do
		grep -qx "$d" <<<"$dirs" || { echo "modmap: $file: no bullet for src/$d/ in its Layout" >&2; rc=1; }
	done
	missing=$(comm -23 <(modules) <(mapped "$file"))
	stale=$(comm -13 <(modules) <(mapped "$file"))
	if [ -n "$missing" ]; then
		rc=1
		while read -r d n; do echo "modmap: $file: src/$d/ lacks \`$n\` (src/$d/$n: $(first_line "$root/src/$d/$n"))" >&2; done <<<"$missing"
	fi
	if [ -n "$stale" ]; then
		rc=1
		while read -r d n; do echo "modmap: $file: src/$d/ names \`$n\`, which src/$d/ does not have" >&2; done <<<"$stale"
	fi
	return $rc
}

case ${1:-} in
"") list ;;
--check) check "${2:?--check FILE}" ;;
-h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' ;;
*) echo "modmap: unknown argument '$1'; accepted: --check FILE, --help" >&2; exit 2 ;;
esac
