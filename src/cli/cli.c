#include "cli/cli.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "core/units.h"
#include "exp/point.h"

static const char *type_metavar(const pq_opt *o)
{
	if (o->metavar)
		return o->metavar;
	switch (o->type) {
	case PQ_OPT_FLAG:
		return NULL;
	case PQ_OPT_STR:
		return "STRING";
	case PQ_OPT_INT:
		return "N";
	case PQ_OPT_SIZE:
		return "BYTES";
	case PQ_OPT_DURATION:
		return "DURATION";
	case PQ_OPT_RATE:
		return "RATE";
	case PQ_OPT_FRACTION:
		return "FRACTION";
	case PQ_OPT_DOUBLE:
		return "NUMBER";
	case PQ_OPT_CHOICE:
		return o->choices;
	}
	return "VALUE";
}

/* Parse one value into the field. `what` is "--name" for messages. */
static int set_value(const pq_opt *o, void *opts, const char *val, const char *what, pq_diag *d)
{
	char *field = (char *)opts + o->offset;
	int rc = 0;
	switch (o->type) {
	case PQ_OPT_FLAG:
		*(int *)field = 1;
		break;
	case PQ_OPT_STR:
		*(const char **)field = val;
		break;
	case PQ_OPT_INT: {
		long long v;
		long long lo = o->min < o->max ? (long long)o->min : INT64_MIN;
		long long hi = o->min < o->max ? (long long)o->max : INT64_MAX;
		rc = pq_parse_int(val, what, lo, hi, &v, d);
		if (!rc)
			*(long long *)field = v;
		break;
	}
	case PQ_OPT_SIZE:
		rc = pq_parse_size(val, what, (uint64_t *)field, d);
		break;
	case PQ_OPT_DURATION:
		rc = pq_parse_duration(val, what, (int64_t *)field, d);
		break;
	case PQ_OPT_RATE:
		rc = pq_parse_rate(val, what, (uint64_t *)field, d);
		break;
	case PQ_OPT_FRACTION:
		rc = pq_parse_fraction(val, what, (double *)field, d);
		break;
	case PQ_OPT_DOUBLE: {
		double lo = o->min < o->max ? o->min : -1e300;
		double hi = o->min < o->max ? o->max : 1e300;
		rc = pq_parse_double(val, what, lo, hi, (double *)field, d);
		break;
	}
	case PQ_OPT_CHOICE: {
		const char *c = o->choices;
		size_t vl = strlen(val);
		for (int idx = 0; c && *c; idx++) {
			const char *bar = strchr(c, '|');
			size_t l = bar ? (size_t)(bar - c) : strlen(c);
			if (l == vl && strncmp(c, val, l) == 0) {
				*(int *)field = idx;
				return 0;
			}
			c = bar ? bar + 1 : c + l;
		}
		rc = pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not one of %s", what, val, o->choices);
		break;
	}
	}
	return rc;
}

/* A command's option table, static or built at first use. */
static const pq_opt *opts_of(const pq_cmd *cmd)
{
	return cmd->opts_fn ? cmd->opts_fn() : cmd->opts;
}

static const pq_opt *find_long(const pq_opt *opts, const char *name, size_t len, int *idx)
{
	for (int i = 0; opts && opts[i].name; i++)
		if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0) {
			*idx = i;
			return &opts[i];
		}
	return NULL;
}

static const pq_opt *find_short(const pq_opt *opts, char c, int *idx)
{
	for (int i = 0; opts && c && opts[i].name; i++)
		if (opts[i].shortname == c) {
			*idx = i;
			return &opts[i];
		}
	return NULL;
}

volatile sig_atomic_t pq_cli_signal;

static void on_signal(int sig)
{
	pq_cli_signal = sig;
}

void pq_cli_catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int pq_cli_usage_error(const char *path, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for the options.\n", path);
	return PQ_EXIT_USAGE;
}

int pq_cli_fail(const char *path, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: error: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return PQ_EXIT_FAIL;
}

