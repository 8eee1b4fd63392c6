// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup v2 freezer from user space, in the kunit52 guest: the
 * cgroup.freeze and cgroup.events contract of
 * Documentation/admin-guide/cgroup-v2.rst checked through the files.
 * Processes stop (their CPU time stops growing), cgroup.events changes
 * are seen with poll() and inotify, ancestors and descendants, kill, move
 * in and out, a fork storm, ptrace of a frozen process, removing a frozen
 * empty cgroup, creating a cgroup inside a frozen one, bad writes, and
 * the freezer's trace events.
 * Every wait is bounded and says what it waited for.  Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "file.h"
#include "ktap.h"
#include "proc.h"
#include "wait.h"

#define ROOT		CG_ROOT
#define BASE		ROOT "/kunit52-freezer"
/* Every wait for the kernel to act is bounded by this, in seconds. */
#define TIMEOUT		10.0
/* Does a process use CPU: its CPU time over this long, in seconds. */
#define SAMPLE		0.3
/* How often a wait looks at cgroup.events or a process, in seconds. */
#define POLL		0.005
/*
 * cgroup.events notifications are rate limited (kernfs: at most one per
 * CGROUP_FILE_NOTIFY_MIN_INTV, 10 ms): wait longer than that between two
 * changes that must each be seen.
 */
#define NOTIFY_GAP	0.05
/* How long poll() waits for a notification that must come, in ms. */
#define NOTIFY_LIMIT_MS	1000
/* Let a fork storm get going before freezing it, in seconds. */
#define STORM_WARMUP	0.2
/* How long each child of a fork storm lives, in seconds. */
#define STORM_CHILD_LIFE	0.02

static int cg_freeze_file(const char *cg)
{
	char buf[16];

	return cg_read(cg, "cgroup.freeze", buf, sizeof(buf)) ? -1 : atoi(buf);
}

static int cg_freeze(const char *cg, int on)
{
	return cg_write(cg, "cgroup.freeze", on ? "1" : "0");
}

struct frozen_wait {
	const char *cg;
	int want;
};

static enum wait_result frozen_is(void *arg)
{
	const struct frozen_wait *w = arg;

	return cg_frozen(w->cg) == w->want ? WAIT_DONE : WAIT_AGAIN;
}

/* Wait (polling the file) until cgroup.events says frozen == @want. */
static bool cg_wait_frozen(const char *cg, int want)
{
	struct frozen_wait w = { cg, want };
	char what[320];

	snprintf(what, sizeof(what), "%s frozen=%d", cg, want);
	return wait_until(frozen_is, &w, TIMEOUT, POLL, what);
}

static int cg_count_procs(const char *cg)
{
	char buf[8192], *p;
	int n = 0;

	if (cg_read(cg, "cgroup.procs", buf, sizeof(buf)))
		return -1;
	for (p = buf; *p; p++)
		n += *p == '\n';
	return n;
}

/* Kill child @pid (if there is one) and reap it, bounded. */
static void reap(pid_t pid)
{
	if (pid > 0)
		proc_kill(pid);
}

/* A child that burns CPU until killed, moved into @cg. */
static pid_t spawn_busy(const char *cg)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			;
	}
	if (pid > 0 && cg_move(cg, pid)) {
		ktap_diag("move %d to %s failed", pid, cg);
		reap(pid);
		return -1;
	}
	return pid;
}

/* A child that forks short-lived children as fast as it can. */
static pid_t spawn_forker(const char *cg)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGCHLD, SIG_IGN);	/* children reap themselves */
		for (;;) {
			if (fork() == 0) {
				sleep_s(STORM_CHILD_LIFE);
				_exit(0);
			}
		}
	}
	if (pid > 0 && cg_move(cg, pid)) {
		reap(pid);
		return -1;
	}
	return pid;
}

