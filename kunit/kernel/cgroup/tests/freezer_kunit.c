// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the cgroup v2 freezer: cgroup_freeze(),
 * cgroup_update_frozen(), cgroup_propagate_frozen(), the freeze counters
 * of ancestors and descendants and the "frozen" field of cgroup.events.
 * The contract is the cgroup.freeze and cgroup.events text in
 * Documentation/admin-guide/cgroup-v2.rst.
 *
 * Included at the end of kernel/cgroup/freezer.c.  The suite mounts the
 * default hierarchy privately and works through its files (mkdir, rmdir,
 * cgroup.freeze, cgroup.events, cgroup.procs, cgroup.kill), as user space
 * would.  KUnit cases run in kernel threads, which the freezer skips, so
 * cases that need freezable tasks start user-mode threads (no PF_KTHREAD)
 * that answer the freezer's job-control trap with get_signal().  Every
 * case builds its cgroups under its own top cgroup; cleanup kills what is
 * left in them and removes them, also after a failed expectation.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/kthread.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/poll.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

static unsigned long frz_seed;
module_param_named(kunit_seed, frz_seed, ulong, 0444);
MODULE_PARM_DESC(kunit_seed, "Seed of the freezer KUnit fork-race delays (0: pick one)");

/* The freeze lands at a random point of a fork burst: up to this late. */
#define FRZ_FORK_JITTER_US	5000

/* Upper bound for anything that waits on another task. */
#define FRZ_TIMEOUT_MS		10000
/* Longer than CGROUP_FILE_NOTIFY_MIN_INTV, so delayed notifications land. */
#define FRZ_SETTLE_MS		60

static struct vfsmount *frz_mnt;
static atomic_t frz_next_id = ATOMIC_INIT(0);

/* A test cgroup: its path below the mount, the cgroup, cgroup.events. */
struct frz_cg {
	struct kunit *test;
	char parent[64];
	char name[32];
	char path[96];
	struct cgroup *cgrp;
	struct file *events;
	bool removed;
};

/* A user-mode thread that sits in a cgroup and answers the freezer. */
struct frz_task {
	struct kunit *test;
	struct completion started;
	struct completion gate;		/* held tasks wait here, uninterruptibly */
	bool held;
	int forks;			/* children to start, back to back */
	atomic_t forked;		/* ... of them started (reset by tests) */
	atomic_t forked_total;
	atomic_long_t ticks;
	struct task_struct *task;
};

/* Poll @cond every few milliseconds for at most FRZ_TIMEOUT_MS. */
#define frz_wait_for(cond)						\
({									\
	unsigned long __end = jiffies + msecs_to_jiffies(FRZ_TIMEOUT_MS); \
	bool __ok;							\
									\
	while (!(__ok = (cond)) && time_before(jiffies, __end))		\
		usleep_range(5000, 10000);			\
	__ok;								\
})

