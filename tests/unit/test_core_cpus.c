/* core/cpus: the CPUs a process may use: the quota texts of cgroup v2 and v1 and their
 * refusals, the throttled time of cpu.stat, the least quota along a cgroup's path in a
 * made-up cgroup tree (v2, v1 under cpu,cpuacct, nested, missing files), the affinity
 * mask against the CPUs online, the text the sweep prints, and this process read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/cpus.h"
#include "testdir.h"

static void parse_max(void **state)
{
	(void)state;
	double c = -1;
	assert_int_equal(pq_cpus_parse_max("max 100000\n", &c), 0);
	assert_true(c == 0);
	assert_int_equal(pq_cpus_parse_max("150000 100000\n", &c), 0);
	assert_true(c > 1.49 && c < 1.51);
	assert_int_equal(pq_cpus_parse_max("50000 100000", &c), 0);
	assert_true(c > 0.49 && c < 0.51);
	assert_int_equal(pq_cpus_parse_max("", &c), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_max(NULL, &c), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_max("150000", &c), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_max("150000 0", &c), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_max("-5 100000", &c), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_max("1.5 100000", &c), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_v1("-1\n", "100000\n", &c), 0);
	assert_true(c == 0);
	assert_int_equal(pq_cpus_parse_v1("250000\n", "100000\n", &c), 0);
	assert_true(c > 2.49 && c < 2.51);
	assert_int_equal(pq_cpus_parse_v1("", "100000", &c), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_v1("100000", "0", &c), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_v1("-7", "100000", &c), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_v1(NULL, "100000", &c), PQ_EPARSE);
}

static void throttled(void **state)
{
	(void)state;
	long long ns = -1;
	assert_int_equal(pq_cpus_parse_throttled("usage_usec 9\nnr_throttled 3\nthrottled_usec 1500\n", 0, &ns), 0);
	assert_int_equal(ns, 1500000);
	assert_int_equal(pq_cpus_parse_throttled("nr_periods 9\nnr_throttled 3\nthrottled_time 42\n", 1, &ns), 0);
	assert_int_equal(ns, 42);
	/* each version's key only */
	assert_int_equal(pq_cpus_parse_throttled("throttled_time 42\n", 0, &ns), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_throttled("throttled_usec 42\n", 1, &ns), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_throttled("", 0, &ns), PQ_EPARSE);
	assert_int_equal(pq_cpus_parse_throttled(NULL, 1, &ns), PQ_EPARSE);
}

