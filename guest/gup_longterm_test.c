// SPDX-License-Identifier: GPL-2.0
/*
 * FOLL_LONGTERM in the kunit52 guest (Linux 5.2 turned
 * get_user_pages_longterm() into this flag), through the kernel's own
 * selftests of long-term pins, built from the prepared tree by
 * scripts/initramfs.sh into /selftests/mm:
 *
 *  - gup_longterm: R/O and R/W long-term pins, by GUP and GUP-fast, of
 *    MAP_SHARED and MAP_PRIVATE mappings of a memfd, a tmpfile in /tmp
 *    and a tmpfile in its working directory.  A writable long-term pin of
 *    a shared mapping must fail where the file system tracks dirty pages
 *    (writable_file_mapping_allowed(), gup_fast_folio_allowed()) and work
 *    on tmpfs.  /tmp is tmpfs; the working directory is an ext4 file
 *    system on a loop device (made with e2fsprogs' mke2fs: the selftest
 *    fallocate()s its files, which ext2 cannot), a file system the
 *    selftest knows refuses such pins.  It repeats every
 *    case on a hugetlb memfd of each huge page size the kernel offers:
 *    two pages of each size up to HUGE_MAX_KB are asked for first; the
 *    cases of sizes the guest cannot reserve (1 GiB; arm64's 32 MiB)
 *    skip with the selftest's "need more free huge pages".
 *  - gup_test -L: pin_user_pages(FOLL_LONGTERM) of a whole mapping, a
 *    table of mappings below.  The kernel checks every pinned page
 *    (verify_dma_pinned() in mm/gup_test.c): a page pinned although it
 *    is not long-term pinnable is a WARN on the console, which fails the
 *    boot.  A pin that stops early shows as "truncated (size: N)".
 *
 * Each selftest run is a KTAP subtest holding the selftest's own cases.
 * Needs CONFIG_GUP_TEST (kunitconfigs/guest) and debugfs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"
#include "loop.h"
#include "proc.h"

#define SELFTESTS	"/selftests/mm"
#define GUP_LONGTERM	SELFTESTS "/gup_longterm"
#define GUP_TEST	SELFTESTS "/gup_test"
#define GUP_TEST_FILE	"/sys/kernel/debug/gup_test"
/* Why every case skips on a kernel without the test driver. */
#define GUP_TEST_MISSING	"no " GUP_TEST_FILE " (CONFIG_GUP_TEST, debugfs)"

/* The ext4 file system whose files' pages the selftests pin. */
#define LOOP_FILE	"/tmp/gup-ext4"
#define LOOP_NAME	"kunit52-gup-ext4"
#define LOOP_BYTES	(16ULL << 20)
#define EXT4_MNT	"/mnt/gup-ext4"
/* statfs()'s f_type of ext4 (EXT4_SUPER_MAGIC, shared with ext2 and ext3). */
#define EXT4_MAGIC	0xEF53
/* e2fsprogs' (busybox's mke2fs, first in PATH, makes ext2 only). */
#define MKE2FS		"/sbin/mke2fs"
#define MKFS_LIMIT	60	/* s for mke2fs */
/* s for one selftest run: gup_longterm's 24 cases take ~10 s under TCG with KASAN. */
#define RUN_LIMIT	240

/* The huge page sizes, one directory each, and how many to reserve. */
#define HUGEPAGES	"/sys/kernel/mm/hugepages"
#define HUGE_MAX_KB	(32 * 1024)	/* 2 MiB, and arm64's 32 MiB */
/* gup_longterm uses one at a time; a private mapping's copy on write, two. */
#define HUGE_PAGES_EACH	"2"

/* gup_test -m: the mapping pinned, in MiB (2048 pages of 4 KiB). */
#define PIN_MIB		8
#define STR(x)		#x
#define XSTR(x)		STR(x)
#define TRUNCATED	"truncated (size: "
#define NOTHING_PINNED	TRUNCATED "0)"

static char out[1 << 16];

