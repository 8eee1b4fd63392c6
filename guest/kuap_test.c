// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel userspace access protection (KUAP, 5.2 on PowerPC) and its
 * execution counterpart (KUEP), on the 32-bit book3s kernel
 * (qemu_configs/powerpc.py): the kernel touching a user page outside the
 * uaccess helpers must fault, and say so ("Kernel attempted to write user
 * page (ADDR) - exploit attempt?"), while the helpers themselves reach
 * the same page.  lkdtm makes the accesses (debugfs provoke-crash/DIRECT,
 * from a child process, which the oops kills).  Booted with "nosmap" (an
 * extra boot), KUAP is off and the same write goes through.
 *
 * Every provocation is an oops on purpose: the test turns panic_on_oops
 * off for it and logs the markers around it that tell scripts/system.sh
 * the report is expected (KUNIT52_EXPECTED_BEGIN/END in scripts/lib.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"
#include "proc.h"

#define LKDTM_DIRECT		"/sys/kernel/debug/provoke-crash/DIRECT"
#define PANIC_ON_OOPS		"/proc/sys/kernel/panic_on_oops"
/*
 * EXPECTED_BEGIN and EXPECTED_END, the markers of an expected report, are
 * KUNIT52_EXPECTED_BEGIN/END of scripts/lib.sh, passed by
 * scripts/initramfs.sh.
 */
#if !defined(EXPECTED_BEGIN) || !defined(EXPECTED_END)
#error "build with scripts/initramfs.sh: it defines EXPECTED_BEGIN and EXPECTED_END"
#endif
#define PROVOKE_LIMIT_S		30
#define LOG_MAX			(128 * 1024)
/* How the oops ends the task that made the access (make_task_dead()). */
#define OOPS_EXIT_CODE		(128 + SIGSEGV)

enum protection { KUAP, KUEP, NR_PROTECTIONS };

static const struct {
	const char *name;
	const char *on;		/* the boot log line of an active protection */
	const char *off_arg;	/* the kernel argument that turns it off */
} protections[NR_PROTECTIONS] = {
	[KUAP] = { "KUAP", "Activating Kernel Userspace Access Protection",
		   "nosmap" },
	/* nosmep turns KUEP off on book3s/64 only: here it stays on. */
	[KUEP] = { "KUEP", "Activating Kernel Userspace Execution Prevention",
		   NULL },
};

/* One access of the kernel to a user page, made by an lkdtm crash type. */
static const struct access {
	const char *name;	/* the case */
	const char *crash;	/* lkdtm's crash type */
	enum protection by;	/* what must stop it */
	const char *attempt;	/* lkdtm's line before the access, then the address */
	const char *fault;	/* the fault's message, then "(ADDR)" */
	const char *survived;	/* lkdtm's line after an access that went through */
	const char *unsupported;	/* why book3s/32 cannot stop it (or NULL) */
} accesses[] = {
	{
		.name = "kernel_write_to_user_page",
		.crash = "ACCESS_USERSPACE",
		.by = KUAP,
		.attempt = "lkdtm: attempting bad write at ",
		.fault = "Kernel attempted to write user page (",
		.survived = "lkdtm: FAIL: survived bad write",
	},
	{
		.name = "kernel_read_of_user_page",
		.crash = "ACCESS_USERSPACE",
		.by = KUAP,
		.attempt = "lkdtm: attempting bad read at ",
		.fault = "Kernel attempted to read user page (",
		.survived = "lkdtm: FAIL: survived bad read",
		.unsupported = "book3s/32 KUAP stops writes only: its segment keys "
			"cannot take away a read that the page's user protection "
			"allows (arch/powerpc/include/asm/book3s/32/kup.h)",
	},
	{
		.name = "kernel_exec_of_user_page",
		.crash = "EXEC_USERSPACE",
		.by = KUEP,
		.attempt = "lkdtm: attempting bad execution at ",
		.fault = "kernel tried to execute user page (",
		.survived = "lkdtm: FAIL: func returned",
	},
};

/* lkdtm's copy_to_user() to the page it then accesses failed. */
#define LKDTM_COPY_FAILED	"lkdtm: copy_to_user failed"

static char klog[LOG_MAX];

static bool protection_on(enum protection p)
{
	return !protections[p].off_arg || !cmdline_has(protections[p].off_arg);
}

/* The address after @prefix in @log (hex, as %px and %lx print it), or 0. */
static unsigned long address_after(const char *log, const char *prefix)
{
	const char *p = strstr(log, prefix);

	return p ? strtoul(p + strlen(prefix), NULL, 16) : 0;
}

static int write_direct(void *crash)
{
	return file_write(LKDTM_DIRECT, crash);
}

/*
 * Have lkdtm make @crash's access from a child process, with the kernel
 * log of that access in klog; the child's exit code (OOPS_EXIT_CODE if
 * the oops killed it), or -1 if it did not end in time.
 */
static int provoke(const char *crash)
{
	char old[16] = "1", begin[160];
	int rc;

	file_read(PANIC_ON_OOPS, old, sizeof(old));
	snprintf(begin, sizeof(begin), "<4>" EXPECTED_BEGIN ": lkdtm %s\n", crash);
	klog_clear();
	file_write(PANIC_ON_OOPS, "0");
	file_write("/dev/kmsg", begin);
	rc = proc_call(write_direct, (void *)crash, PROVOKE_LIMIT_S,
		       "lkdtm's access to end");
	file_write("/dev/kmsg", "<4>" EXPECTED_END "\n");
	file_write(PANIC_ON_OOPS, chomp(old));
	klog_read(klog, sizeof(klog), false);
	return rc;
}

/* The boot log announces each protection that is on, and only those. */
static void check_announcements(void)
{
	int p;

	klog_read(klog, sizeof(klog), false);
	for (p = 0; p < NR_PROTECTIONS; p++) {
		bool on = protection_on(p);

		ktap_ok(!strstr(klog, protections[p].on) == !on,
			"%s_%s_at_boot", protections[p].name, on ? "on" : "off");
	}
}

/*
 * The uaccess helpers reach a user page: write(2) copies from it
 * (copy_from_user()), read(2) into it (copy_to_user()).
 */
static void check_uaccess(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd[2];
	bool ok;

	if (p == MAP_FAILED || pipe(fd)) {
		ktap_ok(false, "uaccess_to_and_from_user_page (setup: %m)");
		return;
	}
	memset(p, 0x5a, 64);
	ok = write(fd[1], p, 64) == 64;
	memset(p, 0, 64);
	ok = ok && read(fd[0], p, 64) == 64 && p[0] == 0x5a && p[63] == 0x5a;
	close(fd[0]);
	close(fd[1]);
	munmap(p, page);
	ktap_ok(ok, "uaccess_to_and_from_user_page");
}

/* @a with its protection on: lkdtm's access faults, on its own address. */
static bool check_blocked(const struct access *a, int rc)
{
	unsigned long at = address_after(klog, a->attempt);
	unsigned long fault = address_after(klog, a->fault);
	bool ok = true;

	if (rc != OOPS_EXIT_CODE) {
		ktap_diag("%s: the access did not oops its task (exit code %d, expected %d)",
			  a->name, rc, OOPS_EXIT_CODE);
		ok = false;
	}
	if (!at || fault != at) {
		ktap_diag("%s: no \"%s%lx)\" after \"%s%lx\"", a->name, a->fault, at,
			  a->attempt, at);
		ok = false;
	}
	if (strstr(klog, a->survived)) {
		ktap_diag("%s: \"%s\"", a->name, a->survived);
		ok = false;
	}
	return ok;
}

/* @a with its protection off: the access goes through, without a fault. */
static bool check_allowed(const struct access *a, int rc)
{
	bool ok = rc == 0 && strstr(klog, a->survived) && !strstr(klog, a->fault);

	if (!ok)
		ktap_diag("%s: expected \"%s\" and no \"%s\" (exit code %d)", a->name,
			  a->survived, a->fault, rc);
	return ok;
}

static void check_access(const struct access *a)
{
	bool on = protection_on(a->by);
	int rc = provoke(a->crash);
	bool copied = !strstr(klog, LKDTM_COPY_FAILED);

	if (!copied)
		ktap_diag("%s: lkdtm's copy_to_user() to the page failed", a->name);
	if (on && a->unsupported) {
		ktap_diag("%s: %s", a->name, strstr(klog, a->survived) ?
			  "went through" : "faulted");
		ktap_skip(a->name, a->unsupported);
		return;
	}
	ktap_ok(copied && (on ? check_blocked(a, rc) : check_allowed(a, rc)),
		"%s_%s", a->name, on ? "faults" : "goes_through");
}

int main(void)
{
	struct utsname u;
	size_t i;

	ktap_begin();
	uname(&u);
	if (strncmp(u.machine, "ppc", 3)) {
		ktap_skip("kuap", "KUAP and KUEP are PowerPC's (qemu_configs/powerpc.py)");
		return ktap_finish();
	}
	if (access(LKDTM_DIRECT, W_OK)) {
		ktap_diag("no %s: CONFIG_LKDTM and debugfs are needed", LKDTM_DIRECT);
		ktap_ok(false, "lkdtm_available");
		return ktap_finish();
	}
	check_announcements();
	check_uaccess();
	for (i = 0; i < sizeof(accesses) / sizeof(accesses[0]); i++)
		check_access(&accesses[i]);
	return ktap_finish();
}
