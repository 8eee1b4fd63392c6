// SPDX-License-Identifier: GPL-2.0
/* lib/test_vmalloc.c's module for the guest test programs (test_vmalloc.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test_vmalloc.h"

const char *const test_vmalloc_tests[TEST_VMALLOC_NR_TESTS] = {
	"fix_size_alloc_test", "full_fit_alloc_test", "long_busy_list_alloc_test",
	"random_size_alloc_test", "fix_align_alloc_test", "random_size_align_alloc_test",
	"align_shift_alloc_test", "pcpu_alloc_test", "kvfree_rcu_1_arg_vmalloc_test",
	"kvfree_rcu_2_arg_vmalloc_test", "vm_map_ram_test",
};

int test_vmalloc_index(const char *name)
{
	int i;

	for (i = 0; i < TEST_VMALLOC_NR_TESTS; i++)
		if (!strcmp(test_vmalloc_tests[i], name))
			return i;
	return -1;
}

bool test_vmalloc_available(void)
{
	return !access(TEST_VMALLOC_MODULE, R_OK);
}

int test_vmalloc_run(const char *params)
{
	int fd, ret, err;

	fd = open(TEST_VMALLOC_MODULE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ret = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	close(fd);
	if (ret == 0)
		return -1;
	return err == EAGAIN ? 0 : err;
}

bool test_vmalloc_summary(const char *line, struct test_vmalloc_summary *s)
{
	const char *p = strstr(line, "Summary: ");

	return p && sscanf(p, "Summary: %63s passed: %d failed: %d repeat: %d loops: %d avg: %llu usec",
			   s->name, &s->passed, &s->failed, &s->repeat, &s->loops,
			   &s->avg_usec) == 6;
}

bool test_vmalloc_as_designed(const struct test_vmalloc_summary *s)
{
	if (!strcmp(s->name, TEST_VMALLOC_EXPECTED_TO_FAIL))
		return s->passed == 0 && s->failed > 0;
	return s->failed == 0 && s->passed > 0;
}