/* One gup_test -L run: the mapping it pins and what must happen. */
struct pin_case {
	const char *what;
	const char *args[6];	/* after "gup_test -L -m PIN_MIB", NULL-ended */
	const char *file;	/* made PIN_MIB long first, or NULL (/dev/zero) */
	bool pins_all;		/* else nothing may be pinned */
};

/*
 * Not here: gup_test -z (pages faulted in by the pin, FOLL_TOUCH).  This
 * tree keeps FOLL_TOUCH internal to GUP, so is_valid_gup_args() WARNs
 * and pins nothing when gup_test passes it.
 */
static const struct pin_case pin_cases[] = {
	{ "anonymous private, writable", { NULL }, NULL, true },
	{ "anonymous private, read-only", { "-W", NULL }, NULL, true },
	{ "anonymous shared (shmem), writable", { "-S", NULL }, NULL, true },
	{ "four threads pinning at once", { "-j", "4", NULL }, NULL, true },
	{ "tmpfs file, shared, writable", { "-S", NULL }, "/tmp/gup_test-file", true },
	{ "ext4 file, shared, read-only", { "-S", "-W", NULL }, EXT4_MNT "/gup_test-file", true },
	{ "ext4 file, private, writable (copy on write)", { NULL },
	  EXT4_MNT "/gup_test-file", true },
	{ "ext4 file, shared, writable: refused", { "-S", NULL },
	  EXT4_MNT "/gup_test-file", false },
};

/* An ext4 file system on a loop device at EXT4_MNT: the loop fd, or -1. */
static int ext4_mount(void)
{
	char dev[32];
	const char *mkfs[] = { MKE2FS, "-t", "ext4", "-F", "-q", dev, NULL };
	int lfd = loop_attach(LOOP_FILE, LOOP_BYTES, LOOP_NAME, dev, sizeof(dev));

	if (lfd < 0) {
		ktap_diag("loop device: %s", strerror(-lfd));
		return -1;
	}
	mkdir("/mnt", 0755);
	mkdir(EXT4_MNT, 0755);
	if (!run_ok(MKFS_LIMIT, mkfs, out, sizeof(out)) ||
	    mount(dev, EXT4_MNT, "ext4", 0, NULL)) {
		ktap_diag("ext4 on %s: %s", dev, strerror(errno));
		loop_detach(lfd, LOOP_FILE);
		return -1;
	}
	return lfd;
}

static void ext4_unmount(int lfd)
{
	if (umount(EXT4_MNT))
		ktap_diag("umount %s: %s", EXT4_MNT, strerror(errno));
	loop_detach(lfd, LOOP_FILE);
}

/*
 * Ask for @count huge pages of every size up to HUGE_MAX_KB ("0" gives
 * them back), saying what each size got.  A size the kernel cannot
 * allocate at run time keeps what it has (arm64's 32 MiB pages are
 * larger than the buddy allocator's largest block, and this kernel has no
 * CONFIG_CONTIG_ALLOC): gup_longterm then skips their cases with its own
 * reason, "need more free huge pages".
 */
static void huge_pages_reserve(const char *count)
{
	char path[512], got[32];
	struct dirent *d;
	DIR *dir = opendir(HUGEPAGES);
	unsigned long kb;
	int err;

	while (dir && (d = readdir(dir))) {
		if (sscanf(d->d_name, "hugepages-%lukB", &kb) != 1 || kb > HUGE_MAX_KB)
			continue;
		snprintf(path, sizeof(path), HUGEPAGES "/%s/nr_hugepages", d->d_name);
		err = file_write(path, count);
		if (file_read(path, got, sizeof(got)) < 0)
			snprintf(got, sizeof(got), "(unreadable)");
		ktap_diag("%s: nr_hugepages %s asked, %s%s%s", d->d_name, count, chomp(got),
			  err ? ": " : "", err ? strerror(err) : "");
	}
	if (dir)
		closedir(dir);
}