static ssize_t frz_write(const char *path, const char *file, const char *buf,
			 size_t len)
{
	char name[128];
	struct file *f;
	loff_t pos = 0;
	ssize_t ret;

	snprintf(name, sizeof(name), "%s/%s", path, file);
	f = file_open_root_mnt(frz_mnt, name, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = kernel_write(f, buf, len, &pos);
	fput(f);
	return ret;
}

static ssize_t frz_read(const char *path, const char *file, char *buf,
			size_t size)
{
	char name[128];
	struct file *f;
	loff_t pos = 0;
	ssize_t ret;

	snprintf(name, sizeof(name), "%s/%s", path, file);
	f = file_open_root_mnt(frz_mnt, name, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = kernel_read(f, buf, size - 1, &pos);
	fput(f);
	buf[ret < 0 ? 0 : ret] = '\0';
	return ret;
}

/* mkdir or rmdir @name in @parent through the VFS, as the syscalls do. */
static int frz_dirop(const char *parent, const char *name, bool mkdir)
{
	struct path path;
	struct dentry *d;
	struct inode *dir;
	int err;

	err = vfs_path_lookup(frz_mnt->mnt_root, frz_mnt, parent,
			      LOOKUP_DIRECTORY, &path);
	if (err)
		return err;
	dir = d_inode(path.dentry);
	inode_lock_nested(dir, I_MUTEX_PARENT);
	d = lookup_one_len(name, path.dentry, strlen(name));
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
	} else {
		if (mkdir)
			err = vfs_mkdir(&nop_mnt_idmap, dir, d, 0755);
		else if (d_really_is_negative(d))
			err = -ENOENT;
		else
			err = vfs_rmdir(&nop_mnt_idmap, dir, d);
		dput(d);
	}
	inode_unlock(dir);
	path_put(&path);
	return err;
}

/* The "frozen" field of @cg's cgroup.events, read afresh. */
static int frz_events_frozen(struct frz_cg *cg)
{
	char buf[64];
	int populated, frozen;

	if (frz_read(cg->path, "cgroup.events", buf, sizeof(buf)) < 0)
		return -EIO;
	if (sscanf(buf, "populated %d\nfrozen %d", &populated, &frozen) != 2)
		return -EINVAL;
	return frozen;
}

/* Read the cgroup.events file we poll, so that poll() waits again. */
static void frz_rearm(struct frz_cg *cg)
{
	char buf[64];
	loff_t pos = 0;

	kernel_read(cg->events, buf, sizeof(buf), &pos);
}

/* The value cgroup.freeze shows. */
static int frz_freeze_file(struct frz_cg *cg)
{
	char buf[16];
	int val;

	if (frz_read(cg->path, "cgroup.freeze", buf, sizeof(buf)) < 0 ||
	    kstrtoint(strim(buf), 10, &val))
		return -EINVAL;
	return val;
}

/* Has cgroup.events changed since frz_rearm()? */
static bool frz_notified(struct frz_cg *cg)
{
	return vfs_poll(cg->events, NULL) & EPOLLPRI;
}

/* Wait for a notification on @cg, then re-arm. */
static bool frz_wait_notify(struct frz_cg *cg)
{
	bool seen = frz_wait_for(frz_notified(cg));

	frz_rearm(cg);
	return seen;
}

/* Let pending (rate-limited) notifications land, then re-arm. */
static void frz_settle(struct frz_cg *cg)
{
	msleep(FRZ_SETTLE_MS);
	frz_rearm(cg);
}

static void frz_cg_destroy(void *arg)
{
	struct frz_cg *cg = arg;
	struct kunit *test = cg->test;

	if (!cg->removed) {
		frz_write(cg->path, "cgroup.kill", "1", 1);
		if (!frz_wait_for(!cgroup_is_populated(cg->cgrp)))
			KUNIT_FAIL(test, "%s: tasks survive cgroup.kill",
				   cg->path);
		KUNIT_EXPECT_EQ_MSG(test, frz_dirop(cg->parent, cg->name, false),
				    0, "rmdir %s", cg->path);
	}
	fput(cg->events);
	cgroup_put(cg->cgrp);
}

/* Create cgroup @name below @parent (NULL: the top level). */
static struct frz_cg *frz_mkdir(struct kunit *test, struct frz_cg *parent,
				const char *name)
{
	struct frz_cg *cg = kunit_kzalloc(test, sizeof(*cg), GFP_KERNEL);
	char events[128], abs[100];
	int err;

	KUNIT_ASSERT_NOT_NULL(test, cg);
	cg->test = test;
	strscpy(cg->parent, parent ? parent->path : ".", sizeof(cg->parent));
	strscpy(cg->name, name, sizeof(cg->name));
	snprintf(cg->path, sizeof(cg->path), "%s%s%s",
		 parent ? parent->path : "", parent ? "/" : "", name);
	err = frz_dirop(cg->parent, cg->name, true);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "mkdir %s", cg->path);

	snprintf(abs, sizeof(abs), "/%s", cg->path);
	cg->cgrp = cgroup_get_from_path(abs);
	if (IS_ERR(cg->cgrp)) {
		frz_dirop(cg->parent, cg->name, false);
		KUNIT_FAIL_AND_ABORT(test, "cgroup of %s: %ld", cg->path,
				     PTR_ERR(cg->cgrp));
	}
	snprintf(events, sizeof(events), "%s/cgroup.events", cg->path);
	cg->events = file_open_root_mnt(frz_mnt, events, O_RDONLY, 0);
	if (IS_ERR(cg->events)) {
		frz_dirop(cg->parent, cg->name, false);
		cgroup_put(cg->cgrp);
		KUNIT_FAIL_AND_ABORT(test, "open %s: %ld", events,
				     PTR_ERR(cg->events));
	}
	frz_rearm(cg);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, frz_cg_destroy,
							cg), 0);
	return cg;
}

static int frz_rmdir(struct frz_cg *cg)
{
	int err = frz_dirop(cg->parent, cg->name, false);

	if (!err)
		cg->removed = true;
	return err;
}

static void frz_set(struct kunit *test, struct frz_cg *cg, int freeze)
{
	const char *val = freeze ? "1\n" : "0\n";

	KUNIT_ASSERT_EQ_MSG(test, frz_write(cg->path, "cgroup.freeze", val, 2),
			    2, "write %d to %s/cgroup.freeze", freeze, cg->path);
}

/*
 * Check the freezer's bookkeeping of the whole default hierarchy against
 * values recomputed from scratch: e_freeze is the number of ancestors
 * (and self) that asked to freeze, CGRP_FREEZE is set iff e_freeze > 0,
 * nr_frozen_descendants counts the live descendants with CGRP_FROZEN and
 * nr_descendants the live descendants.  With @settled, every cgroup must
 * also be frozen iff it is freezing, all its tasks are frozen and all its
 * descendants are frozen.  Returns false (and fails @test) on a mismatch.
 */
struct frz_snap {
	struct cgroup *cgrp;
	int e_freeze, want_e_freeze;
	int nr_desc, want_nr_desc;
	int nr_frozen_desc, want_nr_frozen_desc;
	int nr_frozen_tasks, nr_tasks;
	bool freezing, frozen;
};

#define FRZ_MAX_SNAP	64

