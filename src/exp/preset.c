#include "exp/preset.h"

#include <stdio.h>
#include <string.h>

#define ARM(label, body) "[arm " label "]\n" body

/* quick's seven full-handshake arms (the browser preset measures the same beside Chromium). */
#define QUICK_FULL_ARMS \
	ARM("ecdsa-p256", "sig = ecdsa-p256\n") \
	ARM("rsa-2048", "sig = rsa-2048\n") \
	ARM("ml-dsa-44", "sig = ml-dsa-44\n") \
	ARM("ml-dsa-65-leaf-only", "sig = ml-dsa-65\nintermediates = 0\n") \
	ARM("ml-dsa-65", "sig = ml-dsa-65\n") \
	ARM("ml-dsa-65+slh-128s-CA", "root = slh-dsa-sha2-128s\nintermediate = slh-dsa-sha2-128s\nleaf = ml-dsa-65\n") \
	ARM("ecdsa-p256 X25519", "sig = ecdsa-p256\ngroup = X25519\n")

static const char quick[] =
	"# make run: does the certificate cost handshake time at RTT 1 / 70 / 148 ms, and where\n"
	"# does a chain overflow TCP's initial window? Nine arms, 2 trials x 8 connections;\n"
	"# cubic without pacing, as the studies ran (the host's default may be BBR).\n"
	"name = quick\n"
	"rtt = 1ms, 70ms, 148ms\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"trials = 2\n"
	"connections = 8\n"
	"group = X25519MLKEM768\n"
	QUICK_FULL_ARMS
	ARM("ml-dsa-65 resumed", "sig = ml-dsa-65\nresume = 100%\nwarmup = 1\n")
	ARM("ml-dsa-65 0-RTT", "sig = ml-dsa-65\nresume = 100%\nwarmup = 1\nearly-data = yes\n");

static const char blog_certsize[] =
	"# The blog's certificate-size question: ECDSA P-256, RSA-2048 and ML-DSA-65, leaf only and\n"
	"# with an intermediate, under X25519 and X25519MLKEM768, at its three RTTs.\n"
	"name = blog-certsize\n"
	"# Kernel TCP pinned to what the study ran: cubic, no pacing (Linux's default; it names no other).\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"rtt = 1ms, 70ms, 148ms\n"
	"group = X25519, X25519MLKEM768\n"
	"trials = 3\n"
	"connections = 20\n"
	ARM("ecdsa-p256 leaf-only", "sig = ecdsa-p256\nintermediates = 0\n")
	ARM("ecdsa-p256", "sig = ecdsa-p256\n")
	ARM("rsa-2048 leaf-only", "sig = rsa-2048\nintermediates = 0\n")
	ARM("rsa-2048", "sig = rsa-2048\n")
	ARM("ml-dsa-65 leaf-only", "sig = ml-dsa-65\nintermediates = 0\n")
	ARM("ml-dsa-65", "sig = ml-dsa-65\n");

static const char blog_payload[] =
	"# The blog's 1 MB payload arm: a 1 MiB response on a rate-limited 70 ms link, open loop\n"
	"# (Poisson arrivals), many connections so p95/p99 mean something. One request per\n"
	"# connection (the blog sent 10 per user).\n"
	"name = blog-payload\n"
	"# Kernel TCP pinned to what the study ran: cubic, no pacing (Linux's default; it names no other).\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"rtt = 70ms\n"
	"rate = 200Mbit\n"
	"queue = 1000\n"
	"response = 1MiB\n"
	"open-loop-rate = 5\n"
	"connections = 200\n"
	"trials = 2\n"
	ARM("ecdsa-p256 X25519", "sig = ecdsa-p256\ngroup = X25519\n")
	ARM("ecdsa-p256 X25519MLKEM768", "sig = ecdsa-p256\ngroup = X25519MLKEM768\n")
	ARM("ml-dsa-65 X25519MLKEM768", "sig = ml-dsa-65\ngroup = X25519MLKEM768\n");

