/* pqtls model --loss: the loss model's distribution for the flight model's packets
 * (model/loss.h), printed or added to the JSON root. */
#ifndef PQ_CLI_MODEL_LOSS_H
#define PQ_CLI_MODEL_LOSS_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "model/flight.h"

typedef struct pq_model_loss_opts {
	double loss, burst; /* fraction; 0 or >= 1 */
	int unit;	    /* enum pq_loss_unit */
	int64_t rtt_ns;	    /* 0: PQ_MODEL_LOSS_RTT_NS */
	long long trials, seed;
} pq_model_loss_opts;

#define PQ_MODEL_LOSS_RTT_NS 100000000LL /* without --rtt: 100 ms, said in the output */

/* Checks the options (exit 2 with the accepted range), runs the model, prints or adds
 * "loss" to root. Returns an exit code. */
int pq_model_loss_cli(const char *path, const pq_model_loss_opts *o, const pq_model_in *net, cJSON *root);

#endif