static bool frz_check_tree(struct kunit *test, bool settled)
{
	struct frz_snap *snap, *s;
	struct cgroup_subsys_state *css, *dcss;
	struct cgroup *c, *a;
	int n = 0, i;
	bool ok = true;

	snap = kunit_kcalloc(test, FRZ_MAX_SNAP, sizeof(*snap), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap);

	cgroup_lock();
	spin_lock_irq(&css_set_lock);
	css_for_each_descendant_pre(css, &cgrp_dfl_root.cgrp.self) {
		c = css->cgroup;
		if (cgroup_is_dead(c) || n == FRZ_MAX_SNAP)
			continue;
		s = &snap[n++];
		s->cgrp = c;
		s->e_freeze = c->freezer.e_freeze;
		s->nr_desc = c->nr_descendants;
		s->nr_frozen_desc = c->freezer.nr_frozen_descendants;
		s->nr_frozen_tasks = c->freezer.nr_frozen_tasks;
		s->nr_tasks = __cgroup_task_count(c);
		s->freezing = test_bit(CGRP_FREEZE, &c->flags);
		s->frozen = test_bit(CGRP_FROZEN, &c->flags);
		for (a = c; a; a = cgroup_parent(a))
			s->want_e_freeze += a->freezer.freeze;
		css_for_each_descendant_pre(dcss, css) {
			if (dcss == css || cgroup_is_dead(dcss->cgroup))
				continue;
			s->want_nr_desc++;
			if (test_bit(CGRP_FROZEN, &dcss->cgroup->flags))
				s->want_nr_frozen_desc++;
		}
	}
	spin_unlock_irq(&css_set_lock);
	cgroup_unlock();

	KUNIT_EXPECT_LT_MSG(test, n, FRZ_MAX_SNAP, "too many cgroups to check");
	for (i = 0; i < n; i++) {
		s = &snap[i];
		if (s->e_freeze != s->want_e_freeze ||
		    s->freezing != !!s->e_freeze ||
		    s->nr_desc != s->want_nr_desc ||
		    s->nr_frozen_desc != s->want_nr_frozen_desc ||
		    s->nr_frozen_tasks < 0 || s->nr_frozen_tasks > s->nr_tasks ||
		    (s->frozen && !s->freezing) ||
		    (settled && s->frozen != (s->freezing &&
					      s->nr_frozen_tasks == s->nr_tasks &&
					      s->nr_frozen_desc == s->nr_desc))) {
			KUNIT_FAIL(test,
				   "cgroup %llu: e_freeze %d (want %d) FREEZE %d FROZEN %d descendants %d (want %d) frozen descendants %d (want %d) frozen tasks %d of %d",
				   cgroup_id(s->cgrp), s->e_freeze,
				   s->want_e_freeze, s->freezing, s->frozen,
				   s->nr_desc, s->want_nr_desc,
				   s->nr_frozen_desc, s->want_nr_frozen_desc,
				   s->nr_frozen_tasks, s->nr_tasks);
			ok = false;
		}
	}
	return ok;
}

/* Expect @cg's state as user space sees it and as the flags say. */
static void frz_expect_frozen(struct kunit *test, struct frz_cg *cg,
			      int frozen)
{
	KUNIT_EXPECT_EQ_MSG(test, frz_events_frozen(cg), frozen,
			    "%s: cgroup.events frozen", cg->path);
	KUNIT_EXPECT_EQ_MSG(test, test_bit(CGRP_FROZEN, &cg->cgrp->flags),
			    !!frozen, "%s: CGRP_FROZEN", cg->path);
}

/* Expect every listed cgroup to be frozen (1) or not (0). */
#define frz_expect_all(test, frozen, ...)				\
do {									\
	struct frz_cg *__cgs[] = { __VA_ARGS__ };			\
	unsigned int __i;						\
									\
	for (__i = 0; __i < ARRAY_SIZE(__cgs); __i++)			\
		frz_expect_frozen(test, __cgs[__i], frozen);		\
} while (0)

/* ---- tasks ---- */

/* Let default actions apply (kernel threads ignore every signal). */
static void frz_task_signals(bool reap_children)
{
	spin_lock_irq(&current->sighand->siglock);
	flush_signal_handlers(current, 1);
	if (reap_children)
		current->sighand->action[SIGCHLD - 1].sa.sa_handler = SIG_IGN;
	spin_unlock_irq(&current->sighand->siglock);
}

/* Take the freezer trap, stops and fatal signals as user space would. */
static void frz_answer_signals(void)
{
	struct ksignal ksig;

	if (signal_pending(current))
		get_signal(&ksig);
}

static int frz_child(void *unused)
{
	for (;;) {
		frz_answer_signals();
		schedule_timeout_interruptible(1);
	}
	do_exit(0);
}

/*
 * Never returns: tasks leave through a fatal signal in get_signal().  A
 * forker starts children back to back, without sleeping, while its
 * budget (forks - forked) lasts, so that forks are in flight when the
 * cgroup freezes.
 */
static int frz_worker(void *arg)
{
	struct frz_task *ft = arg;

	frz_task_signals(ft->forks > 0);
	complete(&ft->started);
	if (ft->held)
		wait_for_completion(&ft->gate);
	for (;;) {
		frz_answer_signals();
		atomic_long_inc(&ft->ticks);
		if (atomic_read(&ft->forked) < ft->forks) {
			if (user_mode_thread(frz_child, NULL, SIGCHLD) > 0) {
				atomic_inc(&ft->forked);
				atomic_inc(&ft->forked_total);
			}
			cond_resched();
			continue;
		}
		schedule_timeout_interruptible(1);
	}
	do_exit(0);
}

/* Past our code for good: in do_exit() or already dead. */
static bool frz_task_gone(struct task_struct *t)
{
	return t->exit_state || (t->flags & PF_EXITING);
}

/* Dead and reaped (by its parent, which ignores SIGCHLD). */
static bool frz_task_dead(struct task_struct *t)
{
	return READ_ONCE(t->exit_state);
}