/* utime + stime of @pid in clock ticks, from /proc/PID/stat. */
static long long cputime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (file_read(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return ut + st;
}

/* Does @pid use CPU over SAMPLE? */
static bool runs(pid_t pid)
{
	long long before = cputime(pid);

	sleep_s(SAMPLE);
	return cputime(pid) > before;
}


/* ---- the freezer's trace events ---- */

#define TRACEFS		"/sys/kernel/tracing"
/* A tracing instance of our own: its buffer holds only these events. */
#define TRACE_DIR	TRACEFS "/instances/kunit52-freezer"
/* The cgroup v2 freezer's events (include/trace/events/cgroup.h). */
static const char *const trace_events[] = {
	"cgroup_freeze", "cgroup_unfreeze", "cgroup_notify_frozen",
};
#define TRACE_BUF	65536

/* One event: its name without "cgroup_", the cgroup below ROOT, val. */
struct trace_event {
	const char *name;
	const char *cg;
	int val;		/* -1: the event has none */
};

#define TRACE_STEP_EVENTS	4

/*
 * A step of the scenario and what it must trace: the events in order
 * (others may come between), and one that must not come at all.
 */
struct trace_step {
	const char *what;
	struct trace_event want[TRACE_STEP_EVENTS];
	struct trace_event absent;
};

#define TP	"/kunit52-freezer/trace"
#define TC	TP "/c"

static const struct trace_step trace_steps[] = {
	{ .what = "freezing a parent traces each cgroup's freeze, then the child's and the parent's frozen",
	  .want = { { "freeze", TP, -1 }, { "freeze", TC, -1 },
		    { "notify_frozen", TC, 1 }, { "notify_frozen", TP, 1 } } },
	{ .what = "a running process moved in unfreezes child and parent, then both freeze again",
	  .want = { { "notify_frozen", TC, 0 }, { "notify_frozen", TP, 0 },
		    { "notify_frozen", TC, 1 }, { "notify_frozen", TP, 1 } } },
	{ .what = "freezing a child its parent froze traces only its (unchanged) frozen state",
	  .want = { { "notify_frozen", TC, 1 } },
	  .absent = { "freeze", TC, -1 } },
	{ .what = "thawing the parent traces its thaw; the child, frozen itself, stays",
	  .want = { { "unfreeze", TP, -1 }, { "notify_frozen", TP, 0 } },
	  .absent = { "unfreeze", TC, -1 } },
	{ .what = "thawing the child traces its thaw",
	  .want = { { "unfreeze", TC, -1 }, { "notify_frozen", TC, 0 } } },
};

static int trace_set(const char *file, const char *val, int flags)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", TRACE_DIR, file);
	return file_write_flags(path, val, flags);
}

/* Make the instance and enable the events: 0, or a reason in @why. */
static int trace_start(char *why, size_t size)
{
	char file[128];
	unsigned int i;

	if (access(TRACEFS "/instances", F_OK) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL)) {
		snprintf(why, size, "no tracefs: %s", strerror(errno));
		return -1;
	}
	if (access(TRACEFS "/events/cgroup/cgroup_notify_frozen", F_OK)) {
		snprintf(why, size, "the kernel has no cgroup trace events");
		return -1;
	}
	rmdir(TRACE_DIR);
	if (mkdir(TRACE_DIR, 0755)) {
		snprintf(why, size, "mkdir %s: %s", TRACE_DIR, strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(trace_events) / sizeof(trace_events[0]); i++) {
		snprintf(file, sizeof(file), "events/cgroup/%s/enable", trace_events[i]);
		if (trace_set(file, "1", 0)) {
			snprintf(why, size, "cannot enable %s", trace_events[i]);
			return -1;
		}
	}
	return 0;
}

/* Parse a trace line into @e (pointing into @line): true if it is one of ours. */
static bool trace_parse(char *line, struct trace_event *e)
{
	char *p = strstr(line, ": cgroup_"), *path, *end;

	if (!p)
		return false;
	e->name = p + strlen(": cgroup_");
	p = strchr(e->name, ':');
	path = strstr(line, " path=");
	if (!p || !path)
		return false;
	*p = '\0';
	e->cg = path + strlen(" path=");
	end = strchr(e->cg, ' ');
	e->val = -1;
	if (end) {
		*end = '\0';
		if (!strncmp(end + 1, "val=", 4))
			e->val = atoi(end + 5);
	}
	return !strncmp(e->cg, TP, strlen(TP));
}

