/* Linux's retransmission clocks (model/rtt.h). */
#include "model/rtt.h"

#include <math.h>

#define TLP_MIN_MS 2.0 /* TCP_TIMEOUT_MIN_US */

static void set_rto(pq_rtt *e)
{
	e->rto = fmin(e->srtt + e->rttvar, PQ_RTT_MAX_RTO_MS);
}

void pq_rtt_sample(pq_rtt *e, double m, int round_over)
{
	e->min_rtt = e->srtt > 0 && e->min_rtt < m ? e->min_rtt : m;
	if (e->srtt <= 0) {
		e->srtt = m;
		e->mdev = 2 * m; /* "make sure rto = 3*rtt" */
		e->rttvar = fmax(e->mdev, PQ_RTT_MIN_RTO_MS);
		e->mdev_max = e->rttvar;
		set_rto(e);
		return;
	}
	double err = m - e->srtt;
	e->srtt += err / 8;
	if (err < 0) {
		/* a falling RTT moves the deviation with an eighth of the gain (Linux's answer
		 * to Eifel: the RTO neither grows nor drops fast when the RTT falls) */
		err = -err - e->mdev / 4;
		if (err > 0)
			err /= 8;
	} else {
		err -= e->mdev / 4;
	}
	e->mdev += err;
	if (e->mdev > e->mdev_max) {
		e->mdev_max = e->mdev;
		if (e->mdev_max > e->rttvar)
			e->rttvar = e->mdev_max;
	}
	if (round_over) {
		if (e->mdev_max < e->rttvar)
			e->rttvar -= (e->rttvar - e->mdev_max) / 4;
		e->mdev_max = PQ_RTT_MIN_RTO_MS;
	}
	set_rto(e);
}

void pq_rtt_backoff(pq_rtt *e)
{
	e->rto = fmin(2 * e->rto, PQ_RTT_MAX_RTO_MS);
}

double pq_rtt_pto(const pq_rtt *e, unsigned out)
{
	if (e->srtt <= 0)
		return 1000.0; /* TCP_TIMEOUT_INIT */
	return 2 * e->srtt + (out == 1 ? PQ_RTT_MIN_RTO_MS : TLP_MIN_MS);
}

double pq_rtt_fire(double now, double delay, double phase)
{
	double j = floor((now + phase) / PQ_RTT_JIFFY_MS);
	double d = ceil(delay / PQ_RTT_JIFFY_MS - 1e-9);
	if (d < 1)
		d = 1;
	double gran = d < 63 ? 1 : d < 504 ? 8 : d < 4032 ? 64 : 512;
	return (floor((j + d) / gran) + 1) * gran * PQ_RTT_JIFFY_MS - phase;
}