static const char ttfb_size[] =
	"# arXiv 2604.24869: TTFB against chain size, chains padded exactly in 2 KiB steps at the\n"
	"# paper's RTTs, so the cliffs (near 10 kB and 40 kB) show. ML-DSA-44 chains start at\n"
	"# 8 KiB (their natural size is above 4 KiB).\n"
	"# The study's arms run cubic without pacing, as it did (Linux's default; it names no other);\n"
	"# the bbr arms are the same chains under BBR, which paces every segment after the 10th at\n"
	"# 2.885 x its bandwidth estimate: TTFB rises inside each step instead of staying flat\n"
	"# (docs/model.md).\n"
	"name = ttfb-size\n"
	"profile = paper-0, paper-10, paper-50, paper-100, paper-200\n"
	"group = X25519\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"trials = 3\n"
	"connections = 20\n"
	ARM("ecdsa-p256 padded", "sig = ecdsa-p256\npad-chain-to = 4KiB..80KiB step 2KiB\n")
	ARM("ml-dsa-44 padded", "sig = ml-dsa-44\npad-chain-to = 8KiB..80KiB step 2KiB\n")
	ARM("ecdsa-p256 padded bbr", "sig = ecdsa-p256\npad-chain-to = 4KiB..80KiB step 2KiB\ncc = bbr\n")
	ARM("ml-dsa-44 padded bbr", "sig = ml-dsa-44\npad-chain-to = 8KiB..80KiB step 2KiB\ncc = bbr\n");

static const char quic_vs_tcp[] =
	"# QUIC beside TCP on one link, cell for cell: ECDSA chains padded in 1 KiB steps across\n"
	"# both cliffs (QUIC's 3x amplification budget, 7,200 B after two 1,200 B Initials, falls\n"
	"# near a 5.5 kB chain; TCP's initial window near 11.5 kB), ML-DSA-44 and -65 chains, an\n"
	"# SLH-DSA CA, an MTC-sized one, and ML-DSA-65 resumed, at 10, 50 and 100 ms. The\n"
	"# agreement table holds each transport's cells against its own model (model/quic.h for\n"
	"# QUIC, the flight model for TCP). quic-retry: the server validates with a Retry first\n"
	"# (a round trip up front, no amplification limit after).\n"
	"name = quic-vs-tcp\n"
	"rtt = 10ms, 50ms, 100ms\n"
	"transport = tcp, quic, quic-retry\n"
	"group = X25519MLKEM768\n"
	"trials = 1\n"
	"connections = 6\n"
	"response = 1KiB\n"
	ARM("ecdsa-p256 padded", "sig = ecdsa-p256\npad-chain-to = 2KiB..12KiB step 1KiB\n")
	ARM("ml-dsa-44", "sig = ml-dsa-44\n")
	ARM("ml-dsa-65", "sig = ml-dsa-65\n")
	ARM("ml-dsa-65+slh-128s-CA", "root = slh-dsa-sha2-128s\nintermediate = slh-dsa-sha2-128s\nleaf = ml-dsa-65\n")
	ARM("mtc landmark ml-dsa-44", "sig = ml-dsa-44\nintermediates = 0\nmtc = landmark\n")
	ARM("ml-dsa-65 resumed", "sig = ml-dsa-65\nresume = 100%\nwarmup = 1\n")
	ARM("slh-192s CA + ml-dsa-44 resumed",
	    "root = slh-dsa-sha2-192s\nintermediate = slh-dsa-sha2-192s\nleaf = ml-dsa-44\nresume = 100%\nwarmup = 1\n");

static const char cliff_move[] =
	"# How far one write moves the initial-window cliff: ECDSA chains padded across it\n"
	"# (OpenSSL's pieces: 11,495 B with X25519MLKEM768 and IW10; one write: 13,015 B, by the\n"
	"# flight model), served as OpenSSL writes the flight and in one write (pqtls serve\n"
	"# --flight-one-write), at a 20 ms RTT.\n"
	"name = cliff-move\n"
	"# Kernel TCP pinned to what the study ran: cubic, no pacing (Linux's default; it names no other).\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"rtt = 20ms\n"
	"group = X25519MLKEM768\n"
	"trials = 2\n"
	"connections = 6\n"
	"response = none\n"
	ARM("ecdsa-p256 openssl-writes", "sig = ecdsa-p256\npad-chain-to = 10KiB..14KiB step 256\n")
	ARM("ecdsa-p256 one-write", "sig = ecdsa-p256\npad-chain-to = 10KiB..14KiB step 256\nflight-one-write = yes\n");

