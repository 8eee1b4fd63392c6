/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP output for kunit52 guest test programs.  A program calls
 * ktap_begin(), prints its cases with ktap_ok()/ktap_skip() (and any
 * "# " diagnostics), then returns ktap_finish(), which prints the plan
 * line first and then everything the program printed: kunit.py's parser
 * wants the plan before the cases.  The exit status is 0 only if no case
 * failed.  /init wraps the output in a subtest.
 */
#ifndef KUNIT52_KTAP_H
#define KUNIT52_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

static int ktap_n, ktap_failed, ktap_stdout = -1;
static FILE *ktap_buf;

/* Hold stdout back until the number of cases is known. */
static inline void ktap_begin(void)
{
	fflush(stdout);
	ktap_buf = tmpfile();
	if (!ktap_buf)
		return;
	ktap_stdout = dup(1);
	dup2(fileno(ktap_buf), 1);
}

static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Report one case; returns @pass so callers can stop early. */
static inline bool ktap_ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d ", pass ? "ok" : "not ok", ++ktap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!pass)
		ktap_failed++;
	return pass;
}

static inline void ktap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++ktap_n, name, why);
	fflush(stdout);
}

static inline int ktap_finish(void)
{
	char line[4096];

	fflush(stdout);
	if (ktap_buf) {
		dup2(ktap_stdout, 1);
		close(ktap_stdout);
	}
	printf("1..%d\n", ktap_n);
	if (ktap_buf) {
		rewind(ktap_buf);
		while (fgets(line, sizeof(line), ktap_buf))
			fputs(line, stdout);
		fclose(ktap_buf);
	}
	fflush(stdout);
	return ktap_failed ? 1 : 0;
}

#endif
