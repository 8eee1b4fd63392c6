// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pressure.h"

void pressure_memory(void)
{
	long page = sysconf(_SC_PAGESIZE), i;

	for (;;) {
		char *p = mmap(NULL, PRESSURE_MEM_TOUCH, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(errno);
		for (i = 0; i < PRESSURE_MEM_TOUCH; i += page)
			p[i] = 1;
		munmap(p, PRESSURE_MEM_TOUCH);
	}
}