int pq_cli_parse(const pq_cmd *cmd, const char *path, int argc, char **argv, void *opts,
		 pq_cli_args *args)
{
	pq_diag d;
	memset(args, 0, sizeof *args);
	args->dashdash = -1;
	args->argv = calloc((size_t)argc + 1, sizeof *args->argv);
	if (!args->argv)
		return pq_cli_fail(path, "out of memory");

	for (int i = 0; opts_of(cmd) && opts_of(cmd)[i].name; i++) {
		const pq_opt *o = &opts_of(cmd)[i];
		if (o->def && o->type != PQ_OPT_FLAG) {
			char what[96];
			snprintf(what, sizeof what, "default of --%s", o->name);
			if (set_value(o, opts, o->def, what, &d) < 0)
				return pq_cli_fail(path, "internal: %s", pq_diag_msg(&d));
		}
	}

	for (int i = 0; i < argc; i++) {
		char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			args->dashdash = args->argc;
			for (i++; i < argc; i++)
				args->argv[args->argc++] = argv[i];
			break;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			pq_cli_help(stdout, cmd, path);
			return -1;
		}
		const pq_opt *o = NULL;
		int idx = -1;
		const char *val = NULL;
		char what[96];
		if (a[0] == '-' && a[1] == '-') {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			o = find_long(opts_of(cmd), name, len, &idx);
			if (!o)
				return pq_cli_usage_error(path, "unknown option '--%.*s'", (int)len, name);
			if (eq)
				val = eq + 1;
			snprintf(what, sizeof what, "--%s", o->name);
		} else if (a[0] == '-' && a[1] && a[1] != '-' && !(a[1] >= '0' && a[1] <= '9')) {
			o = find_short(opts_of(cmd), a[1], &idx);
			if (!o)
				return pq_cli_usage_error(path, "unknown option '-%c'", a[1]);
			if (a[2])
				val = a + 2;
			snprintf(what, sizeof what, "-%c/--%s", o->shortname, o->name);
		} else {
			args->argv[args->argc++] = a;
			continue;
		}
		if (o->type == PQ_OPT_FLAG) {
			if (val)
				return pq_cli_usage_error(path, "%s takes no value", what);
		} else if (!val) {
			if (i + 1 >= argc)
				return pq_cli_usage_error(path, "%s needs a value (%s)", what,
							  type_metavar(o));
			val = argv[++i];
		}
		if (set_value(o, opts, val, what, &d) < 0)
			return pq_cli_usage_error(path, "%s", pq_diag_msg(&d));
		if (idx >= 0 && idx < PQ_CLI_MAX_OPTS)
			args->given[idx] = 1;
	}
	int npos = args->dashdash >= 0 ? args->dashdash : args->argc;
	if (npos < cmd->min_args)
		return pq_cli_usage_error(path, "missing argument (usage: %s %s)", path,
					  cmd->usage ? cmd->usage : "");
	if (cmd->max_args >= 0 && npos > cmd->max_args)
		return pq_cli_usage_error(path, "unexpected argument '%s' (usage: %s %s)",
					  args->argv[cmd->max_args], path,
					  cmd->usage ? cmd->usage : "");
	return 0;
}

int pq_cli_given(const pq_cmd *cmd, const pq_cli_args *args, const char *name)
{
	for (int i = 0; opts_of(cmd) && opts_of(cmd)[i].name && i < PQ_CLI_MAX_OPTS; i++)
		if (strcmp(opts_of(cmd)[i].name, name) == 0)
			return args->given[i];
	/* A name the table lacks is a typo in the caller, which would otherwise read as
	 * "not given" forever: stop at once, in every build. */
	fprintf(stderr, "pq_cli_given: command '%s' has no option '%s'\n", cmd->name, name);
	abort();
}

void pq_cli_list(FILE *f, const pq_cmd *const *cmds, const char *path)
{
	fprintf(f, "Commands:\n");
	for (const pq_cmd *const *c = cmds; *c; c++)
		fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\nRun '%s COMMAND --help' for a command's options.\n", path);
}

void pq_cli_help(FILE *f, const pq_cmd *cmd, const char *path)
{
	fprintf(f, "Usage: %s %s\n\n%s\n", path, cmd->usage ? cmd->usage : "[options]",
		cmd->summary);
	if (cmd->subs) {
		fputc('\n', f);
		pq_cli_list(f, cmd->subs, path);
	}
	if (opts_of(cmd) && opts_of(cmd)[0].name) {
		fprintf(f, "\nOptions:\n");
		for (const pq_opt *o = opts_of(cmd); o->name; o++) {
			char head[96];
			const char *mv = type_metavar(o);
			char sn[8] = "    ";
			if (o->shortname)
				snprintf(sn, sizeof sn, "-%c, ", o->shortname);
			int n = snprintf(head, sizeof head, "  %s--%s%s%s", sn, o->name,
					 mv ? " " : "", mv ? mv : "");
			fprintf(f, "%s", head);
			if (n < 30)
				fprintf(f, "%*s", 30 - n, "");
			else
				fprintf(f, "\n%30s", "");
			fprintf(f, "%s", o->help);
			if (o->def)
				fprintf(f, " (default: %s)", o->def);
			fputc('\n', f);
		}
		fprintf(f, "  -h, --help                  show this help\n");
	}
	if (cmd->description)
		fprintf(f, "\n%s\n", cmd->description);
	fprintf(f, "\nUnits: sizes in B, KB (1000), KiB (1024), MB, MiB; durations in ns, us, ms, s;\n"
		   "rates in kbit, Mbit, Gbit (per second) or B/s; fractions as 0.5%% or 0.005.\n");
}

