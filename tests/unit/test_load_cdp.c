/* load/cdp: a tab taken through two URLs over a fake browser's pipe (its replies written
 * ahead, events before or after their replies, messages of another session between);
 * what the browser is sent; failures: a refused command, a failed navigation, a pipe
 * closed mid-way, a hung browser at the deadline, a message that is not JSON. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "load/cdp.h"

#define M(s) s "\0"
#define START                                                                                \
	M("{\"id\":1,\"result\":{\"targetId\":\"T1\"}}")                                     \
	M("{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"S1\"}}")    \
	M("{\"id\":2,\"result\":{\"sessionId\":\"S1\"}}")                                    \
	M("{\"id\":3,\"sessionId\":\"S1\",\"result\":{}}")
#define LOADED M("{\"method\":\"Page.loadEventFired\",\"sessionId\":\"S1\",\"params\":{}}")

typedef struct fake {
	int req[2], rep[2];
	pq_clock clock;
} fake;

/* A fake browser whose replies (n bytes, NUL-separated messages) are already written. */
static void fake_init(fake *f, const char *replies, size_t n, int close_after)
{
	assert_int_equal(pipe(f->req), 0);
	assert_int_equal(pipe(f->rep), 0);
	assert_int_equal(write(f->rep[1], replies, n), (ssize_t)n);
	if (close_after) {
		close(f->rep[1]);
		f->rep[1] = -1;
	}
	pq_clock_fake_init(&f->clock, 0);
}

static void fake_dispose(fake *f)
{
	for (int i = 0; i < 2; i++) {
		if (f->req[i] >= 0)
			close(f->req[i]);
		if (f->rep[i] >= 0)
			close(f->rep[i]);
	}
}

static int run(fake *f, const char *const *urls, size_t n, size_t *loaded, pq_diag *d)
{
	pq_cdp_cfg c = {.wfd = f->req[1], .rfd = f->rep[0], .urls = urls, .n = n, .clock = &f->clock,
			.deadline_ns = 1000};
	return pq_cdp_navigate(&c, loaded, d);
}

static const char *const two[] = {"https://warm.pqtls.invalid:8443/", "https://10.0.0.2:8443/"};

static void two_navigations(void **state)
{
	(void)state;
	/* the first load event before its navigate's reply, the second after; another
	 * session's load event between does not count */
	static const char replies[] = START LOADED M("{\"id\":4,\"sessionId\":\"S1\",\"result\":{\"frameId\":\"F\"}}")
		M("{\"method\":\"Page.loadEventFired\",\"sessionId\":\"OTHER\",\"params\":{}}")
			M("{\"id\":5,\"sessionId\":\"S1\",\"result\":{\"frameId\":\"F\"}}") LOADED;
	fake f;
	fake_init(&f, replies, sizeof replies - 1, 0);
	size_t loaded = 9;
	pq_diag d = {0};
	assert_int_equal(run(&f, two, 2, &loaded, &d), 0);
	assert_int_equal(loaded, 2);
	char sent[4096];
	ssize_t k = read(f.req[0], sent, sizeof sent - 1);
	assert_true(k > 0);
	for (ssize_t i = 0; i < k; i++) /* NUL-ended messages, joined for the checks */
		sent[i] = sent[i] ? sent[i] : '|';
	sent[k] = '\0';
	assert_non_null(strstr(sent, "{\"id\":1,\"method\":\"Target.createTarget\",\"params\":{\"url\":\"about:blank\"}}|"));
	assert_non_null(strstr(sent, "\"id\":2,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":\"T1\","
				     "\"flatten\":true}}|"));
	assert_non_null(strstr(sent, "{\"id\":4,\"sessionId\":\"S1\",\"method\":\"Page.navigate\",\"params\":{\"url\":"
				     "\"https://warm.pqtls.invalid:8443/\"}}|"));
	assert_non_null(strstr(sent, "\"id\":5,\"sessionId\":\"S1\",\"method\":\"Page.navigate\",\"params\":{\"url\":"
				     "\"https://10.0.0.2:8443/\"}}|"));
	assert_non_null(strstr(sent, "{\"id\":6,\"method\":\"Browser.close\",\"params\":{}}|"));
	fake_dispose(&f);
}

