/* What `pqtls check` prints: a table for people, one JSON object for programs. Both
 * only format the results they are given (check/probe.h); nothing is judged here.
 *
 * Contract: pq_chk_table and pq_chk_json write to f and return 0, or PQ_ENOMEM (JSON
 * only) with nothing written. `stopped` says the probes after the last result were not
 * run (the server was not reachable). */
#ifndef PQ_CHK_OUT_H
#define PQ_CHK_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "check/probe.h"

typedef struct pq_chk_summary {
	const char *target;     /* HOST:PORT as typed */
	const char *servername; /* SNI sent, NULL = none */
	const pq_chk_result *results;
	size_t n;               /* results run */
	size_t planned;         /* probes planned */
	int stopped;
} pq_chk_summary;

/* Probes that passed. */
size_t pq_chk_passed(const pq_chk_summary *s);

int pq_chk_table(FILE *f, const pq_chk_summary *s);
int pq_chk_json(FILE *f, const pq_chk_summary *s) PQ_MUST_USE;

#endif