int pq_cli_dispatch(const pq_cmd *const *cmds, const char *path, int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "%s: missing command\n", path);
		pq_cli_list(stderr, cmds, path);
		return PQ_EXIT_USAGE;
	}
	const char *name = argv[0];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		pq_cli_list(stdout, cmds, path);
		return PQ_EXIT_OK;
	}
	if (strcmp(name, "help") == 0) {
		if (argc < 2) {
			pq_cli_list(stdout, cmds, path);
			return PQ_EXIT_OK;
		}
		for (const pq_cmd *const *cp = cmds; *cp; cp++) {
			const pq_cmd *c = *cp;
			if (strcmp(c->name, argv[1]) == 0) {
				char sub[128];
				snprintf(sub, sizeof sub, "%s %s", path, c->name);
				if (c->subs && argc > 2) {
					char *rest[] = {"help", argv[2]};
					return pq_cli_dispatch(c->subs, sub, 2, rest);
				}
				pq_cli_help(stdout, c, sub);
				return PQ_EXIT_OK;
			}
		}
		return pq_cli_usage_error(path, "no command '%s' to give help on", argv[1]);
	}
	for (const pq_cmd *const *cp = cmds; *cp; cp++) {
		const pq_cmd *c = *cp;
		if (strcmp(c->name, name) != 0)
			continue;
		char sub[128];
		snprintf(sub, sizeof sub, "%s %s", path, c->name);
		if (c->subs && !c->run) {
			if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
				pq_cli_help(stdout, c, sub);
				return PQ_EXIT_OK;
			}
			if (argc < 2) {
				fprintf(stderr, "%s: missing subcommand\n", sub);
				pq_cli_list(stderr, c->subs, sub);
				return PQ_EXIT_USAGE;
			}
			return pq_cli_dispatch(c->subs, sub, argc - 1, argv + 1);
		}
		/* A command that runs by itself and also has subcommands (sweep, sweep export). */
		for (const pq_cmd *const *sp = c->subs; sp && *sp && argc >= 2; sp++)
			if (strcmp((*sp)->name, argv[1]) == 0)
				return pq_cli_dispatch(c->subs, sub, argc - 1, argv + 1);
		void *opts = calloc(1, c->opts_size ? c->opts_size : 1);
		pq_cli_args args;
		if (!opts)
			return pq_cli_fail(sub, "out of memory");
		int rc = pq_cli_parse(c, sub, argc - 1, argv + 1, opts, &args);
		if (rc == 0)
			rc = c->run(c, opts, &args);
		else if (rc < 0)
			rc = PQ_EXIT_OK;
		free(args.argv);
		free(opts);
		return rc;
	}
	return pq_cli_usage_error(path, "unknown command '%s'; run '%s --help' for the list", name,
				  path);
}

int pq_cli_cache_root(char *buf, size_t n)
{
	const char *env = getenv("PQTLS_CACHE"), *home = getenv("HOME");
	if (env && env[0])
		snprintf(buf, n, "%s", env);
	else if (home && home[0])
		snprintf(buf, n, "%s/.cache/pqtls", home);
	else
		return -1;
	return 0;
}

int pq_cli_progress_enabled(void)
{
	const char *e = getenv("PQTLS_PROGRESS");
	if (e && *e)
		return e[0] == '1';
	return isatty(STDERR_FILENO);
}

int pq_cli_point(const char *path, const char *cert_comp, int quic, pq_exp_point *p)
{
	pq_exp_point_init(p);
	p->quic = quic;
	if (snprintf(p->cert_comp, sizeof p->cert_comp, "%s", cert_comp) < (int)sizeof p->cert_comp)
		return 0;
	return pq_cli_usage_error(path, "--cert-compression: '%s' is longer than %zu characters; give off or a "
					"list of zlib, brotli, zstd", cert_comp, sizeof p->cert_comp - 1);
}
