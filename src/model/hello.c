#include "model/hello.h"

#include <cjson/cJSON.h>
#include <stdio.h>

#include "model/tcp.h"
#include "tls/hello.h"

static const struct {
	const char *label, *groups, *shares;
} choices[PQ_MODEL_HELLOS] = {
	{"classical", "X25519", "X25519"},
	{"hybrid only", "X25519MLKEM768", "X25519MLKEM768"},
	{"right guess", "X25519MLKEM768:X25519", "X25519MLKEM768"},
	{"wrong guess", "X25519MLKEM768:X25519", "X25519"},
	{"both shares", "X25519MLKEM768:X25519", "X25519MLKEM768:X25519"},
	{"P-256 hybrid", "SecP256r1MLKEM768", "SecP256r1MLKEM768"},
	{"P-384 hybrid", "SecP384r1MLKEM1024", "SecP384r1MLKEM1024"},
	{"ML-KEM alone", "MLKEM768", "MLKEM768"},
};

int pq_model_hellos(size_t mss, pq_model_hello_row rows[PQ_MODEL_HELLOS], pq_diag *d)
{
	for (size_t i = 0; i < PQ_MODEL_HELLOS; i++) {
		char offer[128];
		pq_tls_hello h;
		pq_model_hello_row *r = &rows[i];
		int rc = pq_tls_groups_offer(choices[i].groups, choices[i].shares, "key shares", offer,
					     sizeof offer, d);
		if (rc == 0)
			rc = pq_tls_hello_measure(offer, PQ_MODEL_HELLO_SERVER, &h, d);
		if (rc < 0)
			return pq_diag_prefix(d, rc, "ClientHello '%s'", choices[i].label);
		*r = (pq_model_hello_row){.label = choices[i].label,
					  .groups = choices[i].groups,
					  .shares = choices[i].shares,
					  .bytes = h.client_hello[0],
					  .segments = (h.client_hello[0] + mss - 1) / mss,
					  .one_segment_mtu = h.client_hello[0] + PQ_MODEL_TCPIP_HEADERS,
					  .hrr = h.hrr,
					  .bytes2 = h.client_hello[1]};
		snprintf(r->group, sizeof r->group, "%s", h.group);
	}
	return 0;
}

cJSON *pq_model_hellos_json(const pq_model_hello_row rows[PQ_MODEL_HELLOS])
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; arr && i < PQ_MODEL_HELLOS; i++) {
		const pq_model_hello_row *r = &rows[i];
		cJSON *j = cJSON_CreateObject();
		if (!j || !cJSON_AddItemToArray(arr, j)) {
			cJSON_Delete(j);
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddStringToObject(j, "choice", r->label);
		cJSON_AddStringToObject(j, "groups", r->groups);
		cJSON_AddStringToObject(j, "key_shares", r->shares);
		cJSON_AddNumberToObject(j, "client_hello_bytes", (double)r->bytes);
		cJSON_AddNumberToObject(j, "segments", (double)r->segments);
		cJSON_AddNumberToObject(j, "one_segment_min_mtu", (double)r->one_segment_mtu);
		cJSON_AddStringToObject(j, "server_groups", PQ_MODEL_HELLO_SERVER);
		cJSON_AddBoolToObject(j, "hrr", r->hrr);
		cJSON_AddNumberToObject(j, "client_hello2_bytes", (double)r->bytes2);
		cJSON_AddStringToObject(j, "negotiated", r->group);
	}
	return arr;
}

void pq_model_hellos_print(FILE *f, const pq_model_hello_row rows[PQ_MODEL_HELLOS], size_t mss)
{
	fprintf(f, "client first flight per key-share choice (no SNI: a name adds 9 bytes + its length), "
		   "MSS %zu,\nagainst a server preferring X25519MLKEM768 (%s):\n",
		mss, PQ_MODEL_HELLO_SERVER);
	fprintf(f, "%-13s %-22s %-22s %6s %5s %14s  %s\n", "choice", "groups offered", "key shares",
		"bytes", "segs", "splits below", "server");
	for (size_t i = 0; i < PQ_MODEL_HELLOS; i++) {
		const pq_model_hello_row *r = &rows[i];
		char mtu[24], srv[96];
		snprintf(mtu, sizeof mtu, "MTU %zu", r->one_segment_mtu);
		if (r->hrr)
			snprintf(srv, sizeof srv, "HelloRetryRequest, then %zu bytes (+1 RTT)", r->bytes2);
		else
			snprintf(srv, sizeof srv, "takes the %s share", r->group);
		fprintf(f, "%-13s %-22s %-22s %6zu %5zu %14s  %s\n", r->label, r->groups, r->shares,
			r->bytes, r->segments, mtu, srv);
	}
}
