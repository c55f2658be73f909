/* net/pcapw: the link's capture, whole or not at all (core/wfile.h). A full disk part
 * way (a file size limit stands in for the disk filling while packets stream) leaves
 * neither the file nor its temporary, and says why; a full device at open (a link to
 * /dev/full) is refused before anything runs, the link left a link. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "net/pcapw.h"

static char dir[64], path[128], tmp[160];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/pq-pcapw-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof path, "%s/x.pcap", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(tmp);
	unlink(path);
	return rmdir(dir);
}

static int exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

static void pcapw_whole(void **state)
{
	(void)state;
	pq_pcapw *w;
	pq_diag d;
	uint8_t pkt[100] = {0x45};
	assert_int_equal(pq_pcapw_open(path, "--pcap", &w, &d), 0);
	for (int i = 0; i < 3; i++)
		pq_pcapw_write(w, i, pkt, sizeof pkt);
	assert_int_equal(pq_pcapw_count(w), 3);
	assert_false(exists(path)); /* not under its name before it is complete */
	assert_int_equal(pq_pcapw_close(w, &d), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 24 + 3 * (16 + (int)sizeof pkt)); /* file header + records */
	assert_false(exists(tmp));
	unlink(path);
}

static void pcapw_full_at_open(void **state)
{
	(void)state;
	pq_pcapw *w = (pq_pcapw *)&w;
	pq_diag d;
	struct stat st;
	assert_int_equal(symlink("/dev/full", path), 0);
	assert_int_equal(pq_pcapw_open(path, "--pcap", &w, &d), -ENOSPC);
	assert_null(w);
	assert_non_null(strstr(d.msg, "--pcap"));
	assert_non_null(strstr(d.msg, path));
	assert_non_null(strstr(d.msg, strerror(ENOSPC)));
	assert_false(exists(tmp));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode)); /* neither replaced nor removed */
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

/* A FIFO (a pipe to tshark) gets the capture where it is: the header, then the records. */
static void pcapw_fifo(void **state)
{
	(void)state;
	pq_pcapw *w;
	pq_diag d;
	uint8_t pkt[100] = {0x45}, buf[512];
	assert_int_equal(mkfifo(path, 0600), 0);
	int r = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(r >= 0);
	assert_int_equal(pq_pcapw_open(path, "--pcap", &w, &d), 0);
	pq_pcapw_write(w, 1, pkt, sizeof pkt);
	assert_int_equal(pq_pcapw_close(w, &d), 0);
	assert_int_equal(read(r, buf, sizeof buf), 24 + 16 + (int)sizeof pkt);
	assert_int_equal(buf[0] | buf[1] << 8 | buf[2] << 16 | (uint32_t)buf[3] << 24, 0xa1b2c3d4);
	close(r);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_false(exists(tmp));
}

static void pcapw_full_part_way(void **state)
{
	(void)state;
	pq_pcapw *w;
	pq_diag d;
	uint8_t pkt[1000] = {0x45};
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(pq_pcapw_open(path, "--pcap", &w, &d), 0);
	/* Past 16 KiB write(2) fails with EFBIG instead of raising SIGXFSZ. */
	void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 16384;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int i = 0; i < 100; i++)
		pq_pcapw_write(w, i, pkt, sizeof pkt);
	int rc = pq_pcapw_close(w, &d);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, was);
	assert_int_equal(rc, -EFBIG);
	assert_non_null(strstr(d.msg, path));
	assert_non_null(strstr(d.msg, strerror(EFBIG)));
	assert_false(exists(tmp));
	assert_false(exists(path));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(pcapw_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(pcapw_full_at_open, setup, teardown),
		cmocka_unit_test_setup_teardown(pcapw_full_part_way, setup, teardown),
		cmocka_unit_test_setup_teardown(pcapw_fifo, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