static const char ttfb_intermediates[] =
	"# arXiv 2604.24869 Table V: TTFB with 0 to 3 intermediates, real ML-DSA-44 and ML-DSA-65\n"
	"# chains beside ECDSA chains at their natural size and padded to the ML-DSA chains' sizes.\n"
	"name = ttfb-intermediates\n"
	"# Kernel TCP pinned to what the study ran: cubic, no pacing (Linux's default; it names no other).\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"profile = paper-10, paper-50, paper-100\n"
	"intermediates = 0, 1, 2, 3\n"
	"group = X25519\n"
	"trials = 3\n"
	"connections = 20\n"
	ARM("ecdsa-p256", "sig = ecdsa-p256\n")
	ARM("ml-dsa-44", "sig = ml-dsa-44\n")
	ARM("ml-dsa-65", "sig = ml-dsa-65\n")
	ARM("ecdsa-p256 sized as ml-dsa-44", "sig = ecdsa-p256\npad-chain-to = like ml-dsa-44\n")
	ARM("ecdsa-p256 sized as ml-dsa-65", "sig = ecdsa-p256\npad-chain-to = like ml-dsa-65\n");

static const char initcwnd[] =
	"# Where the window cliffs fall when the server's initial window is a CDN's: more than half of\n"
	"# the major CDNs use 22 to 46 segments, not Linux's 10 (D. J. Bernstein, pqc-forum), and no\n"
	"# study sweeps it against the chain's size. ECDSA chains padded from 4 to 80 KiB (the paper's\n"
	"# Figure 5 range) at 50 ms, the route's initcwnd 10, 22 and 46; cubic without pacing.\n"
	"name = initcwnd\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"rtt = 50ms\n"
	"group = X25519MLKEM768\n"
	"sig = ecdsa-p256\n"
	"pad-chain-to = 4KiB..80KiB step 4KiB\n"
	"response = none\n"
	"trials = 2\n"
	"connections = 5\n"
	ARM("initcwnd 10", "initcwnd = 10\n")
	ARM("initcwnd 22", "initcwnd = 22\n")
	ARM("initcwnd 46", "initcwnd = 46\n");

static const char ttfb_rtt[] =
	"# arXiv 2604.24869 Table VI: TTFB of ECDSA, ML-DSA-44/65, an SLH-DSA CA chain and MTC size\n"
	"# emulations, fresh and resumed, at 0 to 200 ms (the SLH-DSA CA chain resumed too: past two\n"
	"# thresholds, what resumption saves there is Figure 7's upper end; pqtls zeek savings).\n"
	"name = ttfb-rtt\n"
	"# Kernel TCP pinned to what the study ran: cubic, no pacing (Linux's default; it names no other).\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"profile = paper-0, paper-10, paper-50, paper-100, paper-200\n"
	"group = X25519MLKEM768\n"
	"trials = 3\n"
	"connections = 20\n"
	ARM("ecdsa-p256", "sig = ecdsa-p256\n")
	ARM("ml-dsa-44", "sig = ml-dsa-44\n")
	ARM("ml-dsa-65", "sig = ml-dsa-65\n")
	ARM("slh-192s CA + ml-dsa-44", "root = slh-dsa-sha2-192s\nintermediate = slh-dsa-sha2-192s\nleaf = ml-dsa-44\n")
	ARM("mtc landmark ml-dsa-44", "sig = ml-dsa-44\nintermediates = 0\nmtc = landmark\n")
	ARM("mtc standalone ml-dsa-44", "sig = ml-dsa-44\nintermediates = 0\nmtc = standalone\n")
	ARM("ecdsa-p256 resumed", "sig = ecdsa-p256\nresume = 100%\nwarmup = 1\n")
	ARM("ml-dsa-44 resumed", "sig = ml-dsa-44\nresume = 100%\nwarmup = 1\n")
	ARM("ml-dsa-65 resumed", "sig = ml-dsa-65\nresume = 100%\nwarmup = 1\n")
	ARM("slh-192s CA + ml-dsa-44 resumed",
	    "root = slh-dsa-sha2-192s\nintermediate = slh-dsa-sha2-192s\nleaf = ml-dsa-44\nresume = 100%\nwarmup = 1\n");

