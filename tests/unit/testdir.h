/* A temporary directory per test file: cmocka group setup makes it, teardown removes it. */
#ifndef PQ_TEST_TESTDIR_H
#define PQ_TEST_TESTDIR_H

#include <stdio.h>
#include <stdlib.h>

static char dir[64];

static int testdir_setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/pqtls-unit-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

/* Writes text to dir/name; returns the path (valid until the next call). */
__attribute__((unused)) static const char *testdir_write(const char *name, const char *text)
{
	static char path[300];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		return "/nonexistent/testdir_write-failed";
	return path;
}

/* dir/name, in one of four buffers (valid for the next three calls as well). */
__attribute__((unused)) static const char *testdir_path(const char *name)
{
	static char p[4][300];
	static int i;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof p[i], "%s/%s", dir, name);
	return p[i];
}

/* The first 255 bytes of a file as a string ("" when it cannot be read; valid until the
 * next call). */
__attribute__((unused)) static const char *testdir_read(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static int testdir_teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
