#include "tls/qbio.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct tap {
	pq_tls_qbio_cb cb;
	void *arg;
} tap;

static BIO_METHOD *method;
static pthread_once_t method_once = PTHREAD_ONCE_INIT;

typedef int (*mmsg_fn)(BIO *, BIO_MSG *, size_t, size_t, uint64_t, size_t *);

/* Pass the call to the BIO below; tell the callback about each datagram it moved. */
static int pass(BIO *b, int tx, BIO_MSG *msg, size_t stride, size_t num, uint64_t flags,
		size_t *done)
{
	mmsg_fn call = tx ? BIO_sendmmsg : BIO_recvmmsg;
	int ok = call(BIO_next(b), msg, stride, num, flags, done);
	tap *t = BIO_get_data(b);
	for (size_t i = 0; ok && t && t->cb && i < *done; i++) {
		const BIO_MSG *m = (const BIO_MSG *)((const char *)msg + i * stride);
		t->cb(t->arg, tx, m->peer, m->data, m->data_len);
	}
	return ok;
}

static int tap_sendmmsg(BIO *b, BIO_MSG *msg, size_t stride, size_t num, uint64_t flags,
			size_t *done)
{
	return pass(b, 1, msg, stride, num, flags, done);
}

static int tap_recvmmsg(BIO *b, BIO_MSG *msg, size_t stride, size_t num, uint64_t flags,
			size_t *done)
{
	return pass(b, 0, msg, stride, num, flags, done);
}

static long tap_ctrl(BIO *b, int cmd, long larg, void *parg)
{
	BIO *next = BIO_next(b);
	/* Pushing and popping concern this BIO, not the socket below. */
	if (cmd == BIO_CTRL_PUSH || cmd == BIO_CTRL_POP)
		return 0;
	return next ? BIO_ctrl(next, cmd, larg, parg) : 0;
}

static int tap_create(BIO *b)
{
	BIO_set_init(b, 1);
	return 1;
}

static int tap_destroy(BIO *b)
{
	free(BIO_get_data(b));
	BIO_set_data(b, NULL);
	return 1;
}

static void method_init(void)
{
	BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_FILTER, "pqtls QUIC datagram tap");
	if (m && BIO_meth_set_sendmmsg(m, tap_sendmmsg) && BIO_meth_set_recvmmsg(m, tap_recvmmsg) &&
	    BIO_meth_set_ctrl(m, tap_ctrl) && BIO_meth_set_create(m, tap_create) &&
	    BIO_meth_set_destroy(m, tap_destroy))
		method = m;
	else
		BIO_meth_free(m);
}

BIO *pq_tls_qbio_new(BIO *next, pq_tls_qbio_cb cb, void *arg)
{
	pthread_once(&method_once, method_init);
	tap *t = calloc(1, sizeof *t);
	BIO *b = method && t ? BIO_new(method) : NULL;
	if (!b) {
		free(t);
		return NULL;
	}
	t->cb = cb;
	t->arg = arg;
	BIO_set_data(b, t);
	BIO_push(b, next);
	return b;
}

void pq_tls_qbio_set_cb(BIO *b, pq_tls_qbio_cb cb, void *arg)
{
	tap *t = BIO_get_data(b);
	if (t) {
		t->cb = cb;
		t->arg = arg;
	}
}