static bool trace_same(const struct trace_event *a, const struct trace_event *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->cg, b->cg) && a->val == b->val;
}

/* Check the buffer against @step, print what it held, and empty it. */
static bool trace_check(const struct trace_step *step)
{
	static char buf[TRACE_BUF];
	char path[256], *line, *save;
	unsigned int next = 0, n = 0;
	struct trace_event e;
	bool absent_seen = false;

	snprintf(path, sizeof(path), "%s/trace", TRACE_DIR);
	if (file_read(path, buf, sizeof(buf)) < 0)
		return false;
	trace_set("trace", "", O_TRUNC);
	while (n < TRACE_STEP_EVENTS && step->want[n].name)
		n++;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !trace_parse(line, &e))
			continue;
		if (e.val < 0)
			ktap_diag("  %s %s", e.name, e.cg);
		else
			ktap_diag("  %s %s val=%d", e.name, e.cg, e.val);
		if (next < n && trace_same(&e, &step->want[next]))
			next++;
		if (step->absent.name && trace_same(&e, &step->absent))
			absent_seen = true;
	}
	if (next < n)
		ktap_diag("missing: %s %s val=%d", step->want[next].name,
			  step->want[next].cg, step->want[next].val);
	if (absent_seen)
		ktap_diag("traced, but must not be: %s %s", step->absent.name, step->absent.cg);
	return next == n && !absent_seen;
}

/*
 * The trace events the freezer emits (Linux 5.2 added them with it):
 * cgroup_freeze/cgroup_unfreeze for each cgroup whose state a write
 * changes, cgroup_notify_frozen with val=1/0 whenever "frozen" in
 * cgroup.events is notified, including an ancestor's change, a process
 * moving in and a write that changes nothing.
 */
static void test_trace_events(void)
{
	const char *p = BASE "/trace", *c = BASE "/trace/c";
	size_t nsteps = sizeof(trace_steps) / sizeof(trace_steps[0]);
	char why[160];
	pid_t first = -1, second = -1;
	bool ok[sizeof(trace_steps) / sizeof(trace_steps[0])] = { false };
	size_t i;

	if (trace_start(why, sizeof(why))) {
		for (i = 0; i < nsteps; i++)
			ktap_skip(trace_steps[i].what, why);
		return;
	}
	if (!cg_create(p) || !cg_create(c) || (first = spawn_busy(c)) < 0) {
		ktap_ok(false, "trace events: setup");
		goto out;
	}
	trace_set("trace", "", O_TRUNC);

	ok[0] = cg_freeze(p, 1) == 0 && cg_wait_frozen(p, 1) && trace_check(&trace_steps[0]);
	ktap_ok(ok[0], "%s", trace_steps[0].what);
	second = spawn_busy(c);
	ok[1] = second > 0 && cg_wait_frozen(c, 1) && cg_wait_frozen(p, 1) &&
		trace_check(&trace_steps[1]);
	ktap_ok(ok[1], "%s", trace_steps[1].what);
	ok[2] = cg_freeze(c, 1) == 0 && trace_check(&trace_steps[2]);
	ktap_ok(ok[2], "%s", trace_steps[2].what);
	ok[3] = cg_freeze(p, 0) == 0 && cg_wait_frozen(p, 0) && cg_frozen(c) == 1 &&
		trace_check(&trace_steps[3]);
	ktap_ok(ok[3], "%s", trace_steps[3].what);
	ok[4] = cg_freeze(c, 0) == 0 && cg_wait_frozen(c, 0) && trace_check(&trace_steps[4]);
	ktap_ok(ok[4], "%s", trace_steps[4].what);
out:
	reap(first);
	reap(second);
	cg_destroy(p);
	rmdir(TRACE_DIR);
}

/* ---- cases ---- */

static void test_root_has_no_freeze_file(void)
{
	ktap_ok(access(ROOT "/cgroup.freeze", F_OK) && errno == ENOENT,
		"root cgroup has no cgroup.freeze");
}

