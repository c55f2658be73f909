#include "net/sh.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void pq_sh_join(char *const argv[], char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; argv[i] && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " " : "", argv[i]);
}

/* Feeds `input` and drains the output pipe together, so neither side can block. */
static void pump(int in_fd, const char *input, int out_fd, pq_buf *out)
{
	size_t off = 0, len = input ? strlen(input) : 0;
	if (in_fd >= 0 && off == len) {
		close(in_fd);
		in_fd = -1;
	}
	for (;;) {
		struct pollfd p[2] = {{out_fd, POLLIN, 0}, {in_fd, POLLOUT, 0}};
		if (poll(p, in_fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (in_fd >= 0 && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = write(in_fd, input + off, len - off);
			if (w > 0)
				off += (size_t)w;
			if (w < 0 || off == len) {
				close(in_fd);
				in_fd = -1;
			}
		}
		if (p[0].revents) {
			char b[4096];
			ssize_t r = read(out_fd, b, sizeof b);
			if (r <= 0 && !(r < 0 && errno == EINTR))
				break;
			if (r > 0 && out && pq_buf_append(out, b, (size_t)r))
				out = NULL; /* over the cap: keep what we have */
		}
	}
	if (in_fd >= 0)
		close(in_fd);
}

/* Starts argv (on PATH) with `in` as its stdin and `out` as its stdout and stderr: 0, or
 * the errno value. Spawned, not forked: posix_spawn's child shares this process's memory
 * until it execs, so nothing is copied. A fork copied the page tables of a sweep's worker,
 * whose link forwarder and client threads then took a write fault on each page they
 * touched again (docs/sweep.md, "What a cell costs besides its connections"). */
static int spawn(char *const argv[], int in, int out, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t dfl;
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE); /* ignored here (a closed reader is an error we report), not in the tool */
	int e = posix_spawn_file_actions_init(&fa);
	if (e)
		return e;
	if ((e = posix_spawnattr_init(&at))) {
		posix_spawn_file_actions_destroy(&fa);
		return e;
	}
	if (!(e = posix_spawn_file_actions_adddup2(&fa, in, 0)) && !(e = posix_spawn_file_actions_adddup2(&fa, out, 1)) &&
	    !(e = posix_spawn_file_actions_adddup2(&fa, out, 2)) && !(e = posix_spawnattr_setsigdefault(&at, &dfl)) &&
	    !(e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF)))
		e = posix_spawnp(pid, argv[0], &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return e;
}

int pq_sh_run(char *const argv[], const char *input, pq_buf *out, pq_diag *d)
{
	int inp[2] = {-1, -1}, outp[2] = {-1, -1}, rc = 0, status = 0;
	pq_buf local;
	pq_buf_init(&local, 64 * 1024);
	if (pipe2(inp, O_CLOEXEC) || pipe2(outp, O_CLOEXEC)) {
		rc = pq_diag_set(d, -errno, "cannot create a pipe for %s: %s", argv[0], strerror(errno));
		goto out;
	}
	pid_t pid = -1;
	int e = spawn(argv, inp[0], outp[1], &pid);
	if (e) {
		rc = pq_diag_set(d, PQ_ECHILD, "cannot run %s: %s", argv[0], strerror(e));
		goto out;
	}
	close(inp[0]);
	close(outp[1]);
	inp[0] = outp[1] = -1;
	pump(inp[1], input, outp[0], &local);
	inp[1] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char cmd[512];
		pq_sh_join(argv, cmd, sizeof cmd);
		/* Trim the trailing newline so the message reads as one line. */
		while (local.len && local.p[local.len - 1] == '\n')
			local.p[--local.len] = '\0';
		rc = pq_diag_set(d, PQ_ECHILD, "'%s'%s%s failed: %s", cmd, input ? " with input " : "",
				 input ? input : "", local.len ? pq_buf_str(&local) : "no output");
	}
	if (out && pq_buf_append(out, local.p ? local.p : "", local.len))
		rc = rc ? rc : PQ_ETOOBIG;
out:
	for (int i = 0; i < 2; i++) {
		if (inp[i] >= 0)
			close(inp[i]);
		if (outp[i] >= 0)
			close(outp[i]);
	}
	pq_buf_dispose(&local);
	return rc;
}
