/* Chain factory: spec checks, directory handling, inspect, cache, MTC and composite
 * emulation sizes. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "pki/chain.h"
#include "pki/dir.h"
#include "pki/manifest.h"

#include <cjson/cJSON.h>

static char base[256];

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof base, "/tmp/test_pki_chain.XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	pq_pki_dir_remove(base);
	return 0;
}

static void path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", base, name);
}

/* Entries in the test's base directory (temporary directories must not survive). */
static int entries(void)
{
	DIR *d = opendir(base);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void spec(pq_chain_spec *s, const char *alg, int ints)
{
	pq_chain_spec_init(s);
	s->root = s->inter = s->leaf = pq_alg_find(alg);
	s->intermediates = ints;
}

static void spec_checks(void **state)
{
	(void)state;
	pq_chain_spec s;
	pq_diag d = {0};
	spec(&s, "ml-dsa-65", 1);
	assert_int_equal(pq_chain_spec_check(&s, &d), 0);
	s.leaf = pq_alg_find("slh-dsa-sha2-128s");
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EUNSUPPORTED);
	/* Without names, the inputs are named by the spec's fields ... */
	assert_non_null(strstr(d.msg, "leaf slh-dsa-sha2-128s: OpenSSL 3.5 has no TLS 1.3"));
	assert_non_null(strstr(d.msg, "root slh-dsa-sha2-128s inter slh-dsa-sha2-128s "
				      "leaf ml-dsa-65"));
	/* ... and with them, as the caller calls them. */
	static const pq_name names[] = {{"root", "--root"}, {"inter", "--intermediate"},
					{"leaf", "--leaf"},  {"pad_leaf_to", "--pad-leaf-to"},
					{NULL, NULL}};
	s.names = names;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(d.msg, "--leaf slh-dsa-sha2-128s: OpenSSL 3.5 has no TLS 1.3"));
	assert_non_null(strstr(d.msg, "--root slh-dsa-sha2-128s --intermediate slh-dsa-sha2-128s "
				      "--leaf ml-dsa-65"));
	assert_non_null(strstr(d.msg, "--pad-leaf-to"));
	spec(&s, "ml-dsa-44", 5);
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "intermediates: 5 is outside 0..4"));
	spec(&s, "ml-dsa-44", 1);
	s.pad_leaf_to = 9000;
	s.pad_chain_to = 9000;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "no room"));
	s.pad_leaf_to = 0x1000000;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_ERANGE);
	spec(&s, "ml-dsa-44", 1);
	s.mtc = PQ_MTC_LANDMARK;
	s.mtc_tree_size = 1000;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "intermediates must be 0"));
	s.intermediates = 0;
	s.mtc_tree_size = 1;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "mtc_tree_size: 1 entries"));
	s.root = NULL;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
}

