// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/slab_allocators is gone (removed in Linux 5.2, with SLAB's leak
 * detector), /proc/slabinfo stays, and what replaced it for finding
 * allocation sites works: with slab_debug=U for a cache (the boot of
 * scripts/system.sh sets it for "filp"), debugfs's
 * slab/<cache>/alloc_traces and free_traces (mm/slub.c) list the call
 * sites of the objects this test allocates and frees: files opened in
 * alloc_empty_file() and freed by close(2) (whose __fput_sync() is
 * inlined into the syscall).  free_traces lists, for the objects now
 * allocated, where their previous life ended (Documentation/mm/slub.rst),
 * so the test reopens as many files as it closed.  Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"

#define CACHE		"filp"
#define TRACES		"/sys/kernel/debug/slab/" CACHE
#define STORE_USER	"/sys/kernel/slab/" CACHE "/store_user"
/*
 * Where struct file is allocated, and where close(2) frees it: the
 * caller of kmem_cache_free() the compiler kept out of line.  gcc inlines
 * __fput_sync() and __fput() into the syscall (__x64_sys_close,
 * __arm64_sys_close: a syscall's wrappers prefix its name); Clang keeps
 * __fput() a function of its own.
 */
#define ALLOC_SITE	"alloc_empty_file"
static const char *const free_sites[] = { "sys_close", "__fput", NULL };
/*
 * Files this test opens at once; it closes every other one, so that no
 * slab empties (SLUB gives empty slabs back), then opens as many again,
 * which take the freed objects.
 */
#define N_FILES		512
#define N_CLOSED	(N_FILES / 2)
/*
 * KFENCE (the hardened kernel) may serve a few of them, one per sample
 * interval; its objects are not in the traces.
 */
#define KFENCE_SLACK	16
#define TRACES_MAX	(256 * 1024)
/* KASAN's quarantine (the hardened kernel) frees objects late. */
#define QUARANTINE_SYM	"kasan_quarantine_reduce"

static char traces[TRACES_MAX];

/*
 * Is @name ("FUNCTION+OFF/LEN") in one of @sites: FUNCTION is a site, or
 * ends with "_SITE" for a site that does not start with '_'?
 */
static bool site_is(const char *name, const char *const *sites)
{
	size_t fn = strcspn(name, "+"), n;

	for (; *sites; sites++) {
		n = strlen(*sites);
		if (fn == n && !strncmp(name, *sites, n))
			return true;
		if (**sites != '_' && fn > n && name[fn - n - 1] == '_' &&
		    !strncmp(name + fn - n, *sites, n))
			return true;
	}
	return false;
}

/*
 * The objects counted in @file's lines for the call sites @sites whose
 * pid range holds @pid, or -1 if there is none.  A line reads
 * "  COUNT SITE+OFF/LEN age=... pid=MIN[-MAX] cpus=...".
 */
static long site_count(const char *file, const char *const *sites, pid_t pid)
{
	char *line, *save = NULL;
	long total = -1;

	if (file_read(file, traces, sizeof(traces)) < 0) {
		ktap_diag("%s: %s", file, strerror(errno));
		return -1;
	}
	for (line = strtok_r(traces, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long count, lo, hi;
		char *p = strstr(line, " pid=");
		char name[128];

		if (sscanf(line, "%ld %127s", &count, name) != 2 ||
		    !site_is(name, sites) || !p)
			continue;
		if (sscanf(p, " pid=%ld-%ld", &lo, &hi) != 2)
			hi = lo;
		if (lo <= pid && pid <= hi)
			total = (total < 0 ? 0 : total) + count;
	}
	return total;
}

/* Is @sym a kernel symbol (/proc/kallsyms)? */
static bool kernel_has_symbol(const char *sym)
{
	char line[256], name[200];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %199s", name) == 1 && !strcmp(name, sym);
	if (f)
		fclose(f);
	return found;
}

static void test_gone(void)
{
	bool gone = access("/proc/slab_allocators", F_OK) && errno == ENOENT;

	ktap_ok(gone, "proc_slab_allocators_gone");
}

static void test_slabinfo(void)
{
	static char buf[TRACES_MAX];
	bool ok = file_read("/proc/slabinfo", buf, sizeof(buf)) > 0 &&
		  !strncmp(buf, "slabinfo - version: 2.1\n", 24) &&
		  strstr(buf, "\n" CACHE " ");

	if (!ok)
		ktap_diag("/proc/slabinfo has no version 2.1 header or no " CACHE " line");
	ktap_ok(ok, "proc_slabinfo_lists_" CACHE);
}

static void test_traces(void)
{
	char buf[16];
	int fds[N_FILES], again[N_CLOSED], i, n = 0;
	long a0, a1, f0, f1;
	pid_t me = getpid();
	static const char *const alloc_sites[] = { ALLOC_SITE, NULL };

	if (file_read(STORE_USER, buf, sizeof(buf)) < 0 || atoi(buf) != 1) {
		ktap_diag(STORE_USER " is not 1: boot with slab_debug=U," CACHE);
		ktap_ok(false, "alloc_traces_list_the_site");
		ktap_ok(false, "free_traces_list_the_site");
		return;
	}
	a0 = site_count(TRACES "/alloc_traces", alloc_sites, me);
	for (i = 0; i < N_FILES; i++) {
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		n += fds[i] >= 0;
	}
	a1 = site_count(TRACES "/alloc_traces", alloc_sites, me);
	f0 = site_count(TRACES "/free_traces", free_sites, me);
	for (i = 0; i < N_FILES; i += 2)
		if (fds[i] >= 0)
			close(fds[i]);
	for (i = 0; i < N_CLOSED; i++)
		again[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	f1 = site_count(TRACES "/free_traces", free_sites, me);
	for (i = 1; i < N_FILES; i += 2)
		if (fds[i] >= 0)
			close(fds[i]);
	for (i = 0; i < N_CLOSED; i++)
		if (again[i] >= 0)
			close(again[i]);
	ktap_diag("%d files opened, %d closed and reopened: " ALLOC_SITE
		  " %ld -> %ld live objects, close(2)'s free site %ld -> %ld of them freed there before (pid %d)",
		  n, N_CLOSED, a0, a1, f0, f1, me);
	/*
	 * Under KASAN, objects freed before a0 that sit in its quarantine
	 * still count as live, and leave it while the test opens: only the
	 * total, which holds the test's files, is reliable.
	 */
	ktap_ok(n == N_FILES && a1 >= N_FILES - KFENCE_SLACK,
		"alloc_traces_list_the_site");
	if (kernel_has_symbol(QUARANTINE_SYM)) {
		ktap_skip("free_traces_list_the_site",
			  "KASAN's quarantine frees the objects later, from qlist_free_all(): "
			  "close(2) is not their free site here");
		return;
	}
	/*
	 * The other lane's processes close files meanwhile, and a reopened
	 * file may take a slot someone else freed: the total is what counts.
	 */
	if (!ktap_ok(f1 >= N_CLOSED - KFENCE_SLACK,
		     "free_traces_list_the_site") &&
	    file_read(TRACES "/free_traces", traces, sizeof(traces)) >= 0)
		ktap_diag("free_traces: %s", oneline(traces));
}

int main(void)
{
	ktap_begin();
	test_gone();
	test_slabinfo();
	test_traces();
	return ktap_finish();
}
