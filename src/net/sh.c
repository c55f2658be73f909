#include "net/sh.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

int pq_sh_run(char *const argv[], const char *input, pq_buf *out, pq_diag *d)
{
	int inp[2] = {-1, -1}, outp[2] = {-1, -1}, rc = 0, status = 0;
	pq_buf local;
	pq_buf_init(&local, 64 * 1024);
	if (pipe2(inp, O_CLOEXEC) || pipe2(outp, O_CLOEXEC)) {
		rc = pq_diag_set(d, -errno, "cannot create a pipe for %s: %s", argv[0], strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid < 0) {
		rc = pq_diag_set(d, -errno, "cannot start %s: %s", argv[0], strerror(errno));
		goto out;
	}
	if (pid == 0) {
		dup2(inp[0], 0);
		dup2(outp[1], 1);
		dup2(outp[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
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