static void make_padded_and_inspect(void **state)
{
	(void)state;
	pq_chain_spec s;
	pq_chain_info info, again;
	pq_diag d = {0};
	char out[300], f[400];
	struct stat st;
	spec(&s, "ecdsa-p256", 2);
	s.pad_chain_to = 20000;
	path(out, sizeof out, "c1");
	assert_int_equal(pq_chain_make(&s, out, 0, &info, &d), 0);
	assert_int_equal(info.n, 3);
	assert_int_equal(info.chain_der, 20000);
	assert_int_equal(info.cert[0].der_bytes + info.cert[1].der_bytes + info.cert[2].der_bytes,
			 20000);
	assert_true(info.cert[0].pad_bytes > 18000);
	assert_int_equal(info.cert_msg, 20000 + 8 + 3 * 5);
	assert_int_equal(info.n_flight, 4);
	assert_string_equal(info.flight[1].group->name, "X25519MLKEM768");
	assert_true(info.has_root);
	assert_string_equal(info.cert[0].role, "leaf");
	assert_string_equal(info.cert[2].role, "intermediate 2");
	snprintf(f, sizeof f, "%s/leaf.key", out);
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(f, sizeof f, "%s/manifest.json", out);
	assert_int_equal(stat(f, &st), 0);
	/* Inspecting the directory gives the same sizes. */
	assert_int_equal(pq_chain_inspect(out, &again, &d), 0);
	assert_int_equal(again.chain_der, 20000);
	assert_string_equal(again.cert[0].sha256, info.cert[0].sha256);
	assert_int_equal(entries(), 1);
	/* Existing directory: refused without --force, replaced with it. */
	assert_int_equal(pq_chain_make(&s, out, 0, &info, &d), PQ_EEXIST);
	assert_non_null(strstr(d.msg, "already exists"));
	assert_non_null(strstr(d.msg, "outdir ")); /* no names given: the argument's own */
	assert_non_null(strstr(d.msg, "add force to replace"));
	s.pad_chain_to = 0;
	assert_int_equal(pq_chain_make(&s, out, 1, &info, &d), 0);
	assert_true(info.chain_der < 20000);
	assert_int_equal(entries(), 1);
	char *json = pq_manifest_json(&info);
	assert_non_null(strstr(json, "\"fits_initial_window\""));
	free(json);
	pq_pki_dir_remove(out);
}

static void failures_leave_nothing(void **state)
{
	(void)state;
	pq_chain_spec s;
	pq_diag d = {0};
	char out[300], f[400];
	spec(&s, "ml-dsa-44", 1);
	s.pad_chain_to = 5000;
	path(out, sizeof out, "small");
	assert_int_equal(pq_chain_make(&s, out, 0, NULL, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "pad_chain_to 5000: below the chain's natural size; the "
				      "smallest is"));
	assert_int_equal(entries(), 0);
	/* --force never replaces a directory that is not a chain. */
	path(out, sizeof out, "userdata");
	assert_int_equal(mkdir(out, 0755), 0);
	snprintf(f, sizeof f, "%s/notes.txt", out);
	fclose(fopen(f, "w"));
	s.pad_chain_to = 0;
	assert_int_equal(pq_chain_make(&s, out, 1, NULL, &d), PQ_EEXIST);
	assert_non_null(strstr(d.msg, "not a chain directory"));
	assert_int_equal(access(f, F_OK), 0);
	/* A parent that is a file. */
	char sub[500];
	snprintf(sub, sizeof sub, "%s/x", f);
	assert_true(pq_chain_make(&s, sub, 0, NULL, &d) < 0);
	assert_non_null(strstr(d.msg, "Not a directory"));
	assert_non_null(strstr(d.msg, sub));
	assert_int_equal(entries(), 1);
	pq_pki_dir_remove(f);
	rmdir(f);
}

static void inspect_errors(void **state)
{
	(void)state;
	pq_chain_info info;
	pq_diag d = {0};
	char f[300];
	path(f, sizeof f, "junk.pem");
	FILE *fp = fopen(f, "w");
	fputs("hello, not a certificate\n", fp);
	fclose(fp);
	assert_int_equal(pq_chain_inspect(f, &info, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "not a PEM file of certificates"));
	fp = fopen(f, "w");
	fputs("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", fp);
	fclose(fp);
	assert_int_equal(pq_chain_inspect(f, &info, &d), PQ_EPARSE);
	remove(f);
	assert_int_equal(pq_chain_inspect(f, &info, &d), PQ_EIO);
	assert_non_null(strstr(d.msg, "no such file"));
}

