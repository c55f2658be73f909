/* Output directories that appear whole or not at all: everything is written into a
 * temporary directory next to the target and renamed into place at the end. Messages
 * name the target by the caller's names for "outdir" and "force" (core/names.h). */
#ifndef PQ_PKI_DIR_H
#define PQ_PKI_DIR_H

#include <stddef.h>

#include "core/err.h"
#include "core/names.h"

/* May `target` be written? An existing one is PQ_EEXIST unless force; with force it must
 * be a directory that is empty or holds a manifest.json (never a user's other data). */
int pq_pki_dir_check(const char *target, int force, const pq_name *names, pq_diag *d) PQ_MUST_USE;

/* Creates "<target>.tmp-XXXXXX" in target's parent; its path goes to out. */
int pq_pki_dir_tmp(const char *target, const pq_name *names, char *out, size_t n,
		   pq_diag *d) PQ_MUST_USE;

/* Moves tmp to target, replacing an old target when force (checked as above). */
int pq_pki_dir_commit(const char *tmp, const char *target, int force, const pq_name *names,
		      pq_diag *d) PQ_MUST_USE;

/* Removes dir and everything below it (no symlinks followed). Errors are ignored: used
 * on cleanup paths. */
void pq_pki_dir_remove(const char *dir);

/* mkdir -p, mode 0755. */
int pq_pki_dir_mkdirs(const char *path, pq_diag *d) PQ_MUST_USE;

#endif
