/* core/wfile: what is at an output's path is replaced only when it is a regular file. A
 * new or regular file is replaced whole (a failure or an abort leaves it as it was); a
 * device or FIFO is written in place and stays what it is; a symbolic link stays a link
 * and its target is replaced; a link to nothing and a directory are refused; a name
 * planted at the temporary file is never written through. The devices are this test's
 * own nodes (mknod: root only; without root those cases are skipped with that reason),
 * never /dev's. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/wfile.h"
#include "testdir.h"

static mode_t kind(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0;
}

/* No NAME.tmp.* is left in the test's directory. */
static void no_tmp_left(void)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	assert_non_null(dp);
	while ((e = readdir(dp)))
		if (strstr(e->d_name, ".tmp."))
			fail_msg("left behind: %s", e->d_name);
	closedir(dp);
}

static int put(const char *path, const char *text, pq_diag *d)
{
	pq_wfile w;
	int rc = pq_wfile_open(&w, path, "--out", d);
	if (rc == 0) {
		fputs(text, w.f);
		rc = pq_wfile_close(&w, d);
	}
	return rc;
}

/* A character device node of this test's own: 1,3 is null, 1,7 is full (root only). */
static const char *device(const char *name, unsigned minor)
{
	const char *p = testdir_path(name);
	assert_int_equal(mknod(p, S_IFCHR | 0666, makedev(1, minor)), 0);
	return p;
}

static void regular_whole_or_not_at_all(void **state)
{
	(void)state;
	pq_diag d;
	const char *p = testdir_path("out.txt");
	assert_int_equal(put(p, "one\n", &d), 0);
	assert_string_equal(testdir_read(p), "one\n");
	pq_wfile w;
	assert_int_equal(pq_wfile_open(&w, p, "--out", &d), 0);
	fputs("two\n", w.f);
	assert_string_equal(testdir_read(p), "one\n"); /* not under its name before close */
	pq_wfile_abort(&w);
	assert_string_equal(testdir_read(p), "one\n");
	assert_int_equal(put(p, "three\n", &d), 0);
	assert_string_equal(testdir_read(p), "three\n");
	no_tmp_left();
	/* a directory is refused, naming the input */
	assert_int_equal(put(dir, "x", &d), -EISDIR);
	assert_non_null(strstr(d.msg, "--out: "));
	assert_non_null(strstr(d.msg, "is a directory"));
	unlink(p);
}

static void dev_null_stays_a_device(void **state)
{
	(void)state;
	pq_diag d;
	const char *null = device("null", 3);
	assert_int_equal(put(null, "gone\n", &d), 0);
	assert_int_equal(kind(null), S_IFCHR);
	no_tmp_left();
	unlink(null);
}

static void dev_full_names_the_output(void **state)
{
	(void)state;
	pq_diag d;
	const char *full = device("full", 7);
	assert_int_equal(put(full, "nowhere\n", &d), -ENOSPC);
	assert_non_null(strstr(d.msg, "--out: "));
	assert_non_null(strstr(d.msg, full));
	assert_non_null(strstr(d.msg, strerror(ENOSPC)));
	assert_int_equal(kind(full), S_IFCHR);
	no_tmp_left();
	unlink(full);
}

static void fifo_gets_the_bytes(void **state)
{
	(void)state;
	pq_diag d;
	const char *p = testdir_path("fifo");
	char buf[64] = "";
	assert_int_equal(mkfifo(p, 0600), 0);
	/* a reader first, so the writer's open does not wait */
	int r = open(p, O_RDONLY | O_NONBLOCK);
	assert_true(r >= 0);
	assert_int_equal(put(p, "through the pipe\n", &d), 0);
	assert_int_equal(read(r, buf, sizeof buf - 1), 17);
	assert_string_equal(buf, "through the pipe\n");
	close(r);
	assert_int_equal(kind(p), S_IFIFO);
	no_tmp_left();
	unlink(p);
}

/* Standard output into a pipe whose reader is gone (`pqtls ... | true`): the write that
 * failed was an earlier one, so the check at exit finds no errno; a pipe always reads
 * as a full file system, and it said "No space left on device" and exit 1. */
static void stdout_reader_gone_is_epipe(void **state)
{
	(void)state;
	pq_diag d;
	int fds[2], saved = dup(1);
	assert_true(saved >= 0);
	assert_int_equal(pipe(fds), 0);
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	fflush(stdout);
	assert_int_equal(dup2(fds[1], 1), 1);
	close(fds[1]);
	close(fds[0]); /* the reader is gone */
	for (int i = 0; i < 20000; i++) /* past stdio's buffer: a write fails on the way */
		fputs("a line nobody reads\n", stdout);
	fflush(stdout);
	errno = 0;
	int rc = pq_wfile_stdout_check(NULL, &d);
	clearerr(stdout);
	dup2(saved, 1);
	close(saved);
	signal(SIGPIPE, old);
	assert_int_equal(rc, -EPIPE);
	assert_non_null(strstr(d.msg, "standard output"));
	assert_null(strstr(d.msg, strerror(ENOSPC)));
}