static const char mtc_cdn[] =
	"# arXiv 2604.24869 Table VIII's inputs measured: today's chains, MTC-sized chains and\n"
	"# compressed chains (what a CDN can do), at three RTTs.\n"
	"name = mtc-cdn\n"
	"# Kernel TCP pinned to what the study ran: cubic, no pacing (Linux's default; it names no other).\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"profile = paper-10, paper-50, paper-100\n"
	"group = X25519MLKEM768\n"
	"trials = 3\n"
	"connections = 20\n"
	ARM("ecdsa-p256 today", "sig = ecdsa-p256\n")
	ARM("ml-dsa-44 today", "sig = ml-dsa-44\n")
	ARM("ml-dsa-65 today", "sig = ml-dsa-65\n")
	ARM("ml-dsa-44 mtc landmark", "sig = ml-dsa-44\nintermediates = 0\nmtc = landmark\n")
	ARM("ml-dsa-44 mtc standalone", "sig = ml-dsa-44\nintermediates = 0\nmtc = standalone\n")
	ARM("ecdsa-p256 compressed", "sig = ecdsa-p256\ncert-compression = zstd\n")
	ARM("ml-dsa-44 compressed", "sig = ml-dsa-44\ncert-compression = zstd\n");

static const char ttlb[] =
	"# Kampanakis and Childs-Klein (AWS): time to last byte against response size, for X25519 vs\n"
	"# X25519MLKEM768 and ECDSA vs ML-DSA-65 chains, on fast, slow, lossy and jittery links.\n"
	"name = ttlb\n"
	"# Kernel TCP pinned to what the study ran: cubic, no pacing (Linux's default; it names no other).\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"profile = aws-fast, aws-lowbw, aws-lossy, aws-jittery\n"
	"response = 0, 1KiB, 10KiB, 50KiB, 100KiB, 200KiB, 500KiB, 1MiB\n"
	"trials = 3\n"
	"connections = 20\n"
	ARM("ecdsa-p256 X25519", "sig = ecdsa-p256\ngroup = X25519\n")
	ARM("ecdsa-p256 X25519MLKEM768", "sig = ecdsa-p256\ngroup = X25519MLKEM768\n")
	ARM("ml-dsa-65 X25519", "sig = ml-dsa-65\ngroup = X25519\n")
	ARM("ml-dsa-65 X25519MLKEM768", "sig = ml-dsa-65\ngroup = X25519MLKEM768\n");

static const char loss[] =
	"# Paquin, Stebila and Tamvada (PQCrypto 2020): handshake time percentiles (p25..p95) against\n"
	"# loss 0..20 % at their RTTs, 78.6 and 195.6 ms, for a key-exchange pair (ML-KEM vs\n"
	"# classical group, ECDSA certificate) and a signature pair (ML-DSA-44 vs ECDSA P-256 leaf,\n"
	"# classical group), with loss decided per segment (what pqtls's forwarder sees) and per\n"
	"# burst (a write's segments together, as netem sees a GSO super-packet). Connections per\n"
	"# cell: what the loss model says a p95 interval narrower than a round trip needs at 10 %\n"
	"# (docs/model.md, \"Loss\"); the page says where the measured one is wider.\n"
	"name = loss\n"
	"# Kernel TCP pinned to what the study ran: cubic, no pacing (Linux's default; it names no other).\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"rtt = 78.6ms, 195.6ms\n"
	"loss = 0%, 2%, 4%, 6%, 8%, 10%, 15%, 20%\n"
	"loss-unit = segment, burst\n"
	"response = none\n"
	"intermediates = 0\n"
	"trials = 1\n"
	"connections = 200\n"
	ARM("kex X25519 (ecdsa)", "sig = ecdsa-p256\ngroup = X25519\n")
	ARM("kex X25519MLKEM768 (ecdsa)", "sig = ecdsa-p256\ngroup = X25519MLKEM768\n")
	ARM("sig ml-dsa-44 (X25519)", "sig = ml-dsa-44\ngroup = X25519\n");

static const char key_share[] =
	"# The client's key-share guess: a server that insists on X25519MLKEM768 (its list\n"
	"# X25519MLKEM768/X25519 prefers the hybrid even at the cost of a HelloRetryRequest) and a\n"
	"# client offering X25519MLKEM768:X25519 that shares the right group, the wrong one (X25519:\n"
	"# one HRR, one more round trip) or both (no HRR, a 36-byte bigger ClientHello). ECDSA keeps\n"
	"# the server's flight inside the initial window, so the HRR is the only extra round trip.\n"
	"# Over TCP and QUIC on the same link: over QUIC too the HRR costs a round trip.\n"
	"name = key-share\n"
	"rtt = 10ms, 50ms, 100ms\n"
	"transport = tcp, quic\n"
	"cc = cubic\n"
	"sig = ecdsa-p256\n"
	"group = X25519MLKEM768\n"
	"groups = X25519MLKEM768:X25519\n"
	"server-groups = X25519MLKEM768/X25519\n"
	"trials = 2\n"
	"connections = 10\n"
	ARM("right guess", "key-share = X25519MLKEM768\n")
	ARM("wrong guess", "key-share = X25519\n")
	ARM("both shares", "key-share = X25519MLKEM768:X25519\n");