static void test_bad_writes(void)
{
	static const char *const bad[] = { "2", "-1", "abc", "\n", " ", "1x",
					   "10" };
	const char *cg = BASE "/bad";
	unsigned int i;
	int before, err;

	if (!cg_create(cg))
		return (void)ktap_ok(false, "bad writes: setup");
	for (before = 0; before <= 1; before++) {
		cg_freeze(cg, before);
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			err = cg_write(cg, "cgroup.freeze", bad[i]);
			ktap_ok(err && cg_freeze_file(cg) == before &&
				cg_frozen(cg) == before,
				"write \"%s\" to cgroup.freeze=%d fails (%s) and changes nothing",
				bad[i][0] == '\n' ? "\\n" : bad[i], before,
				strerror(err));
		}
	}
	/* write(2) of zero bytes carries no value: 0 bytes written. */
	err = cg_write(cg, "cgroup.freeze", "");
	ktap_ok(err == 0 && cg_freeze_file(cg) == 1 && cg_frozen(cg) == 1,
		"a zero-length write to cgroup.freeze changes nothing");
	cg_destroy(cg);
}

static void test_empty_and_events(void)
{
	const char *cg = BASE "/empty";
	char path[256], buf[128];
	struct pollfd pfd;
	int fd, ifd, wd, n_poll = 0, n_inotify = 0, round;
	char ev[4096];

	if (!cg_create(cg))
		return (void)ktap_ok(false, "events: setup");
	snprintf(path, sizeof(path), "%s/cgroup.events", cg);
	fd = open(path, O_RDONLY);
	ifd = inotify_init1(IN_NONBLOCK);
	wd = inotify_add_watch(ifd, path, IN_MODIFY);
	if (fd < 0 || ifd < 0 || wd < 0)
		return (void)ktap_ok(false, "events: open/inotify: %s",
				     strerror(errno));
	pread(fd, buf, sizeof(buf), 0);
	for (round = 0; round < 4; round++) {
		int want = !(round & 1);

		sleep_s(NOTIFY_GAP);
		while (read(ifd, ev, sizeof(ev)) > 0)
			;
		pread(fd, buf, sizeof(buf), 0);
		cg_freeze(cg, want);
		/* An empty cgroup changes state at once. */
		if (cg_frozen(cg) != want)
			break;
		pfd = (struct pollfd){ .fd = fd, .events = POLLPRI };
		if (poll(&pfd, 1, NOTIFY_LIMIT_MS) == 1 && (pfd.revents & POLLPRI))
			n_poll++;
		pfd = (struct pollfd){ .fd = ifd, .events = POLLIN };
		if (poll(&pfd, 1, NOTIFY_LIMIT_MS) == 1)
			n_inotify++;
	}
	ktap_ok(round == 4, "empty cgroup freezes and thaws at once");
	ktap_ok(n_poll == 4, "poll() sees every change of cgroup.events (%d/4)",
		n_poll);
	ktap_ok(n_inotify == 4,
		"inotify sees every change of cgroup.events (%d/4)", n_inotify);
	close(ifd);
	close(fd);
	cg_destroy(cg);
}

static void test_processes_stop(void)
{
	const char *cg = BASE "/stop";
	pid_t p[2] = { -1, -1 };
	double t0;
	int i;

	if (!cg_create(cg))
		return (void)ktap_ok(false, "processes stop: setup");
	for (i = 0; i < 2; i++)
		p[i] = spawn_busy(cg);
	if (!ktap_ok(p[0] > 0 && p[1] > 0 && runs(p[0]) && runs(p[1]),
		     "busy processes use CPU before the freeze"))
		goto out;
	t0 = now_s();
	cg_freeze(cg, 1);
	ktap_ok(cg_wait_frozen(cg, 1), "cgroup with busy processes freezes");
	ktap_diag("frozen after %.0f ms", (now_s() - t0) * 1000);
	ktap_ok(!runs(p[0]) && !runs(p[1]),
		"frozen processes use no CPU over %.0f ms", SAMPLE * 1000);
	cg_freeze(cg, 0);
	ktap_ok(cg_wait_frozen(cg, 0) && runs(p[0]) && runs(p[1]),
		"thawed processes run again");
out:
	reap(p[0]);
	reap(p[1]);
	cg_destroy(cg);
}

