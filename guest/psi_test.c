// SPDX-License-Identifier: GPL-2.0
/*
 * PSI triggers (Linux 5.2) from user space, in the kunit52 guest:
 * Documentation/accounting/psi.rst, "Monitoring for pressure thresholds",
 * checked against kernel/sched/psi.c.  For cpu, memory and io, a trigger
 * on /proc/pressure/<res> and one on a cgroup's <res>.pressure get
 * POLLPRI once a child in that cgroup causes the pressure (cpu: a task
 * throttled by cpu.max; memory: a task touching more than memory.high;
 * io: O_DIRECT reads from the scratch disk), and an idle cgroup's trigger
 * stays silent for a whole window.  Then the error matrix: the window and
 * threshold bounds psi_trigger_create() enforces, malformed strings, a
 * second trigger on one fd, read-only fds, unprivileged openers, strings
 * without a terminator or longer than psi_write()'s buffer, and a removed
 * cgroup.  After each refused write, a good trigger on the same fd must
 * be accepted: the refused one left nothing behind.  Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "cred.h"
#include "file.h"
#include "ktap.h"
#include "pressure.h"
#include "proc.h"
#include "wait.h"

#define PROC_PRESSURE	"/proc/pressure"
#define CG_PREFIX	CG_ROOT "/kunit52-psi-"
/* The scratch disk the io pressure reads from (scripts/system.sh). */
#define SCRATCH		"/dev/vda"

/* The window of the event cases: 1 s, in us. */
#define WINDOW_US	1000000
/* Unprivileged windows must be a multiple of this, in us. */
#define UNPRIV_WINDOW_US	2000000
/* The stall that fires an event case: 50 ms per window, in us. */
#define THRESHOLD_US	50000
/* psi_trigger_create()'s largest window, in us. */
#define WINDOW_MAX_US	10000000
/* How long the pressure may take to fire a trigger, in ms. */
#define EVENT_LIMIT_MS	15000
/* An idle cgroup's trigger stays silent this long: a window and a half. */
#define QUIET_MS	(WINDOW_US / 1000 * 3 / 2)
/* psi_write()'s buffer: it keeps at most this many bytes of a write. */
#define PSI_BUF		32

/* cpu pressure: a busy task allowed 10% of one CPU. */
#define CPU_MAX		"10000 100000"
/* io pressure: O_DIRECT reads of this size from the scratch disk. */
#define IO_BLOCK	4096
#define IO_SPAN		(64L << 20)
/* A pressure child may take this long to die, in seconds. */
#define CHILD_LIMIT	10.0

/* A resource: its name and how a child causes its pressure. */
struct resource {
	const char *name;
	const char *limit_file;	/* set in the cgroup first (or NULL) */
	const char *limit;
	void (*press)(void);	/* in the child: forever */
};

static void press_cpu(void)
{
	for (;;)
		;
}

static void press_io(void)
{
	unsigned int seed = getpid();
	void *buf;
	int fd = open(SCRATCH, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, IO_BLOCK, IO_BLOCK))
		_exit(errno);
	printf("# io pressure: random reads, seed %u\n", seed);
	fflush(stdout);
	for (;;) {
		off_t off = (off_t)(rand_r(&seed) % (IO_SPAN / IO_BLOCK)) * IO_BLOCK;

		if (pread(fd, buf, IO_BLOCK, off) < 0)
			_exit(errno);
	}
}

static const struct resource resources[] = {
	{ "cpu", "cpu.max", CPU_MAX, press_cpu },
	{ "memory", "memory.high", PRESSURE_MEM_HIGH, pressure_memory },
	{ "io", NULL, NULL, press_io },
};

#define N_RES	(sizeof(resources) / sizeof(resources[0]))

/* Write exactly @len bytes of @text to @fd: 0 or errno. */
static int write_len(int fd, const char *text, size_t len)
{
	ssize_t n = write(fd, text, len);

	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EIO;
}

static int write_str(int fd, const char *text)
{
	return write_len(fd, text, strlen(text));
}

/* Open @path and set the trigger @text on it: the fd, or -errno. */
static int trigger_open(const char *path, const char *text)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = write_str(fd, text);
	if (err) {
		close(fd);
		return -err;
	}
	return fd;
}

static void cg_path(char *buf, size_t size, const struct resource *r)
{
	snprintf(buf, size, CG_PREFIX "%s", r->name);
}