/* One failure: the fake's replies (closed after them when `closed`), the clock at `now`
 * (the deadline is 1000), the URLs; the error, the navigations loaded and the message. */
typedef struct failure {
	const char *replies;
	size_t n;
	int closed;
	int64_t now;
	const char *const *urls;
	size_t nurls;
	int rc;
	size_t loaded;
	const char *msg;
} failure;

static void fails(const failure *x)
{
	fake f;
	fake_init(&f, x->replies, x->n, x->closed);
	f.clock.fake_ns = x->now;
	size_t loaded = 9;
	pq_diag d = {0};
	assert_int_equal(run(&f, x->urls ? x->urls : two, x->urls ? x->nurls : 2, &loaded, &d), x->rc);
	assert_int_equal(loaded, x->loaded);
	if (!strstr(pq_diag_msg(&d), x->msg))
		fail_msg("'%s' does not say '%s'", pq_diag_msg(&d), x->msg);
	fake_dispose(&f);
}

#define REPLIES(s) .replies = s, .n = sizeof s - 1

static void navigation_fails(void **state)
{
	(void)state;
	fails(&(failure){REPLIES(START M("{\"id\":4,\"sessionId\":\"S1\",\"result\":{\"errorText\":\"net::ERR_CONNECTION_"
					 "REFUSED\"}}") LOADED),
			 .rc = PQ_EPROTO,
			 .msg = "the navigation to https://warm.pqtls.invalid:8443/ failed: net::ERR_CONNECTION_REFUSED"});
}

static void command_refused(void **state)
{
	(void)state;
	fails(&(failure){REPLIES(M("{\"id\":1,\"error\":{\"code\":-32000,\"message\":\"Not allowed\"}}")),
			 .rc = PQ_EPROTO, .msg = "the browser refused Target.createTarget: Not allowed"});
}

static void pipe_closes(void **state)
{
	(void)state;
	/* the browser dies during the second navigation */
	fails(&(failure){REPLIES(START LOADED M("{\"id\":4,\"sessionId\":\"S1\",\"result\":{}}")), .closed = 1,
			 .rc = PQ_EIO, .loaded = 1,
			 .msg = "the browser closed it navigating to https://10.0.0.2:8443/"});
}

static void hung_browser(void **state)
{
	(void)state;
	/* it answered up to the first navigation, then nothing; the messages already there
	 * are read though the clock is past the deadline */
	fails(&(failure){REPLIES(START), .now = 1000, .rc = PQ_ETIMEOUT,
			 .msg = "no answer by the deadline navigating to https://warm.pqtls.invalid:8443/"});
}

/* A browser that never answers its first command. */
static void silent_browser(void **state)
{
	(void)state;
	fails(&(failure){.replies = "", .now = 1000, .rc = PQ_ETIMEOUT,
			 .msg = "no answer by the deadline opening its tab"});
}

static void not_json(void **state)
{
	(void)state;
	fails(&(failure){REPLIES(M("{\"id\":1,\"result\":")), .rc = PQ_EPROTO, .msg = "not JSON"});
}

static void unsendable_url(void **state)
{
	(void)state;
	static const char *const bad[] = {"https://x/\"}"};
	fails(&(failure){REPLIES(START), .urls = bad, .nurls = 1, .rc = PQ_EINVAL, .msg = "cannot be sent"});
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* as main.c: a closed pipe is an error, not a signal */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_navigations), cmocka_unit_test(navigation_fails), cmocka_unit_test(command_refused),
		cmocka_unit_test(pipe_closes),	   cmocka_unit_test(hung_browser),     cmocka_unit_test(not_json),
		cmocka_unit_test(unsendable_url), cmocka_unit_test(silent_browser),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