/* Is the file system of @path the one statfs() calls @magic? */
static bool fs_is(const char *path, unsigned long magic)
{
	struct statfs fs;

	return !statfs(path, &fs) && (unsigned long)fs.f_type == magic;
}

/* gup_longterm with its working directory (its "local tmpfile") on ext4. */
static void test_gup_longterm(bool have_ext4)
{
	const char *argv[] = { GUP_LONGTERM, NULL };
	int code;

	if (!have_ext4) {
		ktap_skip("gup_longterm", "no ext4 file system to run it in");
		return;
	}
	if (!ktap_ok(fs_is(EXT4_MNT, EXT4_MAGIC), "%s is ext4 (f_type 0x%x) for the local tmpfile cases",
		     EXT4_MNT, EXT4_MAGIC))
		return;
	if (chdir(EXT4_MNT)) {
		ktap_ok(false, "gup_longterm: chdir %s: %s", EXT4_MNT, strerror(errno));
		return;
	}
	huge_pages_reserve(HUGE_PAGES_EACH);
	code = run(RUN_LIMIT, argv, out, sizeof(out));
	if (chdir("/"))
		ktap_diag("chdir /: %s", strerror(errno));
	if (code)
		ktap_diag("gup_longterm: exit code %d", code);
	ktap_subtest_output("gup_longterm", out, code == 0);
	huge_pages_reserve("0");
}

static void pin_case_name(const struct pin_case *c, char *name, size_t size)
{
	snprintf(name, size, "gup_test -L: %s", c->what);
}

/* One gup_test -L run: its cases as a subtest, then the pin's extent. */
static void test_pin(const struct pin_case *c, bool have_ext4)
{
	const char *argv[16] = { GUP_TEST, "-L", "-m", XSTR(PIN_MIB) };
	char name[128];
	bool extent_ok;
	int code, err, i, n = 4;

	pin_case_name(c, name, sizeof(name));
	if (c->file && !strncmp(c->file, EXT4_MNT "/", strlen(EXT4_MNT) + 1) && !have_ext4) {
		ktap_skip(name, "no ext4 file system");
		return;
	}
	for (i = 0; c->args[i]; i++)
		argv[n++] = c->args[i];
	if (c->file) {
		/* PIN_MIB long, so that gup_test's mapping lies inside it. */
		err = file_create_sized(c->file, (unsigned long long)PIN_MIB << 20);
		if (err) {
			ktap_ok(false, "%s: make %s: %s", name, c->file, strerror(err));
			return;
		}
		argv[n++] = "-f";
		argv[n++] = c->file;
	}
	argv[n] = NULL;
	code = run(RUN_LIMIT, argv, out, sizeof(out));
	if (c->file)
		unlink(c->file);
	if (c->pins_all)
		extent_ok = !strstr(out, TRUNCATED);
	else
		extent_ok = strstr(out, NOTHING_PINNED) != NULL;
	if (!extent_ok)
		ktap_diag("%s: expected %s", name,
			  c->pins_all ? "every page pinned" : "\"" NOTHING_PINNED "\"");
	ktap_subtest_output(name, out, code == 0 && extent_ok);
}

int main(void)
{
	size_t i, n = sizeof(pin_cases) / sizeof(pin_cases[0]);
	char name[128];
	int lfd;

	ktap_begin();
	if (access(GUP_TEST_FILE, R_OK | W_OK)) {
		ktap_skip("gup_longterm", GUP_TEST_MISSING);
		for (i = 0; i < n; i++) {
			pin_case_name(&pin_cases[i], name, sizeof(name));
			ktap_skip(name, GUP_TEST_MISSING);
		}
		return ktap_finish();
	}
	lfd = ext4_mount();
	ktap_ok(lfd >= 0, "an ext4 file system on a loop device at %s", EXT4_MNT);
	test_gup_longterm(lfd >= 0);
	for (i = 0; i < n; i++)
		test_pin(&pin_cases[i], lfd >= 0);
	if (lfd >= 0)
		ext4_unmount(lfd);
	return ktap_finish();
}