/* The cgroup of @r, with its limit set: true if it is ready. */
static bool cg_setup(const struct resource *r, char *cg, size_t size)
{
	int err;

	cg_path(cg, size, r);
	cg_destroy(cg);
	if (!cg_create(cg))
		return false;
	if (!r->limit_file)
		return true;
	err = cg_write(cg, r->limit_file, r->limit);
	if (err)
		ktap_diag("%s/%s: %s", cg, r->limit_file, strerror(err));
	return !err;
}

/* A child in @cg that causes @r's pressure until killed. */
static pid_t spawn_pressure(const struct resource *r, const char *cg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (cg_move(cg, getpid()))
			_exit(EXIT_FAILURE);
		r->press();
	}
	return pid;
}

/*
 * Poll @n fds for POLLPRI until each has had one or @limit_ms passed;
 * @when[i] gets the ms it took (-1: none).  Returns how many fired.
 */
static int wait_events(const int *fds, int n, int limit_ms, int *when)
{
	double start = now_s();
	int fired = 0, i;

	for (i = 0; i < n; i++)
		when[i] = -1;
	while (fired < n) {
		struct pollfd pfd[4];
		int left = limit_ms - (int)((now_s() - start) * 1000), k = 0;

		if (left <= 0)
			break;
		for (i = 0; i < n; i++)
			if (when[i] < 0)
				pfd[k++] = (struct pollfd){ .fd = fds[i], .events = POLLPRI };
		if (poll(pfd, k, left) <= 0)
			continue;
		for (i = 0, k = 0; i < n; i++) {
			if (when[i] >= 0)
				continue;
			if (pfd[k++].revents & POLLPRI) {
				when[i] = (int)((now_s() - start) * 1000);
				fired++;
			}
		}
	}
	return fired;
}

static void trigger_text(char *buf, size_t size, int threshold, int window)
{
	snprintf(buf, size, "some %d %d\n", threshold, window);
}

/*
 * @r's triggers: silence while its cgroup is idle, then POLLPRI on the
 * cgroup's file and on /proc/pressure/<res> once the pressure runs.
 */
