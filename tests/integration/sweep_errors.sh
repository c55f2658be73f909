#!/usr/bin/env bash
# pqtls sweep refuses bad specs before measuring anything: each message names the file,
# the line, the key and what is allowed, the exit status is 2, and no database is left.
# An unwritable --out fails before any link or chain is made. Needs no root: nothing here
# gets as far as a link.
set -euo pipefail
P=${PQTLS:-build/pqtls}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# refuse SPEC-TEXT EXPECTED...: the spec fails with status 2 and every EXPECTED in stderr.
refuse() {
	local text=$1
	shift
	printf '%b' "$text" >"$T/s.spec"
	local rc=0
	"$P" sweep "$T/s.spec" --out "$T/out/r.db" >"$T/o" 2>"$T/e" || rc=$?
	[ "$rc" = 2 ] || { cat "$T/e"; fail "spec '$text': exit $rc, expected 2"; }
	for want in "$@"; do
		grep -qF -- "$want" "$T/e" || { cat "$T/e"; fail "spec '$text': expected '$want' in the message"; }
	done
	[ ! -e "$T/out/r.db" ] || fail "spec '$text' left a database"
}

refuse 'rtt = 10ms\nbogus = 1\n' "s.spec:2: unknown key 'bogus'; allowed: name, trials"
refuse 'rtt = 10ms\nrtt = 20ms\n' "s.spec:2: rtt: duplicate key (first given at" "s.spec:1"
refuse 'rtt =\n' "s.spec:1: rtt: empty dimension; allowed: durations"
refuse 'rtt = 10ms,\n' "s.spec:1: rtt: empty value in the list"
refuse 'rtt = 5xs\n' "s.spec:1: rtt: '5xs' is not a duration"
refuse 'loss = 0%..20%\n' "s.spec:1: loss: '0%..20%': this key takes no range"
refuse 'intermediates = 7\n' "s.spec:1: intermediates: 7 is out of range; use 0 to 4"
# The reason given is the real one: a path is no response and a name no path (not "takes
# no range"); a padding over a certificate entry's limit and a rate no link can run are
# refused before anything runs (they passed --dry-run and failed at run time); an arm
# label's limit is in bytes, as counted.
refuse 'response = /../../etc/passwd\n' "s.spec:1: response: '/../../etc/passwd' is not allowed; allowed: '/', 'none' or sizes"
refuse 'name = ../../x\n' "s.spec:1: name: '../../x' is not a name; a name is letters, digits"
refuse 'name = a/b\n' "s.spec:1: name: 'a/b' is not a name"
refuse 'pad-chain-to = 1GiB\n' "s.spec:1: pad-chain-to: '1GiB' is over the 16777215 bytes allowed"
refuse 'pad-chain-to = 4KiB..32MiB step 16MiB\n' "s.spec:1: pad-chain-to: '32MiB' is over the 16777215 bytes allowed"
refuse 'rate = 1bit\n' "s.spec:1: rate: '1bit' is out of range; allowed: rates from 8 kbit/s"
refuse "[arm $(printf 'é%.0s' $(seq 1 40))]\nsig = ecdsa-p256\n" "an arm label is 1 to 63 bytes (this one is 80;"
for opt in "--name ../../x" "--response /../../etc/passwd" "--pad-chain-to 1GiB" "--rate 1bit"; do
	rc=0
	# shellcheck disable=SC2086 # the option and its value
	"$P" sweep $opt --dry-run >/dev/null 2>"$T/e" || rc=$?
	[ "$rc" = 2 ] || { cat "$T/e"; fail "sweep $opt --dry-run: exit $rc, want 2"; }
	grep -qF -- "${opt%% *}: " "$T/e" && ! grep -q "takes no range" "$T/e" || { cat "$T/e"; fail "sweep $opt: $(cat "$T/e")"; }
done
# What is allowed stays allowed: a path with '..' where a path is meant, the limits.
"$P" sweep --server 127.0.0.1:1 --ca ../x/root.pem --dry-run >/dev/null || fail "--ca ../x/root.pem refused"
"$P" sweep --pad-chain-to 16777215 --rate 8kbit,0 --name a-b_c.1 --dry-run >/dev/null || fail "the limits were refused"
refuse 'sig = ecdsa-p999\n' "s.spec:1: sig" "ecdsa-p256"
# A misspelt group, an empty element of a list, and a server that takes none of the offer
# are refused before anything runs (they passed --dry-run, brought up a link and were
# stored as failed cells with exit 0), naming the key and the groups OpenSSL knows.
refuse 'groups = X25519MLKEM768:bogus\n' \
	"s.spec:1: groups: 'bogus' in 'X25519MLKEM768:bogus' is not a group this OpenSSL knows; known: " "X25519MLKEM768"