static const char webpki[] =
	"# Every WebPKI signature candidate by its bytes: which keep the handshake at two round trips\n"
	"# (TCP: connect + TLS; QUIC: one, plus the 3x amplification budget) at Linux's initial window\n"
	"# and a CDN's? The typical chain (leaf + one intermediate, the root not sent) of each scheme,\n"
	"# the real ones (ECDSA today, ML-DSA, an SLH-DSA CA) and the size-emulated ones (emu-*: an\n"
	"# Ed25519 chain padded to the scheme's key and signature sizes, its CertificateVerify's extra\n"
	"# bytes carried in the flight, CPU time Ed25519's: docs/certs.md), and the mixes the debate\n"
	"# names: a UOV root (its 96-byte signature on the intermediate, its 66 kB key never sent) over\n"
	"# ML-DSA-44 or FN-DSA-512, a MAYO-2 intermediate, and a landmark MTC. 50 and 100 ms, TCP and\n"
	"# QUIC, initcwnd 10 and 46 (QUIC's window is OpenSSL's own; initcwnd sets the route's, TCP's).\n"
	"# Every leaf carries two ECDSA SCTs (scts = 2: the typical chain's two keys and five\n"
	"# signatures), but the MTC's, whose proof is its transparency. Trust anchor identifiers\n"
	"# (tai = yes: the intermediate left out because the client holds it) on ML-DSA-44 and -65.\n"
	"name = webpki\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"rtt = 50ms, 100ms\n"
	"transport = tcp, quic\n"
	"initcwnd = 10, 46\n"
	"group = X25519MLKEM768\n"
	"response = 1KiB\n"
	"scts = 2\n"
	"trials = 1\n"
	"connections = 6\n"
	ARM("ecdsa-p256", "sig = ecdsa-p256\n")
	ARM("ml-dsa-44", "sig = ml-dsa-44\n")
	ARM("ml-dsa-65", "sig = ml-dsa-65\n")
	ARM("ml-dsa-87", "sig = ml-dsa-87\n")
	ARM("ml-dsa-44 + tai", "sig = ml-dsa-44\ntai = yes\n")
	ARM("ml-dsa-65 + tai", "sig = ml-dsa-65\ntai = yes\n")
	ARM("slh-128s CA + ml-dsa-44", "root = slh-dsa-sha2-128s\nintermediate = slh-dsa-sha2-128s\nleaf = ml-dsa-44\n")
	ARM("fn-dsa-512 (emu)", "sig = emu-fn-dsa-512\n")
	ARM("fn-dsa-1024 (emu)", "sig = emu-fn-dsa-1024\n")
	ARM("hawk-512 (emu)", "sig = emu-hawk-512\n")
	ARM("mayo-1 (emu)", "sig = emu-mayo-1\n")
	ARM("mayo-2 (emu)", "sig = emu-mayo-2\n")
	ARM("sqisign-i (emu)", "sig = emu-sqisign-i\n")
	ARM("uov-is-pkc (emu)", "sig = emu-uov-is-pkc\n")
	ARM("uov root + ml-dsa-44", "root = emu-uov-is-pkc\nintermediate = ml-dsa-44\nleaf = ml-dsa-44\n")
	ARM("uov root + fn-dsa-512 (emu)", "root = emu-uov-is-pkc\nintermediate = emu-fn-dsa-512\nleaf = emu-fn-dsa-512\n")
	ARM("uov root + mayo-2 int + ml-dsa-44",
	    "root = emu-uov-is-pkc\nintermediate = emu-mayo-2\nleaf = ml-dsa-44\n")
	ARM("mtc landmark ml-dsa-44", "sig = ml-dsa-44\nintermediates = 0\nmtc = landmark\nscts = 0\n");
