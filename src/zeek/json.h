/* Zeek's JSON-lines log format (LogAscii::use_json): one object per line, unset fields
 * omitted, ts as epoch seconds or ISO-8601 (LogAscii::json_timestamps). Read with
 * libcjson; JSON input is the slower path, the throughput goal is for TSV.
 *
 * Contract: pq_zeek_json_row decodes one line (no newline) into r; the strings r points
 * to are copied into the line's own bytes, so they live as long as the line. Returns 0,
 * or PQ_EPARSE with r->bad saying why. */
#ifndef PQ_ZEEK_JSON_H
#define PQ_ZEEK_JSON_H

#include <stddef.h>

#include "core/err.h"
#include "zeek/rec.h"

int pq_zeek_json_row(char *line, size_t len, pq_zeek_rec *r) PQ_MUST_USE;

#endif
