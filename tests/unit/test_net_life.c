/* net/life: a held link comes up in a holder process, is found by name, and goes away
 * by name or with all links of its holder; bad names are refused. Needs root (network
 * namespaces): without it the test is skipped with that reason. Only links this test
 * made are taken down (down_all is called for this test's holders only). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/child.h"
#include "core/clock.h"
#include "net/life.h"
#include "net/ns.h"

static int exists(const char *name, const char *side)
{
	char path[160];
	snprintf(path, sizeof path, PQ_NS_DIR "/%s-%s", name, side);
	return access(path, F_OK) == 0;
}

static void names(void **state)
{
	(void)state;
	pq_diag d;
	pid_t pid;
	assert_int_equal(pq_life_parse_name("pqtls-123-4", "NAME", &pid, &d), 0);
	assert_int_equal(pid, 123);
	static const char *const bad[] = {"nonsense", "pqtls-123", "pqtls-x-1", "pqtls-123-4-c", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(pq_life_parse_name(bad[i], "NAME", &pid, &d), PQ_EINVAL);
		assert_non_null(strstr(d.msg, "NAME: "));
		assert_non_null(strstr(d.msg, "not a link name"));
	}
	/* A well-formed name nobody holds (pid 1 never makes links). */
	assert_int_equal(pq_life_down("pqtls-1-999", NULL, &d), -ENOENT);
	assert_non_null(strstr(d.msg, "no link named pqtls-1-999"));
}

static void reap(pid_t holder)
{
	int status;
	assert_int_equal(pq_child_wait(holder, &status, 10 * PQ_NS_PER_S, NULL), 1);
	assert_int_equal(pq_child_exit_code(status), 0); /* took its link down and ended */
}

/* A holder's report, as a holder whose capture failed leaves it (net/life.h). */
static void put_report(const char *name, const char *msg)
{
	char path[160];
	(void)mkdir(PQ_LIFE_DIR, 0700);
	snprintf(path, sizeof path, PQ_LIFE_DIR "/%s.down", name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(msg, f);
	assert_int_equal(fclose(f), 0);
}

static void heard(void *arg, const char *name, int killed, const char *failure)
{
	(void)name;
	(void)killed;
	if (failure)
		snprintf(arg, 256, "%s", failure);
}

static void up_and_down(void **state)
{
	(void)state;
	pq_link_config cfg;
	pq_link_opts o;
	pq_life_link a, b;
	pq_diag d;
	pq_link_config_init(&cfg);
	pq_link_config_set_rtt(&cfg, 2 * PQ_NS_PER_MS);
	pq_link_opts_init(&o);
	assert_int_equal(pq_life_up(&cfg, &o, &a, &d), 0);
	assert_true(a.holder > 0 && a.holder != getpid());
	char want[64];
	snprintf(want, sizeof want, "pqtls-%d-", (int)a.holder);
	assert_int_equal(strncmp(a.name, want, strlen(want)), 0);
	assert_true(exists(a.name, "c") && exists(a.name, "s"));
	assert_non_null(strstr(a.desc, "rtt 2.0 ms"));
	assert_true(a.backend == PQ_BACKEND_NETEM || a.backend == PQ_BACKEND_USERSPACE);

	int killed = -1;
	assert_int_equal(pq_life_down(a.name, &killed, &d), 0);
	assert_int_equal(killed, 0); /* the holder removed its namespaces itself */
	assert_false(exists(a.name, "c") || exists(a.name, "s"));
	reap(a.holder);

	/* All links of one holder. */
	assert_int_equal(pq_life_up(&cfg, &o, &b, &d), 0);
	assert_true(pq_life_down_all(b.holder, NULL, NULL, NULL) >= 1);
	assert_false(exists(b.name, "c") || exists(b.name, "s"));
	reap(b.holder);

	/* A holder that could not finish (its capture): the link goes, and whoever took it
	 * down hears why, once (the report is taken). */
	assert_int_equal(pq_life_up(&cfg, &o, &a, &d), 0);
	put_report(a.name, "--pcap: cannot write x.pcap: No space left on device");
	assert_int_equal(pq_life_down(a.name, &killed, &d), PQ_EIO);
	assert_non_null(strstr(d.msg, a.name));
	assert_non_null(strstr(d.msg, "is down, but"));
	assert_non_null(strstr(d.msg, "cannot write x.pcap: No space left on device"));
	assert_false(exists(a.name, "c") || exists(a.name, "s"));
	reap(a.holder);
	assert_int_equal(pq_life_up(&cfg, &o, &b, &d), 0);
	put_report(b.name, "--pcap: cannot write y.pcap");
	char failure[256] = "";
	assert_true(pq_life_down_all(b.holder, NULL, heard, failure) >= 1);
	assert_non_null(strstr(failure, "cannot write y.pcap"));
	reap(b.holder);
	char path[160];
	snprintf(path, sizeof path, PQ_LIFE_DIR "/%s.down", b.name);
	assert_int_equal(access(path, F_OK), -1);

	/* A configuration the link refuses: the holder's message, and no holder left. */
	cfg.mtu = 10;
	assert_true(pq_life_up(&cfg, &o, &a, &d) < 0);
	assert_non_null(strstr(d.msg, "mtu: 10"));
}

int main(void)
{
	if (geteuid() != 0) {
		printf("skip: needs root (network namespaces)\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(up_and_down),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
