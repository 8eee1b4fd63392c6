// SPDX-License-Identifier: GPL-2.0
/* Time and bounded waits (wait.h). */
#include <errno.h>
#include <time.h>

#include "ktap.h"
#include "wait.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool wait_until(wait_check_fn check, void *arg, double limit, double interval,
		const char *what)
{
	double end = now_s() + limit;

	for (;;) {
		switch (check(arg)) {
		case WAIT_DONE:
			return true;
		case WAIT_FAILED:
			return false;
		case WAIT_AGAIN:
			break;
		}
		if (now_s() >= end)
			break;
		sleep_s(interval);
	}
	if (what)
		ktap_diag("timed out after %.1f s waiting for %s", limit, what);
	return false;
}