static void test_events(const struct resource *r)
{
	char cg[128], path[192], trig[64];
	const char *names[2] = { "cgroup", "system" };
	int fds[2], when[2], i;
	pid_t child;

	if (!cg_setup(r, cg, sizeof(cg))) {
		ktap_ok(false, "%s_pressure_events (no cgroup)", r->name);
		return;
	}
	trigger_text(trig, sizeof(trig), THRESHOLD_US, WINDOW_US);
	snprintf(path, sizeof(path), "%s/%s.pressure", cg, r->name);
	fds[0] = trigger_open(path, trig);
	snprintf(path, sizeof(path), PROC_PRESSURE "/%s", r->name);
	fds[1] = trigger_open(path, trig);
	if (fds[0] < 0 || fds[1] < 0) {
		ktap_diag("cannot set the triggers: %s",
			  strerror(fds[0] < 0 ? -fds[0] : -fds[1]));
		ktap_ok(false, "%s_idle_cgroup_quiet", r->name);
		ktap_ok(false, "%s_pressure_events", r->name);
		goto out;
	}
	if (wait_events(fds, 1, QUIET_MS, when))
		ktap_diag("an idle cgroup's %s trigger fired after %d ms",
			  r->name, when[0]);
	ktap_ok(when[0] < 0, "%s_idle_cgroup_quiet", r->name);

	child = spawn_pressure(r, cg);
	wait_events(fds, 2, EVENT_LIMIT_MS, when);
	proc_kill(child);
	for (i = 0; i < 2; i++) {
		if (when[i] < 0)
			ktap_diag("%s: no POLLPRI on the %s trigger within %d ms of %s pressure",
				  r->name, names[i], EVENT_LIMIT_MS, r->name);
		else
			ktap_diag("%s: the %s trigger fired after %d ms",
				  r->name, names[i], when[i]);
	}
	ktap_ok(when[0] >= 0 && when[1] >= 0, "%s_pressure_events", r->name);
out:
	for (i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	cg_destroy(cg);
}

/* A write to a pressure file: what it writes, the errno it must get. */
struct write_case {
	const char *name;
	const char *text;
	size_t len;		/* 0: strlen(text) */
	int proc_err;		/* on /proc/pressure/memory */
	int cg_err;		/* on a cgroup's memory.pressure */
};

/* psi_write() keeps 31 of these 35 bytes: the window becomes "1000", 1 ms. */
#define LONG_TRIGGER	"some 000000000000000150000 1000000\n"

static const struct write_case write_cases[] = {
	{ "window_zero", "some 1 0\n", 0, EINVAL, EINVAL },
	{ "window_over_max", "some 100000 10000001\n", 0, EINVAL, EINVAL },
	{ "window_max", "some 100000 10000000\n", 0, 0, 0 },
	/* psi.rst said 500 ms was the least; the code has no minimum. */
	{ "window_100ms", "some 10000 100000\n", 0, 0, 0 },
	{ "threshold_zero", "some 0 1000000\n", 0, EINVAL, EINVAL },
	{ "threshold_over_window", "some 1000001 1000000\n", 0, EINVAL, EINVAL },
	{ "threshold_equals_window", "some 1000000 1000000\n", 0, 0, 0 },
	{ "full_trigger", "full 100000 1000000\n", 0, 0, 0 },
	{ "malformed_kind", "most 100000 1000000\n", 0, EINVAL, EINVAL },
	{ "malformed_no_window", "some 100000\n", 0, EINVAL, EINVAL },
	{ "malformed_words", "some a b\n", 0, EINVAL, EINVAL },
	{ "malformed_negative", "some -1 1000000\n", 0, EINVAL, EINVAL },
	/* cgroup_file_write() takes an empty write as done, without a trigger. */
	{ "empty_write", "", 0, EINVAL, 0 },
	/* psi.rst's example writes the terminating NUL. */
	{ "nul_terminated", "some 150000 1000000", sizeof("some 150000 1000000"),
	  0, 0 },
	/* As psi.rst's text writes it: no newline, no NUL. */
	{ "no_terminator", "some 150000 1000000", 0, 0, 0 },
	/* Only the cgroup file (kernfs) takes the whole string. */
	{ "longer_than_buffer", LONG_TRIGGER, 0, EINVAL, 0 },
};

#define GOOD_TRIGGER	"some 100000 1000000\n"

/*
 * Write @c to a fresh fd of @path: the errno, then the good trigger must
 * still be accepted on the fd if nothing was set (a refused or an empty
 * write), and refused with EBUSY if a trigger was.
 */
static void write_case(const struct write_case *c, const char *path,
		       const char *where, int want)
{
	size_t len = c->len ? c->len : strlen(c->text);
	int fd = open(path, O_RDWR | O_CLOEXEC), got, again;
	bool set;

	if (fd < 0) {
		ktap_ok(false, "%s_%s (open %s: %s)", where, c->name, path,
			strerror(errno));
		return;
	}
	got = write_len(fd, c->text, len);
	if (got != want)
		ktap_diag("%s: %zu bytes: got %s, expected %s", path, len,
			  got ? strerror(got) : "success",
			  want ? strerror(want) : "success");
	set = !got && len;
	again = write_str(fd, GOOD_TRIGGER);
	if (again != (set ? EBUSY : 0))
		ktap_diag("%s: the next trigger on the fd got %s",
			  path, again ? strerror(again) : "success");
	ktap_ok(got == want && again == (set ? EBUSY : 0), "%s_%s", where, c->name);
	close(fd);
}

/* A write on an fd opened read-only: EBADF (@path: a pressure file). */
static void test_read_only(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), got;

	got = fd < 0 ? -1 : write_str(fd, GOOD_TRIGGER);
	if (got != EBADF)
		ktap_diag("%s opened read-only: write got %s", path,
			  got < 0 ? "no fd" : got ? strerror(got) : "success");
	ktap_ok(got == EBADF, "%s", name);
	if (fd >= 0)
		close(fd);
}

static void test_writes(void)
{
	const struct resource *mem = &resources[1];
	char cg[128], path[192];
	size_t i;

	if (!cg_setup(mem, cg, sizeof(cg))) {
		ktap_ok(false, "cgroup_writes (no cgroup)");
		return;
	}
	snprintf(path, sizeof(path), "%s/memory.pressure", cg);
	for (i = 0; i < sizeof(write_cases) / sizeof(write_cases[0]); i++) {
		write_case(&write_cases[i], PROC_PRESSURE "/memory", "proc",
			   write_cases[i].proc_err);
		write_case(&write_cases[i], path, "cgroup", write_cases[i].cg_err);
	}
	test_read_only(PROC_PRESSURE "/memory", "proc_read_only_fd_ebadf");
	test_read_only(path, "cgroup_read_only_fd_ebadf");
	cg_destroy(cg);
}

