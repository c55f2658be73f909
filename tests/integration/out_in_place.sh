#!/usr/bin/env bash
# An output that is not a regular file is never replaced (core/wfile.h). For every
# writer (report -o, sweep export --jsonl, bench --csv and --jsonl, zeek summary
# --partial, link run --pcap): a character device is written in place and stays one; a
# full device fails with exit 1 naming the output and the reason; a FIFO gets the bytes
# and stays a FIFO; a symbolic link stays a link and the file it points to is replaced.
# The old writers renamed a temporary file over each of them (`report -o /dev/null` made
# /dev/null a regular file). The devices are this test's own nodes (mknod), never /dev's.
set -euo pipefail
source "$(dirname "$0")/lib/loopback_serve.bash"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (mknod: device nodes of its own)"; exit 77; }
SRC=$(cd "$(dirname "$0")/../.." && pwd)
bash "$SRC/tests/integration/lib/mkresults.sh" "$T/r.db" >/dev/null
mknod "$T/null" c 1 3
mknod "$T/full" c 1 7
printf '#fields\tts\tid.resp_h\tversion\tresumed\n1700000000\t10.0.0.1\tTLSv13\tT\n' >"$T/ssl.log"

# write WRITER OUT: the writer's output at OUT; its stderr in $T/e
write() {
	case $1 in
	report) "$P" report "$T/r.db" -q -o "$2" ;;
	export) "$P" sweep export "$T/r.db" --jsonl "$2" ;;
	bench-csv) "$P" bench "$addr" --insecure -n 5 --csv "$2" ;;
	bench-jsonl) "$P" bench "$addr" --insecure -n 5 --jsonl "$2" ;;
	partial) "$P" zeek summary "$T/ssl.log" --partial "$2" ;;
	pcap) "$P" link run --rtt 1ms --pcap "$2" -- true -- true ;;
	esac >/dev/null 2>"$T/e"
}

writers=(report export bench-csv bench-jsonl partial)
if [ -c /dev/net/tun ] && command -v ip >/dev/null && unshare -n true 2>/dev/null; then
	writers+=(pcap)
else
	echo "note: no TUN or namespaces here: link run --pcap not checked"
fi

for w in "${writers[@]}"; do
	write "$w" "$T/null" || { cat "$T/e"; fail "$w to a null device: exit $?"; }
	[ -c "$T/null" ] || fail "$w replaced the null device: $(stat -c %F "$T/null")"

	rc=0
	write "$w" "$T/full" || rc=$?
	[ "$rc" = 1 ] || { cat "$T/e"; fail "$w to a full device: exit $rc, want 1"; }
	grep -qF -- "$T/full" "$T/e" || { cat "$T/e"; fail "$w: the message does not name $T/full"; }
	grep -qF "No space left on device" "$T/e" || { cat "$T/e"; fail "$w: the message does not say why"; }
	[ -c "$T/full" ] || fail "$w replaced the full device: $(stat -c %F "$T/full")"

	mkfifo "$T/fifo.$w"
	timeout 60 cat "$T/fifo.$w" >"$T/got.$w" & # bounded: a writer that never opens it fails the test
	write "$w" "$T/fifo.$w" || { cat "$T/e"; fail "$w to a FIFO: exit $?"; }
	wait $!
	[ -p "$T/fifo.$w" ] || fail "$w replaced the FIFO: $(stat -c %F "$T/fifo.$w")"
	[ -s "$T/got.$w" ] || fail "$w wrote nothing into the FIFO"

	echo old >"$T/real.$w"
	ln -s "real.$w" "$T/link.$w"
	write "$w" "$T/link.$w" || { cat "$T/e"; fail "$w through a symbolic link: exit $?"; }
	[ -L "$T/link.$w" ] || fail "$w replaced the symbolic link: $(stat -c %F "$T/link.$w")"
	[ -f "$T/real.$w" ] && [ "$(cat "$T/real.$w")" != old ] || fail "$w did not replace the link's file"
	echo "ok: $w: null and full devices, FIFO, symbolic link"
done
# The same bytes through a FIFO as into a file.
write export "$T/plain.jsonl"
cmp -s "$T/plain.jsonl" "$T/got.export" || fail "export through a FIFO differs from the file"
left=$(find "$T" -name '*.tmp.*')
[ -z "$left" ] || fail "temporary files left: $left"
echo ok
