#include "check/out.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

size_t pq_chk_passed(const pq_chk_summary *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->results[i].passed != 0;
	return n;
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

/* "1588" or "285+1540": the ClientHello bytes (and the second one's after an HRR). */
static const char *pair(char *buf, size_t n, size_t a, size_t b)
{
	if (b)
		snprintf(buf, n, "%zu+%zu", a, b);
	else
		snprintf(buf, n, "%zu", a);
	return buf;
}

int pq_chk_table(FILE *f, const pq_chk_summary *s)
{
	fprintf(f, "pqtls check %s%s%s: %zu probes\n\n", s->target, s->servername ? ", SNI " : "",
		s->servername ? s->servername : "", s->planned);
	fprintf(f, "%-16s %-10s %-6s %-16s %-4s %-11s %-9s %-8s %-10s %s\n", "group", "shape",
		"result", "negotiated", "HRR", "CH bytes", "writes", "segments", "handshake", "detail");
	for (size_t i = 0; i < s->n; i++) {
		const pq_chk_result *r = &s->results[i];
		char bytes[32], writes[32], segs[32], hs[24];
		snprintf(hs, sizeof hs, "%.1f ms", ms(r->handshake_ns));
		fprintf(f, "%-16s %-10s %-6s %-16s %-4s %-11s %-9s %-8s %-10s %s\n", r->probe.group,
			pq_chk_shapes[r->probe.shape].name, r->passed ? "pass" : "FAIL",
			r->group[0] ? r->group : "-", r->completed ? (r->hrr ? "yes" : "no") : "-",
			pair(bytes, sizeof bytes, r->ch_bytes[0], r->ch_bytes[1]),
			pair(writes, sizeof writes, r->ch_writes[0], r->ch_writes[1]),
			pair(segs, sizeof segs, r->ch_segs[0], r->ch_segs[1]),
			pq_chk_fail_unreachable(r->fail) ? "-" : hs, r->passed ? "" : r->detail);
	}
	size_t ok = pq_chk_passed(s);
	fprintf(f, "\n%zu of %zu probes passed", ok, s->planned);
	if (s->stopped)
		fprintf(f, "; the others were not run: the server was not reached or did not answer");
	fprintf(f, "\n");
	return 0;
}

static cJSON *result_json(const pq_chk_result *r)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "group", r->probe.group);
	cJSON_AddStringToObject(o, "shape", pq_chk_shapes[r->probe.shape].name);
	cJSON_AddStringToObject(o, "offered", r->offered);
	cJSON_AddBoolToObject(o, "passed", r->passed);
	cJSON_AddStringToObject(o, "fail", r->passed ? "" : pq_chk_fail_name(r->fail));
	cJSON_AddStringToObject(o, "detail", r->passed ? "" : r->detail);
	cJSON_AddBoolToObject(o, "completed", r->completed);
	cJSON_AddStringToObject(o, "negotiated", r->group);
	cJSON_AddBoolToObject(o, "hrr", r->hrr);
	cJSON *a = cJSON_AddArrayToObject(o, "client_hello");
	for (int k = 0; k < 2 && a; k++) {
		if (k == 1 && !r->ch_bytes[1])
			break;
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "bytes", (double)r->ch_bytes[k]);
		cJSON_AddNumberToObject(c, "writes", (double)r->ch_writes[k]);
		cJSON_AddNumberToObject(c, "segments", (double)r->ch_segs[k]);
		cJSON_AddItemToArray(a, c);
	}
	cJSON_AddNumberToObject(o, "rx_bytes", (double)r->rx_bytes);
	cJSON_AddNumberToObject(o, "connect_ms", ms(r->connect_ns));
	cJSON_AddNumberToObject(o, "handshake_ms", ms(r->handshake_ns));
	return o;
}

int pq_chk_json(FILE *f, const pq_chk_summary *s)
{
	int rc = PQ_ENOMEM;
	char *txt = NULL;
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return rc;
	cJSON_AddStringToObject(o, "target", s->target);
	if (s->servername)
		cJSON_AddStringToObject(o, "servername", s->servername);
	else
		cJSON_AddNullToObject(o, "servername");
	cJSON_AddNumberToObject(o, "probes", (double)s->planned);
	cJSON_AddNumberToObject(o, "passed", (double)pq_chk_passed(s));
	cJSON_AddBoolToObject(o, "all_passed", pq_chk_passed(s) == s->planned);
	cJSON_AddBoolToObject(o, "stopped", s->stopped);
	cJSON *arr = cJSON_AddArrayToObject(o, "results");
	for (size_t i = 0; arr && i < s->n; i++) {
		cJSON *r = result_json(&s->results[i]);
		if (!r)
			goto out;
		cJSON_AddItemToArray(arr, r);
	}
	if (!arr || !(txt = cJSON_PrintUnformatted(o)))
		goto out;
	fprintf(f, "%s\n", txt);
	rc = 0;
out:
	free(txt);
	cJSON_Delete(o);
	return rc;
}
