/* net/life: a held link comes up in a holder process, is found by name, and goes away
 * by name or with all links of its holder; bad names are refused. Its report
 * (net/life_report.h) is put and taken in a directory of the test's own, with what can be
 * planted there (a symbolic link to a file, a FIFO, a directory not pqtls's) named and
 * refused, never followed, read or waited on. The links need root (network namespaces):
 * without it that part is skipped with that reason. Only links this test made are taken
 * down (down_all is called for this test's holders only); what it plants in PQ_LIFE_DIR
 * is under its own links' names and removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/child.h"
#include "core/clock.h"
#include "net/life.h"
#include "net/life_report.h"
#include "net/ns.h"
#include "testdir.h"

static void report_put_take(void **state)
{
	(void)state;
	pq_diag d;
	const char *msg = "--pcap: cannot write x.pcap";
	assert_int_equal(pq_life_report_put(dir, "pqtls-9-1", msg, &d), 0);
	assert_string_equal(testdir_read(testdir_path("pqtls-9-1.down")), msg);
	assert_int_equal(pq_life_report_take(dir, "pqtls-9-1", &d), PQ_EIO);
	assert_string_equal(d.msg, "link pqtls-9-1 is down, but its last step failed: --pcap: "
				   "cannot write x.pcap");
	assert_int_equal(access(testdir_path("pqtls-9-1.down"), F_OK), -1); /* taken */
	assert_int_equal(pq_life_report_take(dir, "pqtls-9-1", &d), 0);
	/* no report directory at all: nothing to take */
	assert_int_equal(pq_life_report_take(testdir_path("none"), "pqtls-9-1", &d), 0);
	/* a directory that cannot be made is named */
	assert_true(pq_life_report_put(testdir_path("none/sub"), "pqtls-9-1", "x", &d) < 0);
	assert_non_null(strstr(d.msg, "none/sub: cannot create the directory"));
}

/* A link planted as the report (to a file the taker must not read, or to a file the
 * holder must not write) is refused by the taker and replaced, not followed, by the
 * holder; a planted temporary name is never written through. */