static void frz_task_destroy(void *arg)
{
	struct frz_task *ft = arg;

	complete_all(&ft->gate);
	send_sig(SIGKILL, ft->task, 1);
	if (!frz_wait_for(frz_task_dead(ft->task))) {
		KUNIT_FAIL(ft->test, "task %d did not exit",
			   task_pid_nr(ft->task));
		/* Still running our code?  Then leak @ft rather than free it. */
		if (!frz_task_gone(ft->task))
			return;
	}
	put_task_struct(ft->task);
	kfree(ft);
}

/* Move @ft into @cg through cgroup.procs: 0 or an error. */
static int frz_move(struct frz_task *ft, struct frz_cg *cg)
{
	char pid[16];
	int len = snprintf(pid, sizeof(pid), "%d", task_pid_nr(ft->task));
	ssize_t ret = frz_write(cg->path, "cgroup.procs", pid, len);

	return ret == len ? 0 : ret < 0 ? ret : -EIO;
}

/* Start a task and move it into @cg. */
static struct frz_task *frz_spawn(struct kunit *test, struct frz_cg *cg,
				  bool held, int forks)
{
	struct frz_task *ft = kzalloc(sizeof(*ft), GFP_KERNEL);
	unsigned long left;
	pid_t pid;

	KUNIT_ASSERT_NOT_NULL(test, ft);
	ft->test = test;
	init_completion(&ft->started);
	init_completion(&ft->gate);
	ft->held = held;
	ft->forks = forks;
	pid = user_mode_thread(frz_worker, ft, SIGCHLD);
	if (pid < 0) {
		kfree(ft);
		KUNIT_FAIL_AND_ABORT(test, "user_mode_thread: %d", pid);
	}
	ft->task = find_get_task_by_vpid(pid);
	KUNIT_ASSERT_NOT_NULL(test, ft->task);	/* it can't exit by itself */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, frz_task_destroy,
							ft), 0);
	left = wait_for_completion_timeout(&ft->started,
					   msecs_to_jiffies(FRZ_TIMEOUT_MS));
	KUNIT_ASSERT_NE_MSG(test, left, 0, "task %d never started", pid);
	KUNIT_ASSERT_EQ_MSG(test, frz_move(ft, cg), 0, "move %d to %s", pid,
			    cg->path);
	return ft;
}

static bool frz_cg_frozen(struct frz_cg *cg)
{
	return test_bit(CGRP_FROZEN, &cg->cgrp->flags);
}

static bool frz_task_frozen(struct frz_task *ft)
{
	return ft->task->frozen;
}

/*
 * Does a counter move?  Waits for it (up to FRZ_TIMEOUT_MS), rather than
 * sampling it across a fixed sleep: under TCG on a loaded host the vCPU
 * can be descheduled for longer than any sleep, and the sleeper may then
 * be woken before the counting task has run once.
 */
static bool frz_counter_moves(atomic_long_t *ticks)
{
	long before = atomic_long_read(ticks);

	return frz_wait_for(atomic_long_read(ticks) != before);
}

/* Does a counter stay still for FRZ_SETTLE_MS? */
static bool frz_counter_still(atomic_long_t *ticks)
{
	long before = atomic_long_read(ticks);

	msleep(FRZ_SETTLE_MS);
	return atomic_long_read(ticks) == before;
}

/* Does @ft make progress? */
static bool frz_task_runs(struct frz_task *ft)
{
	return frz_counter_moves(&ft->ticks);
}

/* Does @ft make no progress for FRZ_SETTLE_MS? */
static bool frz_task_still(struct frz_task *ft)
{
	return frz_counter_still(&ft->ticks);
}

/* Count the tasks in @cg, and those of them not frozen. */
static int frz_count_tasks(struct frz_cg *cg, int *thawed)
{
	struct css_task_iter it;
	struct task_struct *t;
	int n = 0;

	*thawed = 0;
	css_task_iter_start(&cg->cgrp->self, 0, &it);
	while ((t = css_task_iter_next(&it))) {
		n++;
		if (!t->frozen)
			(*thawed)++;
	}
	css_task_iter_end(&it);
	return n;
}

/* ---- cases ---- */

static int frz_init(struct kunit *test)
{
	char name[32];

	snprintf(name, sizeof(name), "kunit-frz-%d",
		 atomic_inc_return(&frz_next_id));
	test->priv = frz_mkdir(test, NULL, name);
	return 0;
}

static struct frz_cg *frz_top(struct kunit *test)
{
	return test->priv;
}

static void frz_test_root_has_no_freeze_file(struct kunit *test)
{
	char buf[16];

	KUNIT_EXPECT_EQ(test, frz_read(".", "cgroup.freeze", buf, sizeof(buf)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, frz_write(".", "cgroup.freeze", "1", 1),
			-ENOENT);
	KUNIT_EXPECT_GE(test, frz_read(".", "cgroup.procs", buf, sizeof(buf)),
			0);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(frz_top(test)), 0);
}

static void frz_test_empty_freezes_at_once(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");

	frz_expect_frozen(test, a, 0);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(a), 0);
	frz_settle(a);

	frz_set(test, a, 1);
	/* No waiting: an empty cgroup is frozen when the write returns. */
	KUNIT_EXPECT_TRUE(test, test_bit(CGRP_FROZEN, &a->cgrp->flags));
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(a), "no event on freeze");
	frz_expect_frozen(test, a, 1);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(a), 1);
	frz_check_tree(test, true);
	frz_settle(a);

	frz_set(test, a, 0);
	KUNIT_EXPECT_FALSE(test, test_bit(CGRP_FROZEN, &a->cgrp->flags));
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(a), "no event on thaw");
	frz_expect_frozen(test, a, 0);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(a), 0);
	frz_check_tree(test, true);
}

