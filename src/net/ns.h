/* Named network namespaces under /run/netns (the place `ip netns` uses), made and
 * removed without touching anything outside them.
 *
 * Names are pqtls-<pid>-<n>-<side>: the pid of the process that owns the link, so a
 * later run can tell a live link from one whose owner was killed (pq_ns_sweep). */
#ifndef PQ_NET_NS_H
#define PQ_NET_NS_H

#include <stdio.h>
#include <sys/types.h>

#include "core/err.h"

#define PQ_NS_DIR "/run/netns"
#define PQ_NS_PREFIX "pqtls-"

/* Creates the namespace `name` (a fresh, empty one: only `lo`, down). PQ_EEXIST when
 * the name is taken. */
int pq_ns_create(const char *name, pq_diag *d) PQ_MUST_USE;
/* Opens /run/netns/<name> read-only (for setns). */
int pq_ns_open(const char *name, int *fd, pq_diag *d) PQ_MUST_USE;
/* SIGKILLs every process inside the namespace, unmounts and unlinks it. Returns the
 * number of processes killed, or a negative error. Missing names are not an error. */
int pq_ns_remove(const char *name);

/* Switches the calling thread into namespace `fd`; *saved gets the old one for
 * pq_ns_leave. */
int pq_ns_enter(int fd, int *saved, pq_diag *d) PQ_MUST_USE;
void pq_ns_leave(int saved);
/* Opens `path` (e.g. "/proc/thread-self/net/dev" or "/proc/sys/net/...") as seen from
 * inside namespace `fd`; the open file keeps that view. */
int pq_ns_open_file(int fd, const char *path, int flags, int *out, pq_diag *d) PQ_MUST_USE;

/* Splits a name made by this module; 0 when it is one. */
int pq_ns_parse_name(const char *name, pid_t *pid, unsigned *n, char *side);

/* Is the process that owns a link still running (not gone, not a zombie)? */
int pq_ns_owner_alive(pid_t pid);

/* Removes every pqtls namespace whose owning pid is no longer running, with the
 * processes left inside it; tells `log` (may be NULL) about each. Returns how many
 * namespaces it removed. */
int pq_ns_sweep(FILE *log);

/* The pqtls namespaces that exist now: a new array of *n names in *out (free it), or
 * -errno (*out NULL, *n 0). No /run/netns is no namespaces. */
typedef char pq_ns_name[64];
int pq_ns_names(pq_ns_name **out, size_t *n) PQ_MUST_USE;

#endif