static void cache(void **state)
{
	(void)state;
	pq_chain_spec s;
	pq_chain_info a, b;
	pq_diag d = {0};
	char root[300], dir1[4096], dir2[4096];
	path(root, sizeof root, "cache");
	spec(&s, "ed25519", 1);
	s.pad_leaf_to = 3000;
	assert_int_equal(pq_chain_cached(&s, root, &a, &d), 0);
	assert_int_equal(pq_chain_cached(&s, root, &b, &d), 1);
	assert_string_equal(a.dir, b.dir);
	assert_string_equal(a.cert[0].sha256, b.cert[0].sha256); /* reused, not re-made */
	assert_int_equal(b.cert[0].der_bytes, 3000);
	assert_int_equal(pq_chain_cache_dir(&s, root, dir1, sizeof dir1, &d), 0);
	s.pad_leaf_to = 3001;
	assert_int_equal(pq_chain_cache_dir(&s, root, dir2, sizeof dir2, &d), 0);
	assert_string_not_equal(dir1, dir2);
	assert_int_equal(strncmp(dir1, root, strlen(root)), 0);
	s.leaf = pq_alg_find("slh-dsa-sha2-128f");
	assert_int_equal(pq_chain_cached(&s, root, &a, &d), PQ_EUNSUPPORTED);
	pq_pki_dir_remove(root);
}

static void mtc_sizes(void **state)
{
	(void)state;
	assert_int_equal(pq_mtc_proof_hashes(2500), 12);
	assert_int_equal(pq_mtc_proof_hashes(4400000), 23);
	assert_int_equal(pq_mtc_proof_hashes(UINT64_C(1) << 32), 32);
	assert_int_equal(pq_mtc_proof_hashes(1), 0);
	assert_int_equal(pq_mtc_proof_bytes(PQ_MTC_LANDMARK, 4400000, 0), 18 + 736);
	assert_int_equal(pq_mtc_proof_bytes(PQ_MTC_STANDALONE, 2500, 2420),
			 18 + 384 + 1 + 4 + 2 + 2420);
	pq_chain_spec s;
	pq_chain_info info;
	pq_diag d = {0};
	char out[300];
	spec(&s, "ml-dsa-44", 0);
	s.mtc = PQ_MTC_LANDMARK;
	s.mtc_tree_size = 4400000;
	path(out, sizeof out, "mtc-landmark");
	assert_int_equal(pq_chain_make(&s, out, 0, &info, &d), 0);
	assert_int_equal(info.n, 1);
	/* pq-facts.md estimates ~2.4 KB for a landmark-relative ML-DSA-44 MTC. */
	print_message("landmark MTC leaf: %zu bytes\n", info.cert[0].der_bytes);
	assert_in_range(info.cert[0].der_bytes, 2200, 2700);
	assert_non_null(strstr(info.emulation, "SIZE EMULATION, not an MTC implementation"));
	assert_int_equal(info.cv_sig_bytes, 2420);
	s.mtc = PQ_MTC_STANDALONE;
	s.mtc_tree_size = 2500;
	path(out, sizeof out, "mtc-standalone");
	assert_int_equal(pq_chain_make(&s, out, 0, &info, &d), 0);
	/* ~4.5 KB estimated with one ML-DSA-44 cosignature. */
	print_message("standalone MTC leaf: %zu bytes\n", info.cert[0].der_bytes);
	assert_in_range(info.cert[0].der_bytes, 4300, 4800);
	assert_int_equal(info.mtc_proof_bytes, 18 + 384 + 7 + 2420);
	s.mtc_tree_size = 2;
	s.leaf = pq_alg_find("ecdsa-p256");
	path(out, sizeof out, "mtc-tiny");
	assert_int_equal(pq_chain_make(&s, out, 0, &info, &d), 0);
}

/* Two chains, one intermediate each, in directories named after their algorithms. */
static void make_pair(const char *a, const char *b, pq_chain_info *ia, pq_chain_info *ib)
{
	pq_chain_spec s;
	pq_diag d = {0};
	char out[300];
	spec(&s, a, 1);
	path(out, sizeof out, a);
	assert_int_equal(pq_chain_make(&s, out, 0, ia, &d), 0);
	spec(&s, b, 1);
	path(out, sizeof out, b);
	assert_int_equal(pq_chain_make(&s, out, 0, ib, &d), 0);
}

