// SPDX-License-Identifier: GPL-2.0
/*
 * lib/test_vmalloc.c, the driver the 5.2 vmalloc rework was measured with,
 * run the way tools/testing/selftests/mm/test_vmalloc.sh runs its
 * "performance" mode: every test case on one worker thread, in sequential
 * order, repeated three times.  The module's init always fails (-EAGAIN)
 * and the script exits 0 whatever happened, so the verdict comes from
 * the "Summary: <test> passed: N failed: M ..." lines in the kernel log:
 * one KTAP case per test, ok when it passed at least once and never
 * failed; align_shift_alloc_test is designed to fail (it asks for every
 * alignment up to 1 << 63) and is ok when it failed every time.  "# perf <test> <usec>" lines carry the average time per test
 * for scripts/bench.sh.  Only "make bench" puts the module in the
 * initramfs; without it the case is skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"

#define MODULE		"/lib/modules/test_vmalloc.ko"
#define NR_TESTS	11	/* test_case_array[] in lib/test_vmalloc.c */
/* "This test case is supposed to be failed": alignments up to 1 << 63. */
#define EXPECTED_TO_FAIL	"align_shift_alloc_test"
/* Loops per test: kunit52.vmalloc_loops=N on the kernel command line. */
#define LOOPS_PARAM	"kunit52.vmalloc_loops"
#define DEFAULT_LOOPS	10000	/* a few seconds per test under TCG */

static char klog[1 << 20];

int main(void)
{
	char params[256], name[64], *line, *save;
	int fd, ret, err, seen = 0, passed, failed, repeat, loops;
	unsigned long long avg;
	long nloops = cmdline_long(LOOPS_PARAM, DEFAULT_LOOPS);

	ktap_begin();
	fd = open(MODULE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ktap_skip("test_vmalloc", "no " MODULE " in this initramfs (make bench builds it)");
		return ktap_finish();
	}
	snprintf(params, sizeof(params),
		 "sequential_test_order=1 test_repeat_count=3 test_loop_count=%ld",
		 nloops);
	ktap_diag("finit_module(test_vmalloc, \"%s\")", params);
	ret = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	close(fd);
	/* test_vmalloc's init returns -EAGAIN by design: nothing stays loaded. */
	if (!ktap_ok(ret == -1 && err == EAGAIN, "test_vmalloc loads, runs and unloads (%s)",
		     ret ? strerror(err) : "returned 0"))
		return ktap_finish();

	klog_read(klog, sizeof(klog), false);
	if (!ktap_ok(klog[0], "read the kernel log"))
		return ktap_finish();
	for (line = strtok_r(klog, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *s = strstr(line, "Summary: ");

		if (!s || sscanf(s, "Summary: %63s passed: %d failed: %d repeat: %d loops: %d avg: %llu usec",
				 name, &passed, &failed, &repeat, &loops, &avg) != 6)
			continue;
		seen++;
		ktap_diag("perf %s %llu", name, avg);
		if (!strcmp(name, EXPECTED_TO_FAIL)) {
			ktap_ok(passed == 0 && failed > 0,
				"%s fails as designed: passed %d, failed %d",
				name, passed, failed);
			continue;
		}
		ktap_ok(failed == 0 && passed > 0,
			"%s: passed %d, failed %d, %d loops, avg %llu usec",
			name, passed, failed, loops, avg);
	}
	ktap_ok(seen == NR_TESTS, "every test reported a summary (%d of %d)",
		seen, NR_TESTS);
	return ktap_finish();
}