static void test_ancestors(void)
{
	const char *a = BASE "/a", *b = BASE "/a/b", *c = BASE "/a/b/c";
	pid_t pb = -1, pc = -1;

	if (!cg_create(a) || !cg_create(b) || !cg_create(c))
		return (void)ktap_ok(false, "ancestors: setup");
	pb = spawn_busy(b);
	pc = spawn_busy(c);
	cg_freeze(a, 1);
	ktap_ok(cg_wait_frozen(a, 1) && cg_frozen(b) == 1 && cg_frozen(c) == 1 &&
		!runs(pb) && !runs(pc),
		"freezing an ancestor freezes every descendant");
	ktap_ok(cg_freeze_file(b) == 0 && cg_freeze_file(c) == 0,
		"descendants' cgroup.freeze keeps their own setting (0)");
	cg_freeze(b, 0);
	sleep_s(SAMPLE);	/* a thaw would show within it */
	ktap_ok(cg_frozen(b) == 1 && cg_frozen(c) == 1 && !runs(pb),
		"thawing a child under a frozen ancestor leaves it frozen");
	cg_freeze(c, 1);
	cg_freeze(a, 0);
	ktap_ok(cg_wait_frozen(a, 0) && cg_wait_frozen(b, 0) && runs(pb) &&
		cg_frozen(c) == 1 && !runs(pc),
		"thawing the ancestor thaws only descendants not frozen themselves");
	cg_freeze(c, 0);
	ktap_ok(cg_wait_frozen(c, 0) && runs(pc), "and thawing that one thaws it");
	reap(pb);
	reap(pc);
	cg_destroy(a);
}

static void test_kill_frozen(void)
{
	const char *cg = BASE "/kill";
	bool dead = false;
	int status = 0;
	pid_t p;

	if (!cg_create(cg))
		return (void)ktap_ok(false, "kill: setup");
	p = spawn_busy(cg);
	cg_freeze(cg, 1);
	if (p > 0 && cg_wait_frozen(cg, 1)) {
		kill(p, SIGKILL);
		dead = !proc_wait(p, TIMEOUT, &status, "the frozen process to die");
	}
	ktap_ok(dead && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		"SIGKILL kills a frozen process");
	ktap_ok(cg_count_procs(cg) == 0 && cg_frozen(cg) == 1,
		"the emptied cgroup stays frozen");
	if (!dead)
		reap(p);
	cg_destroy(cg);
}

static void test_move(void)
{
	const char *fz = BASE "/frozen", *th = BASE "/thawed";
	pid_t p;

	if (!cg_create(fz) || !cg_create(th))
		return (void)ktap_ok(false, "move: setup");
	cg_freeze(fz, 1);
	p = spawn_busy(th);
	ktap_ok(p > 0 && runs(p), "process runs in a thawed cgroup");
	ktap_ok(cg_move(fz, p) == 0 && cg_wait_frozen(fz, 1) && !runs(p),
		"a process moved into a frozen cgroup stops");
	ktap_ok(cg_move(th, p) == 0 && runs(p) && cg_frozen(fz) == 1 &&
		cg_frozen(th) == 0,
		"a process moved out of a frozen cgroup runs again");
	reap(p);
	cg_destroy(fz);
	cg_destroy(th);
}

static void test_fork_storm(void)
{
	const char *cg = BASE "/forks";
	pid_t p[4];
	int i, n1, n2;
	bool frozen;

	if (!cg_create(cg))
		return (void)ktap_ok(false, "fork storm: setup");
	for (i = 0; i < 4; i++)
		p[i] = spawn_forker(cg);
	sleep_s(STORM_WARMUP);
	cg_freeze(cg, 1);
	frozen = cg_wait_frozen(cg, 1);
	n1 = cg_count_procs(cg);
	sleep_s(SAMPLE);	/* a fork would show within it */
	n2 = cg_count_procs(cg);
	ktap_ok(frozen && n1 == n2 && n1 >= 4,
		"a cgroup freezes during a fork storm (%d processes, then %d)",
		n1, n2);
	cg_freeze(cg, 0);
	ktap_ok(cg_wait_frozen(cg, 0), "and thaws");
	for (i = 0; i < 4; i++)
		reap(p[i]);
	cg_destroy(cg);
}

