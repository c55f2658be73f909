#!/usr/bin/env bash
# Test helper: a results database in the sweep's schema (`pqtls sweep --schema`) with
# synthetic connections, for report tests that must not wait for a sweep.
# Usage: mkresults.sh OUT.db [HOST ...]   (default host: lab-a; two hosts = a merged DB)
# Cells: five arms at RTT 1 and 70 ms (2 trials x 8 connections), an ECDSA chain-size
# sweep at 70 ms (4,000..20,000 B), and three response sizes for two arms. Times follow
# the flight model's round trips (1 + TLS rounds + request) times the RTT, plus a
# deterministic spread of up to 1.6 ms, so the model agrees except at 1 ms.
set -euo pipefail
out=${1:?usage: mkresults.sh OUT.db [HOST ...]}
shift
hosts=("${@:-lab-a}")
rm -f "$out"
schema=$("${PQTLS:?PQTLS must point at the pqtls binary}" sweep --schema)
# the version this pqtls writes, as its own schema says (never restated here)
version=$(sed -n 's/^PRAGMA user_version = \([0-9]*\);$/\1/p' <<<"$schema")
{
	echo "$schema"
	echo "INSERT INTO meta VALUES ('schema_version','$version'),('spec_name','fixture'),('spec_hash','00'),('created_by','mkresults.sh');"
	echo "BEGIN;"
	run=0
	for host in "${hosts[@]}"; do
		run=$((run + 1))
		echo "INSERT INTO run (run_id, run_uuid, spec_name, spec_hash, spec_text, command_line, pqtls_version, openssl_version, kernel, cpu_model, cpu_count, host_name, link_backend, cc_default, seed, shard_index, shard_count, remote_server, cells_planned, started_at, ended_at, end_status) VALUES ($run,'uuid-$run','fixture','00','arms x rtt','pqtls sweep --preset fixture','0.1.0','OpenSSL 3.5.7','Linux 6.1 x86_64','Test CPU',2,'$host','userspace','cubic',1,1,1,NULL,0,'2026-11-30T20:00:00Z','2026-11-30T20:02:00Z','complete');"
		for rtt in 1000 70000; do
			echo "INSERT INTO link_check (run_id, link_key, link_desc, backend, checked, ok, rtt_cfg_us, rtt_samples, rtt_lost, rtt_p50_us, rtt_p99_us, rtt_min_us, rtt_max_us, rtt_err_p50_us, rtt_err_p99_us, rtt_ok, host_steal_pct, summary, checked_at) VALUES ($run,'L$rtt','rtt $((rtt / 1000)) ms','userspace',1,1,$rtt,50,0,$rtt+60,$rtt+400,$rtt+20,$rtt+900,60,400,1,0.5,'ok: rtt within budget','2026-11-30T20:00:01Z');"
		done
	done
	idx=0
	cell() { # host arm leaf chain_bytes rtt resume early resp pad rounds_hs
		local host=$1 arm=$2 leaf=$3 chain=$4 rtt=$5 resume=$6 early=$7 resp=$8 pad=$9 hs=${10}
		local fb=$((hs + 1 - early)) # 0-RTT: the answer comes with the server's flight
		local run=1 path="/"
		[ "$host" = "${hosts[0]}" ] || run=2
		[ "$resp" -ge 0 ] && path="/bytes/$resp"
		for trial in 1 2; do
			idx=$((idx + 1))
			echo "INSERT INTO cell (cell_id, cell_key, point_key, host_name, run_id, link_check_id, cell_index, link_key, trial, arm, chain_leaf, chain_intermediate, chain_root, chain_intermediates, chain_pad_to_bytes, chain_mtc, cert_comp, chain_desc, chain_der_bytes, cert_msg_bytes, first_flight_bytes, first_flight_segs, chain_cached, tls_group, client_groups, key_share, server_groups, tickets, resume_pct, early_data, flight_one_write, link_profile, rtt_us, jitter_us, loss_pct, loss_model, loss_burst_pkts, rate_bps, queue_pkts, mtu_bytes, initcwnd_segs, cc, request_path, response_bytes, connections, warmup_conns, concurrency, open_loop_rate_per_s, client_timeout_us, server_hs_timeout_us, server_idle_timeout_us, link_check_ok, status, conns_ok, conns_failed, started_at, wall_us) VALUES ($idx,'k$idx','p-$arm-$rtt-$pad-$resp','$host',$run,NULL,$idx,'L$rtt',$trial,'$arm','$leaf','$leaf','$leaf',1,$pad,'none','off','$leaf chain',$chain,$((chain + 18)),$((chain + 4700)),9,1,'X25519MLKEM768','X25519MLKEM768','X25519MLKEM768','X25519MLKEM768',2,$resume,$early,0,'',$rtt,0,0,'bernoulli',0,0,0,1500,10,'cubic','$path',$resp,8,0,1,0,10000000,20000000,60000000,1,'ok',8,0,'2026-11-30T20:00:02Z',1000000);"
			# TLS rounds + connect = handshake; + 1 = TTFB; TTLB adds a round per 64 KiB.
			local extra=0
			[ "$resp" -gt 65536 ] && extra=$(((resp + 65535) / 65536 / 4 + 1))
			echo "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 7)
INSERT INTO conn (cell_id, conn_index, intended_us, start_us, connect_us, handshake_us, ttfb_us, ttlb_us, end_us, latency_us, handshake_rtts, tls_version, tls_group, sigalg, cipher, resume_offered, resumed, hrr, ch1_bytes, ch1_segs, ch2_bytes, ch2_segs, early_sent, early_accepted, cert_compressed, tls_tx_bytes, tls_rx_bytes, tcp_tx_bytes, tcp_rx_bytes, tcp_tx_segs, tcp_rx_segs, srtt_us, rttvar_us, min_rtt_us, retrans_segs, cwnd_segs, mss_bytes, requests, http_status, body_bytes, error_kind)
SELECT $idx, i, i * 1000, i * 1000, $rtt + 100, $hs * $rtt + 900 + ((i * 37 + $idx * 11) % 17) * 100, $fb * $rtt + 1000 + ((i * 37 + $idx * 11) % 17) * 100,
 ($fb + $extra) * $rtt + 1100 + ((i * 37 + $idx * 11) % 17) * 100, ($fb + $extra) * $rtt + 1200, ($fb + $extra) * $rtt + 1200, $hs - 1, 'TLSv1.3', 'X25519MLKEM768', 'sig', 'TLS_AES_256_GCM_SHA384',
 $((resume > 0)), $((resume > 0)), 0, 1400, 1, 0, 0, $early, $early, 0, 1500, $chain + 4000, 1500, $chain + 4000, 10, 12, $rtt + 50, 100, $rtt + 20, 0, 10, 1448, 1, 200, $((resp > 0 ? resp : 81)), 'ok' FROM k;"
		done
	}
	for host in "${hosts[@]}"; do
		for rtt in 1000 70000; do
			cell "$host" ecdsa-p256 ecdsa-p256 752 $rtt 0 0 -1 0 2
			cell "$host" ml-dsa-44 ml-dsa-44 7945 $rtt 0 0 -1 0 2
			cell "$host" ml-dsa-65 ml-dsa-65 11003 $rtt 0 0 -1 0 3
			cell "$host" "ml-dsa-65 resumed" ml-dsa-65 11003 $rtt 100 0 -1 0 2
			cell "$host" "ml-dsa-65 0-RTT" ml-dsa-65 11003 $rtt 100 1 -1 0 2
		done
		for pad in 4000 6000 8000 10000 12000 14000 16000 18000 20000; do
			hs=2; [ $pad -gt 11495 ] && hs=3
			cell "$host" "ecdsa-p256 pad" ecdsa-p256 $pad 70000 0 0 -1 $pad $hs
		done
		for resp in 1024 65536 1048576; do
			cell "$host" "ecdsa-p256 ttlb" ecdsa-p256 752 70000 0 0 $resp 0 2
			cell "$host" "ml-dsa-65 ttlb" ml-dsa-65 11003 70000 0 0 $resp 0 3
		done
	done
	echo "COMMIT;"
} | sqlite3 "$out"
