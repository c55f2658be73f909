#include "zeek/certs.h"

#include <stdlib.h>
#include <string.h>

#include "pki/acct.h"
#include "pki/alg.h"
#include "zeek/input.h"
#include "zeek/tsv.h"

enum { X_FP, X_ID, X_KEYTYPE, X_KEYLEN, X_CURVE, X_SIGALG, X_CERT, F_FUID, F_SHA256, F_SEEN, F_MIME, C_N };
static const char *const cols[C_N] = {
	"fingerprint", "id", "certificate.key_type", "certificate.key_length", "certificate.curve",
	"certificate.sig_alg", "cert", "fuid", "sha256", "seen_bytes", "mime_type",
};

void pq_zeek_certdb_init(pq_zeek_certdb *db)
{
	memset(db, 0, sizeof *db);
	pq_zeek_map_init(&db->certs, sizeof(pq_zeek_cert));
}

void pq_zeek_certdb_dispose(pq_zeek_certdb *db)
{
	pq_zeek_map_dispose(&db->certs);
}

/* Key bytes and own signature bytes from x509.log's key_type, key_length and curve. */
static void key_sizes(const char *type, unsigned bits, const char *curve, pq_zeek_cert *c)
{
	char name[48] = "";
	if (!strcmp(type, "rsa"))
		snprintf(name, sizeof name, "rsa-%u", bits);
	else if (!strcmp(type, "ecdsa") && (!strcmp(curve, "prime256v1") || bits == 256))
		snprintf(name, sizeof name, "ecdsa-p256");
	else if (!strcmp(type, "ecdsa") && (!strcmp(curve, "secp384r1") || bits == 384))
		snprintf(name, sizeof name, "ecdsa-p384");
	else
		snprintf(name, sizeof name, "%s", type); /* ML-DSA-44, ED25519: OpenSSL's names */
	const pq_alg *a = pq_alg_find(name);
	if (a) {
		c->pub = a->pub_bytes;
		c->sig_own = a->sig_bytes;
	} else if (!strcmp(type, "rsa") && bits >= 512 && bits <= 16384) {
		c->pub = c->sig_own = bits / 8; /* an RSA size the table lacks */
	}
}

/* The signature a certificate carries, from its sig_alg alone. */
static unsigned sig_from_alg(const char *sig_alg)
{
	if (strstr(sig_alg, "RSA") || strstr(sig_alg, "rsa"))
		return 256; /* the issuer's modulus is not in the log: RSA-2048 */
	if (strstr(sig_alg, "ecdsa-with-SHA384"))
		return pq_alg_find("ecdsa-p384")->sig_bytes;
	if (strstr(sig_alg, "ecdsa"))
		return pq_alg_find("ecdsa-p256")->sig_bytes;
	const pq_alg *a = pq_alg_find(sig_alg);
	return a ? a->sig_bytes : 0;
}

static size_t b64_len(const char *s, size_t n)
{
	while (n && (s[n - 1] == '=' || s[n - 1] == '\n'))
		n--;
	return n * 3 / 4;
}

typedef struct row {
	const char *v[C_N];
	size_t n[C_N];
} row;

static pq_zeek_cert *cert(pq_zeek_certdb *db, const char *id, size_t n)
{
	return pq_zeek_map_get(&db->certs, id, n, NULL);
}

