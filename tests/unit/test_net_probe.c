/* net/probe: the plain-TCP sender and receiver over loopback. The server (on a socket
 * the test listens on, in a thread) writes what each client asks, or its fixed count;
 * the client times the fetch by an injected clock that moves 1 ms a reading, so the
 * report's lines are exact. Refused by name: an address that is no IPv4 address, a
 * port with nothing on it, a server that sends less than asked, a port in use; and the
 * server ends with accept's error when its socket is shut down. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "net/probe.h"

typedef struct server {
	int ls;
	uint16_t port;
	uint64_t fixed;
	int rc;
	pq_diag d;
	pthread_t th;
} server;

static void *serve_main(void *arg)
{
	server *s = arg;
	s->rc = pq_probe_serve_fd(s->ls, s->fixed, &s->d);
	return NULL;
}

/* Listens on 127.0.0.1 (any port), or on every address when `any`. */
static int listen_on(int any, uint16_t *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(any ? INADDR_ANY : INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(ls >= 0);
	assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(ls, 8), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return ls;
}

static void server_start(server *s, uint64_t fixed)
{
	memset(s, 0, sizeof *s);
	s->fixed = fixed;
	s->ls = listen_on(0, &s->port);
	assert_int_equal(pthread_create(&s->th, NULL, serve_main, s), 0);
}

/* Shuts the socket down: the server's accept fails and it returns that error. */
static void server_stop(server *s)
{
	shutdown(s->ls, SHUT_RDWR);
	pthread_join(s->th, NULL);
	close(s->ls);
	assert_int_equal(s->rc, -EINVAL);
	assert_string_equal(pq_diag_msg(&s->d), "accept: Invalid argument");
}

static int64_t ms_a_reading(pq_clock *c)
{
	return c->fake_ns += PQ_NS_PER_MS;
}

static void fetches(void **state)
{
	(void)state;
	server s;
	pq_diag d = {0};
	pq_clock clock = {.now_ns = ms_a_reading};
	int64_t ns = -1;
	server_start(&s, 0);
	assert_int_equal(pq_probe_fetch("127.0.0.1", s.port, 100000, &clock, &ns, &d), 0);
	assert_int_equal(ns, PQ_NS_PER_MS); /* two readings: start and last byte */
	assert_int_equal(pq_probe_fetch("127.0.0.1", s.port, 0, &clock, &ns, &d), 0);

	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(pq_probe_fetch_report("127.0.0.1", s.port, 5000, 3, &clock, out, &d), 0);
	fclose(out);
	/* 5,000 bytes in 1 ms: 40 Mbit/s */
	assert_string_equal(text, "5000 1.000 40.0\n5000 1.000 40.0\n5000 1.000 40.0\n");
	free(text);
	server_stop(&s);
}

static void refused(void **state)
{
	(void)state;
	server s;
	pq_diag d = {0};
	int64_t ns = -1;
	pq_clock clock = {.now_ns = ms_a_reading};
	assert_int_equal(pq_probe_fetch("localhost", 9, 10, &clock, &ns, &d), PQ_EINVAL);
	assert_string_equal(pq_diag_msg(&d), "'localhost' is not an IPv4 address");

	/* a server that sends 1,000 bytes whatever is asked */
	server_start(&s, 1000);
	assert_int_equal(pq_probe_fetch("127.0.0.1", s.port, 1000, &clock, &ns, &d), 0);
	assert_int_equal(pq_probe_fetch("127.0.0.1", s.port, 5000, &clock, &ns, &d), PQ_EIO);
	char want[96];
	snprintf(want, sizeof want, "127.0.0.1:%u closed after 1000 of 5000 bytes", s.port);
	assert_string_equal(pq_diag_msg(&d), want);
	/* the report stops at the first failure, with nothing printed for it */
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(pq_probe_fetch_report("127.0.0.1", s.port, 5000, 3, &clock, out, &d), PQ_EIO);
	fclose(out);
	assert_string_equal(text, "");
	free(text);
	uint16_t port = s.port;
	server_stop(&s);

	/* nothing listens there now */
	assert_int_equal(pq_probe_fetch("127.0.0.1", port, 10, &clock, &ns, &d), -ECONNREFUSED);
	snprintf(want, sizeof want, "connect to 127.0.0.1:%u: %s", port, strerror(ECONNREFUSED));
	assert_string_equal(pq_diag_msg(&d), want);
}

/* A port another socket listens on: refused at once, not served. */
static void port_in_use(void **state)
{
	(void)state;
	pq_diag d = {0};
	uint16_t port;
	int ls = listen_on(1, &port);
	assert_int_equal(pq_probe_serve(port, 0, &d), -EADDRINUSE);
	char want[96];
	snprintf(want, sizeof want, "cannot listen on TCP port %u: %s", port, strerror(EADDRINUSE));
	assert_string_equal(pq_diag_msg(&d), want);
	close(ls);
	/* a socket that is not listening: accept's error at once */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(pq_probe_serve_fd(fd, 0, &d), -EINVAL);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(fetches),
	    cmocka_unit_test(refused),
	    cmocka_unit_test(port_in_use),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
