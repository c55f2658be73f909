/* Chromium's DevTools protocol over its pipe, just enough to take one tab through a list
 * of URLs: the browser started with --remote-debugging-pipe reads requests on its fd 3
 * and writes replies and events on its fd 4, each JSON message ended by a NUL.
 * Target.createTarget (about:blank), Target.attachToTarget (flatten: the tab's messages
 * carry its sessionId), Page.enable, then per URL Page.navigate and the tab's
 * Page.loadEventFired; Browser.close when every URL has loaded.
 *
 * Contract: pq_cdp_navigate returns 0 when every URL loaded, in order, or a negative error
 * with a message: PQ_ETIMEOUT when the clock reaches deadline_ns first (a hung browser or
 * pipe), PQ_EPROTO when the browser refuses a command or a navigation fails (the message
 * names the URL and the browser's errorText), PQ_EIO when the pipe closes (the browser
 * died), PQ_ETOOBIG for a message over 4 MiB. *loaded receives the navigations that
 * loaded. wfd and rfd stay the caller's to close; writes to a closed pipe need SIGPIPE
 * ignored (main.c does). */
#ifndef PQ_LOAD_CDP_H
#define PQ_LOAD_CDP_H

#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/err.h"

typedef struct pq_cdp_cfg {
	int wfd, rfd;		 /* the browser's fd 3 (its requests) and fd 4 (its replies), our ends */
	const char *const *urls; /* navigated in order */
	size_t n;
	pq_clock *clock;
	int64_t deadline_ns; /* on clock */
} pq_cdp_cfg;

int pq_cdp_navigate(const pq_cdp_cfg *c, size_t *loaded, pq_diag *d) PQ_MUST_USE;

#endif