/* A composite leaf is the ML-DSA leaf plus exactly the classical key and signature. */
static void composite(void **state)
{
	(void)state;
	pq_chain_info plain, comp;
	make_pair("ml-dsa-44", "p256-ml-dsa-44", &plain, &comp);
	assert_int_equal(comp.cert[0].der_bytes, plain.cert[0].der_bytes + 65 + 72);
	assert_int_equal(comp.cert[0].emu_bytes, 65 + 72);
	assert_int_equal(comp.cert[0].pub_bytes, 1312 + 65);
	assert_int_equal(comp.cv_sig_bytes, 2420 + 72);
	assert_int_equal(comp.cv_sig_wire, 2420);
	assert_non_null(strstr(comp.emulation, "SIZE EMULATION"));
	assert_non_null(strstr(comp.cert[0].key_alg, "(emulated)"));
}

/* A size-emulated chain is the Ed25519 chain plus exactly the scheme's extra key and
 * signature bytes per certificate; its CertificateVerify's extra bytes are carried, and
 * a directory alone (its sigpad file) says so too. */
static void size_emulation(void **state)
{
	(void)state;
	pq_chain_spec s;
	pq_chain_info plain, emu, again;
	pq_diag d = {0};
	char out[300], alg[64];
	make_pair("ed25519", "emu-hawk-512", &plain, &emu);
	path(out, sizeof out, "emu-hawk-512");
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(emu.cert[i].der_bytes, plain.cert[i].der_bytes + (1024 - 32) + (555 - 64));
		assert_int_equal(emu.cert[i].pub_bytes, 1024);
		assert_int_equal(emu.cert[i].sig_bytes, 555);
	}
	assert_int_equal(emu.cv_sig_bytes, 555);
	assert_int_equal(emu.cv_sig_wire, 64);
	assert_int_equal(emu.cv_carry, 555 - 64);
	assert_non_null(strstr(emu.emulation, "emu-hawk-512: SIZE EMULATION, not a real signature"));
	size_t carry = 0;
	assert_int_equal(pq_chain_sigpad_read(out, "dir", &carry, alg, sizeof alg, &d), 0);
	assert_int_equal(carry, 491);
	assert_string_equal(alg, "emu-hawk-512");
	assert_int_equal(pq_chain_inspect(out, &again, &d), 0);
	assert_int_equal(again.cv_carry, 491);
	assert_int_equal(again.flight[0].acct.flight, emu.flight[0].acct.flight);
	assert_non_null(strstr(again.emulation, "SIZE EMULATION of emu-hawk-512"));
	/* a real chain has no sigpad file; a broken one is named */
	path(out, sizeof out, "ed25519");
	assert_int_equal(pq_chain_sigpad_read(out, "dir", &carry, alg, sizeof alg, &d), 0);
	assert_int_equal(carry, 0);
	char f[400];
	snprintf(f, sizeof f, "%s/sigpad", out);
	FILE *w = fopen(f, "w");
	assert_non_null(w);
	fputs("2 x\n", w);
	fclose(w);
	assert_int_equal(pq_chain_sigpad_read(out, "--certs", &carry, alg, sizeof alg, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "--certs: "));
	/* an emulated leaf under a real ML-DSA CA: only its key is padded */
	spec(&s, "ml-dsa-44", 1);
	s.leaf = pq_alg_find("emu-sqisign-i");
	path(out, sizeof out, "mix");
	assert_int_equal(pq_chain_make(&s, out, 0, &emu, &d), 0);
	assert_int_equal(emu.cert[0].pub_bytes, 65);
	assert_int_equal(emu.cert[0].sig_bytes, 2420);
	assert_int_equal(emu.cv_carry, 148 - 64);
}

/* Embedded SCTs: the leaf grows by exactly the SCT list extension's DER bytes; counts
 * that cannot fit a SignedCertificateTimestampList, or an MTC with SCTs, are refused. */
