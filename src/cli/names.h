/* The command line's names for the libraries' inputs: each table maps a module's key
 * (its config field) to the option a user types, so library messages name "--certs"
 * while the libraries themselves never spell an option (core/names.h). */
#ifndef PQ_CLI_NAMES_H
#define PQ_CLI_NAMES_H

#include "core/names.h"

extern const pq_name pq_cli_tls_names[];    /* pq_tls_config: serve and bench */
extern const pq_name pq_cli_server_names[]; /* pq_server_config */
extern const pq_name pq_cli_load_names[];   /* pq_load_config */
extern const pq_name pq_cli_chain_names[];  /* pq_chain_spec, chain directories */
extern const pq_name pq_cli_link_names[];   /* pq_link_config and the link's life */

#endif
