#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/cli.h"

struct o {
	int flag;
	const char *out;
	long long n;
	uint64_t size;
	int64_t rtt;
	uint64_t rate;
	double loss;
	int cc;
};

static const pq_opt table[] = {
	{"flag", 'f', PQ_OPT_FLAG, offsetof(struct o, flag), NULL, NULL, "a flag", NULL, 0, 0},
	{"out", 'o', PQ_OPT_STR, offsetof(struct o, out), "DIR", NULL, "output", NULL, 0, 0},
	{"count", 'n', PQ_OPT_INT, offsetof(struct o, n), "N", "3", "count", NULL, 1, 10},
	{"size", 0, PQ_OPT_SIZE, offsetof(struct o, size), NULL, "16KiB", "size", NULL, 0, 0},
	{"rtt", 0, PQ_OPT_DURATION, offsetof(struct o, rtt), NULL, "70ms", "rtt", NULL, 0, 0},
	{"rate", 0, PQ_OPT_RATE, offsetof(struct o, rate), NULL, "0", "rate", NULL, 0, 0},
	{"loss", 0, PQ_OPT_FRACTION, offsetof(struct o, loss), NULL, "0", "loss", NULL, 0, 0},
	{"cc", 0, PQ_OPT_CHOICE, offsetof(struct o, cc), NULL, "cubic", "cc", "cubic|bbr|reno", 0, 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static int ran;
static int run(const pq_cmd *cmd, void *opts, pq_cli_args *args)
{
	(void)cmd;
	struct o *x = opts;
	ran = 1;
	return x->flag && args->argc == 1 ? 0 : 1;
}

static const pq_cmd cmd = {.name = "t", .summary = "test", .usage = "[options] ARG",
			   .opts = table, .opts_size = sizeof(struct o), .run = run,
			   .min_args = 1, .max_args = 1};
static const pq_cmd *const cmds[] = {&cmd, NULL};

static void defaults_and_values(void **state)
{
	(void)state;
	struct o x = {0};
	pq_cli_args a;
	char *argv[] = {"--rtt=148ms", "-f", "host:1", "--size", "20000", "--loss", "1%",
			"--cc", "bbr", "-n7", "--", "x", "y"};
	assert_int_equal(pq_cli_parse(&cmd, "t", 13, argv, &x, &a), 0);
	assert_int_equal(x.flag, 1);
	assert_int_equal(x.rtt, 148000000);
	assert_int_equal(x.size, 20000);
	assert_float_equal(x.loss, 0.01, 1e-12);
	assert_int_equal(x.cc, 1);
	assert_int_equal(x.n, 7);
	assert_int_equal(x.rate, 0);
	assert_int_equal(a.argc, 3);
	assert_int_equal(a.dashdash, 1);
	assert_string_equal(a.argv[0], "host:1");
	assert_true(pq_cli_given(&cmd, &a, "rtt"));
	assert_false(pq_cli_given(&cmd, &a, "rate"));
	free(a.argv);

	struct o y = {0};
	char *argv2[] = {"h"};
	assert_int_equal(pq_cli_parse(&cmd, "t", 1, argv2, &y, &a), 0);
	assert_int_equal(y.n, 3);
	assert_int_equal(y.size, 16384);
	assert_int_equal(y.rtt, 70000000);
	free(a.argv);
}

/* Runs pq_cli_parse with stderr in a temporary file; returns the exit code and leaves
 * what was printed in msg. */
static int parse_err(int argc, char **argv, char *msg, size_t n)
{
	struct o x = {0};
	pq_cli_args a = {0};
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	assert_true(saved >= 0 && dup2(fileno(tmp), STDERR_FILENO) >= 0);
	int rc = pq_cli_parse(&cmd, "t", argc, argv, &x, &a);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	free(a.argv);
	rewind(tmp);
	size_t len = fread(msg, 1, n - 1, tmp);
	msg[len] = '\0';
	fclose(tmp);
	return rc;
}

static void usage_errors(void **state)
{
	(void)state;
	char *bad1[] = {"--nope", "h"};
	char *bad2[] = {"--rtt", "70", "h"};
	char *bad3[] = {"--count", "11", "h"};
	char *bad4[] = {"--cc", "vegas", "h"};
	char *bad5[] = {"h", "extra"};
	char *bad6[] = {"--out"};
	char *bad7[] = {};
	char *bad8[] = {"--flag=1", "h"};
	struct {
		int argc;
		char **argv;
		const char *names; /* what the message must name: the option or argument */
	} cases[] = {{2, bad1, "--nope"},  {3, bad2, "--rtt"},	 {3, bad3, "--count"},
		     {3, bad4, "--cc"},	   {2, bad5, "'extra'"}, {1, bad6, "--out"},
		     {0, bad7, "missing argument"}, {2, bad8, "--flag"}};
	char msg[1024];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(parse_err(cases[i].argc, cases[i].argv, msg, sizeof msg),
				 PQ_EXIT_USAGE);
		if (!strstr(msg, cases[i].names))
			fail_msg("case %zu: '%s' does not name %s", i, msg, cases[i].names);
		assert_non_null(strstr(msg, "Try 't --help'"));
	}
	/* The value that was refused is quoted too. */
	parse_err(3, bad4, msg, sizeof msg);
	assert_non_null(strstr(msg, "vegas"));
	parse_err(3, bad3, msg, sizeof msg);
	assert_non_null(strstr(msg, "11"));
}

/* An option name missing from the table is a bug in the caller: it aborts rather than
 * reading as "not given". */
static void given_unknown_name_aborts(void **state)
{
	(void)state;
	pq_cli_args a = {0};
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, STDERR_FILENO);
		pq_cli_given(&cmd, &a, "rtt-typo");
		_exit(0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_false(pq_cli_given(&cmd, &a, "rtt")); /* a known name still answers */
}

static void dispatch(void **state)
{
	(void)state;
	char *ok[] = {"t", "-f", "arg"};
	ran = 0;
	assert_int_equal(pq_cli_dispatch(cmds, "p", 3, ok), 0);
	assert_int_equal(ran, 1);
	char *unknown[] = {"zzz"};
	assert_int_equal(pq_cli_dispatch(cmds, "p", 1, unknown), PQ_EXIT_USAGE);
	char *help[] = {"help", "t"};
	assert_int_equal(pq_cli_dispatch(cmds, "p", 2, help), PQ_EXIT_OK);
	char *h2[] = {"t", "--help"};
	ran = 0;
	assert_int_equal(pq_cli_dispatch(cmds, "p", 2, h2), PQ_EXIT_OK);
	assert_int_equal(ran, 0);
	assert_int_equal(pq_cli_dispatch(cmds, "p", 0, NULL), PQ_EXIT_USAGE);
}

static void help_text(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	pq_cli_help(f, &cmd, "pqtls t");
	fclose(f);
	assert_non_null(strstr(buf, "--rtt DURATION"));
	assert_non_null(strstr(buf, "(default: 70ms)"));
	assert_non_null(strstr(buf, "cubic|bbr|reno"));
	assert_non_null(strstr(buf, "-f, --flag"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_and_values),
		cmocka_unit_test(usage_errors),
		cmocka_unit_test(given_unknown_name_aborts),
		cmocka_unit_test(dispatch),
		cmocka_unit_test(help_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
