#include "core/clock.h"

#include <time.h>

int64_t pq_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * PQ_NS_PER_S + ts.tv_nsec;
}

static int64_t mono_now(pq_clock *c)
{
	(void)c;
	return pq_mono_ns();
}

static int64_t fake_now(pq_clock *c)
{
	return c->fake_ns;
}

pq_clock pq_clock_mono = {.now_ns = mono_now, .fake_ns = 0};

void pq_clock_fake_init(pq_clock *c, int64_t start_ns)
{
	c->now_ns = fake_now;
	c->fake_ns = start_ns;
}