static void symlink_stays_a_link(void **state)
{
	(void)state;
	pq_diag d;
	const char *target = testdir_path("target.txt"), *link = testdir_path("link.txt");
	assert_int_equal(put(target, "old\n", &d), 0);
	/* relative: resolved from the link's directory */
	assert_int_equal(symlink("target.txt", link), 0);
	assert_int_equal(put(link, "new\n", &d), 0);
	assert_int_equal(kind(link), S_IFLNK);
	assert_string_equal(testdir_read(target), "new\n");
	no_tmp_left();
	unlink(link);
	unlink(target);
}

/* A link to a device: the device is written, the link stays. */
static void symlink_to_device(void **state)
{
	(void)state;
	pq_diag d;
	const char *null = device("null", 3), *tonull = testdir_path("tonull");
	assert_int_equal(symlink(null, tonull), 0);
	assert_int_equal(put(tonull, "gone\n", &d), 0);
	assert_int_equal(kind(tonull), S_IFLNK);
	assert_int_equal(kind(null), S_IFCHR);
	no_tmp_left();
	unlink(tonull);
	unlink(null);
}

static void symlink_to_nothing_refused(void **state)
{
	(void)state;
	pq_diag d;
	const char *link = testdir_path("dangling");
	assert_int_equal(symlink("missing.txt", link), 0);
	assert_int_equal(put(link, "x", &d), -ENOENT);
	assert_non_null(strstr(d.msg, "--out: "));
	assert_non_null(strstr(d.msg, link));
	assert_non_null(strstr(d.msg, "symbolic link that leads to no file"));
	assert_int_equal(kind(link), S_IFLNK);
	assert_int_equal(kind(testdir_path("missing.txt")), 0);
	no_tmp_left();
	unlink(link);
}

/* Something planted under the temporary name (here a link to another file) is removed,
 * not written through, and never becomes the output. */
static void planted_tmp_not_followed(void **state)
{
	(void)state;
	pq_diag d;
	const char *victim = testdir_path("victim"), *out = testdir_path("out2.txt");
	char tmp[300];
	assert_int_equal(put(victim, "untouched\n", &d), 0);
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)getpid());
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(put(out, "mine\n", &d), 0);
	assert_string_equal(testdir_read(victim), "untouched\n");
	assert_int_equal(kind(out), S_IFREG);
	assert_string_equal(testdir_read(out), "mine\n");
	no_tmp_left();
	unlink(out);
	unlink(victim);
}

static void failure_paths(void **state)
{
	(void)state;
	pq_diag d;
	/* a directory that does not exist: the temporary cannot be made, and is named */
	assert_int_equal(put(testdir_path("none/x.txt"), "x", &d), -ENOENT);
	assert_non_null(strstr(d.msg, "--out: cannot create "));
	assert_non_null(strstr(d.msg, "none/x.txt.tmp."));
	char longp[5000];
	memset(longp, 'a', sizeof longp - 1);
	longp[sizeof longp - 1] = '\0';
	assert_int_equal(put(longp, "x", &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "the path is too long"));
	/* closing or aborting what is not open does nothing */
	pq_wfile w = {0};
	assert_int_equal(pq_wfile_close(&w, &d), 0);
	pq_wfile_abort(&w);
}

int main(void)
{
	const struct CMUnitTest any[] = {
		cmocka_unit_test(regular_whole_or_not_at_all),
		cmocka_unit_test(fifo_gets_the_bytes),
		cmocka_unit_test(stdout_reader_gone_is_epipe),
		cmocka_unit_test(symlink_stays_a_link),
		cmocka_unit_test(symlink_to_nothing_refused),
		cmocka_unit_test(planted_tmp_not_followed),
		cmocka_unit_test(failure_paths),
	};
	const struct CMUnitTest devices[] = {
		cmocka_unit_test(dev_null_stays_a_device),
		cmocka_unit_test(dev_full_names_the_output),
		cmocka_unit_test(symlink_to_device),
	};
	int rc = cmocka_run_group_tests_name("wfile", any, testdir_setup, testdir_teardown);
	if (rc)
		return rc;
	if (geteuid() != 0) {
		printf("skip: needs root (mknod: the device cases make nodes of their own)\n");
		return 77;
	}
	return cmocka_run_group_tests_name("devices", devices, testdir_setup, testdir_teardown);
}