struct frz_write_case {
	const char *buf;
	int before;
};

static const struct frz_write_case frz_bad_writes[] = {
	{ "2", 0 }, { "2", 1 }, { "-1", 0 }, { "-1", 1 }, { "abc", 0 },
	{ "abc", 1 }, { "\n", 0 }, { "\n", 1 }, { " ", 0 }, { "1x", 0 },
	{ "0 1", 1 }, { "10", 0 }, { "0x2", 0 }, { "4294967297", 0 },
	{ "true", 0 }, { "on", 0 },
};

static void frz_write_desc(const struct frz_write_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\" when freeze=%d",
		 (int)strlen(c->buf), c->buf, c->before);
}

KUNIT_ARRAY_PARAM(frz_bad_write, frz_bad_writes, frz_write_desc);

static void frz_test_bad_write(struct kunit *test)
{
	const struct frz_write_case *c = test->param_value;
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	ssize_t ret;

	if (c->before)
		frz_set(test, a, 1);
	frz_settle(a);

	ret = frz_write(a->path, "cgroup.freeze", c->buf, strlen(c->buf));
	KUNIT_EXPECT_LT_MSG(test, ret, 0, "write accepted (%zd)", ret);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(a), c->before);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.freeze, (bool)c->before);
	msleep(FRZ_SETTLE_MS);
	KUNIT_EXPECT_FALSE_MSG(test, frz_notified(a), "event without change");
	frz_expect_frozen(test, a, c->before);
	frz_check_tree(test, true);
}

/*
 * An empty value ("echo > cgroup.freeze" writes "\n") is refused above.  A
 * zero-length write(2) carries no value at all: the cgroup core returns 0
 * (nothing written) without calling cgroup.freeze's handler.
 */
static void frz_test_zero_length_write(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");

	frz_set(test, a, 1);
	frz_settle(a);
	KUNIT_EXPECT_EQ(test, frz_write(a->path, "cgroup.freeze", "0", 0), 0);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(a), 1);
	msleep(FRZ_SETTLE_MS);
	KUNIT_EXPECT_FALSE_MSG(test, frz_notified(a), "event without change");
	frz_expect_frozen(test, a, 1);
}

static void frz_test_ancestor_freezes_descendants(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_cg *b = frz_mkdir(test, a, "b");
	struct frz_cg *c = frz_mkdir(test, b, "c");

	frz_settle(b);
	frz_settle(c);
	frz_set(test, a, 1);
	frz_expect_all(test, 1, a, b, c);
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(b), "no event in b");
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(c), "no event in c");
	/* cgroup.freeze is the cgroup's own setting. */
	KUNIT_EXPECT_EQ(test, frz_freeze_file(b), 0);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(c), 0);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(frz_top(test)), 0);
	frz_expect_frozen(test, frz_top(test), 0);
	KUNIT_EXPECT_EQ(test, b->cgrp->freezer.e_freeze, 1);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_descendants, 2);
	frz_check_tree(test, true);

	frz_settle(b);
	frz_settle(c);
	frz_set(test, a, 0);
	frz_expect_all(test, 0, a, b, c);
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(b), "no event in b");
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(c), "no event in c");
	frz_check_tree(test, true);
}

static void frz_test_child_thaw_under_frozen_ancestor(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_cg *b = frz_mkdir(test, a, "b");
	struct frz_cg *c = frz_mkdir(test, b, "c");

	frz_set(test, a, 1);
	frz_set(test, b, 1);
	KUNIT_EXPECT_EQ(test, b->cgrp->freezer.e_freeze, 2);
	KUNIT_EXPECT_EQ(test, c->cgrp->freezer.e_freeze, 2);
	frz_settle(b);

	/* b's own thaw can't beat a's freeze; the writer still hears back. */
	frz_set(test, b, 0);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(b), 0);
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(b), "no event in b");
	frz_expect_frozen(test, b, 1);
	frz_expect_frozen(test, c, 1);
	KUNIT_EXPECT_EQ(test, b->cgrp->freezer.e_freeze, 1);
	frz_check_tree(test, true);

	frz_set(test, c, 0);
	frz_expect_frozen(test, c, 1);
	frz_check_tree(test, true);

	frz_set(test, a, 0);
	frz_expect_all(test, 0, a, b, c);
	frz_check_tree(test, true);
}

static void frz_test_ancestor_thaw_keeps_own(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_cg *b = frz_mkdir(test, a, "b");
	struct frz_cg *c = frz_mkdir(test, b, "c");
	struct frz_cg *d = frz_mkdir(test, a, "d");

	frz_set(test, b, 1);
	frz_expect_frozen(test, a, 0);
	frz_expect_frozen(test, b, 1);
	frz_expect_frozen(test, c, 1);
	frz_expect_frozen(test, d, 0);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_descendants, 2);
	frz_check_tree(test, true);

	frz_set(test, a, 1);
	frz_expect_frozen(test, a, 1);
	frz_expect_frozen(test, d, 1);
	frz_check_tree(test, true);

	frz_set(test, a, 0);
	frz_expect_frozen(test, a, 0);
	frz_expect_frozen(test, b, 1);
	frz_expect_frozen(test, c, 1);
	frz_expect_frozen(test, d, 0);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_descendants, 2);
	frz_check_tree(test, true);

	frz_set(test, b, 0);
	frz_expect_frozen(test, b, 0);
	frz_expect_frozen(test, c, 0);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_descendants, 0);
	frz_check_tree(test, true);
}

