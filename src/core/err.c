#include "core/err.h"

#include <openssl/err.h>
#include <stdio.h>
#include <string.h>

const char *pq_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
#define PQ_ERR_CASE(name, val, msg)                                                  \
	case -(val):                                                                 \
		return msg;
		PQ_ERR_TABLE(PQ_ERR_CASE)
#undef PQ_ERR_CASE
	default:
		break;
	}
	if (err < 0 && err > -1000) {
		/* strerrordesc_np is thread-safe and needs no buffer. */
		const char *s = strerrordesc_np(-err);
		return s ? s : "unknown system error";
	}
	return "unknown error";
}

int pq_diag_vset(pq_diag *d, int err, const char *fmt, va_list ap)
{
	if (d) {
		d->code = err;
		vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	}
	return err;
}

int pq_diag_set(pq_diag *d, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pq_diag_vset(d, err, fmt, ap);
	va_end(ap);
	return err;
}

int pq_diag_ossl(pq_diag *d, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pq_diag_vset(d, err, fmt, ap);
	va_end(ap);

	unsigned long e;
	const char *sep = ": ";
	while ((e = ERR_get_error()) != 0) {
		if (!d)
			continue;
		char reason[256];
		ERR_error_string_n(e, reason, sizeof reason);
		/* Keep only the human part after the last ':' pair of the code string. */
		const char *r = ERR_reason_error_string(e);
		size_t len = strlen(d->msg);
		if (len + 4 < sizeof d->msg)
			snprintf(d->msg + len, sizeof d->msg - len, "%s%s", sep, r ? r : reason);
		sep = "; ";
	}
	return err;
}

unsigned long pq_ossl_peek(int last, const char **reason)
{
	unsigned long e = last ? ERR_peek_last_error() : ERR_peek_error();
	if (reason) {
		const char *r = e ? ERR_reason_error_string(e) : NULL;
		*reason = r ? r : "";
	}
	return e;
}

void pq_diag_clear(pq_diag *d)
{
	if (d) {
		d->code = 0;
		d->msg[0] = '\0';
	}
}

const char *pq_diag_msg(const pq_diag *d)
{
	if (!d)
		return "";
	return d->msg[0] ? d->msg : pq_strerror(d->code);
}

int pq_diag_prefix(pq_diag *d, int err, const char *fmt, ...)
{
	if (!d)
		return err;
	char old[sizeof d->msg], pre[sizeof d->msg];
	snprintf(old, sizeof old, "%s", pq_diag_msg(d));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	return pq_diag_set(d, err, "%s: %s", pre, old);
}
