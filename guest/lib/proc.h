/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Child processes with a time limit, for the guest test programs.
 * Errors are positive errno values (0: success), as everywhere in
 * guest/lib; a time limit that passed is ETIME.
 */
#ifndef KUNIT52_PROC_H
#define KUNIT52_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How often a wait for a child looks at it, in seconds. */
#define PROC_POLL_S	0.02
/* How long a child may take to die after SIGKILL, in seconds. */
#define PROC_KILL_LIMIT_S	5

/*
 * Wait up to @limit seconds for child @pid to end: 0 and its wait status
 * in *@status, or ETIME (it is left running; @what, unless NULL, says
 * what was waited for, as wait_until() does).
 */
int proc_wait(pid_t pid, double limit, int *status, const char *what);
/* Kill child @pid and reap it (bounded). */
void proc_kill(pid_t pid);
/* proc_wait(), and kill the child if it ran out of time. */
int proc_wait_or_kill(pid_t pid, double limit, int *status, const char *what);
/* A wait status as one number: the exit code, or 128 + the signal. */
int proc_exit_code(int status);

/*
 * Run @fn(@arg) in a child process with a time limit: its return value
 * (0..255, e.g. an errno), 128 + the signal that killed it, or -1 if it
 * could not start or ran out of time (it is then killed; @what says
 * what was waited for).  For cases that change the child's credentials.
 */
int proc_call(int (*fn)(void *arg), void *arg, double limit, const char *what);

/*
 * Run argv (searched in PATH) with a time limit, its stdout and stderr
 * in @out (without trailing newlines).  Returns its exit code (128 +
 * signal if it died), or -1 if it could not run or ran out of time (it
 * is then killed, and a diagnostic says so).
 */
int run(double limit, const char *const argv[], char *out, size_t size);
/* run(), true if it exited 0; otherwise a diagnostic shows its output. */
bool run_ok(double limit, const char *const argv[], char *out, size_t size);

#endif