static void scts(void **state)
{
	(void)state;
	pq_chain_spec s;
	pq_chain_info plain, with;
	pq_diag d = {0};
	char out[300];
	/* 2 + 2 x (2 + 47 + 2420) = 4940 list bytes; OCTET STRINGs (4 + 4), OID 12, SEQUENCE 4 */
	assert_int_equal(pq_chain_sct_ext_bytes(2, 2420), 4 + 12 + 4 + 4 + 4940);
	assert_int_equal(pq_chain_sct_ext_bytes(0, 2420), 0);
	spec(&s, "ed25519", 0);
	path(out, sizeof out, "nosct");
	assert_int_equal(pq_chain_make(&s, out, 0, &plain, &d), 0);
	s.scts = 2;
	s.sct_alg = pq_alg_find("ml-dsa-44");
	path(out, sizeof out, "sct");
	assert_int_equal(pq_chain_make(&s, out, 0, &with, &d), 0);
	assert_int_equal(with.cert[0].der_bytes, plain.cert[0].der_bytes + 4964);
	assert_int_equal(with.sct_bytes, 4964);
	assert_int_equal(with.cert[0].emu_bytes, 4964);
	assert_non_null(strstr(with.emulation, "2 embedded SCTs (ml-dsa-44 signatures)"));
	s.scts = 4;
	s.sct_alg = pq_alg_find("slh-dsa-sha2-128f");
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "scts 4: 4 SCTs with 17088-byte slh-dsa-sha2-128f signatures"));
	assert_non_null(strstr(d.msg, "at most 3 fit"));
	s.scts = PQ_CHAIN_MAX_SCTS + 1;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	s.scts = 2;
	s.sct_alg = NULL;
	s.mtc = PQ_MTC_LANDMARK;
	s.mtc_tree_size = 4400000;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "carries no SCTs"));
}

/* Trust anchor identifiers: chain.pem is the leaf alone, the intermediates are counted
 * as held (trust.pem), the flight is smaller by exactly their entries, an emulated
 * intermediate is still the leaf's emulated issuer, and the refusals name the input. */
static void tai(void **state)
{
	(void)state;
	pq_chain_spec s;
	pq_chain_info info, again;
	pq_diag d = {0};
	char out[300], trust[320];
	spec(&s, "ml-dsa-44", 2);
	s.tai = 1;
	path(out, sizeof out, "tai");
	assert_int_equal(pq_chain_make(&s, out, 0, &info, &d), 0);
	assert_int_equal(info.n, 1);
	assert_int_equal(info.n_held, 2);
	assert_string_equal(info.held[0].role, "intermediate 1");
	assert_int_equal(info.held_der, info.held[0].der_bytes + info.held[1].der_bytes);
	assert_int_equal(info.held_cert_msg, info.held_der + 2 * 5);
	assert_int_equal(info.held_flight_saved, info.held_cert_msg);
	assert_int_equal(info.chain_der, info.cert[0].der_bytes);
	snprintf(trust, sizeof trust, "%s/trust.pem", out);
	assert_int_equal(access(trust, R_OK), 0);
	assert_int_equal(pq_chain_inspect(out, &again, &d), 0);
	assert_int_equal(again.n_held, 2);
	assert_int_equal(again.held_der, info.held_der);
	assert_int_equal(again.flight[0].acct.flight, info.flight[0].acct.flight);

	spec(&s, "emu-fn-dsa-512", 1);
	s.tai = 1;
	path(out, sizeof out, "tai-emu");
	assert_int_equal(pq_chain_make(&s, out, 0, &info, &d), 0);
	assert_int_equal(info.cert[0].emu_bytes, (897 - 32) + (666 - 64));
	assert_int_equal(info.held[0].emu_bytes, (897 - 32) + (666 - 64));

	spec(&s, "ml-dsa-44", 0);
	s.tai = 1;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "tai: trust anchor identifiers leave out the intermediates the client holds, "
				      "and this chain has none (intermediates 0); accepted: tai with intermediates 1..4"));
	s.mtc = PQ_MTC_LANDMARK;
	s.mtc_tree_size = 4400000;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "a Merkle Tree Certificate is the leaf alone"));
	spec(&s, "ml-dsa-44", 1);
	s.tai = 1;
	s.pad_leaf_to = 8000;
	s.pad_chain_to = 9000;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "the chain sent is the leaf alone"));
	s.pad_chain_to = 8000;
	assert_int_equal(pq_chain_spec_check(&s, &d), 0);
	path(out, sizeof out, "tai-pad");
	s.pad_leaf_to = 0;
	assert_int_equal(pq_chain_make(&s, out, 0, &info, &d), 0);
	assert_int_equal(info.cert[0].der_bytes, 8000); /* pad_chain_to is the chain sent: the leaf */
	assert_int_equal(info.n_held, 1);
}