static int add_row(pq_zeek_certdb *db, row *r)
{
	char tmp[64];
	const char *id = r->v[X_FP] ? r->v[X_FP] : r->v[X_ID];
	size_t idn = r->v[X_FP] ? r->n[X_FP] : r->n[X_ID];
	if (id && r->v[X_KEYTYPE]) { /* x509.log */
		pq_zeek_cert *c = cert(db, id, idn);
		if (!c)
			return PQ_ENOMEM;
		char type[48], curve[48] = "", sig[64] = "";
		snprintf(type, sizeof type, "%.*s", (int)r->n[X_KEYTYPE], r->v[X_KEYTYPE]);
		if (r->v[X_CURVE])
			snprintf(curve, sizeof curve, "%.*s", (int)r->n[X_CURVE], r->v[X_CURVE]);
		snprintf(tmp, sizeof tmp, "%.*s", r->v[X_KEYLEN] ? (int)r->n[X_KEYLEN] : 0, r->v[X_KEYLEN] ? r->v[X_KEYLEN] : "");
		key_sizes(type, (unsigned)strtoul(tmp, NULL, 10), curve, c);
		if (r->v[X_SIGALG]) {
			snprintf(sig, sizeof sig, "%.*s", (int)r->n[X_SIGALG], r->v[X_SIGALG]);
			c->sig_in = sig_from_alg(sig);
		}
		if (r->v[X_CERT])
			c->der = (uint32_t)b64_len(r->v[X_CERT], r->n[X_CERT]);
		db->x509_rows++;
		return 0;
	}
	if (r->v[F_SEEN] && (r->v[F_FUID] || r->v[F_SHA256])) { /* files.log */
		if (r->v[F_MIME] && !memmem(r->v[F_MIME], r->n[F_MIME], "x509", 4))
			return 0; /* not a certificate */
		snprintf(tmp, sizeof tmp, "%.*s", (int)(r->n[F_SEEN] < 20 ? r->n[F_SEEN] : 20), r->v[F_SEEN]);
		uint32_t der = (uint32_t)strtoul(tmp, NULL, 10);
		for (int k = F_FUID; k <= F_SHA256; k++) {
			pq_zeek_cert *c = r->v[k] ? cert(db, r->v[k], r->n[k]) : NULL;
			if (r->v[k] && !c)
				return PQ_ENOMEM;
			if (c && !c->der)
				c->der = der;
		}
		db->files_rows++;
		return 0;
	}
	db->bad++;
	return 0;
}

static void json_row(pq_zeek_certdb *db, char *line, size_t len, row *r, int *rc)
{
	cJSON *o = cJSON_ParseWithLength(line, len);
	if (!cJSON_IsObject(o)) {
		db->bad++;
		cJSON_Delete(o);
		return;
	}
	char nums[2][24];
	for (int k = 0; k < C_N; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, cols[k]);
		if (cJSON_IsString(v) && v->valuestring[0]) {
			r->v[k] = v->valuestring;
			r->n[k] = strlen(v->valuestring);
		} else if (cJSON_IsNumber(v) && (k == X_KEYLEN || k == F_SEEN)) {
			char *b = nums[k == F_SEEN];
			r->n[k] = (size_t)snprintf(b, sizeof nums[0], "%.0f", v->valuedouble);
			r->v[k] = b;
		}
	}
	*rc = add_row(db, r);
	cJSON_Delete(o);
}

int pq_zeek_certdb_add_text(pq_zeek_certdb *db, char *text, size_t len)
{
	pq_zeek_tsv t;
	int rc = 0;
	pq_zeek_tsv_init_cols(&t, cols, C_N, -1);
	for (size_t pos = 0; pos < len && !rc;) {
		char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = (nl ? (size_t)(nl - text) : len) - pos;
		char *line = text + pos;
		row r;
		memset(&r, 0, sizeof r);
		pq_zeek_span s[C_N];
		int why;
		if (n && line[0] == '#') {
			(void)!pq_zeek_tsv_header(&t, line, n); /* a bad header makes its rows bad */
		} else if (n && line[0] == '{') {
			json_row(db, line, n, &r, &rc);
		} else if (!n) {
			/* an empty line */
		} else if (pq_zeek_tsv_split(&t, line, n, s, &why) < 0) {
			db->bad++;
		} else {
			int ok = 1;
			for (int k = 0; k < C_N && ok; k++)
				ok = pq_zeek_tsv_value(&t, s[k], &r.v[k], &r.n[k]) >= 0;
			if (ok)
				rc = add_row(db, &r);
			else
				db->bad++;
		}
		pos += n + 1;
	}
	return rc;
}

