#!/usr/bin/env bash
# Two sweeps started together on a new --out: exactly one measures and the other is
# refused at once with "another pqtls sweep is writing this file"; the file holds every
# cell the winner said it measured. Both are held at a barrier (each blocked reading a
# FIFO; once both have said they are there, the test writes one byte for each, releasing
# both at the same moment), so they reach the store together: no sleep decides the
# order. A loopback pqtls serve stands in for the server (a remote sweep: no link, no
# root). Several
# rounds, each on a new file, because the old code lost data only when the two
# creations interleaved (most rounds did). The winner's 2 cells of 25 connections each
# keep it writing for a second or so: with 2 connections a cell it could finish before a
# descheduled loser (an ASan build on a busy 2-vCPU VM, CI 2026-12-07) reached the file,
# which then found every cell stored and ended 0 as well, without any race to judge.
source "$(dirname "$0")/lib/loopback_serve.bash"
source "$(dirname "$0")/lib/sweep.bash"

cells() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM cell').fetchone()[0])" "$1"; }

for round in 1 2 3 4 5 6; do
	db=$T/r$round/results.db
	gate=$T/gate$round
	mkfifo "$gate"
	exec 3<>"$gate" # held open read-write: the racers' opens never block
	for who in a b; do
		( exec 4<"$gate" 3>&-; : >"$gate.$who"; read -r -n 1 _ <&4
		  exec "$P" sweep --server "$addr" --ca "$T/chain/root.pem" --trials 2 --connections 25 -q \
			--out "$db" >"$T/$who$round.out" 2>"$T/$who$round.err" 4<&- ) &
		eval "pid_$who=\$!"
	done
	# both are at the gate (each wrote its mark just before its read), then one byte each
	for _ in $(seq 1 200); do [ -e "$gate.a" ] && [ -e "$gate.b" ] && break; sleep 0.05; done
	[ -e "$gate.a" ] && [ -e "$gate.b" ] || fail "round $round: the sweeps did not reach the gate"
	printf ab >&3
	exec 3>&-
	rca=0 rcb=0
	wait "$pid_a" || rca=$?
	wait "$pid_b" || rcb=$?
	case "$rca$rcb" in
	01) win=a lose=b ;;
	10) win=b lose=a ;;
	*) cat "$T/a$round.err" "$T/b$round.err"; fail "round $round: exits $rca and $rcb; want one 0 and one 1" ;;
	esac
	grep -qF "$db: another pqtls sweep is writing this file" "$T/$lose$round.err" ||
		{ cat "$T/$lose$round.err"; fail "round $round: the refused sweep does not say why"; }
	grep -qF "2 cells measured" "$T/$win$round.out" || { cat "$T/$win$round.out"; fail "round $round: the winner"; }
	[ "$(cells "$db")" = 2 ] || fail "round $round: the winner measured 2 cells, the file holds $(cells "$db")"
	ls "$T/r$round" | grep -q tmp && fail "round $round: a temporary file is left: $(ls "$T/r$round")"
done
echo "ok: 6 rounds, one sweep refused in each, the other's cells all on disk"

# A file removed while a sweep writes it: the sweep does not claim its cells are stored.
# It is stopped (SIGSTOP) once a cell is on disk, the file removed, then let go; 20 cells
# of 50 connections leave it far from done when the first cell lands.
"$P" sweep --server "$addr" --ca "$T/chain/root.pem" --trials 20 --connections 50 -q --out "$T/gone.db" \
	>"$T/gone.out" 2>"$T/gone.err" &
gpid=$!
for _ in $(seq 1 600); do
	[ "$(cells "$T/gone.db" 2>/dev/null || echo 0)" -ge 1 ] && break
	sleep 0.05
done
# the process that writes: the sweep's child in a session of its own, when it has one
gm=$(sweep_measurer $gpid)
kill -STOP $gm || fail "the sweep ended before its file could be removed"
[ "$(cells "$T/gone.db")" -lt 20 ] || { kill -CONT $gm; fail "the sweep finished before its file could be removed"; }
rm "$T/gone.db"
kill -CONT $gm
rc=0
wait $gpid || rc=$?
[ "$rc" = 1 ] || { cat "$T/gone.out" "$T/gone.err"; fail "a sweep whose file was removed exited $rc"; }
grep -qF "was removed or replaced while this sweep wrote it" "$T/gone.err" || { cat "$T/gone.err"; fail "no reason"; }
echo ok
