// SPDX-License-Identifier: GPL-2.0
/*
 * lib/test_vmalloc.c, the driver the 5.2 vmalloc rework was measured with,
 * run the way tools/testing/selftests/mm/test_vmalloc.sh runs its
 * "performance" mode: every test case on one worker thread, in sequential
 * order, repeated three times.  The module's init always fails (-EAGAIN)
 * and the script exits 0 whatever happened, so the verdict comes from
 * the "Summary: <test> passed: N failed: M ..." lines in the kernel log:
 * one KTAP case per test, ok when it went as designed (lib/test_vmalloc.h).
 * "# perf <test> <usec>" lines carry the average time per test for
 * scripts/bench.sh.  Runs only under make bench, which names the loop
 * count on the kernel command line; the hardened kernel's module is
 * vmalloc_stress_test's.
 */
#include <stdio.h>
#include <string.h>

#include "file.h"
#include "ktap.h"
#include "test_vmalloc.h"

/* Loops per test: kunit52.vmalloc_loops=N on the kernel command line (make bench). */
#define LOOPS_PARAM	"kunit52.vmalloc_loops"

static char klog[1 << 20];

int main(void)
{
	struct test_vmalloc_summary s;
	char params[256], *line, *save;
	long nloops = cmdline_long(LOOPS_PARAM, -1);
	int err, seen = 0, expected = TEST_VMALLOC_NR_TESTS;
	int mask = TEST_VMALLOC_ALL_MASK;

	ktap_begin();
	if (nloops < 0) {
		ktap_skip("test_vmalloc performance", "not a make bench boot (no " LOOPS_PARAM "=N)");
		return ktap_finish();
	}
	if (!test_vmalloc_available()) {
		ktap_skip("test_vmalloc performance", TEST_VMALLOC_MISSING);
		return ktap_finish();
	}
	/* The guest's word size is the kernel's. */
	if (sizeof(long) == 4) {
		ktap_skip(TEST_VMALLOC_NEEDS_64BIT, TEST_VMALLOC_NEEDS_64BIT_WHY);
		expected--;
		mask &= ~TEST_VMALLOC_NEEDS_64BIT_BIT;
	}
	snprintf(params, sizeof(params),
		 "sequential_test_order=1 test_repeat_count=3 test_loop_count=%ld run_test_mask=%d",
		 nloops, mask);
	ktap_diag("finit_module(test_vmalloc, \"%s\")", params);
	err = test_vmalloc_run(params);
	if (!ktap_ok(!err, "test_vmalloc loads, runs and unloads (%s)",
		     err > 0 ? strerror(err) : err ? "returned 0" : "EAGAIN, as designed"))
		return ktap_finish();

	klog_read(klog, sizeof(klog), false);
	if (!ktap_ok(klog[0], "read the kernel log"))
		return ktap_finish();
	for (line = strtok_r(klog, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!test_vmalloc_summary(line, &s))
			continue;
		seen++;
		ktap_diag("perf %s %llu", s.name, s.avg_usec);
		ktap_ok(test_vmalloc_as_designed(&s),
			"%s%s: passed %d, failed %d, %d loops, avg %llu usec", s.name,
			strcmp(s.name, TEST_VMALLOC_EXPECTED_TO_FAIL) ? "" : " fails as designed",
			s.passed, s.failed, s.loops, s.avg_usec);
	}
	ktap_ok(seen == expected, "every test run reported a summary (%d of %d)",
		seen, expected);
	return ktap_finish();
}
