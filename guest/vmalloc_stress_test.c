// SPDX-License-Identifier: GPL-2.0
/*
 * lib/test_vmalloc.c in stress mode, as tools/testing/selftests/mm/
 * test_vmalloc.sh's "stress" runs it, on the hardened kernel (KASAN,
 * UBSAN, lockdep, kmemleak: kunitconfigs/variants/debug builds the
 * module): every test on more worker threads than the guest has CPUs,
 * each worker in its own random order.  The kernel draws the orders
 * (test_vmalloc has no seed parameter), so a run is replayed by its
 * parameters, which are printed: kunit52.vmalloc_stress_threads=N and
 * kunit52.vmalloc_stress_loops=N on the kernel command line set them
 * (make soak passes a long run).
 *
 * Verdict: every worker logs one "Summary:" line per test; each test is
 * one KTAP case, ok when every worker reported it and it went as designed
 * on each.  A sanitizer's report on the console fails the boot
 * (scripts/lib.sh), and /init's kmemleak scan after the tests covers what
 * the run allocated.  A run past its time limit fails and prints the
 * workers still running with their kernel stacks.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"
#include "proc.h"
#include "test_vmalloc.h"
#include "wait.h"

#define THREADS_PARAM	"kunit52.vmalloc_stress_threads"
#define LOOPS_PARAM	"kunit52.vmalloc_stress_loops"
#define LIMIT_PARAM	"kunit52.vmalloc_stress_limit"
/* Workers beyond the online CPUs, so that they preempt each other. */
#define EXTRA_THREADS	2
/*
 * make test's short run: 168 to 247 s on the hardened arm64 kernel under
 * TCG on a 2-core host (five runs, the run alone on the machine).
 */
#define DEFAULT_LOOPS	100
/* /init's limit for one test, s, unless the kernel command line says. */
#define TIMEOUT_PARAM	"kunit52.timeout"
#define DEFAULT_TIMEOUT	300
/*
 * The run's default limit is /init's for the test less this much, s:
 * time to stop the workers, print their stacks and tally the log before
 * /init gives up on the test (scripts/system.sh doubles /init's limit on
 * the hardened kernel: 600 s).
 */
#define STOP_MARGIN	60
#define WORKER_COMM	"vmalloc_test/"
/* Written to the kernel log before the run: its summaries follow it. */
#define MARKER		"kunit52: vmalloc_stress_test run starts"

static char klog[1 << 20];
static char params[256];

/* A test's results over all workers. */
struct tally {
	int workers, as_designed, passed, failed;
};

/* run_module()'s exit code when the module's init returned 0 (no errno). */
#define STAYED_LOADED	255

static int run_module(void *arg)
{
	int err = test_vmalloc_run(arg);

	return err < 0 ? STAYED_LOADED : err;
}

/* The workers still alive, each with its kernel stack: the run's progress. */
static void show_workers(void)
{
	char path[300], comm[64], stack[4096];
	struct dirent *d;
	DIR *proc = opendir("/proc");
	int n = 0;

	while (proc && (d = readdir(proc))) {
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		if (file_read(path, comm, sizeof(comm)) < 0 ||
		    strncmp(comm, WORKER_COMM, strlen(WORKER_COMM)))
			continue;
		n++;
		snprintf(path, sizeof(path), "/proc/%s/stack", d->d_name);
		if (file_read(path, stack, sizeof(stack)) < 0)
			snprintf(stack, sizeof(stack), "(no %s)", path);
		ktap_diag("still running: %s (pid %s): %s", chomp(comm), d->d_name, oneline(stack));
	}
	if (proc)
		closedir(proc);
	ktap_diag("%d worker(s) still running", n);
}

/* Add up the summaries logged after the last MARKER; how many there were. */
static int tally_log(struct tally t[TEST_VMALLOC_NR_TESTS])
{
	struct test_vmalloc_summary s;
	char *line, *save, *start = klog, *p;
	int i, seen = 0;

	klog_read(klog, sizeof(klog), false);
	for (p = strstr(klog, MARKER); p; p = strstr(p + 1, MARKER))
		start = p;
	for (line = strtok_r(start, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!test_vmalloc_summary(line, &s))
			continue;
		seen++;
		i = test_vmalloc_index(s.name);
		if (i < 0) {
			ktap_diag("a summary of a test this program does not know: %s", s.name);
			continue;
		}
		t[i].workers++;
		t[i].as_designed += test_vmalloc_as_designed(&s);
		t[i].passed += s.passed;
		t[i].failed += s.failed;
	}
	return seen;
}

int main(void)
{
	struct tally t[TEST_VMALLOC_NR_TESTS] = { 0 };
	long threads = cmdline_long(THREADS_PARAM, sysconf(_SC_NPROCESSORS_ONLN) + EXTRA_THREADS);
	long loops = cmdline_long(LOOPS_PARAM, DEFAULT_LOOPS);
	long limit = cmdline_long(LIMIT_PARAM,
				  cmdline_long(TIMEOUT_PARAM, DEFAULT_TIMEOUT) - STOP_MARGIN);
	double t0;
	int i, rc, seen;

	ktap_begin();
	if (!test_vmalloc_available()) {
		ktap_skip("test_vmalloc stress", TEST_VMALLOC_MISSING);
		return ktap_finish();
	}
	snprintf(params, sizeof(params),
		 "nr_threads=%ld test_loop_count=%ld test_repeat_count=1 sequential_test_order=0",
		 threads, loops);
	ktap_diag("finit_module(test_vmalloc, \"%s\"): all tests, %ld CPUs online",
		  params, sysconf(_SC_NPROCESSORS_ONLN));
	ktap_diag("replay: %s=%ld %s=%ld on the kernel command line", THREADS_PARAM, threads,
		  LOOPS_PARAM, loops);
	file_write("/dev/kmsg", MARKER "\n");
	t0 = now_s();
	rc = proc_call(run_module, params, limit, "test_vmalloc's stress run");
	if (rc < 0)
		show_workers();
	if (!ktap_ok(rc == 0, "test_vmalloc stress run ends within %ld s (%.0f s; %s)", limit,
		     now_s() - t0, rc < 0 ? "timed out" :
		     rc == STAYED_LOADED ? "its init returned 0: the module stayed loaded" :
		     rc ? strerror(rc) : "EAGAIN, as designed"))
		return ktap_finish();

	seen = tally_log(t);
	for (i = 0; i < TEST_VMALLOC_NR_TESTS; i++)
		ktap_ok(t[i].workers == threads && t[i].as_designed == threads,
			"%s: %d of %ld workers reported, %d as designed%s (passed %d, failed %d)",
			test_vmalloc_tests[i], t[i].workers, threads, t[i].as_designed,
			strcmp(test_vmalloc_tests[i], TEST_VMALLOC_EXPECTED_TO_FAIL) ? "" : " (fails by design)",
			t[i].passed, t[i].failed);
	ktap_ok(seen == threads * TEST_VMALLOC_NR_TESTS,
		"every worker reported every test (%d of %ld summaries)",
		seen, threads * TEST_VMALLOC_NR_TESTS);
	return ktap_finish();
}
