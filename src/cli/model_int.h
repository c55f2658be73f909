/* Inside pqtls model (cli/model.c): its printing (model_print.c). Not for other commands.
 *
 * Contract: pq_modelcli_print_phases prints the round trips (and times, at round-trip
 * time rtt when above 0) of each phase of o; pq_modelcli_print_quic prints QUIC's view q;
 * pq_modelcli_print_cliffs prints the n cliffs c found between lo and hi chain bytes (or
 * that there are none). pq_modelcli_phases_json and pq_modelcli_quic_json return the same
 * figures as new cJSON objects the caller owns. */
#ifndef PQ_CLI_MODEL_INT_H
#define PQ_CLI_MODEL_INT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cliff.h"
#include "model/flight.h"
#include "model/quic.h"

void pq_modelcli_print_phases(const pq_model_out *o, int64_t rtt);
void pq_modelcli_print_quic(const pq_model_quic *q);
cJSON *pq_modelcli_phases_json(const pq_model_out *o, int64_t rtt);
cJSON *pq_modelcli_quic_json(const pq_model_quic *q);
void pq_modelcli_print_cliffs(const pq_model_cliff *c, size_t n, uint64_t lo, uint64_t hi);

#endif
