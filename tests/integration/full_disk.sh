#!/usr/bin/env bash
# Every writer on a full disk: a 64 KiB tmpfs. A writer that cannot put every byte in
# place exits non-zero naming the file and the reason, and leaves neither a truncated
# file nor its temporary. Two ways to fill: an empty 64 KiB disk that a large output
# overflows part way (sweep export --jsonl wrote 16,384 of 82,546 bytes and exited 0),
# and a disk already full, where even a short output fails at its first write. Writers:
# sweep export (--jsonl, --csv), report (HTML, --csv), bench (--csv, --jsonl),
# zeek summary --partial, merge, serve --ready-file, the chain directory of certs, a
# sweep's new database, link run --pcap (streamed while the link runs; the old writer
# named only its temporary and no reason), link up --pcap (reported by link down), and
# standard output redirected to the full disk (certs --json, zeek --json, report's table);
# and standard output into a pipe nobody reads is not a full disk.
source "$(dirname "$0")/lib/loopback_serve.bash"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (mounts a 64 KiB tmpfs)"; exit 77; }
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$T/disk
mkdir "$D"
mount -t tmpfs -o size=64k tmpfs "$D" || { echo "skip: needs root (cannot mount a tmpfs here)"; exit 77; }
trap 'umount "$D" 2>/dev/null; [ -n "$spid" ] && kill $spid 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT

bash "$SRC/tests/integration/lib/mkresults.sh" "$T/r.db" >/dev/null
"$P" sweep export "$T/r.db" --jsonl "$T/all.jsonl"
[ "$(stat -c %s "$T/all.jsonl")" -gt 70000 ] || fail "the fixture's JSON lines do not overflow 64 KiB"

# expect_full WHAT FILE CMD...: CMD exits 1 naming FILE and the disk being full; nothing
# is left on the disk but what was there before.
expect_full() {
	local what=$1 file=$2 rc=0
	shift 2
	find "$D" -mindepth 1 | sort >"$T/before"
	"$@" >"$T/o" 2>"$T/e" || rc=$?
	[ "$rc" = 1 ] || { cat "$T/e"; fail "$what on a full disk: exit $rc, want 1"; }
	grep -qF -- "$file" "$T/e" || { cat "$T/e"; fail "$what: the message does not name $file"; }
	grep -Eq "No space left on device|disk is full" "$T/e" || { cat "$T/e"; fail "$what: the message does not say why"; }
	find "$D" -mindepth 1 | sort >"$T/after"
	cmp -s "$T/before" "$T/after" || { diff "$T/before" "$T/after"; fail "$what left files on the full disk"; }
	echo "ok: $what: $(head -1 "$T/e")"
}

# 1. Overflowing part way: the output is larger than the space left. With 20 or 60 KiB
# already taken the old export wrote a page-sized prefix and exited 0 (the stream's error
# flag was never read; the final close had nothing left to flush).
for fill in 20 60 0; do
	rm -f "$D/filler"
	[ "$fill" = 0 ] || head -c "${fill}k" /dev/zero >"$D/filler"
	expect_full "sweep export --jsonl ($fill KiB taken)" "$D/all.jsonl" "$P" sweep export "$T/r.db" --jsonl "$D/all.jsonl"
	expect_full "bench --jsonl ($fill KiB taken)" "$D/b.jsonl" "$P" bench "$addr" --insecure -n 400 --jsonl "$D/b.jsonl"
	# the page (about 54 KiB) fits on the empty disk
	[ "$fill" = 0 ] || expect_full "report -o ($fill KiB taken)" "$D/r.html" "$P" report "$T/r.db" -q -o "$D/r.html"
done
expect_full "sweep export --csv" "$D/csv/" "$P" sweep export "$T/r.db" --csv "$D/csv"
rm -rf "$D/csv" # the directory itself is the user's to keep; its files were not left
touch "$D/stdout.jsonl" # the shell's redirection makes it, not the writer
expect_full "sweep export --jsonl to stdout" "standard output" \
	bash -c '"$0" sweep export "$1" --jsonl - >"$2"' "$P" "$T/r.db" "$D/stdout.jsonl"