static void test_ptrace(void)
{
	const char *cg = BASE "/ptrace";
	int status;
	pid_t p;
	bool ok;

	if (!cg_create(cg))
		return (void)ktap_ok(false, "ptrace: setup");
	p = spawn_busy(cg);
	cg_freeze(cg, 1);
	if (!ktap_ok(p > 0 && cg_wait_frozen(cg, 1), "ptrace: frozen"))
		goto out;
	ok = !ptrace(PTRACE_SEIZE, p, NULL, NULL);
	ktap_ok(ok, "PTRACE_SEIZE of a frozen process works");
	ok = ok && !ptrace(PTRACE_INTERRUPT, p, NULL, NULL);
	sleep_s(SAMPLE);	/* a thaw would show within it */
	ktap_ok(ok && cg_frozen(cg) == 1 && !runs(p),
		"PTRACE_INTERRUPT leaves the cgroup frozen and the process stopped");
	ok = ok && waitpid(p, &status, __WALL | WNOHANG) >= 0;
	ok = ok && !ptrace(PTRACE_DETACH, p, NULL, NULL);
	sleep_s(SAMPLE);	/* a thaw would show within it */
	ktap_ok(ok && cg_frozen(cg) == 1 && !runs(p),
		"after PTRACE_DETACH it is still frozen");
	cg_freeze(cg, 0);
	ktap_ok(cg_wait_frozen(cg, 0) && runs(p), "and runs after the thaw");
out:
	reap(p);
	cg_destroy(cg);
}

static void test_rmdir_frozen(void)
{
	const char *a = BASE "/rm", *b = BASE "/rm/child";

	if (!cg_create(a) || !cg_create(b))
		return (void)ktap_ok(false, "rmdir: setup");
	cg_freeze(b, 1);
	ktap_ok(cg_frozen(b) == 1 && !rmdir(b),
		"a frozen empty cgroup can be removed");
	ktap_ok(cg_frozen(a) == 0 && cg_freeze(a, 1) == 0 &&
		cg_frozen(a) == 1 && !rmdir(a),
		"its parent is unaffected, freezes and can be removed too");
	cg_destroy(a);
}

static void test_mkdir_in_frozen(void)
{
	const char *a = BASE "/mk", *b = BASE "/mk/new";
	pid_t p = -1;

	if (!cg_create(a))
		return (void)ktap_ok(false, "mkdir: setup");
	cg_freeze(a, 1);
	ktap_ok(cg_create(b) && cg_frozen(b) == 1 && cg_freeze_file(b) == 0,
		"a cgroup created inside a frozen one starts frozen");
	p = spawn_busy(b);
	ktap_ok(p > 0 && cg_wait_frozen(b, 1) && !runs(p),
		"a process moved into it stops");
	cg_freeze(a, 0);
	ktap_ok(cg_wait_frozen(b, 0) && runs(p),
		"it thaws with its parent");
	reap(p);
	cg_destroy(a);
}

int main(void)
{
	ktap_begin();
	if (access(ROOT "/cgroup.procs", F_OK) &&
	    mount("cgroup2", ROOT, "cgroup2", 0, NULL)) {
		ktap_ok(false, "mount cgroup2 on %s: %s", ROOT, strerror(errno));
		return ktap_finish();
	}
	cg_destroy(BASE);
	if (!cg_create(BASE))
		return ktap_finish();

	test_root_has_no_freeze_file();
	test_bad_writes();
	test_empty_and_events();
	test_processes_stop();
	test_ancestors();
	test_kill_frozen();
	test_move();
	test_fork_storm();
	test_ptrace();
	test_rmdir_frozen();
	test_mkdir_in_frozen();
	test_trace_events();

	cg_destroy(BASE);
	return ktap_finish();
}
