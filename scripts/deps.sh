#!/usr/bin/env bash
# Install the Debian packages pqtls needs to build and test, when missing.
# Why each is there: see "Dependencies" in README.md.
set -euo pipefail

pkgs=(build-essential cmake pkg-config
      libcjson-dev      # JSON manifests, summaries and JSONL records
      libpcap-dev       # pcap files of what crossed the emulated link
      libmaxminddb-dev  # zeek --asn-db: ASNs from MaxMind DBs
      parallel          # tests: a sweep's shards, and zeek --partial files, run as a job runner would
      libnghttp3-dev    # bench --quic --http3: HTTP/3 framing and QPACK over OpenSSL's QUIC streams
      ngtcp2-server     # tests: ngtcp2's HTTP/3 server (GnuTLS), an independent QUIC peer for bench --quic --http3
      libsqlite3-dev    # the results database of pqtls sweep (zeek savings reads it too)
      sqlite3           # tests: results databases made by hand (report fixtures and bad input, zeek)
      time              # tests: GNU time's peak RSS shows bench's memory stays bounded
      libcmocka-dev     # unit tests
      zlib1g-dev libbrotli-dev libzstd-dev  # RFC 8879 certificate compression in OpenSSL; zlib: gzip Zeek logs
      iproute2          # namespaces, veth, routes with initcwnd
      tshark            # tests open written pcaps with an independent reader
      dpkg-dev          # apt-get source (OpenSSL 3.5 source package)
      clang libclang-rt-14-dev  # libFuzzer targets in fuzz/ (make fuzz, short runs in make test)
      chromium fonts-dejavu-core  # tests: the report opened in a headless browser (a font for its text)
      linux-perf        # tests: bench/waits.sh traces a sweep's scheduling (perf sched)
      ca-certificates
      python3)          # tests only: several integration tests read JSON with it

missing=()
for p in "${pkgs[@]}"; do
	case "$p" in \#*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing Debian packages: ${missing[*]}" >&2
	echo "deps.sh: install them as root: apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || true
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