static const char browser[] =
	"# The browser users run beside pqtls's own client, cell for cell on the same links and\n"
	"# chains, interleaved: quick's full-handshake arms at 1, 70 and 148 ms (a cold browser\n"
	"# resumes nothing: no resumed or 0-RTT arms), and chains padded across the initial\n"
	"# window's cliff at 50 ms. Chromium: one cold headless navigation per connection\n"
	"# (docs/tls.md, \"Chromium as the client\"); at 70 ms also a warm browser (another\n"
	"# origin first: what a post-quantum chain costs its CPU against a classical one) and a\n"
	"# resuming one (the same origin twice in one profile).\n"
	"name = browser\n"
	"client = pqtls, chromium\n"
	"rtt = 1ms, 70ms, 148ms\n"
	"cc = cubic\n"
	"qdisc = pfifo_fast\n"
	"trials = 2\n"
	"connections = 4\n"
	"group = X25519MLKEM768\n"
	QUICK_FULL_ARMS
	ARM("ecdsa-p256 padded", "rtt = 50ms\nsig = ecdsa-p256\npad-chain-to = 8KiB..20KiB step 4KiB\n")
	ARM("ecdsa-p256 warm", "client = chromium\nbrowser-state = warm\nrtt = 70ms\nsig = ecdsa-p256\n")
	ARM("ml-dsa-44 warm", "client = chromium\nbrowser-state = warm\nrtt = 70ms\nsig = ml-dsa-44\n")
	ARM("ml-dsa-65 warm", "client = chromium\nbrowser-state = warm\nrtt = 70ms\nsig = ml-dsa-65\n")
	ARM("ecdsa-p256 resumed", "client = chromium\nbrowser-state = resumed\nrtt = 70ms\nsig = ecdsa-p256\n")
	ARM("ml-dsa-65 resumed", "client = chromium\nbrowser-state = resumed\nrtt = 70ms\nsig = ml-dsa-65\n");

const pq_exp_preset pq_exp_presets[] = {
	{"quick", "make run: nine arms at 1, 70 and 148 ms (the blog's question and the window cliff)", quick},
	{"blog-certsize", "the blog: ECDSA / RSA / ML-DSA-65, leaf only and with an intermediate, two groups", blog_certsize},
	{"blog-payload", "the blog: a 1 MiB response on a rate-limited link, p95/p99", blog_payload},
	{"ttfb-size", "the paper: TTFB against chain size, 2 KiB steps, ECDSA and ML-DSA-44 padded, cubic (as the study) and BBR", ttfb_size},
	{"ttfb-intermediates", "the paper's Table V: 0-3 intermediates", ttfb_intermediates},
	{"quic-vs-tcp", "QUIC beside TCP: chains across the 3x amplification limit and the initial window, 10-100 ms", quic_vs_tcp},
	{"cliff-move", "how far one write (serve --flight-one-write) moves the initial-window cliff", cliff_move},
	{"initcwnd", "where the cliffs fall with a CDN's initial window: chains 4-80 KiB at initcwnd 10, 22, 46", initcwnd},
	{"ttfb-rtt", "the paper's Table VI: chains, MTC emulations, fresh vs resumed at 0-200 ms", ttfb_rtt},
	{"mtc-cdn", "the paper's Table VIII inputs: MTC-sized and compressed chains vs today's", mtc_cdn},
	{"ttlb", "AWS: time to last byte vs response size on fast, slow, lossy, jittery links", ttlb},
	{"loss", "Paquin et al.: handshake percentiles against 0-20 % loss at 78.6 and 195.6 ms, per segment and per burst", loss},
	{"key-share", "the client's key-share guess: right, wrong (one HelloRetryRequest) and both shares", key_share},
	{"webpki", "every WebPKI signature candidate (real and size-emulated) and the debate's mixes: TCP and QUIC, initcwnd 10 and 46, 50 and 100 ms", webpki},
	{"browser", "Chromium beside pqtls's client: quick's full handshakes, a padded-chain cliff at 50 ms, warm and resuming browsers at 70 ms", browser},
	{NULL, NULL, NULL},
};

const pq_exp_preset *pq_exp_preset_find(const char *name)
{
	for (const pq_exp_preset *p = pq_exp_presets; p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

void pq_exp_preset_names(char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (const pq_exp_preset *p = pq_exp_presets; p->name && len < n; p++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", p->name);
}