int pq_zeek_certdb_load(pq_zeek_certdb *db, const char *path, pq_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	int rc = pq_zeek_slurp(path, (size_t)1 << 32, &text, &len, d);
	if (rc)
		return rc;
	rc = pq_zeek_certdb_add_text(db, text, len);
	if (rc)
		pq_diag_set(d, rc, "%s: %s", path, pq_strerror(rc));
	free(text);
	return rc;
}

/* ---- evaluation ---- */
typedef struct chain_eval {
	size_t der[PQ_ZCERT_N][16];
	size_t n, total[PQ_ZCERT_N];
	unsigned leaf_sig[PQ_ZCERT_N];
} chain_eval;

/* Sizes of one chain as logged and with ML-DSA; 0 when something is unknown. */
static int eval_chain(const pq_zeek_certdb *db, const char *ids, size_t len, chain_eval *e)
{
	const pq_zeek_cert *c[16];
	memset(e, 0, sizeof *e);
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(ids + i, '\n', len - i);
		size_t n = (nl ? (size_t)(nl - ids) : len) - i;
		if (e->n == 16 || !(c[e->n] = pq_zeek_map_find(&db->certs, ids + i, n)) || !c[e->n]->der ||
		    !c[e->n]->pub || !c[e->n]->sig_own)
			return 0;
		e->n++;
		i += n + 1;
	}
	static const char *const algs[PQ_ZCERT_N] = {NULL, "ml-dsa-44", "ml-dsa-65"};
	for (int s = 0; s < PQ_ZCERT_N; s++) {
		const pq_alg *a = algs[s] ? pq_alg_find(algs[s]) : NULL;
		for (size_t i = 0; i < e->n; i++) {
			/* The signature in certificate i is its issuer's: the next one sent, or for the
			 * topmost the one its sig_alg names. */
			unsigned sig_in = i + 1 < e->n ? c[i + 1]->sig_own : c[i]->sig_in;
			if (a && !sig_in)
				return 0;
			long v = a ? (long)c[i]->der - c[i]->pub - sig_in + a->pub_bytes + a->sig_bytes : (long)c[i]->der;
			e->der[s][i] = v > 0 ? (size_t)v : 1;
			e->total[s] += e->der[s][i];
		}
		e->leaf_sig[s] = a ? a->sig_bytes : c[0]->sig_own;
	}
	return e->n > 0;
}

typedef struct wsize {
	double der;
	uint64_t w;
} wsize;

static int wsize_cmp(const void *x, const void *y)
{
	double a = ((const wsize *)x)->der, b = ((const wsize *)y)->der;
	return a < b ? -1 : a > b;
}

static double wmedian(wsize *v, size_t n, uint64_t total)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, wsize_cmp);
	uint64_t acc = 0;
	for (size_t i = 0; i < n; i++) {
		acc += v[i].w;
		if (2 * acc >= total)
			return v[i].der;
	}
	return v[n - 1].der;
}

int pq_zeek_certs_eval(const pq_zeek_certdb *db, const pq_zeek_map *chains, const char *group,
		       pq_zeek_certstats *out, pq_diag *d)
{
	memset(out, 0, sizeof *out);
	const pq_acct_group *g = pq_acct_group_find(group);
	if (!g)
		return pq_diag_set(d, PQ_EINVAL, "group '%s' is not one pqtls accounts for (e.g. X25519MLKEM768, x25519)",
				   group);
	out->group = g->name;
	wsize *sizes[PQ_ZCERT_N] = {NULL};
	size_t nk = 0, it = 0, kl;
	int rc = 0;
	for (int s = 0; s < PQ_ZCERT_N && !rc; s++)
		if (!(sizes[s] = calloc(chains->len ? chains->len : 1, sizeof(wsize))))
			rc = PQ_ENOMEM;
	const void *k;
	const uint64_t *w;
	while (!rc && (w = pq_zeek_map_next(chains, &it, &k, &kl))) {
		chain_eval e;
		out->chains++;
		out->conns += *w;
		if (!eval_chain(db, k, kl, &e))
			continue;
		out->known_chains++;
		out->known_conns += *w;
		for (int s = 0; s < PQ_ZCERT_N && !rc; s++) {
			pq_acct_in in = {.der = e.der[s], .n = e.n, .sig_bytes = e.leaf_sig[s], .server_share = g->server_share};
			pq_acct a;
			if (pq_acct_flight(&in, &a, NULL)) /* beyond what TLS carries: counts as +2 or more */
				a.rounds = 3;
			out->fits[s] += a.rounds <= 1 ? *w : 0;
			out->fits_chains[s] += a.rounds <= 1;
			out->plus1[s] += a.rounds == 2 ? *w : 0;
			out->plus2[s] += a.rounds >= 3 ? *w : 0;
			sizes[s][nk] = (wsize){(double)e.total[s], *w};
		}
		nk++;
	}
	for (int s = 0; s < PQ_ZCERT_N && !rc; s++)
		out->median_der[s] = wmedian(sizes[s], nk, out->known_conns);
	for (int s = 0; s < PQ_ZCERT_N; s++)
		free(sizes[s]);
	return rc ? pq_diag_set(d, rc, "out of memory evaluating chains") : 0;
}