/* dir/rel with the directories on its way made (testdir.h's dir). */
static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void tree_v2(void **state)
{
	(void)state;
	pq_cpus c;
	/* the leaf has none, its parent 1.5, the root none: the parent's */
	put("kube/pod1/ctr/cpu.max", "max 100000\n");
	put("kube/pod1/cpu.max", "150000 100000\n");
	put("cpu.max", "max 100000\n");
	put("kube/pod1/cpu.stat", "usage_usec 5\nthrottled_usec 2500\n");
	pq_cpus_from(&c, 64, 64, "0::/kube/pod1/ctr\n", dir);
	assert_int_equal(c.online, 64);
	assert_int_equal(c.allowed, 64);
	assert_true(c.quota > 1.49 && c.quota < 1.51);
	assert_int_equal(c.usable, 1);
	assert_int_equal(c.quota_v1, 0);
	assert_non_null(strstr(c.quota_dir, "/kube/pod1"));
	assert_null(strstr(c.quota_dir, "/ctr"));
	assert_int_equal(pq_cpus_throttled_ns(&c), 2500000);
	char t[300];
	pq_cpus_text(&c, t, sizeof t);
	assert_string_equal(t, "1 CPU of 64 online (a cgroup CPU quota of 1.50 CPUs; whole CPUs, at least 1)");
	/* a smaller quota deeper down wins; the affinity mask below the quota wins over both */
	put("kube/pod1/ctr/cpu.max", "400000 100000\n");
	put("kube/cpu.max", "800000 100000\n");
	pq_cpus_from(&c, 64, 64, "0::/kube/pod1/ctr\n", dir);
	assert_int_equal(c.usable, 1);
	put("kube/pod1/cpu.max", "max 100000\n");
	pq_cpus_from(&c, 64, 64, "0::/kube/pod1/ctr/\n", dir);
	assert_int_equal(c.usable, 4);
	pq_cpus_from(&c, 64, 2, "0::/kube/pod1/ctr\n", dir);
	assert_int_equal(c.usable, 2);
	pq_cpus_text(&c, t, sizeof t);
	assert_string_equal(t, "2 CPUs of 64 online (the affinity mask allows 2)");
	/* a quota under one CPU still leaves one */
	put("kube/pod1/ctr/cpu.max", "20000 100000\n");
	pq_cpus_from(&c, 2, 2, "0::/kube/pod1/ctr\n", dir);
	assert_int_equal(c.usable, 1);
	/* unreadable or missing files and a path that is not there: no quota */
	put("kube/pod1/ctr/cpu.max", "garbage\n");
	put("kube/cpu.max", "max 100000\n");
	pq_cpus_from(&c, 8, 8, "0::/kube/pod1/ctr\n", dir);
	assert_true(c.quota == 0);
	assert_int_equal(c.usable, 8);
	assert_int_equal(pq_cpus_throttled_ns(&c), -1);
	pq_cpus_text(&c, t, sizeof t);
	assert_string_equal(t, "8 CPUs");
	pq_cpus_from(&c, 8, 8, "0::/nowhere/at/all\n", dir);
	assert_int_equal(c.usable, 8);
}

static void tree_v1(void **state)
{
	(void)state;
	pq_cpus c;
	put("cpu,cpuacct/job/cpu.cfs_quota_us", "250000\n");
	put("cpu,cpuacct/job/cpu.cfs_period_us", "100000\n");
	put("cpu,cpuacct/job/cpu.stat", "nr_periods 4\nnr_throttled 1\nthrottled_time 777\n");
	put("cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	put("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	const char *text = "12:memory:/job\n4:cpu,cpuacct:/job\n0::/job\n";
	pq_cpus_from(&c, 16, 16, text, dir);
	assert_true(c.quota > 2.49 && c.quota < 2.51);
	assert_int_equal(c.usable, 2);
	assert_int_equal(c.quota_v1, 1);
	assert_int_equal(pq_cpus_throttled_ns(&c), 777);
	/* a controller list that only starts with "cpu" is not it */
	pq_cpus_from(&c, 16, 16, "4:cpuset:/job\n", dir);
	assert_true(c.quota == 0);
	/* v1's cpu alone, as this machine mounts it */
	put("cpu/other/cpu.cfs_quota_us", "100000\n");
	put("cpu/other/cpu.cfs_period_us", "100000\n");
	pq_cpus_from(&c, 2, 2, "1:cpu:/other\n", dir);
	assert_int_equal(c.usable, 1);
	/* lines that are not ID:CONTROLLERS:PATH are skipped */
	pq_cpus_from(&c, 2, 2, "junk\n::\n3:cpu:relative\n", dir);
	assert_int_equal(c.usable, 2);
	pq_cpus_from(&c, 0, 0, NULL, dir);
	assert_int_equal(c.online, 1);
	assert_int_equal(c.usable, 1);
}

/* This process: usable between 1 and the CPUs online, and the text names them. */
static void live(void **state)
{
	(void)state;
	pq_cpus c;
	pq_cpus_get(&c);
	assert_true(c.usable >= 1 && c.usable <= c.online);
	assert_true(c.allowed >= 1 && c.allowed <= c.online);
	char t[300];
	pq_cpus_text(&c, t, sizeof t);
	assert_non_null(strstr(t, "CPU"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_max),
		cmocka_unit_test(throttled),
		cmocka_unit_test_setup_teardown(tree_v2, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(tree_v1, testdir_setup, testdir_teardown),
		cmocka_unit_test(live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