/* An OCSP staple: ocsp.der counted in the Certificate message (8 bytes of framing + the
 * response), an emulated issuer's response padded by its signature's extra bytes, the
 * staple in the cache key, an MTC refused. */
static void ocsp(void **state)
{
	(void)state;
	pq_chain_spec s;
	pq_chain_info plain, with, emu;
	pq_diag d = {0};
	char out[300], key[512];
	spec(&s, "ed25519", 1);
	path(out, sizeof out, "plain");
	assert_int_equal(pq_chain_make(&s, out, 0, &plain, &d), 0);
	assert_int_equal(plain.ocsp_bytes, 0);
	s.ocsp = 1;
	pq_chain_spec_key(&s, key, sizeof key);
	assert_non_null(strstr(key, " ocsp=yes"));
	path(out, sizeof out, "ocsp");
	assert_int_equal(pq_chain_make(&s, out, 0, &with, &d), 0);
	assert_true(with.ocsp_bytes > 200);
	assert_int_equal(with.ocsp_pad, 0);
	assert_int_equal(with.cert_msg, plain.cert_msg + 8 + with.ocsp_bytes);
	spec(&s, "emu-mayo-2", 1);
	s.ocsp = 1;
	path(out, sizeof out, "ocsp-emu");
	assert_int_equal(pq_chain_make(&s, out, 0, &emu, &d), 0);
	assert_int_equal(emu.ocsp_pad, 186 - 64);
	assert_int_equal(emu.ocsp_bytes, with.ocsp_bytes + 186 - 64); /* both Ed25519 underneath */
	assert_non_null(strstr(emu.emulation, "OCSP response is signed with the issuer's real key"));
	spec(&s, "ml-dsa-44", 0);
	s.ocsp = 1;
	s.mtc = PQ_MTC_LANDMARK;
	s.mtc_tree_size = 4400000;
	assert_int_equal(pq_chain_spec_check(&s, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "ocsp: a Merkle Tree Certificate is not revoked by OCSP"));
}

/* manifest.json carries every certificate (root last, not in the chain) and the flights;
 * the table shows the same numbers. */
/* The cache key names every parameter apart: a padded size is never read into another
 * (8192 B without SCTs once keyed as 81920 B), and SCTs appear only when asked for. */
