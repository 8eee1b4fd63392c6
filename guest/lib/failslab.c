// SPDX-License-Identifier: GPL-2.0
/* Allocation failures injected with failslab (failslab.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "failslab.h"
#include "file.h"
#include "ktap.h"

struct knob {
	const char *file, *value;
};

bool failslab_available(void)
{
	return access(FAILSLAB "/require-start", F_OK) == 0;
}

bool ksym_range(const char *fn, unsigned long *start, unsigned long *end)
{
	char line[512], name[256], type;
	unsigned long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	*start = 0;
	*end = ULONG_MAX;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &addr, &type, name) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(name, fn))
			*start = addr;
	rewind(f);
	while (*start && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx", &addr) == 1 && addr > *start &&
		    addr < *end)
			*end = addr;
	fclose(f);
	return *start && *end != ULONG_MAX;
}

/* Write each of @n knobs; false (and why) at the first refusal. */
static bool failslab_set(const struct knob *k, int n)
{
	char path[256];

	for (; n--; k++) {
		snprintf(path, sizeof(path), FAILSLAB "/%s", k->file);
		int err = file_write(path, k->value);

		if (err) {
			ktap_diag("%s <- %s: %s", path, k->value, strerror(err));
			return false;
		}
	}
	return true;
}

/*
 * probability goes to 0 first and to 100 last, so no allocation fails
 * while the filter is half written.  GFP_KERNEL allocations are ignored
 * by default (ignore-gfp-wait); most of the kernel's are.
 */
bool failslab_arm(unsigned long start, unsigned long end)
{
	char from[32], to[32];
	const struct knob arm[] = {
		{ "probability", "0" },
		{ "require-start", from },
		{ "require-end", to },
		{ "ignore-gfp-wait", "N" },
		{ "task-filter", "N" },
		{ "interval", "1" },
		{ "space", "0" },
		{ "verbose", "2" },
		{ "times", "1" },
		{ "probability", "100" },
	};

	snprintf(from, sizeof(from), "%#lx", start);
	snprintf(to, sizeof(to), "%#lx", end);
	return failslab_set(arm, sizeof(arm) / sizeof(arm[0]));
}

bool failslab_disarm(void)
{
	char to[32];
	const struct knob disarm[] = {
		{ "probability", "0" },
		{ "ignore-gfp-wait", "Y" },
		{ "require-start", "0" },
		{ "require-end", to },
	};

	snprintf(to, sizeof(to), "%#lx", ULONG_MAX);
	return failslab_set(disarm, sizeof(disarm) / sizeof(disarm[0]));
}

bool failslab_fired(void)
{
	char buf[32];

	return file_read(FAILSLAB "/times", buf, sizeof(buf)) > 0 && atoi(buf) == 0;
}