static void frz_test_mkdir_in_frozen(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_cg *b, *c;

	frz_set(test, a, 1);
	b = frz_mkdir(test, a, "b");
	frz_expect_frozen(test, b, 1);
	KUNIT_EXPECT_EQ(test, frz_freeze_file(b), 0);
	c = frz_mkdir(test, b, "c");
	frz_expect_frozen(test, c, 1);
	frz_expect_frozen(test, a, 1);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_descendants, 2);
	frz_check_tree(test, true);

	frz_set(test, a, 0);
	frz_expect_all(test, 0, a, b, c);
	frz_check_tree(test, true);
}

static void frz_test_rmdir_frozen(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_cg *b = frz_mkdir(test, a, "b");
	struct frz_cg *c = frz_mkdir(test, a, "c");

	/* Frozen by itself. */
	frz_set(test, b, 1);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_descendants, 1);
	KUNIT_EXPECT_EQ(test, frz_rmdir(b), 0);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_descendants, 0);
	KUNIT_EXPECT_EQ(test, a->cgrp->nr_descendants, 1);
	frz_check_tree(test, true);

	/* Frozen by its parent, which stays frozen. */
	frz_set(test, a, 1);
	KUNIT_EXPECT_EQ(test, frz_rmdir(c), 0);
	frz_expect_frozen(test, a, 1);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_descendants, 0);
	KUNIT_EXPECT_EQ(test, a->cgrp->nr_descendants, 0);
	frz_check_tree(test, true);

	/* And the parent itself, frozen and empty. */
	KUNIT_EXPECT_EQ(test, frz_rmdir(a), 0);
	KUNIT_EXPECT_EQ(test, frz_top(test)->cgrp->nr_descendants, 0);
	KUNIT_EXPECT_EQ(test,
			frz_top(test)->cgrp->freezer.nr_frozen_descendants, 0);
	frz_check_tree(test, true);
}

static void frz_test_tasks_stop(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_task *t1 = frz_spawn(test, a, false, 0);
	struct frz_task *t2 = frz_spawn(test, a, false, 0);
	struct frz_task *late = frz_spawn(test, a, true, 0);
	int thawed;
	bool ok;

	KUNIT_EXPECT_TRUE(test, frz_task_runs(t1));
	frz_settle(a);
	frz_set(test, a, 1);
	ok = frz_wait_for(frz_task_frozen(t1) && frz_task_frozen(t2));
	KUNIT_ASSERT_TRUE_MSG(test, ok, "t1, t2 never frozen");
	/* One task hasn't taken the trap yet: the cgroup is not frozen. */
	msleep(FRZ_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, frz_task_frozen(late));
	frz_expect_frozen(test, a, 0);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_tasks, 2);
	KUNIT_EXPECT_FALSE_MSG(test, frz_notified(a), "event before frozen");
	frz_check_tree(test, false);

	complete(&late->gate);
	ok = frz_wait_for(frz_task_frozen(late));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "late task never frozen");
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(a), "no event on frozen");
	frz_expect_frozen(test, a, 1);
	KUNIT_EXPECT_EQ(test, frz_count_tasks(a, &thawed), 3);
	KUNIT_EXPECT_EQ(test, thawed, 0);
	KUNIT_EXPECT_TRUE(test, frz_task_still(t1));
	KUNIT_EXPECT_TRUE(test, frz_task_still(late));
	frz_check_tree(test, true);
	frz_settle(a);

	frz_set(test, a, 0);
	ok = frz_wait_for(!frz_task_frozen(t1) && !frz_task_frozen(t2) &&
			  !frz_task_frozen(late));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "tasks still frozen after the thaw");
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(a), "no event on thaw");
	frz_expect_frozen(test, a, 0);
	KUNIT_EXPECT_TRUE(test, frz_task_runs(t2));
	KUNIT_EXPECT_TRUE(test, frz_task_runs(late));
	frz_check_tree(test, true);
}