/* An unprivileged write: what, where, with which fd, and the errno. */
struct unpriv_case {
	const char *name;
	const char *path;
	const char *text;
	bool root_opens;	/* the fd is opened before dropping */
	int err;
};

static const struct unpriv_case unpriv_cases[] = {
	{ "nobody_window_1s_refused", PROC_PRESSURE "/memory",
	  "some 100000 1000000\n", false, EINVAL },
	{ "nobody_window_2s_accepted", PROC_PRESSURE "/memory",
	  "some 100000 2000000\n", false, 0 },
	{ "nobody_window_3s_refused", PROC_PRESSURE "/memory",
	  "some 100000 3000000\n", false, EINVAL },
	/* The opener's credentials count (f_cred), not the writer's. */
	{ "nobody_on_root_fd_window_1s_accepted", PROC_PRESSURE "/memory",
	  "some 100000 1000000\n", true, 0 },
	{ "nobody_cgroup_file_denied", CG_PREFIX "memory/memory.pressure",
	  "some 100000 2000000\n", false, EACCES },
};

static int unpriv_child(void *arg)
{
	const struct unpriv_case *c = arg;
	int fd = -1, err;

	if (c->root_opens) {
		fd = open(c->path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return errno;
	}
	err = cred_drop(CRED_NOBODY, CRED_NOBODY, CRED_NO_CAPS);
	if (err)
		return err;
	if (fd < 0) {
		fd = open(c->path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return errno;
	}
	return write_str(fd, c->text);
}

static void test_unprivileged(void)
{
	char cg[128];
	size_t i;

	if (!cg_setup(&resources[1], cg, sizeof(cg)))
		ktap_diag("no %s: the cgroup case fails", cg);
	for (i = 0; i < sizeof(unpriv_cases) / sizeof(unpriv_cases[0]); i++) {
		const struct unpriv_case *c = &unpriv_cases[i];
		int got = proc_call(unpriv_child, (void *)c, CHILD_LIMIT,
				    "the unprivileged child to exit");

		if (got != c->err)
			ktap_diag("%s: got %s, expected %s", c->name,
				  got > 0 && got < 128 ? strerror(got) :
				  got ? "no verdict" : "success",
				  c->err ? strerror(c->err) : "success");
		ktap_ok(got == c->err, "%s", c->name);
	}
	cg_destroy(cg);
}

/*
 * An unprivileged trigger (2 s window, served by the averaging work)
 * fires too, on cpu pressure caused as in test_events().
 */
static int unpriv_event_child(void *arg)
{
	int fd, when, err;
	char trig[64];

	(void)arg;
	err = cred_drop(CRED_NOBODY, CRED_NOBODY, CRED_NO_CAPS);
	if (err)
		return err;
	trigger_text(trig, sizeof(trig), THRESHOLD_US, UNPRIV_WINDOW_US);
	fd = trigger_open(PROC_PRESSURE "/cpu", trig);
	if (fd < 0)
		return -fd;
	if (!wait_events(&fd, 1, EVENT_LIMIT_MS, &when)) {
		ktap_diag("no POLLPRI on nobody's cpu trigger within %d ms",
			  EVENT_LIMIT_MS);
		return ETIME;
	}
	ktap_diag("nobody's cpu trigger fired after %d ms", when);
	return 0;
}

static void test_unprivileged_event(void)
{
	const struct resource *cpu = &resources[0];
	char cg[128];
	pid_t child;
	int got;

	if (!cg_setup(cpu, cg, sizeof(cg))) {
		ktap_ok(false, "nobody_trigger_fires (no cgroup)");
		return;
	}
	child = spawn_pressure(cpu, cg);
	got = proc_call(unpriv_event_child, NULL, EVENT_LIMIT_MS / 1000 + CHILD_LIMIT,
			"the unprivileged trigger's child to exit");
	proc_kill(child);
	cg_destroy(cg);
	ktap_ok(got == 0, "nobody_trigger_fires");
}

/*
 * A trigger on a cgroup that is removed: poll says POLLERR (psi.rst:
 * "event source is gone"), and a new trigger on an fd of the removed
 * cgroup gets ENODEV.
 */
static void test_removed_cgroup(void)
{
	const struct resource *mem = &resources[1];
	char cg[128], path[192];
	struct pollfd pfd;
	int got, spare;

	if (!cg_setup(mem, cg, sizeof(cg))) {
		ktap_ok(false, "removed_cgroup_pollerr (no cgroup)");
		ktap_ok(false, "removed_cgroup_enodev (no cgroup)");
		return;
	}
	snprintf(path, sizeof(path), "%s/memory.pressure", cg);
	pfd.fd = trigger_open(path, GOOD_TRIGGER);
	pfd.events = POLLPRI;
	spare = open(path, O_RDWR | O_CLOEXEC);
	cg_destroy(cg);
	got = pfd.fd >= 0 ? poll(&pfd, 1, 0) : -1;
	if (got != 1 || !(pfd.revents & POLLERR))
		ktap_diag("poll on a removed cgroup's trigger: %d, revents %#x",
			  got, got == 1 ? pfd.revents : 0);
	ktap_ok(got == 1 && (pfd.revents & POLLERR), "removed_cgroup_pollerr");
	got = spare < 0 ? -1 : write_str(spare, GOOD_TRIGGER);
	if (got != ENODEV)
		ktap_diag("a trigger on a removed cgroup got %s",
			  got < 0 ? "no fd" : got ? strerror(got) : "success");
	ktap_ok(got == ENODEV, "removed_cgroup_enodev");
	if (pfd.fd >= 0)
		close(pfd.fd);
	if (spare >= 0)
		close(spare);
}

/* The controllers the cgroups need: cpu (cpu.max) and memory. */
static bool enable_controllers(void)
{
	int err = cg_write(CG_ROOT, "cgroup.subtree_control", "+cpu +memory");

	if (err)
		ktap_diag("cannot enable the cpu and memory controllers: %s",
			  strerror(err));
	return !err;
}

/* Files a cgroup has only while PSI is on (cgroup_psi_files). */
static const char *const cgroup_psi_files[] = {
	"cpu.pressure", "memory.pressure", "io.pressure", "cgroup.pressure",
};

#define N_CG_PSI_FILES	(sizeof(cgroup_psi_files) / sizeof(cgroup_psi_files[0]))

/* Is @file of @cg absent (ENOENT)?  A diagnostic if not. */
static bool cg_file_absent(const char *cg, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	if (access(path, F_OK) == 0 || errno != ENOENT) {
		ktap_diag("%s: %s", path, errno ? strerror(errno) : "present");
		return false;
	}
	return true;
}

/*
 * Booted with psi=0 (kernel-parameters.txt: "Enable or disable pressure
 * stall information tracking"): /proc/pressure is never made, and no
 * cgroup, the root or a new one, gets a pressure file to set a trigger on.
 */
static void test_psi_disabled(void)
{
	const char *cg = CG_PREFIX "off";
	bool root = true, child = true;
	size_t i;

	errno = 0;
	ktap_ok(access(PROC_PRESSURE, F_OK) && errno == ENOENT,
		"psi_off_proc_pressure_absent");
	for (i = 0; i < N_CG_PSI_FILES; i++)
		root = cg_file_absent(CG_ROOT, cgroup_psi_files[i]) && root;
	ktap_ok(root, "psi_off_root_cgroup_pressure_files_absent");
	if (!cg_create(cg)) {
		ktap_ok(false, "psi_off_new_cgroup_pressure_files_absent");
		return;
	}
	for (i = 0; i < N_CG_PSI_FILES; i++)
		child = cg_file_absent(cg, cgroup_psi_files[i]) && child;
	ktap_ok(child, "psi_off_new_cgroup_pressure_files_absent");
	cg_destroy(cg);
}

int main(void)
{
	size_t i;

	ktap_begin();
	if (cmdline_long("psi", 1) == 0) {
		test_psi_disabled();
		return ktap_finish();
	}
	if (access(PROC_PRESSURE "/memory", F_OK)) {
		ktap_diag(PROC_PRESSURE ": %s (CONFIG_PSI, psi=1?)", strerror(errno));
		ktap_ok(false, "psi_files_present");
		return ktap_finish();
	}
	if (!ktap_ok(enable_controllers(), "cpu_and_memory_controllers"))
		return ktap_finish();
	for (i = 0; i < N_RES; i++)
		test_events(&resources[i]);
	test_writes();
	test_unprivileged();
	test_unprivileged_event();
	test_removed_cgroup();
	return ktap_finish();
}
