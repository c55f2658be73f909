#!/usr/bin/env bash
# What is planted in /run/pqtls is never followed, read or waited on (net/life_report.h).
# The old holder wrote its failure report through NAME.down.tmp.PID with fopen, so a
# symbolic link planted there had its target overwritten; the old 'link down' opened
# NAME.down without O_NOFOLLOW or O_NONBLOCK, so a link planted there had its target's
# text printed as the link's failure, and a FIFO made it block for ever. Each is planted
# under this test's own link's name and removed at the end.
set -euo pipefail
source "$(dirname "$0")/link_lib.bash"
RUN=/run/pqtls
planted=()
names=()
cleanup() {
	local n
	for n in "${names[@]}"; do $P link down "$n" >/dev/null 2>&1 || true; done
	rm -f "${planted[@]}"
	cleanup_tmp
}
trap cleanup EXIT
echo "not the holder's" >"$TMP/victim"
mkdir -p -m 0700 "$RUN"

# 1. The holder's report, with a link planted at its old temporary name: its capture
# fails past 16 KiB (a file size limit, SIGXFSZ ignored), so taking the link down fails
# and the holder reports it. The report arrives; the link's target is untouched.
name=$(trap '' XFSZ; ulimit -f 16; $P link up --rtt 2ms --pcap "$TMP/x.pcap" 2>"$TMP/err") ||
	{ cat "$TMP/err"; fail "link up"; }
names+=("$name")
holder=$(cut -d- -f2 <<<"$name")
planted+=("$RUN/$name.down.tmp.$holder")
ln -s "$TMP/victim" "$RUN/$name.down.tmp.$holder"
PORT=$((20000 + $$ % 20000))
$P link exec "$name" server -- "$P" link probe-server --port "$PORT" &
wait_listening "$name" "$PORT" || fail "the probe server in $name does not listen"
$P link exec "$name" client -- "$P" link probe-client --port "$PORT" --bytes 100000 {server} >/dev/null ||
	fail "no traffic across $name"
rc=0
$P link down "$name" 2>"$TMP/err" || rc=$?
wait 2>/dev/null || :
[ "$rc" = 1 ] || { cat "$TMP/err"; fail "link down after a failed capture: exit $rc, want 1"; }
has "$TMP/err" "its last step failed: --pcap: cannot write $TMP/x.pcap: File too large"
[ "$(cat "$TMP/victim")" = "not the holder's" ] || fail "the holder wrote through the planted link"
[ -L "$RUN/$name.down.tmp.$holder" ] || fail "the planted link was moved"
[ ! -e "$RUN/$name.down" ] || fail "the report was not taken"
echo "ok: the holder's report does not follow a planted temporary name"

# 2. A link to a file, then a FIFO, planted as the report: named and refused at once.
for shape in link fifo; do
	name=$($P link up --rtt 2ms 2>"$TMP/err") || { cat "$TMP/err"; fail "link up"; }
	names+=("$name")
	planted+=("$RUN/$name.down")
	if [ "$shape" = link ]; then ln -s "$TMP/victim" "$RUN/$name.down"; else mkfifo -m 0600 "$RUN/$name.down"; fi
	rc=0
	timeout 30 $P link down "$name" 2>"$TMP/err" || rc=$?
	[ "$rc" = 1 ] || { cat "$TMP/err"; fail "link down with a planted $shape: exit $rc, want 1 (124: it blocked)"; }
	has "$TMP/err" "$RUN/$name.down is a"
	has "$TMP/err" "not a report pqtls wrote: not read"
	! grep -qF "not the holder's" "$TMP/err" || fail "link down printed the planted link's target"
	if ip netns list | grep -q "^$name-"; then fail "namespaces remain after down"; fi
	echo "ok: a planted $shape: $(tail -1 "$TMP/err")"
done
echo ok
