/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time and bounded waits for the guest test programs: one clock (the
 * monotonic one, in seconds) and one wait-until-deadline loop, which says
 * what it waited for when the deadline passes.
 */
#ifndef KUNIT52_WAIT_H
#define KUNIT52_WAIT_H

#include <stdbool.h>

/* What a wait_until() check found. */
enum wait_result {
	WAIT_AGAIN,	/* not yet: check again after the interval */
	WAIT_DONE,	/* what was waited for happened */
	WAIT_FAILED,	/* it cannot happen any more (the check said why) */
};

typedef enum wait_result (*wait_check_fn)(void *arg);

/* CLOCK_MONOTONIC, in seconds. */
double now_s(void);
/* Sleep @s seconds (resumed after signals). */
void sleep_s(double s);

/*
 * Call @check(@arg) at once and then every @interval seconds until it
 * returns WAIT_DONE (true) or WAIT_FAILED (false), or until @limit seconds
 * have passed (false; then one diagnostic says "timed out after L s
 * waiting for @what").  @what is NULL where the caller expects the
 * timeout (a negative check) and reports it itself.
 */
bool wait_until(wait_check_fn check, void *arg, double limit, double interval,
		const char *what);

#endif