refuse 'server-groups = X25519MLKEM768//X25519\n' "s.spec:1: server-groups: 'X25519MLKEM768//X25519' has an empty element"
refuse 'groups = X25519MLKEM768::X25519\n' "s.spec:1: groups: 'X25519MLKEM768::X25519' has an empty element"
refuse 'server-groups = X25519\n' "s.spec: server-groups: X25519 has no group in common with the groups offered"
refuse 'groups = X25519MLKEM768:X25519\nserver-groups = X25519\n' \
	"server-groups: X25519 does not take X25519MLKEM768, the group the cell expects negotiated"
# A value twice, a Gilbert loss no burst length can make, a range's step out of its span:
# each named with its line and what is allowed (issue 29 items 6, b, c).
refuse 'rtt = 1ms\ncc = cubic, cubic\n' "s.spec:2: cc: 'cubic' is listed twice"
refuse 'loss-model = gilbert\nloss = 100%\n' "s.spec:2: loss: 100% with loss-model gilbert" "allowed: 0% to 75%"
refuse 'mtu = 600..1500 step 1000\n' "s.spec:1: mtu: step: 1000 is out of range; use 1 to 900"
# A range's step is a step, not a value of the key; a byte order mark is no part of a key.
"$P" sweep --mtu '600..1500 step 100' --dry-run | head -1 | grep -q "^10 cells" || fail "mtu = 600..1500 step 100 refused"
printf '\xef\xbb\xbfconnections = 5\n' >"$T/bom.spec"
"$P" sweep "$T/bom.spec" --dry-run | grep -q "connections=5;" || fail "a spec starting with a BOM was refused"
rc=0
"$P" sweep --group X25519MLKEM769 --dry-run >"$T/o" 2>"$T/e" || rc=$?
[ "$rc" = 2 ] && grep -qF -- "--group: 'X25519MLKEM769' is not a group this OpenSSL knows" "$T/e" ||
	{ cat "$T/e"; fail "--group X25519MLKEM769 --dry-run: exit $rc"; }
[ ! -s "$T/o" ] || fail "--group X25519MLKEM769 --dry-run printed a grid"
refuse 'mtc = yes\n' "s.spec:1: mtc: 'yes' is not allowed; allowed: one or more of none|standalone|landmark"
refuse 'arrivals = sometimes\n' "s.spec:1: arrivals: 'sometimes' is not allowed; allowed: one or more of poisson|constant"
refuse '[arm a]\nsig = ecdsa-p256\n[arm a]\n' "s.spec:3: arm 'a' is already defined at"
refuse '[arm a]\ntrials = 2\n' "s.spec:2: trials: is global"
refuse 'rtt 10ms\n' "s.spec:1: 'rtt 10ms': expected 'key = value'"
refuse 'rtt = 1ms..900ms step 1ms\npad-chain-to = 4KiB..80KiB step 1KiB\n' \
	"s.spec: the grid has more than 20000 cells" "split the study"
# Impossible only once the chain is known: padding below its natural size. The chain
# factory runs before any link; the message names the spec line of pad-chain-to.
refuse 'sig = ecdsa-p256\nintermediates = 0\npad-chain-to = 100\n' \
	"s.spec:3: pad-chain-to: the chain of arm" "below the chain's natural size; the smallest is"

# Command-line dimensions name the option.
rc=0
"$P" sweep --rtt 10ms,,20ms --out "$T/x.db" 2>"$T/e" || rc=$?
[ "$rc" = 2 ] && grep -qF -- "--rtt: empty value in the list" "$T/e" || { cat "$T/e"; fail "--rtt with an empty value"; }
rc=0
"$P" sweep --preset nosuch 2>"$T/e" || rc=$?
[ "$rc" = 2 ] && grep -qF -- "--preset: no preset 'nosuch' (known: quick, blog-certsize" "$T/e" || { cat "$T/e"; fail "unknown preset"; }
rc=0
"$P" sweep --preset quick --shard 4/3 2>"$T/e" || rc=$?
[ "$rc" = 2 ] && grep -qF -- "--shard: '4/3' is not a shard" "$T/e" || { cat "$T/e"; fail "bad shard"; }

# The forwarder's tuning comes from the environment `pqtls link` reads; a bad value is
# refused by the variable's name before anything is written.
rc=0
PQTLS_LINK_EARLY_US=abc "$P" sweep --preset quick --out "$T/env.db" >"$T/o" 2>"$T/e" || rc=$?
[ "$rc" = 2 ] && grep -qF "PQTLS_LINK_EARLY_US: 'abc' is not accepted (accepted: a whole number from 0 to 10000 us" "$T/e" ||
	{ cat "$T/e"; fail "a bad PQTLS_LINK_EARLY_US: exit $rc"; }
[ ! -e "$T/env.db" ] || fail "a refused PQTLS_LINK_EARLY_US left a database"

