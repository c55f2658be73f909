/* For unit tests that need a real certificate chain: make one with the integration
 * tests' helper (tests/integration/lib/mkchain.sh) in a temporary directory, as a cmocka
 * group setup, and remove it in the teardown. Without PQTLS_SRC (outside ctest) the
 * directory stays empty and the tests that need it skip. */
#ifndef PQ_TESTS_TESTCHAIN_H
#define PQ_TESTS_TESTCHAIN_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char chain_dir[256];

static int testchain_make(const char *kind)
{
	const char *src = getenv("PQTLS_SRC");
	char cmd[1024];
	if (!src)
		return 0;
	snprintf(chain_dir, sizeof chain_dir, "/tmp/pqtls-unit-%s.%d", kind, (int)getpid());
	snprintf(cmd, sizeof cmd, "OPENSSL=%s bash %s/tests/integration/lib/mkchain.sh %s %s",
		 PQTLS_OPENSSL_BIN, src, kind, chain_dir);
	if (system(cmd) != 0)
		chain_dir[0] = '\0';
	return 0;
}

static int testchain_remove(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", chain_dir);
	return chain_dir[0] && system(cmd) != 0 ? -1 : 0;
}

#endif
