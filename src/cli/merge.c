/* pqtls merge: combine results databases of one grid (shards, or client hosts) into one. */
#include <stdio.h>

#include "cli/commands.h"
#include "exp/merge.h"

struct merge_opts {
	const char *out;
};

#define O(f) offsetof(struct merge_opts, f)
static const pq_opt merge_table[] = {
	{"out", 'o', PQ_OPT_STR, O(out), "FILE", NULL, "the merged database (must not exist)", NULL, 0, 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};
#undef O

static int merge_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	struct merge_opts *o = optsp;
	const char *path = "pqtls merge";
	pq_diag d;
	pq_exp_merge_stats st;
	if (!o->out)
		return pq_cli_usage_error(path, "-o FILE is required (the merged database)");
	int rc = pq_exp_merge((const char *const *)a->argv, (size_t)a->argc, o->out, &st, &d);
	if (rc < 0)
		return rc == PQ_EEXIST || rc == PQ_EMISMATCH ? pq_cli_usage_error(path, "%s", pq_diag_msg(&d))
							     : pq_cli_fail(path, "%s", pq_diag_msg(&d));
	printf("%s: %zu runs, %zu cells, %zu connections, %zu client host%s\n", o->out, st.runs, st.cells, st.conns,
	       st.hosts, st.hosts == 1 ? "" : "s");
	return PQ_EXIT_OK;
}

const pq_cmd pq_cmd_merge = {
	.name = "merge",
	.summary = "combine results databases of one grid (shards, client hosts) into one",
	.usage = "A.db B.db ... -o ALL.db",
	.description = "Cells keep their keys and host names: shards combine into the whole grid, and the\n"
		       "same spec measured from several client hosts stays apart by host_name. Inputs of\n"
		       "different grids, or overlapping inputs, are refused. The output is written to a temporary\n"
		       "file and appears under its name only when complete, never over a file: when another\n"
		       "merge wrote the same new file meanwhile, this one writes nothing and says so.\n"
		       "Examples:\n"
		       "  pqtls merge shard1.db shard2.db shard3.db -o all.db\n"
		       "  pqtls merge results/shard*.db -o study.db",
	.opts = merge_table,
	.opts_size = sizeof(struct merge_opts),
	.run = merge_run,
	.min_args = 1,
	.max_args = -1,
};
