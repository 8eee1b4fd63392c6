// SPDX-License-Identifier: GPL-2.0
/*
 * vm.unprivileged_userfaultfd (Linux 5.2) from user space, in the kunit52
 * guest: who may create a userfaultfd, through userfaultfd(2) and through
 * /dev/userfaultfd, at each value of the sysctl, as
 * Documentation/admin-guide/sysctl/vm.rst and fs/userfaultfd.c decide;
 * a missing-page fault served through the fd (UFFDIO_API,
 * UFFDIO_REGISTER, UFFDIO_COPY) from user mode and from kernel mode; and
 * bad writes to the sysctl, which must leave it unchanged.  The
 * unprivileged cases run in a child as "nobody" holding exactly the
 * capabilities the case names.  Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cred.h"
#include "file.h"
#include "ktap.h"
#include "proc.h"

#define SYSCTL		"/proc/sys/vm/unprivileged_userfaultfd"
#define DEV		"/dev/userfaultfd"
/* The value this tree boots with (5.2 shipped 1; 0 since 5.11). */
#define SYSCTL_DEFAULT	0
/* The mode the misc device is registered with (root only). */
#define DEV_MODE	0600
/* A bit that is no flag of userfaultfd(2) (UFFD_USER_MODE_ONLY is 1). */
#define BAD_FLAG	0x2
/* A case's child may take this long, in seconds. */
#define CHILD_LIMIT	10.0
/* How long the handler waits for the fault message, in ms. */
#define FAULT_LIMIT_MS	5000
/* How long the faulting thread may take once the page is copied, in s. */
#define JOIN_LIMIT_S	5
/* The byte UFFDIO_COPY fills the page with. */
#define COPIED_BYTE	0x5a
/* A child's verdict when the data seen is not the data copied. */
#define ERR_DATA	EBADMSG
/* A child's verdict when no fault message (or a wrong one) arrived. */
#define ERR_NO_FAULT	ENOMSG

/* Who runs a case. */
struct who {
	bool root;			/* as the test's root, all capabilities */
	unsigned long long caps;	/* else "nobody" with these (CRED_CAP) */
};

static const struct who ROOT = { .root = true };
static const struct who NOBODY = { .caps = CRED_NO_CAPS };
static const struct who NOBODY_PTRACE = { .caps = CRED_CAP(CAP_SYS_PTRACE) };
static const struct who NOBODY_ADMIN = { .caps = CRED_CAP(CAP_SYS_ADMIN) };

/* userfaultfd(2) at each sysctl value: the errno (0: it worked). */
struct create_case {
	const char *name;
	int sysctl;
	const struct who *who;
	int flags;
	int err;
};

static const struct create_case create_cases[] = {
	{ "nobody_sysctl0_refused", 0, &NOBODY, 0, EPERM },
	{ "nobody_sysctl1_allowed", 1, &NOBODY, 0, 0 },
	{ "nobody_user_mode_only_sysctl0", 0, &NOBODY, UFFD_USER_MODE_ONLY, 0 },
	{ "nobody_user_mode_only_sysctl1", 1, &NOBODY, UFFD_USER_MODE_ONLY, 0 },
	{ "cap_sys_ptrace_sysctl0_allowed", 0, &NOBODY_PTRACE, 0, 0 },
	{ "cap_sys_admin_sysctl0_refused", 0, &NOBODY_ADMIN, 0, EPERM },
	{ "root_sysctl0_allowed", 0, &ROOT, 0, 0 },
	/* Permission is checked before the flags. */
	{ "bad_flag_sysctl0_refused_first", 0, &NOBODY, BAD_FLAG, EPERM },
	{ "bad_flag_sysctl1_invalid", 1, &NOBODY, BAD_FLAG, EINVAL },
};

/* How the registered page is first touched. */
enum touch {
	TOUCH_USER,	/* a load in user mode */
	TOUCH_KERNEL,	/* write(2) from the page: copy_from_user() */
};

/* A fault served through the fd: 0, or the errno the toucher saw. */
struct fault_case {
	const char *name;
	int sysctl;
	const struct who *who;
	int flags;
	enum touch touch;
	int err;
};