static void spec_keys(void **state)
{
	(void)state;
	pq_chain_spec a, b;
	char ka[512], kb[512];
	spec(&a, "ecdsa-p256", 1);
	spec(&b, "ecdsa-p256", 1);
	a.pad_chain_to = 8192;
	b.pad_chain_to = 81920;
	pq_chain_spec_key(&a, ka, sizeof ka);
	pq_chain_spec_key(&b, kb, sizeof kb);
	assert_string_not_equal(ka, kb);
	assert_non_null(strstr(ka, "pad_chain_to=8192"));
	assert_null(strstr(ka, "81920"));
	assert_null(strstr(ka, "scts"));
	b.pad_chain_to = 8192;
	b.scts = 2;
	pq_chain_spec_key(&b, kb, sizeof kb);
	assert_non_null(strstr(kb, "pad_chain_to=8192 scts=2 sct_alg=ecdsa-p256"));
	assert_null(strstr(kb, "tai"));
	b.tai = 1;
	pq_chain_spec_key(&b, kb, sizeof kb);
	assert_non_null(strstr(kb, "sct_alg=ecdsa-p256 tai=yes"));
	b.scts = 0;
	pq_chain_spec_key(&b, kb, sizeof kb);
	assert_non_null(strstr(kb, "pad_chain_to=8192 tai=yes"));
}

static void manifest_fields(void **state)
{
	(void)state;
	pq_chain_spec s;
	pq_chain_info info;
	pq_diag d = {0};
	char out[300];
	spec(&s, "ml-dsa-44", 2);
	s.pad_leaf_to = 6000;
	path(out, sizeof out, "m");
	assert_int_equal(pq_chain_make(&s, out, 0, &info, &d), 0);
	char *txt = pq_manifest_json(&info);
	cJSON *m = cJSON_Parse(txt);
	assert_non_null(m);
	cJSON *certs = cJSON_GetObjectItem(m, "certificates");
	assert_int_equal(cJSON_GetArraySize(certs), 4);
	cJSON *leaf = cJSON_GetArrayItem(certs, 0), *root = cJSON_GetArrayItem(certs, 3);
	assert_int_equal(cJSON_GetObjectItem(leaf, "der_bytes")->valuedouble, 6000);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(leaf, "in_chain")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(root, "in_chain")));
	assert_string_equal(cJSON_GetObjectItem(leaf, "key_alg")->valuestring, "ml-dsa-44");
	cJSON *spec_j = cJSON_GetObjectItem(m, "spec");
	assert_int_equal(cJSON_GetObjectItem(spec_j, "pad_leaf_to")->valuedouble, 6000);
	cJSON *t13 = cJSON_GetObjectItem(m, "tls13");
	assert_int_equal(cJSON_GetObjectItem(t13, "certificate_msg_bytes")->valuedouble,
			 info.cert_msg);
	cJSON *fl = cJSON_GetObjectItem(t13, "flights");
	assert_int_equal(cJSON_GetArraySize(fl), 4);
	cJSON *f0 = cJSON_GetArrayItem(fl, 0);
	assert_string_equal(cJSON_GetObjectItem(f0, "group")->valuestring, "X25519");
	assert_int_equal(cJSON_GetObjectItem(f0, "flight_bytes")->valuedouble,
			 info.flight[0].acct.flight);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(m, "emulation")));
	cJSON_Delete(m);
	free(txt);

	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	pq_manifest_print(mem, &info);
	fclose(mem);
	char want[96];
	snprintf(want, sizeof want, "chain.pem DER bytes:       %zu (3 certificates)",
		 info.chain_der);
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "X25519MLKEM768"));
	assert_non_null(strstr(buf, "(not sent)"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(spec_checks), cmocka_unit_test(spec_keys),
	    cmocka_unit_test_setup_teardown(make_padded_and_inspect, setup, teardown),
	    cmocka_unit_test_setup_teardown(failures_leave_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(inspect_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(cache, setup, teardown),
	    cmocka_unit_test_setup_teardown(mtc_sizes, setup, teardown),
	    cmocka_unit_test_setup_teardown(composite, setup, teardown),
	    cmocka_unit_test_setup_teardown(size_emulation, setup, teardown),
	    cmocka_unit_test_setup_teardown(scts, setup, teardown),
	    cmocka_unit_test_setup_teardown(tai, setup, teardown),
	    cmocka_unit_test_setup_teardown(ocsp, setup, teardown),
	    cmocka_unit_test_setup_teardown(manifest_fields, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
