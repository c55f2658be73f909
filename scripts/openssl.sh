#!/usr/bin/env bash
# Find or build an OpenSSL >= 3.5 for pqtls and print its prefix on the last line of stdout.
#
# Order of preference:
#   1. PQTLS_OPENSSL=<prefix> given and holding a usable build.
#   2. The system's OpenSSL, when pkg-config says it is >= 3.5 (prints "system").
#   3. A cached build in ${PQTLS_CACHE:-$HOME/.cache/pqtls}/openssl-<version>.
#   4. A fresh static build, from OPENSSL_SOURCE=<tarball> when given, else from the
#      Debian 13 (trixie) source package fetched through apt. The deb-src entry is
#      derived from the system's own Debian apt source, so no host name lives here.
#
# The build is static (libssl.a, libcrypto.a) so that the pqtls binary needs no rpath
# or LD_LIBRARY_PATH; the openssl command-line tool of the same build is kept in
# <prefix>/bin for tests, which use it as an independent peer.
set -euo pipefail

log() { echo "openssl.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

cache=${PQTLS_CACHE:-${HOME:-/root}/.cache/pqtls}
config_opts=(no-shared enable-zlib enable-brotli enable-zstd enable-sslkeylog
             enable-ec_nistp_64_gcc_128 no-docs no-tests)

usable() { # prefix -> 0 when it has a finished build
	[ -f "$1/.pqtls-complete" ] && [ -x "$1/bin/openssl" ] && [ -f "$1/include/openssl/ssl.h" ]
}

if [ -n "${PQTLS_OPENSSL:-}" ]; then
	usable "$PQTLS_OPENSSL" || die "PQTLS_OPENSSL=$PQTLS_OPENSSL is not a finished pqtls OpenSSL build"
	echo "$PQTLS_OPENSSL"; exit 0
fi

if pkg-config --atleast-version=3.5 openssl 2>/dev/null && command -v openssl >/dev/null &&
   openssl list -kem-algorithms 2>/dev/null | grep -qi ml-kem; then
	log "system OpenSSL $(pkg-config --modversion openssl) is >= 3.5; using it"
	echo system; exit 0
fi

for d in "$cache"/openssl-3.5.*; do
	if [ -d "$d" ] && usable "$d"; then
		log "using cached build $d"
		echo "$d"; exit 0
	fi
done

[ "$(id -u)" = 0 ] || [ -n "${OPENSSL_SOURCE:-}" ] ||
	die "no OpenSSL >= 3.5 found; building one from the Debian source package needs root (for apt-get), or set OPENSSL_SOURCE=<openssl-3.5.x tarball>"

mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Prints "URI" of the system's main Debian entry (deb822 or one-line format).
debian_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN{RS=""; FS="\n"}
		     /Suites:[^\n]*(bookworm|trixie|stable)( |\n|$)/ && !/-security/ {
		       for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { split($i, a, " "); print a[2]; exit } }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" && $0 !~ /security/ && $0 ~ /(bookworm|trixie|stable)/ {
		       for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { print $i; exit } }' "$f"
	done
}

fetch_debian_source() {
	local uri entry versions v
	uri=$(debian_uri | head -n1)
	[ -n "$uri" ] || die "cannot find the system's Debian apt source to derive a trixie deb-src entry from"
	entry=/etc/apt/sources.list.d/pqtls-trixie-src.sources
	if [ ! -f "$entry" ]; then
		log "adding a deb-src-only entry for trixie ($entry): no binary package changes"
		printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			"$uri" >"$entry"
	fi
	apt-get update -qq >&2 || log "apt-get update reported errors; trying anyway"
	versions=$(apt-cache showsrc openssl 2>/dev/null | awk '/^Version: 3\.5\./ {print $2}' | sort -rV | uniq)
	[ -n "$versions" ] || die "apt lists no openssl 3.5.x source package (is the trixie deb-src entry reachable?)"
	cd "$work"
	for v in $versions; do
		log "fetching openssl source $v"
		if apt-get source --download-only -qq "openssl=$v" >&2 2>/dev/null; then
			ls "$work"/openssl_*.orig.tar.* >/dev/null 2>&1 && return 0
		fi
		log "version $v did not download; trying the next"
	done
	die "none of the listed openssl 3.5 source versions ($versions) could be downloaded"
}

if [ -n "${OPENSSL_SOURCE:-}" ]; then
	[ -f "$OPENSSL_SOURCE" ] || die "OPENSSL_SOURCE=$OPENSSL_SOURCE is not a file"
	tarball=$OPENSSL_SOURCE
else
	fetch_debian_source
	tarball=$(ls "$work"/openssl_*.orig.tar.* | head -n1)
fi

mkdir -p "$work/src"
tar -xf "$tarball" -C "$work/src" --strip-components=1
version=$(sed -n 's/^#define OPENSSL_VERSION_STR "\(.*\)"/\1/p' "$work/src/include/openssl/opensslv.h" 2>/dev/null || true)
[ -n "$version" ] || version=$(awk -F= '/^MAJOR|^MINOR|^PATCH/ {printf "%s%s", sep, $2; sep="."}' "$work/src/VERSION.dat")
case "$version" in 3.5.* | 3.[6-9].* | [4-9].*) ;; *) die "source tarball is OpenSSL $version; need >= 3.5" ;; esac
prefix="$cache/openssl-$version"
rm -rf "$prefix"

log "building OpenSSL $version into $prefix (static; takes 3-9 minutes on 2 cores)"
cd "$work/src"
./Configure --prefix="$prefix" --libdir=lib "${config_opts[@]}" >&2
make -j"$(nproc)" >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; die "OpenSSL build failed"; }
make install_sw >>"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; die "OpenSSL install failed"; }
mkdir -p "$prefix/ssl"
cp apps/openssl.cnf "$prefix/ssl/openssl.cnf"
touch "$prefix/.pqtls-complete"
log "built OpenSSL $version"
echo "$prefix"
