#include "server/fdlimit.h"

#include <sys/resource.h>

uint64_t pq_fdlimit_raise(uint64_t need)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rlim_t want = rl.rlim_max == RLIM_INFINITY || need < rl.rlim_max ? need : rl.rlim_max;
		struct rlimit nl = {want, rl.rlim_max};
		if (setrlimit(RLIMIT_NOFILE, &nl) == 0)
			rl.rlim_cur = want;
	}
	return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
}