static const char *const labels[PQ_ZCERT_N] = {"as logged", "ML-DSA-44 keys and signatures",
					       "ML-DSA-65 keys and signatures"};
static const char *const keys[PQ_ZCERT_N] = {"as_logged", "ml_dsa_44", "ml_dsa_65"};

static double pct(uint64_t k, uint64_t n)
{
	return n ? 100.0 * (double)k / (double)n : 0;
}

void pq_zeek_certs_print(FILE *f, const pq_zeek_certstats *s)
{
	fprintf(f, "Certificate chains in ssl.log: %llu distinct, %llu connections (TLS 1.2 and earlier: Zeek sees\n"
		   "no certificates in TLS 1.3); every size and type known for %llu chains, %llu connections\n\n",
		(unsigned long long)s->chains, (unsigned long long)s->conns, (unsigned long long)s->known_chains,
		(unsigned long long)s->known_conns);
	fprintf(f, "%-32s %12s %14s %10s %10s %12s\n", "chain", "median DER B", "fits IW10", "+1 RTT", "+2 RTT+",
		"chains fit");
	for (int i = 0; i < PQ_ZCERT_N; i++)
		fprintf(f, "%-32s %12.0f %13.1f%% %9.1f%% %9.1f%% %11.1f%%\n", labels[i], s->median_der[i],
			pct(s->fits[i], s->known_conns), pct(s->plus1[i], s->known_conns),
			pct(s->plus2[i], s->known_conns), pct(s->fits_chains[i], s->known_chains));
	fprintf(f, "(shares of connections, except the last column; server first flight by pqtls's accounting,\n"
		   " src/pki/acct.h: group %s, MSS %d, initial window %d segments)\n", s->group, PQ_ACCT_MSS, PQ_ACCT_IW);
}

cJSON *pq_zeek_certs_json(const pq_zeek_certstats *s)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "chains", (double)s->chains);
	cJSON_AddNumberToObject(j, "connections", (double)s->conns);
	cJSON_AddNumberToObject(j, "known_chains", (double)s->known_chains);
	cJSON_AddNumberToObject(j, "known_connections", (double)s->known_conns);
	cJSON_AddStringToObject(j, "group", s->group ? s->group : "");
	for (int i = 0; i < PQ_ZCERT_N; i++) {
		cJSON *e = cJSON_AddObjectToObject(j, keys[i]);
		cJSON_AddNumberToObject(e, "median_der_bytes", s->median_der[i]);
		cJSON_AddNumberToObject(e, "fits_iw_connections", (double)s->fits[i]);
		cJSON_AddNumberToObject(e, "plus1_rtt_connections", (double)s->plus1[i]);
		cJSON_AddNumberToObject(e, "plus2_rtt_connections", (double)s->plus2[i]);
		cJSON_AddNumberToObject(e, "fits_iw_chains", (double)s->fits_chains[i]);
	}
	return j;
}