static void frz_test_task_moves(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_cg *b = frz_mkdir(test, frz_top(test), "b");
	struct frz_task *t = frz_spawn(test, b, false, 0);
	bool ok;

	frz_set(test, a, 1);
	frz_expect_frozen(test, a, 1);
	KUNIT_EXPECT_TRUE(test, frz_task_runs(t));

	/* Into a frozen cgroup: it stops, and the cgroup is frozen again. */
	KUNIT_ASSERT_EQ(test, frz_move(t, a), 0);
	ok = frz_wait_for(frz_task_frozen(t));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "t never frozen");
	ok = frz_wait_for(frz_cg_frozen(a));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "a never frozen");
	frz_expect_frozen(test, a, 1);
	KUNIT_EXPECT_TRUE(test, frz_task_still(t));
	frz_check_tree(test, true);

	/* Out again: it runs, the cgroup stays frozen (and empty). */
	KUNIT_ASSERT_EQ(test, frz_move(t, b), 0);
	ok = frz_wait_for(!frz_task_frozen(t));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "t still frozen");
	KUNIT_EXPECT_TRUE(test, frz_task_runs(t));
	frz_expect_frozen(test, a, 1);
	frz_expect_frozen(test, b, 0);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_tasks, 0);
	KUNIT_EXPECT_EQ(test, b->cgrp->freezer.nr_frozen_tasks, 0);
	frz_check_tree(test, true);

	/* Between two frozen cgroups it stays stopped. */
	frz_set(test, b, 1);
	ok = frz_wait_for(frz_task_frozen(t));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "t never frozen");
	KUNIT_ASSERT_EQ(test, frz_move(t, a), 0);
	ok = frz_wait_for(frz_cg_frozen(a));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "a never frozen");
	KUNIT_EXPECT_TRUE(test, frz_task_frozen(t));
	KUNIT_EXPECT_TRUE(test, frz_task_still(t));
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_tasks, 1);
	KUNIT_EXPECT_EQ(test, b->cgrp->freezer.nr_frozen_tasks, 0);
	frz_check_tree(test, true);
}

/* A kernel thread that only counts until it is stopped. */
static int frz_kthread_fn(void *arg)
{
	atomic_long_t *ticks = arg;

	while (!kthread_should_stop()) {
		atomic_long_inc(ticks);
		schedule_timeout_interruptible(1);
	}
	return 0;
}

static void frz_kthread_stop(void *arg)
{
	kthread_stop_put(arg);
}

/*
 * "Freezing cgroups containing kthreads isn't supported" (freezer.c): a
 * kernel thread moved into a cgroup (cgroup.procs takes one that may
 * migrate) is left alone when the cgroup freezes, on the way in and on
 * the way out: it never gets the freezer's trap and keeps running.  The
 * user task beside it freezes; the cgroup cannot report frozen while the
 * kernel thread is in it.
 */
static void frz_test_kthread_left_alone(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_cg *b = frz_mkdir(test, frz_top(test), "b");
	struct frz_task *t = frz_spawn(test, a, false, 0);
	atomic_long_t *ticks = kunit_kzalloc(test, sizeof(*ticks), GFP_KERNEL);
	struct task_struct *kt;
	char pid[16];
	int len;

	KUNIT_ASSERT_NOT_NULL(test, ticks);
	kt = kthread_run(frz_kthread_fn, ticks, "kunit-frz-kthread");
	KUNIT_ASSERT_FALSE(test, IS_ERR(kt));
	get_task_struct(kt);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, frz_kthread_stop, kt), 0);
	/*
	 * A new kernel thread inherits kthreadd's no_cgroup_migration, and
	 * cgroup.procs refuses it (-EINVAL) until the thread has run far
	 * enough to call cgroup_kthread_ready(): wait for its first tick.
	 */
	KUNIT_ASSERT_TRUE_MSG(test, frz_wait_for(atomic_long_read(ticks) > 0),
			      "the kernel thread never ran");
	len = snprintf(pid, sizeof(pid), "%d", task_pid_nr(kt));
	KUNIT_ASSERT_EQ(test, frz_write(a->path, "cgroup.procs", pid, len), len);

	frz_set(test, a, 1);
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_for(frz_task_frozen(t)), "the user task never froze");
	KUNIT_EXPECT_FALSE(test, kt->jobctl & JOBCTL_TRAP_FREEZE);
	KUNIT_EXPECT_FALSE(test, kt->frozen);
	KUNIT_EXPECT_TRUE(test, frz_counter_moves(ticks));
	frz_expect_frozen(test, a, 0);

	/* Out of the freezing cgroup into a frozen one: still left alone. */
	frz_set(test, b, 1);
	frz_expect_frozen(test, b, 1);
	KUNIT_ASSERT_EQ(test, frz_write(b->path, "cgroup.procs", pid, len), len);
	KUNIT_EXPECT_FALSE(test, kt->jobctl & JOBCTL_TRAP_FREEZE);
	KUNIT_EXPECT_TRUE(test, frz_counter_moves(ticks));
	KUNIT_EXPECT_TRUE(test, frz_task_frozen(t));
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_tasks, 1);
	KUNIT_EXPECT_EQ(test, b->cgrp->freezer.nr_frozen_tasks, 0);
}

static void frz_test_task_thaws_ancestor(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_cg *b = frz_mkdir(test, a, "b");
	struct frz_task *t;
	bool ok;

	frz_set(test, a, 1);
	frz_expect_frozen(test, a, 1);
	frz_expect_frozen(test, b, 1);
	frz_settle(a);

	/*
	 * A task that can't stop yet enters the frozen descendant: neither
	 * b nor its frozen ancestor is frozen any more, until it stops.
	 */
	t = frz_spawn(test, b, true, 0);
	frz_expect_frozen(test, b, 0);
	frz_expect_frozen(test, a, 0);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_descendants, 0);
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(a), "no event in a");
	frz_check_tree(test, true);

	complete(&t->gate);
	ok = frz_wait_for(frz_cg_frozen(a));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "a never frozen");
	KUNIT_EXPECT_TRUE_MSG(test, frz_wait_notify(a), "no event in a");
	frz_expect_frozen(test, b, 1);
	frz_expect_frozen(test, a, 1);
	KUNIT_EXPECT_TRUE(test, frz_task_frozen(t));
	frz_check_tree(test, true);
}