static const struct fault_case fault_cases[] = {
	{ "fault_served_user_mode_only", 0, &NOBODY, UFFD_USER_MODE_ONLY,
	  TOUCH_USER, 0 },
	{ "fault_served_sysctl1", 1, &NOBODY, 0, TOUCH_USER, 0 },
	{ "kernel_fault_served_sysctl1", 1, &NOBODY, 0, TOUCH_KERNEL, 0 },
	{ "kernel_fault_served_cap_sys_ptrace", 0, &NOBODY_PTRACE, 0,
	  TOUCH_KERNEL, 0 },
	/* User-mode-only fds do not see kernel faults: SIGBUS, EFAULT. */
	{ "kernel_fault_user_mode_only_efault", 0, &NOBODY,
	  UFFD_USER_MODE_ONLY, TOUCH_KERNEL, EFAULT },
};

/* Bad writes to the sysctl: the errno, and the value must not change. */
struct sysctl_case {
	const char *name;
	const char *text;
	const struct who *who;
	int err;
};

static const struct sysctl_case sysctl_cases[] = {
	{ "sysctl_write_2_invalid", "2\n", &ROOT, EINVAL },
	{ "sysctl_write_minus_1_invalid", "-1\n", &ROOT, EINVAL },
	{ "sysctl_write_word_invalid", "one\n", &ROOT, EINVAL },
	{ "sysctl_write_nobody_denied", "1\n", &NOBODY, EACCES },
};

static long page_size;

static int sysctl_get(void)
{
	char buf[32];

	if (file_read(SYSCTL, buf, sizeof(buf)) < 0)
		return -1;
	return atoi(buf);
}

static int sysctl_set(int val)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d\n", val);
	return file_write(SYSCTL, buf);
}

/* In a child: become @who (root stays as it is). */
static int become(const struct who *who)
{
	int err;

	if (who->root)
		return 0;
	err = cred_drop(CRED_NOBODY, CRED_NOBODY, who->caps);
	if (err)
		ktap_diag("cannot drop to uid %d: %s", CRED_NOBODY, strerror(err));
	return err;
}

/* userfaultfd(2), then UFFDIO_API: the fd, or -errno. */
static int uffd_open(int flags)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | flags);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UFFDIO_API, &api)) {
		int err = errno;

		ktap_diag("UFFDIO_API: %s", strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}

static int create_child(void *arg)
{
	const struct create_case *c = arg;
	int fd, err = become(c->who);

	if (err)
		return err;
	fd = uffd_open(c->flags);
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

/* The errno a child got (0: none), or a diagnostic and -1. */
static int child_result(int rc, const char *name)
{
	if (rc < 0 || rc > 127)
		ktap_diag("%s: the child did not finish (status %d)", name, rc);
	return rc > 127 ? -1 : rc;
}

static void expect_errno(const char *name, int got, int want)
{
	if (got != want)
		ktap_diag("%s: got %s, expected %s", name,
			  got ? strerror(got) : "success",
			  want ? strerror(want) : "success");
	ktap_ok(got == want, "%s", name);
}

/*
 * Set the sysctl to @sysctl, run @fn(@arg) in a child and expect the
 * errno @want from it.
 */
static void child_case(const char *name, int sysctl, int (*fn)(void *),
		       const void *arg, int want)
{
	int err = sysctl_set(sysctl), rc;

	if (err) {
		ktap_ok(false, "%s (cannot set the sysctl: %s)", name,
			strerror(err));
		return;
	}
	rc = proc_call(fn, (void *)arg, CHILD_LIMIT, "the case's child to exit");
	expect_errno(name, child_result(rc, name), want);
}

static void test_create(void)
{
	size_t i;

	for (i = 0; i < sizeof(create_cases) / sizeof(create_cases[0]); i++)
		child_case(create_cases[i].name, create_cases[i].sysctl,
			   create_child, &create_cases[i], create_cases[i].err);
}

/* The faulting side of a fault case, on a thread of its own. */
struct toucher {
	const struct fault_case *c;
	unsigned char *page;
	int pipe_w;
	unsigned char first;	/* TOUCH_USER: the byte it loaded */
	int err;		/* TOUCH_KERNEL: write(2)'s errno */
};

static void *touch_page(void *arg)
{
	struct toucher *t = arg;

	if (t->c->touch == TOUCH_USER) {
		t->first = *(volatile unsigned char *)t->page;
	} else if (write(t->pipe_w, t->page, page_size) != page_size) {
		t->err = errno;
	}
	return NULL;
}

/* Wait for the fault message and resolve it with UFFDIO_COPY: 0 or errno. */
static int serve_fault(int uffd, unsigned char *page)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffdio_copy copy = { 0 };
	struct uffd_msg msg;
	unsigned char *src;
	int n = poll(&pfd, 1, FAULT_LIMIT_MS);

	if (n != 1) {
		ktap_diag("no fault message within %d ms", FAULT_LIMIT_MS);
		return ERR_NO_FAULT;
	}
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT ||
	    (msg.arg.pagefault.address & ~(page_size - 1)) != (unsigned long)page) {
		ktap_diag("not the expected page fault message");
		return ERR_NO_FAULT;
	}
	src = malloc(page_size);
	if (!src)
		return ENOMEM;
	memset(src, COPIED_BYTE, page_size);
	copy.dst = (unsigned long)page;
	copy.src = (unsigned long)src;
	copy.len = page_size;
	n = ioctl(uffd, UFFDIO_COPY, &copy);
	free(src);
	if (n || copy.copy != page_size) {
		ktap_diag("UFFDIO_COPY: %s (copied %lld)", strerror(errno),
			  (long long)copy.copy);
		return errno ? errno : EIO;
	}
	return 0;
}

