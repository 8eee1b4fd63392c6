/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output for kunit52's guest test programs.  A program calls
 * ktap_begin(), reports its cases with ktap_ok()/ktap_skip() (and any
 * diagnostics with ktap_diag()), then returns ktap_finish(), which prints
 * the plan line first and then everything the program printed: kunit.py's
 * parser wants the plan before the cases.  The exit status is 0 only if
 * no case failed.  /init wraps each program's output in a subtest.
 */
#ifndef KUNIT52_KTAP_H
#define KUNIT52_KTAP_H

#include <stdbool.h>

void ktap_begin(void);
void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report one case; returns @pass, so callers can stop early. */
bool ktap_ok(bool pass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ktap_skip(const char *name, const char *why);
int ktap_finish(void);

/*
 * Run @fn(0) .. @fn(@n - 1) at the same time, each in a child process
 * whose cases form a KTAP subtest named @names[i]; then print the
 * subtests in order, each reported as one case of the caller (failed if
 * its child failed or died).  The cases inside must bound their own
 * waits: this waits for every child.
 */
void ktap_parallel(int n, const char *const names[], void (*fn)(int i));

/*
 * Print @out, the TAP output of another program (a kernel selftest), as
 * a subtest named @name: its own "TAP version" line dropped, the rest
 * indented, and a result without a description (kselftest's "ok 3 # SKIP
 * reason", which kunit.py cannot parse) given the text of the diagnostic
 * line before it.  Then report it as one case of the caller, passed if
 * @pass.  Returns @pass.
 */
bool ktap_subtest_output(const char *name, const char *out, bool pass);

#endif
