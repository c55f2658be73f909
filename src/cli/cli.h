/* The command line as data (curl's idea): each command is a pq_cmd with a table of
 * pq_opt; parsing, defaults, unit checking and --help all come from the table.
 *
 * Option fields in a command's options struct have fixed C types by option type:
 *   FLAG int, STR const char *, INT long long, SIZE uint64_t (bytes),
 *   DURATION int64_t (ns), RATE uint64_t (bit/s), FRACTION double (0..1),
 *   DOUBLE double, CHOICE int (index into "a|b|c").
 * Exit codes: 0 success, 1 the command failed, 2 usage error (message on stderr). */
#ifndef PQ_CLI_CLI_H
#define PQ_CLI_CLI_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#define PQ_EXIT_OK 0
#define PQ_EXIT_FAIL 1
#define PQ_EXIT_USAGE 2

enum pq_opt_type {
	PQ_OPT_FLAG,
	PQ_OPT_STR,
	PQ_OPT_INT,
	PQ_OPT_SIZE,
	PQ_OPT_DURATION,
	PQ_OPT_RATE,
	PQ_OPT_FRACTION,
	PQ_OPT_DOUBLE,
	PQ_OPT_CHOICE,
};

typedef struct pq_opt {
	const char *name;      /* long name without "--"; NULL ends the table */
	char shortname;        /* 0 when none */
	enum pq_opt_type type;
	size_t offset;         /* offsetof(options struct, field) */
	const char *metavar;   /* shown in help: "DURATION", "N", "DIR" */
	const char *def;       /* default, as the user would type it; NULL for none */
	const char *help;
	const char *choices;   /* CHOICE only: "cubic|bbr|reno" */
	double min, max;       /* INT/DOUBLE bounds, used when min < max */
} pq_opt;

#define PQ_CLI_MAX_OPTS 96

/* What the parser saw besides the option values. */
typedef struct pq_cli_args {
	int argc;        /* positional arguments, in order; everything after "--" included */
	char **argv;
	unsigned char given[PQ_CLI_MAX_OPTS]; /* given[i]: option i was on the command line */
	int dashdash;    /* index in argv of the first argument after "--", or -1 */
} pq_cli_args;

struct pq_cmd;
typedef int (*pq_cmd_run)(const struct pq_cmd *cmd, void *opts, pq_cli_args *args);

typedef struct pq_cmd {
	const char *name;
	const char *summary;     /* one line for the command list */
	const char *usage;       /* after "pqtls NAME ": "[options] HOST:PORT" */
	const char *description; /* paragraphs and examples printed under the options */
	const pq_opt *opts;      /* NULL-terminated table, or NULL */
	size_t opts_size;        /* sizeof the options struct */
	pq_cmd_run run;          /* NULL when the command only has subcommands */
	const struct pq_cmd *const *subs; /* NULL-terminated table of subcommands, or NULL; with run
					   * set too, a first argument naming one runs it */
	int min_args, max_args;  /* positional arguments accepted (max -1 = any) */
	/* Instead of opts: a table built from data at first use (the sweep's options come
	 * from exp/dim.h's table of dimensions). */
	const pq_opt *(*opts_fn)(void);
} pq_cmd;

/* Command tables are NULL-terminated arrays of pointers, so each module can define its
 * own `const pq_cmd pq_cmd_NAME` and main.c lists them.
 * Run the command named by argv[0] from table `cmds` (argv[0] of the process already
 * removed). `path` is the command path so far ("pqtls", "pqtls link") for messages.
 * Handles --help/-h and "help NAME". Returns an exit code. */
int pq_cli_dispatch(const pq_cmd *const *cmds, const char *path, int argc, char **argv);

/* Parse argv against cmd's table into opts (defaults applied first). On a usage error
 * prints "pqtls CMD: message" and a hint to stderr and returns PQ_EXIT_USAGE; on --help
 * prints help to stdout and returns -1 (caller exits 0); else returns 0. */
int pq_cli_parse(const pq_cmd *cmd, const char *path, int argc, char **argv, void *opts,
		 pq_cli_args *args);

/* Was option `name` given on the command line? A name that is not in cmd's table is a
 * bug in the caller: it aborts (every build), rather than reading as "not given". */
int pq_cli_given(const pq_cmd *cmd, const pq_cli_args *args, const char *name);

/* Print the generated help for a command (or a command table) to f. */
void pq_cli_help(FILE *f, const pq_cmd *cmd, const char *path);
void pq_cli_list(FILE *f, const pq_cmd *const *cmds, const char *path);

/* Usage error from inside a command's run(): prints "PATH: message" and the --help hint
 * to stderr, returns PQ_EXIT_USAGE. */
int pq_cli_usage_error(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Failure of a command: prints "PATH: error: message" to stderr, returns PQ_EXIT_FAIL. */
int pq_cli_fail(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last SIGINT, SIGTERM or SIGHUP caught after pq_cli_catch_signals(), 0 when none.
 * The handler only sets it, without SA_RESTART (a blocked read or write returns EINTR):
 * the command finishes what it must (stops its children, removes its temporary files)
 * and exits 128 + the signal. */
extern volatile sig_atomic_t pq_cli_signal;
void pq_cli_catch_signals(void);

/* The cache directory commands use: $PQTLS_CACHE, else ~/.cache/pqtls. Returns -1 when
 * neither PQTLS_CACHE nor HOME is set. */
int pq_cli_cache_root(char *buf, size_t n);

/* Is stderr a terminal (for progress lines)? Honours PQTLS_PROGRESS=0/1. */
int pq_cli_progress_enabled(void);

/* The grid point bench and serve put their options that are dimensions on, before the
 * one builder makes their configurations from it (exp/cellcfg.h): the dimensions'
 * defaults, then the certificate compression list and the transport, which both have.
 * 0, or the usage error's exit code after saying so (a list longer than a point holds);
 * the caller sets the rest of its options that are dimensions. */
struct pq_exp_point;
int pq_cli_point(const char *path, const char *cert_comp, int quic, struct pq_exp_point *p);

#endif
