#include "pki/dir.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pki/files.h"

/* 1 when dir is empty or holds manifest.json, 0 otherwise, -errno on failure. */
static int replaceable(const char *dir)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return -errno;
	int empty = 1, manifest = 0;
	struct dirent *e;
	while ((e = readdir(dh))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		empty = 0;
		if (strcmp(e->d_name, PQ_CHAIN_FILE_MANIFEST) == 0)
			manifest = 1;
	}
	closedir(dh);
	return empty || manifest;
}

int pq_pki_dir_check(const char *target, int force, const pq_name *names, pq_diag *d)
{
	const char *out = pq_name_of(names, "outdir");
	struct stat st;
	if (lstat(target, &st) != 0) {
		if (errno != ENOENT)
			return pq_diag_set(d, -errno, "%s %s: %s", out, target, strerror(errno));
		/* Fail now rather than after minutes of SLH-DSA signing. */
		char parent[4096];
		snprintf(parent, sizeof parent, "%s", target);
		for (size_t n = strlen(parent); n > 1 && parent[n - 1] == '/'; n--)
			parent[n - 1] = '\0';
		char *slash = strrchr(parent, '/');
		if (slash == parent)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			snprintf(parent, sizeof parent, ".");
		if (access(parent, W_OK | X_OK) != 0)
			return pq_diag_set(d, -errno, "%s %s: cannot write into %s: %s", out,
					   target, parent, strerror(errno));
		return 0;
	}
	if (!force)
		return pq_diag_set(d, PQ_EEXIST,
				   "%s %s: already exists; choose a new directory or add "
				   "%s to replace a previous chain",
				   out, target, pq_name_of(names, "force"));
	int r = S_ISDIR(st.st_mode) ? replaceable(target) : 0;
	if (r < 0)
		return pq_diag_set(d, r, "%s %s: %s", out, target, strerror(-r));
	if (!r)
		return pq_diag_set(
		    d, PQ_EEXIST,
		    "%s %s: exists and is not a chain directory (no " PQ_CHAIN_FILE_MANIFEST
		    "); %s only replaces a previous chain",
		    out, target, pq_name_of(names, "force"));
	return 0;
}

int pq_pki_dir_tmp(const char *target, const pq_name *names, char *buf, size_t n, pq_diag *d)
{
	const char *out = pq_name_of(names, "outdir");
	size_t len = strlen(target);
	while (len > 1 && target[len - 1] == '/')
		len--;
	if ((size_t)snprintf(buf, n, "%.*s.tmp-XXXXXX", (int)len, target) >= n)
		return pq_diag_set(d, PQ_ERANGE, "%s %s: path too long", out, target);
	if (!mkdtemp(buf))
		return pq_diag_set(d, -errno, "%s %s: cannot create a directory next to it: %s",
				   out, target, strerror(errno));
	return 0;
}

int pq_pki_dir_commit(const char *tmp, const char *target, int force, const pq_name *names,
		      pq_diag *d)
{
	const char *out = pq_name_of(names, "outdir");
	char old[4096] = "";
	int rc = pq_pki_dir_check(target, force, names, d);
	if (rc)
		return rc;
	if (access(target, F_OK) == 0) {
		/* Keep the old chain aside until the new one is in place. */
		if (pq_pki_dir_tmp(target, names, old, sizeof old, d))
			return pq_diag_set(d, PQ_EIO, "%s %s: cannot move the old chain aside", out,
					   target);
		if (rename(target, old) != 0) {
			rc = pq_diag_set(d, -errno, "%s %s: cannot move the old chain aside: %s",
					 out, target, strerror(errno));
			rmdir(old);
			return rc;
		}
	}
	chmod(tmp, 0755); /* mkdtemp made it 0700; the chain is not secret, leaf.key is 0600 */
	if (rename(tmp, target) != 0) {
		rc = pq_diag_set(d, errno == ENOTEMPTY || errno == EEXIST ? PQ_EEXIST : -errno,
				 "%s %s: cannot move the new chain into place: %s", out, target,
				 strerror(errno));
		if (old[0] && rename(old, target) != 0)
			rc = pq_diag_set(d, rc, "%s %s: lost the old chain; it is in %s", out,
					 target, old);
		return rc;
	}
	if (old[0])
		pq_pki_dir_remove(old);
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void pq_pki_dir_remove(const char *dir)
{
	if (dir && dir[0])
		nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int pq_pki_dir_mkdirs(const char *path, pq_diag *d)
{
	char buf[4096];
	if ((size_t)snprintf(buf, sizeof buf, "%s", path) >= sizeof buf)
		return pq_diag_set(d, PQ_ERANGE, "%s: path too long", path);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return pq_diag_set(d, -errno, "cannot create directory %s: %s", buf,
					   strerror(errno));
		*p = c;
		if (!c)
			break;
	}
	return 0;
}
