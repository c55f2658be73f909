#include "zeek/input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zeek/gz.h"

int pq_zeek_slurp(const char *path, size_t cap, char **out, size_t *len, pq_diag *d)
{
	/* read would fail on a directory with a less helpful word */
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return pq_diag_set(d, -EISDIR, "%s: is a directory; give a file", path);
	pq_zeek_gz *g = NULL;
	/* room for cap bytes, one more to see that a file goes past it, and the NUL */
	size_t limit = cap > SIZE_MAX - 2 ? SIZE_MAX : cap + 2;
	size_t alloc = limit < (1 << 16) ? limit : 1 << 16, n = 0;
	char *buf = NULL;
	int rc = pq_zeek_gz_open(path, &g, d);
	if (rc < 0)
		return rc;
	if (!(buf = malloc(alloc))) {
		rc = PQ_ENOMEM;
		goto out;
	}
	for (;;) {
		if (n + 1 >= alloc) {
			if (alloc >= limit) { /* n is cap + 1: past the cap */
				if (cap >= (1 << 20) && cap % (1 << 20) == 0)
					rc = pq_diag_set(d, PQ_ETOOBIG, "%s: larger than %zu MiB", path, cap >> 20);
				else
					rc = pq_diag_set(d, PQ_ETOOBIG, "%s: larger than %zu bytes", path, cap);
				goto out;
			}
			size_t grown = alloc > limit / 2 ? limit : alloc * 2;
			char *nb = realloc(buf, grown);
			if (!nb) {
				rc = PQ_ENOMEM;
				goto out;
			}
			buf = nb;
			alloc = grown;
		}
		long r = pq_zeek_gz_read(g, buf + n, alloc - n - 1, d);
		if (r < 0) {
			rc = (int)r;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (pq_zeek_gz_trouble(g)[0]) {
		rc = pq_diag_set(d, PQ_EPARSE, "%s: %s", path, pq_zeek_gz_trouble(g));
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	pq_zeek_gz_free(g);
	return rc;
}

static int push(pq_zeek_files *f, const char *path)
{
	char **nv = realloc(f->v, (f->n + 1) * sizeof *nv);
	if (!nv)
		return PQ_ENOMEM;
	f->v = nv;
	if (!(f->v[f->n] = strdup(path)))
		return PQ_ENOMEM;
	f->n++;
	return 0;
}

static int wanted(const char *name)
{
	size_t n = strlen(name);
	int log = (n > 4 && !strcmp(name + n - 4, ".log")) || (n > 7 && !strcmp(name + n - 7, ".log.gz"));
	/* ssl.log, ssl.00:00:00-01:00:00.log.gz, ssl-all.log, tor_ssl.log, x__ssl.log */
	return log && (!strncmp(name, "ssl", 3) || strstr(name, "_ssl") != NULL);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(pq_zeek_files *f, const char *path, int depth, pq_diag *d)
{
	if (depth > 16)
		return pq_diag_set(d, PQ_ETOOBIG, "%s: directories nested deeper than 16", path);
	struct dirent **ents = NULL;
	int n = scandir(path, &ents, NULL, alphasort), rc = 0;
	if (n < 0)
		return pq_diag_set(d, -errno, "%s: cannot list: %s", path, strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		if (!rc && nm[0] != '.') {
			char sub[4096];
			struct stat st;
			snprintf(sub, sizeof sub, "%s/%s", path, nm);
			int ok = stat(sub, &st) == 0;
			if (ok && S_ISDIR(st.st_mode))
				rc = add_dir(f, sub, depth + 1, d);
			else if (ok && S_ISREG(st.st_mode) && wanted(nm))
				rc = push(f, sub);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int pq_zeek_files_add(pq_zeek_files *f, const char *path, pq_diag *d)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return pq_diag_set(d, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return push(f, path);
	size_t before = f->n;
	int rc = add_dir(f, path, 0, d);
	if (!rc && f->n == before)
		return pq_diag_set(d, PQ_EINVAL, "%s: no ssl log files in it (names starting with 'ssl' or "
				   "holding '_ssl', ending in .log or .log.gz)", path);
	if (!rc)
		qsort(f->v + before, f->n - before, sizeof *f->v, cmp_str);
	return rc;
}

void pq_zeek_files_free(pq_zeek_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

int pq_zeek_is_gzip(const char *path, pq_diag *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pq_diag_set(d, -errno, "%s: cannot open: %s", path, strerror(errno));
	unsigned char m[2] = {0, 0};
	ssize_t r = read(fd, m, 2);
	close(fd);
	return r == 2 && m[0] == 0x1f && m[1] == 0x8b;
}
