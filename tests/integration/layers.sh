# The layers under src/ hold: a folder includes no folder it must not (the table below and
# README.md, "Layout"). Reads every `#include "area/..."` line; needs nothing built.
#
#   core    includes only core: everything stands on it
#   http    only core: the server and the load client share it
#   pki     nothing of tls, server, load, net or http: chains are made without them
#   net     nothing of server, load or tls: sockets and links, below TLS
#   tls     nothing of server, load or net
#   load, server   peers: neither includes the other
#   check   nothing of server, load or cli: `pqtls check` is a client of its own
#   cli     only src/main.c and src/cli/ itself include it
#
# First it proves it can fail: each rule is broken once in a scratch tree.
set -euo pipefail
SRC=${PQTLS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}

# forbidden FOLDER: the folders FOLDER must not include ("*" = every other folder).
forbidden() {
	case $1 in
	core | http) echo "*" ;;
	pki) echo "tls server load net http cli" ;;
	net) echo "server load tls cli" ;;
	tls) echo "server load net cli" ;;
	load) echo "server cli" ;;
	server) echo "load cli" ;;
	check) echo "server load cli" ;;
	cli) echo "" ;;
	*) echo "cli" ;;
	esac
}
# allowed FOLDER: what a "*" rule still lets FOLDER include.
allowed() {
	case $1 in
	http) echo "core http" ;;
	*) echo "$1" ;;
	esac
}

# check TREE: prints each include that breaks a rule; exit 1 when there is one.
check() {
	local tree=$1 bad=0 file from to rule line
	while IFS= read -r line; do
		file=${line%%:*}
		to=$(sed -n 's/.*#include "\([a-z0-9_]*\)\/.*/\1/p' <<<"${line#*:}")
		[ -n "$to" ] || continue
		from=${file#"$tree"/}
		from=${from%%/*}
		[ "$from" != "$to" ] || continue
		if [ "$from" = main.c ]; then continue; fi
		rule=$(forbidden "$from")
		if [ "$rule" = "*" ]; then
			case " $(allowed "$from") " in *" $to "*) continue ;; esac
		else
			case " $rule " in *" $to "*) ;; *) continue ;; esac
		fi
		echo "layers: ${file#"$tree"/} includes $to/ (src/$from/ must not include src/$to/)"
		bad=1
	done < <(grep -rn --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$tree" |
		sed 's/^\([^:]*\):[0-9]*:/\1:/')
	return $bad
}

# The check must catch each rule broken once (a scratch tree with one bad include each).
S=$(mktemp -d "${TMPDIR:-/tmp}/pqtls-layers.XXXXXX")
trap 'rm -rf "$S"' EXIT
for pair in load:server server:load tls:cli core:net core:pki http:tls pki:tls pki:server pki:load \
	pki:net net:tls check:server check:load; do
	from=${pair%%:*} to=${pair#*:}
	rm -rf "$S/t" && mkdir -p "$S/t/$from" "$S/t/$to"
	printf '#include "%s/x.h"\n' "$to" >"$S/t/$from/a.c"
	if check "$S/t" >/dev/null; then
		echo "FAIL: the check let src/$from/ include src/$to/" >&2
		exit 1
	fi
done
# and lets the allowed ones through
rm -rf "$S/t" && mkdir -p "$S/t/load" "$S/t/cli"
printf '#include "core/err.h"\n#include "http/http.h"\n#include "tls/ctx.h"\n' >"$S/t/load/a.c"
printf '#include "load/run.h"\n#include "server/server.h"\n' >"$S/t/cli/a.c"
check "$S/t" || { echo "FAIL: the check refused allowed includes" >&2; exit 1; }
echo "ok: the check refuses each forbidden include in a scratch tree"

check "$SRC/src" || { echo "FAIL: src/ breaks the layers above" >&2; exit 1; }
echo "ok: src/ keeps its layers ($(find "$SRC/src" -name '*.[ch]' | wc -l) files)"