/* Join @thread within JOIN_LIMIT_S: 0 or ETIME. */
static int join_toucher(pthread_t thread)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += JOIN_LIMIT_S;
	if (pthread_timedjoin_np(thread, NULL, &deadline)) {
		ktap_diag("the faulting thread did not finish within %d s",
			  JOIN_LIMIT_S);
		return ETIME;
	}
	return 0;
}

/* Is every byte of @buf @byte? */
static bool all_bytes(const unsigned char *buf, long len, unsigned char byte)
{
	long i;

	for (i = 0; i < len; i++)
		if (buf[i] != byte)
			return false;
	return true;
}

/* The data the toucher saw: 0, or ERR_DATA. */
static int check_seen(const struct toucher *t, int pipe_r)
{
	unsigned char *got;
	bool ok;

	if (t->c->touch == TOUCH_USER)
		ok = t->first == COPIED_BYTE && all_bytes(t->page, page_size,
							  COPIED_BYTE);
	else {
		got = malloc(page_size);
		ok = got && read(pipe_r, got, page_size) == page_size &&
		     all_bytes(got, page_size, COPIED_BYTE);
		free(got);
	}
	if (!ok)
		ktap_diag("the faulting side did not see the copied page");
	return ok ? 0 : ERR_DATA;
}

/*
 * A kernel fault that a user-mode-only fd must not see: no message is
 * queued, and the toucher's write(2) fails by itself.
 */
static int expect_no_fault(int uffd, pthread_t thread, struct toucher *t)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	int err = join_toucher(thread);

	if (err)
		return err;
	if (poll(&pfd, 1, 0) != 0) {
		ktap_diag("a kernel fault reached a user-mode-only fd");
		return ERR_NO_FAULT;
	}
	return t->err;
}

static int fault_child(void *arg)
{
	const struct fault_case *c = arg;
	struct uffdio_register reg = { 0 };
	struct toucher t = { .c = c };
	int uffd, err, pipefd[2];
	pthread_t thread;

	err = become(c->who);
	if (err)
		return err;
	uffd = uffd_open(c->flags);
	if (uffd < 0)
		return -uffd;
	t.page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* A pipe holds a page (16 by default): write(2) never blocks. */
	if (t.page == MAP_FAILED || pipe(pipefd))
		return errno;
	t.pipe_w = pipefd[1];
	reg.range.start = (unsigned long)t.page;
	reg.range.len = page_size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		ktap_diag("UFFDIO_REGISTER: %s", strerror(errno));
		return errno;
	}
	if (!(reg.ioctls & (1ULL << _UFFDIO_COPY))) {
		ktap_diag("UFFDIO_REGISTER does not offer UFFDIO_COPY");
		return ENOTSUP;
	}
	err = pthread_create(&thread, NULL, touch_page, &t);
	if (err)
		return err;
	if (c->err)
		return expect_no_fault(uffd, thread, &t);
	err = serve_fault(uffd, t.page);
	if (err)
		return err;
	err = join_toucher(thread);
	if (err)
		return err;
	return t.err ? t.err : check_seen(&t, pipefd[0]);
}

