/* Every pqtls command, one definition per file in src/cli/. main.c lists them. */
#ifndef PQ_CLI_COMMANDS_H
#define PQ_CLI_COMMANDS_H

#include "cli/cli.h"

extern const pq_cmd pq_cmd_certs;   /* src/cli/certs.c */
extern const pq_cmd pq_cmd_serve;   /* src/cli/serve.c */
extern const pq_cmd pq_cmd_bench;   /* src/cli/bench.c */
extern const pq_cmd pq_cmd_check;   /* src/cli/check.c */
extern const pq_cmd pq_cmd_link;    /* src/cli/link.c */
extern const pq_cmd pq_cmd_version; /* src/cli/version.c */
extern const pq_cmd pq_cmd_sweep;   /* src/cli/sweep.c */
/* src/cli/sweep.c: `sweep` with the tests' faults; only tests/tools/pqtls_faults.c lists it */
extern const pq_cmd pq_cmd_sweep_faults;
extern const pq_cmd pq_cmd_merge;   /* src/cli/merge.c */
extern const pq_cmd pq_cmd_model;
extern const pq_cmd pq_cmd_report;
extern const pq_cmd pq_cmd_zeek;    /* src/cli/zeek.c */

#endif
