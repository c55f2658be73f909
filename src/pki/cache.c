/* Chains cached by their parameters, so sweeps sign each chain once. */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pki/chain.h"
#include "pki/dir.h"
#include "pki/files.h"

#define HASH_HEX 24 /* 96 bits of SHA-256: no collisions among a lab's specs */

int pq_chain_cache_dir(const pq_chain_spec *s, const char *cache_root, char *out, size_t n,
		       pq_diag *d)
{
	char key[512], root[4096];
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	if (!cache_root || !cache_root[0])
		return pq_diag_set(d, PQ_EINVAL, "chain cache: no cache directory given");
	snprintf(root, sizeof root, "%s", cache_root);
	pq_chain_spec_key(s, key, sizeof key);
	if (!EVP_Digest(key, strlen(key), md, &mdlen, EVP_sha256(), NULL))
		return pq_diag_ossl(d, PQ_ETLS, "chain cache: cannot hash the spec");
	char hex[HASH_HEX + 1];
	for (int i = 0; i < HASH_HEX / 2; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	if ((size_t)snprintf(out, n, "%s/chains/%s", root, hex) >= n)
		return pq_diag_set(d, PQ_ERANGE, "chain cache: path under %s too long", root);
	return 0;
}

static int load(const char *dir, const pq_chain_spec *s, pq_chain_info *info, pq_diag *d)
{
	int rc = pq_chain_inspect(dir, info, d);
	return rc ? rc : pq_chain_annotate(info, s, d);
}

int pq_chain_cached(const pq_chain_spec *s, const char *cache_root, pq_chain_info *info, pq_diag *d)
{
	char dir[4096], manifest[4200];
	int rc = pq_chain_spec_check(s, d);
	if (!rc)
		rc = pq_chain_cache_dir(s, cache_root, dir, sizeof dir, d);
	if (rc)
		return rc;
	snprintf(manifest, sizeof manifest, "%s/" PQ_CHAIN_FILE_MANIFEST, dir);
	if (access(manifest, R_OK) == 0)
		return (rc = load(dir, s, info, d)) ? rc : 1;
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	rc = pq_pki_dir_mkdirs(dir, d);
	*slash = '/';
	if (rc)
		return rc;
	rc = pq_chain_make(s, dir, 0, info, d);
	if (rc == PQ_EEXIST && access(manifest, R_OK) == 0) {
		/* Another process made the same chain meanwhile: use theirs. */
		pq_diag_clear(d);
		return (rc = load(dir, s, info, d)) ? rc : 1;
	}
	return rc;
}