static void test_faults(void)
{
	size_t i;

	for (i = 0; i < sizeof(fault_cases) / sizeof(fault_cases[0]); i++)
		child_case(fault_cases[i].name, fault_cases[i].sysctl,
			   fault_child, &fault_cases[i], fault_cases[i].err);
}

/* /dev/userfaultfd as @who: open, USERFAULTFD_IOC_NEW; 0 or errno. */
static int dev_child(void *arg)
{
	const struct who *who = arg;
	struct uffdio_api api = { .api = UFFD_API };
	int dev, fd, err = become(who);

	if (err)
		return err;
	dev = open(DEV, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return errno;
	fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
	if (fd < 0)
		return errno;
	/* Not user-mode only: it may handle kernel faults, at sysctl 0. */
	return ioctl(fd, UFFDIO_API, &api) ? errno : 0;
}

static int dev_as(const struct who *who, const char *name)
{
	return child_result(proc_call(dev_child, (void *)who, CHILD_LIMIT,
				      "the /dev/userfaultfd child to exit"),
			    name);
}

static void test_dev(void)
{
	struct stat st;
	bool exists = stat(DEV, &st) == 0;

	if (!exists)
		ktap_diag(DEV ": %s", strerror(errno));
	ktap_ok(exists && S_ISCHR(st.st_mode) && st.st_uid == 0 &&
		(st.st_mode & 07777) == DEV_MODE,
		"dev_node_root_only");
	if (!exists)
		return;
	sysctl_set(1);
	expect_errno("dev_nobody_denied_by_mode_sysctl1",
		     dev_as(&NOBODY, "dev_nobody_denied_by_mode_sysctl1"), EACCES);
	sysctl_set(0);
	expect_errno("dev_root_sysctl0_allowed",
		     dev_as(&ROOT, "dev_root_sysctl0_allowed"), 0);
	/* Its file mode is its only access control. */
	if (chmod(DEV, 0666)) {
		ktap_ok(false, "dev_nobody_sysctl0_allowed_by_mode (chmod: %s)",
			strerror(errno));
		return;
	}
	expect_errno("dev_nobody_sysctl0_allowed_by_mode",
		     dev_as(&NOBODY, "dev_nobody_sysctl0_allowed_by_mode"), 0);
	chmod(DEV, st.st_mode & 07777);
}

static int sysctl_child(void *arg)
{
	const struct sysctl_case *c = arg;
	int err = become(c->who);

	return err ? err : file_write(SYSCTL, c->text);
}

static void test_sysctl_writes(void)
{
	size_t i;

	for (i = 0; i < sizeof(sysctl_cases) / sizeof(sysctl_cases[0]); i++) {
		const struct sysctl_case *c = &sysctl_cases[i];
		int before, after, got;

		sysctl_set(i % 2);	/* both values must survive */
		before = sysctl_get();
		got = child_result(proc_call(sysctl_child, (void *)c,
					     CHILD_LIMIT,
					     "the sysctl-writing child to exit"),
				   c->name);
		after = sysctl_get();
		if (after != before)
			ktap_diag("%s: the value changed from %d to %d",
				  c->name, before, after);
		expect_errno(c->name, after == before ? got : -1, c->err);
	}
}

int main(void)
{
	int boot_value;

	ktap_begin();
	page_size = sysconf(_SC_PAGESIZE);
	boot_value = sysctl_get();
	if (boot_value != SYSCTL_DEFAULT)
		ktap_diag(SYSCTL " is %d at boot, expected %d", boot_value,
			  SYSCTL_DEFAULT);
	ktap_ok(boot_value == SYSCTL_DEFAULT, "sysctl_boot_default");
	test_create();
	test_faults();
	test_dev();
	test_sysctl_writes();
	sysctl_set(boot_value < 0 ? SYSCTL_DEFAULT : boot_value);
	return ktap_finish();
}
