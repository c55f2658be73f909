#include "core/child.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "core/clock.h"

/* The var whose "{key}" starts s, or NULL. */
static const pq_name *var_at(const char *s, const pq_name *vars)
{
	if (*s != '{')
		return NULL;
	for (const pq_name *v = vars; v && v->key; v++) {
		size_t k = strlen(v->key);
		if (!strncmp(s + 1, v->key, k) && s[1 + k] == '}')
			return v;
	}
	return NULL;
}

/* Length of s with vars replaced; writes it into out when out is not NULL. */
static size_t expand(const char *s, const pq_name *vars, char *out)
{
	size_t len = 0;
	while (*s) {
		const pq_name *v = var_at(s, vars);
		if (v) {
			size_t n = strlen(v->name);
			if (out)
				memcpy(out + len, v->name, n);
			len += n;
			s += strlen(v->key) + 2;
		} else {
			if (out)
				out[len] = *s;
			len++;
			s++;
		}
	}
	if (out)
		out[len] = '\0';
	return len;
}

char **pq_child_substitute(char *const argv[], int n, const pq_name *vars)
{
	char **out = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof *out);
	if (!out)
		return NULL;
	for (int i = 0; i < n; i++) {
		out[i] = malloc(expand(argv[i], vars, NULL) + 1);
		if (!out[i]) {
			pq_child_free_argv(out);
			return NULL;
		}
		expand(argv[i], vars, out[i]);
	}
	return out;
}

void pq_child_free_argv(char **argv)
{
	for (int i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

int pq_child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int pq_child_wait(pid_t pid, int *status, int64_t timeout_ns, const volatile sig_atomic_t *interrupt)
{
	int64_t end = timeout_ns < 0 ? INT64_MAX : pq_mono_ns() + timeout_ns;
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return 1;
		if (pq_mono_ns() >= end || (timeout_ns < 0 && interrupt && *interrupt))
			return 0;
		struct timespec t = {0, 2 * 1000000};
		nanosleep(&t, NULL);
	}
}

void pq_child_stop(pid_t pid, int64_t grace_ns)
{
	int status;
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	if (!pq_child_wait(pid, &status, grace_ns, NULL)) {
		kill(pid, SIGKILL);
		pq_child_wait(pid, &status, 5 * PQ_NS_PER_S, NULL);
	}
}

void pq_child_stop_group(pid_t pid, int64_t grace_ns)
{
	int status;
	if (pid <= 0)
		return;
	kill(-pid, SIGTERM);
	if (!pq_child_wait(pid, &status, grace_ns, NULL)) {
		kill(-pid, SIGKILL);
		pq_child_wait(pid, &status, 5 * PQ_NS_PER_S, NULL);
	}
	kill(-pid, SIGKILL); /* whatever it started and left behind */
}

void pq_child_describe_status(int status, char *buf, size_t n)
{
	if (WIFSIGNALED(status))
		snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(buf, n, "ended (wait status %#x)", (unsigned)status);
}
