#include "load/record.h"

static const char *const err_short[PQ_LERR_COUNT] = {
#define PQ_LERR_SHORT(name, shortname, text) shortname,
	PQ_LOAD_ERR_TABLE(PQ_LERR_SHORT)
#undef PQ_LERR_SHORT
};

static const char *const err_text[PQ_LERR_COUNT] = {
#define PQ_LERR_TEXT(name, shortname, text) text,
	PQ_LOAD_ERR_TABLE(PQ_LERR_TEXT)
#undef PQ_LERR_TEXT
};

static const char *const phase_names[PQ_PH_COUNT] = {
	[PQ_PH_CONNECT] = "connect",         [PQ_PH_CLIENT_HELLO] = "client_hello",
	[PQ_PH_SERVER_HELLO] = "server_hello", [PQ_PH_HANDSHAKE] = "handshake",
	[PQ_PH_REQUEST] = "request",         [PQ_PH_TTFB] = "ttfb",
	[PQ_PH_TTLB] = "ttlb",               [PQ_PH_END] = "end",
};

const char *pq_load_err_short(enum pq_load_err e)
{
	return e < PQ_LERR_COUNT ? err_short[e] : "?";
}

const char *pq_load_err_text(enum pq_load_err e)
{
	return e < PQ_LERR_COUNT ? err_text[e] : "?";
}

const char *pq_phase_name(enum pq_phase p)
{
	return p < PQ_PH_COUNT ? phase_names[p] : "?";
}
