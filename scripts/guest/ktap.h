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
#include <stdlib.h>
#include <sys/wait.h>
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

/*
 * Run @fn(0) .. @fn(@n - 1) at the same time, each in a child process
 * whose cases form a KTAP subtest named @names[i]; then print the
 * subtests in order, each reported as one case of the caller (failed if
 * its child failed or died).  The cases inside must bound their own
 * waits: this waits for every child.
 */
static inline void ktap_parallel(int n, const char *const names[],
				 void (*fn)(int i))
{
	FILE *out[n];
	pid_t pid[n];
	char line[4096];
	int i, status;

	fflush(stdout);
	for (i = 0; i < n; i++) {
		out[i] = tmpfile();
		pid[i] = out[i] ? fork() : -1;
		if (pid[i] == 0) {
			dup2(fileno(out[i]), 1);
			ktap_n = 0;
			ktap_failed = 0;
			ktap_begin();
			fn(i);
			exit(ktap_finish());
		}
	}
	for (i = 0; i < n; i++) {
		bool ok = pid[i] > 0 && waitpid(pid[i], &status, 0) == pid[i] &&
			  WIFEXITED(status) && WEXITSTATUS(status) == 0;

		printf("    KTAP version 1\n    # Subtest: %s\n", names[i]);
		if (out[i]) {
			rewind(out[i]);
			while (fgets(line, sizeof(line), out[i]))
				printf("    %s", line);
			fclose(out[i]);
		}
		if (pid[i] < 0)
			ktap_diag("%s: could not start it", names[i]);
		ktap_ok(ok, "%s", names[i]);
	}
}

#endif