static void frz_test_kill_frozen(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_task *t1 = frz_spawn(test, a, false, 0);
	struct frz_task *t2 = frz_spawn(test, a, false, 0);
	bool ok;

	frz_set(test, a, 1);
	ok = frz_wait_for(frz_cg_frozen(a));
	KUNIT_ASSERT_TRUE_MSG(test, ok, "a never frozen");

	/*
	 * The killed task leaves the frozen state first, which unfreezes @a
	 * until cgroup_exit() counts it out; wait for the end of do_exit()
	 * (exit_state), not for PF_EXITING.
	 */
	send_sig(SIGKILL, t1->task, 1);
	ok = frz_wait_for(frz_task_dead(t1->task));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "a frozen task survives SIGKILL");
	ok = frz_wait_for(a->cgrp->freezer.nr_frozen_tasks == 1);
	KUNIT_EXPECT_TRUE_MSG(test, ok, "nr_frozen_tasks never 1");
	KUNIT_EXPECT_TRUE(test, frz_task_frozen(t2));
	frz_expect_frozen(test, a, 1);
	frz_check_tree(test, true);

	/* Same for the last task: @a refreezes in cgroup_exit(). */
	send_sig(SIGKILL, t2->task, 1);
	ok = frz_wait_for(frz_task_dead(t2->task));
	KUNIT_EXPECT_TRUE_MSG(test, ok, "a frozen task survives SIGKILL");
	KUNIT_EXPECT_FALSE_MSG(test, cgroup_is_populated(a->cgrp),
			       "a still populated");
	frz_expect_frozen(test, a, 1);
	KUNIT_EXPECT_EQ(test, a->cgrp->freezer.nr_frozen_tasks, 0);
	frz_check_tree(test, true);
}

static void frz_test_fork_races_freeze(struct kunit *test)
{
	struct frz_cg *a = frz_mkdir(test, frz_top(test), "a");
	struct frz_task *forker = frz_spawn(test, a, false, 64);
	unsigned long seed = frz_seed;
	int round, n, thawed, forked;
	struct rnd_state rnd;
	bool ok;

	while (!seed)
		seed = get_random_u32();
	kunit_info(test, "random seed %lu (replay: freezer.kunit_seed=%lu)\n",
		   seed, seed);
	prandom_seed_state(&rnd, seed);
	for (round = 0; round < 8; round++) {
		unsigned int delay = prandom_u32_state(&rnd) % FRZ_FORK_JITTER_US;

		/* A new burst of forks, and the freeze in the middle of it. */
		atomic_set(&forker->forked, 0);
		usleep_range(100 + delay, 200 + delay);
		frz_set(test, a, 1);
		ok = frz_wait_for(frz_cg_frozen(a));
		KUNIT_ASSERT_TRUE_MSG(test, ok, "round %d: never frozen", round);
		n = frz_count_tasks(a, &thawed);
		KUNIT_EXPECT_EQ_MSG(test, thawed, 0, "round %d: %d of %d run",
				    round, thawed, n);
		forked = atomic_read(&forker->forked_total);
		msleep(FRZ_SETTLE_MS);
		KUNIT_EXPECT_EQ(test, atomic_read(&forker->forked_total), forked);
		KUNIT_EXPECT_EQ(test, frz_count_tasks(a, &thawed), n);
		frz_check_tree(test, true);
		frz_set(test, a, 0);
	}
	KUNIT_EXPECT_GT(test, atomic_read(&forker->forked_total), 0);
	kunit_info(test, "%d children forked", atomic_read(&forker->forked_total));
}

static struct kunit_case freezer_test_cases[] = {
	KUNIT_CASE(frz_test_root_has_no_freeze_file),
	KUNIT_CASE(frz_test_empty_freezes_at_once),
	KUNIT_CASE_PARAM(frz_test_bad_write, frz_bad_write_gen_params),
	KUNIT_CASE(frz_test_zero_length_write),
	KUNIT_CASE(frz_test_ancestor_freezes_descendants),
	KUNIT_CASE(frz_test_child_thaw_under_frozen_ancestor),
	KUNIT_CASE(frz_test_ancestor_thaw_keeps_own),
	KUNIT_CASE(frz_test_mkdir_in_frozen),
	KUNIT_CASE(frz_test_rmdir_frozen),
	KUNIT_CASE(frz_test_tasks_stop),
	KUNIT_CASE(frz_test_task_moves),
	KUNIT_CASE(frz_test_task_thaws_ancestor),
	KUNIT_CASE(frz_test_kthread_left_alone),
	KUNIT_CASE(frz_test_kill_frozen),
	KUNIT_CASE_SLOW(frz_test_fork_races_freeze),
	{}
};

static int frz_suite_init(struct kunit_suite *suite)
{
	struct file_system_type *type = get_fs_type("cgroup2");

	if (!type)
		return -ENODEV;
	frz_mnt = kern_mount(type);
	put_filesystem(type);
	return PTR_ERR_OR_ZERO(frz_mnt);
}

static void frz_suite_exit(struct kunit_suite *suite)
{
	if (!IS_ERR_OR_NULL(frz_mnt))
		kern_unmount(frz_mnt);
}

static struct kunit_suite freezer_test_suite = {
	.name = "cgroup_freezer",
	.suite_init = frz_suite_init,
	.suite_exit = frz_suite_exit,
	.init = frz_init,
	.test_cases = freezer_test_cases,
};

kunit_test_suite(freezer_test_suite);