rm -f "$D/stdout.jsonl"
expect_full "bench --csv" "$D/b.csv" "$P" bench "$addr" --insecure -n 400 --csv "$D/b.csv"
expect_full "merge" "$D/m.db" "$P" merge "$T/r.db" -o "$D/m.db"
# link_pcap: a run across a link whose capture (300 KB of payload) overflows the empty
# disk part way; the same on the full disk below.
link_pcap() {
	"$P" link run --rtt 10ms --pcap "$D/x.pcap" --wait-port 5201 -- "$P" link probe-server --port 5201 -- \
		"$P" link probe-client --bytes 300000 {server}
}
can_link=0
[ -c /dev/net/tun ] && command -v ip >/dev/null && unshare -n true 2>/dev/null && can_link=1
[ "$can_link" = 1 ] || echo "note: no TUN or namespaces here: link run --pcap not checked"
[ "$can_link" = 0 ] || expect_full "link run --pcap" "$D/x.pcap:" link_pcap
# link_up_pcap: the same capture held by 'link up'; its holder finishes the file at 'link
# down', which reports what the holder could not write (it once ended 0, the capture gone)
link_up_pcap() {
	local name port=$((20000 + $$ % 20000)) rc=0
	name=$("$P" link up --rtt 10ms --pcap "$D/x.pcap" 2>"$T/up.err") || { cat "$T/up.err" >&2; return 3; }
	"$P" link exec "$name" server -- "$P" link probe-server --port "$port" &
	local srv=$! hex
	hex=$(printf '%04X' "$port")
	for _ in $(seq 200); do # listening: up to 10 s on a busy machine
		ip netns exec "$name-s" cat /proc/net/tcp | awk '$4 == "0A"' | grep -qi ":$hex " && break
		sleep 0.05
	done
	"$P" link exec "$name" client -- "$P" link probe-client --port "$port" --bytes 300000 {server} >/dev/null || rc=3
	"$P" link down "$name" || rc=$?
	wait "$srv" 2>/dev/null || :
	return "$rc"
}
[ "$can_link" = 0 ] || expect_full "link up --pcap, link down" "$D/x.pcap:" link_up_pcap

# 2. A disk already full: every output fails at once.
dd if=/dev/zero of="$D/filler" bs=4k 2>/dev/null || true # runs until the disk is full
[ "$(df --output=avail "$D" | tail -1)" -eq 0 ] || fail "the tmpfs is not full"
expect_full "report -o" "$D/r.html" "$P" report "$T/r.db" -q -o "$D/r.html"
mkdir "$D/rcsv" 2>/dev/null || fail "no directory can be made on the full tmpfs"
expect_full "report --csv" "$D/rcsv/" "$P" report "$T/r.db" -q -o "$T/r.html" --csv "$D/rcsv"
printf '#fields\tts\tid.resp_h\tversion\tresumed\n1700000000\t10.0.0.1\tTLSv13\tT\n' >"$T/ssl.log"
expect_full "zeek summary --partial" "$D/p.part" "$P" zeek summary "$T/ssl.log" --partial "$D/p.part"
expect_full "serve --ready-file" "$D/addr" "$P" serve --certs "$T/chain" --listen 127.0.0.1:0 --duration 1s \
	--ready-file "$D/addr"
expect_full "certs --out" "$D/chain" "$P" certs --sig ecdsa-p256 --out "$D/chain"
expect_full "sweep --out" "$D/s.db" "$P" sweep --server "$addr" --ca "$T/chain/root.pem" --connections 1 -q \
	--out "$D/s.db"
[ "$can_link" = 0 ] || expect_full "link run --pcap (full disk)" "$D/x.pcap:" link_pcap
for cmd in "certs --sig ecdsa-p256 --json" "zeek summary $T/ssl.log --json" "report $T/r.db -o $T/r2.html"; do
	: >"$D/stdout" 2>/dev/null || true
	# shellcheck disable=SC2086 # the words of $cmd are meant to split
	expect_full "$cmd >full" "standard output" bash -c '"$0" '"$cmd"' >"$1"' "$P" "$D/stdout"
done
# Not full: a reader that stopped reading chose to (`| true`, `| head`). The write that
# failed came before the check at exit, and a pipe reads as a full file system: it said
# "No space left on device" and exit 1.
for i in 1 2 3; do
	"$P" sweep --preset quick --dry-run 2>"$T/e" | true
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] && [ ! -s "$T/e" ] || { cat "$T/e"; fail "sweep --dry-run | true: exit $rc, want 0 and nothing said"; }
done
echo ok