# An unwritable --out fails at once (before chains or links), naming the path.
rc=0
"$P" sweep --sig ecdsa-p256 --rtt 1ms --out /proc/pqtls-no/r.db >"$T/o" 2>"$T/e" || rc=$?
[ "$rc" = 1 ] && grep -qF "/proc/pqtls-no/r.db: cannot create directory" "$T/e" || { cat "$T/e"; fail "unwritable --out: exit $rc"; }
grep -q "link up\|chain made" "$T/e" && fail "something was made before the unwritable --out was refused"

# A directory or a text file where a spec or a results database belongs is named and refused.
mkdir "$T/adir"
echo hello >"$T/text.db"
rc=0
"$P" sweep "$T/adir" --dry-run >"$T/o" 2>"$T/e" || rc=$?
[ "$rc" != 0 ] && grep -qF "adir: cannot read the spec: Is a directory" "$T/e" || { cat "$T/e"; fail "a directory as spec: exit $rc"; }
for cmd in "sweep export $T/adir --csv $T/csv" "merge $T/adir -o $T/m.db"; do
	rc=0
	$P $cmd >"$T/o" 2>"$T/e" || rc=$?
	[ "$rc" = 1 ] && grep -qF "adir: is a directory; give a results database" "$T/e" || { cat "$T/e"; fail "$cmd: exit $rc"; }
done
rc=0
"$P" sweep export "$T/text.db" --jsonl "$T/x.jsonl" >"$T/o" 2>"$T/e" || rc=$?
[ "$rc" = 1 ] && grep -qF "text.db: is not an SQLite database" "$T/e" || { cat "$T/e"; fail "text as db: exit $rc"; }
[ ! -e "$T/x.jsonl" ] && [ ! -e "$T/csv" ] && [ ! -e "$T/m.db" ] || fail "a refused export or merge left output"
# merge -o onto a dangling symbolic link names the link (it blamed another process).
ln -s "$T/nowhere/r.db" "$T/dangling.db"
rc=0
"$P" merge "$T/text.db" -o "$T/dangling.db" >"$T/o" 2>"$T/e" || rc=$?
[ "$rc" = 2 ] && grep -qF "dangling.db is a dangling symbolic link (to $T/nowhere/r.db, which does not exist)" "$T/e" &&
	! grep -q "another process" "$T/e" || { cat "$T/e"; fail "merge onto a dangling link: exit $rc"; }
[ -L "$T/dangling.db" ] && [ ! -e "$T/nowhere" ] || fail "merge changed the dangling link"
# A FIFO is refused by name, not opened (every reader blocked on it for ever: the timeout
# makes that a failure here rather than a hung test).
mkfifo "$T/fifo.db"
for cmd in "sweep export $T/fifo.db --jsonl $T/x.jsonl" "merge $T/fifo.db -o $T/m.db" "report $T/fifo.db -o $T/r.html"; do
	rc=0
	timeout 20 $P $cmd >"$T/o" 2>"$T/e" || rc=$?
	[ "$rc" = 1 ] && grep -qF "fifo.db: a FIFO: not a regular file" "$T/e" || { cat "$T/e"; fail "$cmd: exit $rc"; }
done
[ ! -e "$T/x.jsonl" ] && [ ! -e "$T/m.db" ] && [ ! -e "$T/r.html" ] || fail "a refused FIFO left output"

# --presets lists every preset with its size and estimated time; --dry-run measures nothing.
"$P" sweep --presets >"$T/o"
for p in quick blog-certsize blog-payload ttfb-size ttfb-intermediates ttfb-rtt mtc-cdn ttlb loss; do
	grep -q "^$p " "$T/o" || { cat "$T/o"; fail "--presets lacks $p"; }
done
# the (all) row counts every preset's cells, and gives a time for every preset together
sum=$(awk '$1 != "preset" && $1 != "(all)" && $1 !~ /^\(time/ {n += $2} END {print n}' "$T/o")
grep -qE "^\(all\) +$sum +[0-9]+h[0-9]+m +[0-9]+h?[0-9]+m" "$T/o" || { cat "$T/o"; fail "--presets: the (all) row is not the $sum cells of the presets, with times"; }
"$P" sweep --preset quick --dry-run >"$T/o"
head -1 "$T/o" | grep -q "^54 cells (shard 1/1)" || { head -3 "$T/o"; fail "quick is not 54 cells"; }
# Shards split the grid exactly: 3 shards together are the whole grid, each cell once.
for i in 1 2 3; do "$P" sweep --preset quick --dry-run --shard $i/3 | tail -n +2 | awk '{print $2}'; done | sort >"$T/sharded"
tail -n +2 "$T/o" | awk '{print $2}' | sort >"$T/whole"
cmp -s "$T/sharded" "$T/whole" || fail "the 3 shards are not the grid"
[ "$(sort -u "$T/whole" | wc -l)" = 54 ] || fail "cell keys are not unique"
echo ok
