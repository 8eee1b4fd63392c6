/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lib/test_vmalloc.c, the kernel's vmalloc test driver, loaded by the
 * guest test programs (vmalloc_perf_test, vmalloc_stress_test).  Its
 * init runs every test on its worker threads, logs one "Summary:" line per
 * worker and test, and fails with -EAGAIN by design, so nothing stays
 * loaded.  Only the kernels whose configuration builds it as a module
 * (the bench and debug variants) put it in the initramfs.
 */
#ifndef KUNIT52_TEST_VMALLOC_H
#define KUNIT52_TEST_VMALLOC_H

#include <stdbool.h>

#define TEST_VMALLOC_MODULE	"/lib/modules/test_vmalloc.ko"
#define TEST_VMALLOC_MISSING	"no " TEST_VMALLOC_MODULE " in this initramfs " \
	"(CONFIG_TEST_VMALLOC=m: make bench, make hardened)"
#define TEST_VMALLOC_NR_TESTS	11	/* test_case_array[] in lib/test_vmalloc.c */
/* "This test case is supposed to be failed": alignments up to 1 << 63. */
#define TEST_VMALLOC_EXPECTED_TO_FAIL	"align_shift_alloc_test"

/*
 * long_busy_list_alloc_test keeps 15,000 one-page areas (with their guard
 * pages, 117 MiB) in vmalloc space at once: more than a 32-bit kernel
 * has (75 MiB on 32-bit PowerPC here), so it fails there for want of
 * address space.  Its run_test_mask bit, and the mask of every test.
 */
#define TEST_VMALLOC_NEEDS_64BIT	"long_busy_list_alloc_test"
#define TEST_VMALLOC_NEEDS_64BIT_BIT	4
#define TEST_VMALLOC_ALL_MASK		((1 << TEST_VMALLOC_NR_TESTS) - 1)
#define TEST_VMALLOC_NEEDS_64BIT_WHY	"keeps 117 MiB of vmalloc space at once: " \
	"more than a 32-bit kernel has"

/* The tests' names, in the order of test_case_array[]. */
extern const char *const test_vmalloc_tests[TEST_VMALLOC_NR_TESTS];
/* The index of the test called @name in test_vmalloc_tests[], or -1. */
int test_vmalloc_index(const char *name);

/* One "Summary:" line: one worker's results for one test. */
struct test_vmalloc_summary {
	char name[64];
	int passed, failed, repeat, loops;
	unsigned long long avg_usec;
};

/* Is the module in this initramfs? */
bool test_vmalloc_available(void);
/*
 * Load the module with @params; its init runs the tests and returns.  0
 * if it ran (finit_module failed with EAGAIN, as designed), else the
 * errno (or -1 if finit_module returned 0).
 */
int test_vmalloc_run(const char *params);
/* Parse a kernel log line holding a "Summary:" into @s. */
bool test_vmalloc_summary(const char *line, struct test_vmalloc_summary *s);
/* Did @s go as its test is designed to (align_shift_alloc_test fails)? */
bool test_vmalloc_as_designed(const struct test_vmalloc_summary *s);

#endif
