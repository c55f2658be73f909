#include "cli/names.h"

#include <stddef.h>

const pq_name pq_cli_tls_names[] = {
	{"version", "--tls"},
	{"groups", "--groups"},
	{"sigalgs", "--sigalgs"},
	{"ciphersuites", "--ciphersuites"},
	{"cert_comp", "--cert-compression"},
	{"keylog_path", "--keylog"},
	{"certs_dir", "--certs"},
	{"tickets", "--tickets"},
	{"max_early_data", "--max-early-data"},
	{"ca_file", "--ca"},
	{"insecure", "--insecure"},
	{"max_cert_list", "--max-cert-list"},
	{"emulated_sig", "--emulated-sig"},
	{"sig_pad", "--sig-pad"},
	{NULL, NULL},
};

const pq_name pq_cli_server_names[] = {
	{"listen", "--listen"},
	{"threads", "--threads"},
	{"max_conns", "--max-conns"},
	{"quic", "--quic"},
	{"quic_retry", "--quic-retry"},
	{"flight_one_write", "--flight-one-write"},
	{NULL, NULL},
};

const pq_name pq_cli_load_names[] = {
	{"concurrency", "--concurrency"},
	{"rate", "--rate"},
	{"max_inflight", "--max-inflight"},
	{"requests_per_conn", "--requests-per-conn"},
	{"timeout_ns", "--timeout"},
	{"threads", "--threads"},
	{"connections", "--connections"},
	{"duration_ns", "--duration"},
	{"path", "--path"},
	{"early_data", "--early-data"},
	{NULL, NULL},
};

const pq_name pq_cli_chain_names[] = {
	{"root", "--root"},
	{"inter", "--intermediate"},
	{"leaf", "--leaf"},
	{"intermediates", "--intermediates"},
	{"pad_leaf_to", "--pad-leaf-to"},
	{"pad_chain_to", "--pad-chain-to"},
	{"mtc", "--mtc"},
	{"mtc_tree_size", "--mtc-tree-size"},
	{"scts", "--scts"},
	{"sct_alg", "--sct-alg"},
	{"tai", "--tai"},
	{"ocsp", "--ocsp"},
	{"outdir", "--out"},
	{"force", "--force"},
	{"inspect", "--inspect"},
	{NULL, NULL},
};

const pq_name pq_cli_link_names[] = {
	{"loss", "--loss"},
	{"burst_loss", "--burst-loss"},
	{"rate", "--rate"},
	{"mtu", "--mtu"},
	{"initcwnd", "--initcwnd"},
	{"initrwnd", "--initrwnd"},
	{"backend", "--backend"},
	{"reorder", "--reorder"},
	{"pcap", "--pcap"},
	{"profile", "--profile"},
	{"wait_port", "--wait-port"},
	{"wait_timeout", "--wait-timeout"},
	{"cc", "--cc"},
	{"qdisc", "--qdisc"},
	{"pacing_ss_ratio", "--pacing-ss-ratio"},
	{"pacing_ca_ratio", "--pacing-ca-ratio"},
	{NULL, NULL},
};
