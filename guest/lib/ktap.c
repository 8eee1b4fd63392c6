// SPDX-License-Identifier: GPL-2.0
/* KTAP output for the guest test programs (ktap.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"

#define KTAP_LINE_MAX	4096

static int ktap_n, ktap_failed, ktap_stdout = -1;
static FILE *ktap_buf;

/* Copy what @f holds to stdout, each line after @indent. */
static void copy_lines(FILE *f, const char *indent)
{
	char line[KTAP_LINE_MAX];

	rewind(f);
	while (fgets(line, sizeof(line), f))
		printf("%s%s", indent, line);
}

/* Hold stdout back until the number of cases is known. */
void ktap_begin(void)
{
	fflush(stdout);
	ktap_buf = tmpfile();
	if (!ktap_buf)
		return;
	ktap_stdout = dup(1);
	dup2(fileno(ktap_buf), 1);
}

void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

bool ktap_ok(bool pass, const char *fmt, ...)
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

void ktap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++ktap_n, name, why);
	fflush(stdout);
}

int ktap_finish(void)
{
	fflush(stdout);
	if (ktap_buf) {
		dup2(ktap_stdout, 1);
		close(ktap_stdout);
	}
	printf("1..%d\n", ktap_n);
	if (ktap_buf) {
		copy_lines(ktap_buf, "");
		fclose(ktap_buf);
		ktap_buf = NULL;
	}
	fflush(stdout);
	return ktap_failed ? 1 : 0;
}

void ktap_parallel(int n, const char *const names[], void (*fn)(int i))
{
	FILE *out[n];
	pid_t pid[n];
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
			copy_lines(out[i], "    ");
			fclose(out[i]);
		}
		if (pid[i] < 0)
			ktap_diag("%s: could not start it", names[i]);
		ktap_ok(ok, "%s", names[i]);
	}
}

/* Is @line a TAP or KTAP version line ("TAP version 13", "KTAP version 1")? */
static bool is_version_line(const char *line, size_t len)
{
	int n = 0;

	if (len && line[0] == 'K') {
		line++;
		len--;
	}
	return len > 12 && !strncmp(line, "TAP version ", 12) &&
	       sscanf(line + 12, "%*d%n", &n) == 0 && n == (int)len - 12;
}

/*
 * If @line is a result without a description, as kselftest prints a skip
 * ("ok 3 # SKIP reason"), the offset of its "#"; else 0.
 */
static size_t nameless_result(const char *line, size_t len)
{
	size_t i;

	if (len > 3 && !strncmp(line, "ok ", 3))
		i = 3;
	else if (len > 7 && !strncmp(line, "not ok ", 7))
		i = 7;
	else
		return 0;
	if (!isdigit((unsigned char)line[i]))
		return 0;
	while (i < len && isdigit((unsigned char)line[i]))
		i++;
	return len - i >= 2 && line[i] == ' ' && line[i + 1] == '#' ? i + 1 : 0;
}

bool ktap_subtest_output(const char *name, const char *out, bool pass)
{
	const char *line = out, *end, *diag = NULL;
	size_t len, diag_len = 0, hash;

	printf("    KTAP version 1\n    # Subtest: %s\n", name);
	for (; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		len = end - line;
		if (is_version_line(line, len))
			continue;
		hash = nameless_result(line, len);
		if (hash && diag)
			printf("    %.*s%.*s %.*s\n", (int)hash, line, (int)diag_len, diag,
			       (int)(len - hash), line + hash);
		else
			printf("    %.*s\n", (int)len, line);
		if (len > 2 && !strncmp(line, "# ", 2)) {
			diag = line + 2;
			diag_len = len - 2;
		}
	}
	return ktap_ok(pass, "%s", name);
}