static void report_planted_link(void **state)
{
	(void)state;
	pq_diag d;
	FILE *f = fopen(testdir_path("victim"), "w");
	assert_non_null(f);
	fputs("secret", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(symlink(testdir_path("victim"), testdir_path("pqtls-9-2.down")), 0);
	assert_int_equal(pq_life_report_take(dir, "pqtls-9-2", &d), PQ_EIO);
	assert_non_null(strstr(d.msg, testdir_path("pqtls-9-2.down")));
	assert_non_null(strstr(d.msg, "is a symbolic link, not a report pqtls wrote: not read"));
	assert_null(strstr(d.msg, "secret"));
	char tmp[300];
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", testdir_path("pqtls-9-2.down"), (int)getpid());
	assert_int_equal(symlink(testdir_path("victim"), tmp), 0); /* the old temporary name */
	assert_int_equal(pq_life_report_put(dir, "pqtls-9-2", "failed", &d), 0);
	assert_string_equal(testdir_read(testdir_path("victim")), "secret");
	struct stat st;
	assert_int_equal(lstat(testdir_path("pqtls-9-2.down"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(lstat(tmp, &st), 0);
	assert_true(S_ISLNK(st.st_mode)); /* left alone */
	assert_int_equal(pq_life_report_take(dir, "pqtls-9-2", &d), PQ_EIO);
	assert_non_null(strstr(d.msg, "its last step failed: failed"));
	unlink(tmp);
	unlink(testdir_path("victim"));
}

/* A FIFO planted as the report is refused at once: the taker neither blocks nor reads. */
static void report_planted_fifo(void **state)
{
	(void)state;
	pq_diag d;
	assert_int_equal(mkfifo(testdir_path("pqtls-9-3.down"), 0600), 0);
	alarm(10); /* a taker that waits for a writer ends the test */
	assert_int_equal(pq_life_report_take(dir, "pqtls-9-3", &d), PQ_EIO);
	alarm(0);
	assert_non_null(strstr(d.msg, "is a FIFO, not a report pqtls wrote: not read; remove it"));
	unlink(testdir_path("pqtls-9-3.down"));
}

/* The directory itself planted: a link to one, or one others can write, is not used. */
static void report_dir_not_ours(void **state)
{
	(void)state;
	pq_diag d;
	char real[300], linked[300];
	snprintf(real, sizeof real, "%s", testdir_path("real"));
	snprintf(linked, sizeof linked, "%s", testdir_path("linked"));
	assert_int_equal(mkdir(real, 0700), 0);
	assert_int_equal(symlink(real, linked), 0);
	assert_int_equal(pq_life_report_put(linked, "pqtls-9-4", "x", &d), PQ_EPERM);
	assert_non_null(strstr(d.msg, "linked is not pqtls's own directory (a symbolic link"));
	assert_int_equal(pq_life_report_take(linked, "pqtls-9-4", &d), PQ_EIO);
	assert_non_null(strstr(d.msg, "link pqtls-9-4 is down, but its report cannot be read: "));
	assert_int_equal(chmod(real, 0777), 0);
	assert_int_equal(pq_life_report_put(real, "pqtls-9-4", "x", &d), PQ_EPERM);
	assert_non_null(strstr(d.msg, "mode 777"));
	assert_int_equal(access(testdir_path("real/pqtls-9-4.down"), F_OK), -1);
	unlink(linked);
	rmdir(real);
}

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

/* What this test planted in PQ_LIFE_DIR, removed by the teardown when a check failed
 * before the test removed it. */
static char planted[160];

static int links_teardown(void **state)
{
	if (planted[0])
		unlink(planted);
	return testdir_teardown(state);
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

	/* Planted as the report in PQ_LIFE_DIR (issue #29): a link to a file, whose text was
	 * printed as the link's failure; a FIFO, on which 'link down' blocked for ever. Each is
	 * named and refused, and removed here. */
	FILE *v = fopen(testdir_path("victim"), "w");
	assert_non_null(v);
	fputs("not the holder's", v);
	assert_int_equal(fclose(v), 0);
	for (int fifo = 0; fifo < 2; fifo++) {
		assert_int_equal(pq_life_up(&cfg, &o, &a, &d), 0);
		snprintf(planted, sizeof planted, PQ_LIFE_DIR "/%s.down", a.name);
		const char *victim = testdir_path("victim");
		assert_int_equal(fifo ? mkfifo(planted, 0600) : symlink(victim, planted), 0);
		alarm(30); /* a 'link down' that waits on the FIFO ends the test */
		assert_int_equal(pq_life_down(a.name, &killed, &d), PQ_EIO);
		alarm(0);
		assert_non_null(strstr(d.msg, planted));
		assert_non_null(strstr(d.msg, fifo ? "is a FIFO" : "is a symbolic link"));
		assert_null(strstr(d.msg, "not the holder's"));
		assert_false(exists(a.name, "c") || exists(a.name, "s"));
		reap(a.holder);
		assert_int_equal(unlink(planted), 0);
		planted[0] = '\0';
	}
	unlink(testdir_path("victim"));

	/* A configuration the link refuses: the holder's message, and no holder left. */
	cfg.mtu = 10;
	assert_true(pq_life_up(&cfg, &o, &a, &d) < 0);
	assert_non_null(strstr(d.msg, "mtu: 10"));
}

int main(void)
{
	const struct CMUnitTest reports[] = {
		cmocka_unit_test(report_put_take),
		cmocka_unit_test(report_planted_link),
		cmocka_unit_test(report_planted_fifo),
		cmocka_unit_test(report_dir_not_ours),
	};
	const struct CMUnitTest links[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(up_and_down),
	};
	int rc = cmocka_run_group_tests_name("reports", reports, testdir_setup, testdir_teardown);
	if (rc)
		return rc;
	if (geteuid() != 0) {
		printf("skip: needs root (network namespaces)\n");
		return 77;
	}
	return cmocka_run_group_tests_name("links", links, testdir_setup, links_teardown);
}
