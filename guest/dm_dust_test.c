// SPDX-License-Identifier: GPL-2.0
/*
 * dm-dust end to end, in the kunit52 guest: dmsetup on the scratch disk
 * /dev/vda, for 512-byte blocks at offset 0 and 4096-byte blocks at a
 * non-zero offset.  Checks the messages and status/table text of
 * Documentation/admin-guide/device-mapper/dm-dust.rst, I/O on bad and
 * good blocks, quiet mode, data integrity inside and outside the target,
 * bad input, and removal.  Prints KTAP.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cred.h"
#include "failslab.h"
#include "file.h"
#include "ktap.h"
#include "loop.h"
#include "proc.h"

#define DISK		"/dev/vda"
/* A block device path that no guest has. */
#define NO_DISK		"/dev/kunit52-no-such-disk"
#define NAME		"dust1"
#define SECTOR		512ULL
#define TARGET_SECTORS	32768ULL	/* 16 MiB of the 64 MiB disk */
#define DMSETUP_LIMIT	60		/* s for one dmsetup or mke2fs run */
#define KLOG_MAX	(1 << 17)

struct config {
	unsigned int blksz;
	unsigned long long offset;	/* sectors */
};

static const struct config configs[] = {
	{ 512, 0 },
	{ 4096, 2048 },
};

static unsigned long long disk_sectors;
static char disk_devno[32];
static char out[65536];

/* Run ARGV (dmsetup, mke2fs), its output in out[]: the exit code, -1 if it hung. */
static int cmd(const char *const argv[])
{
	return run(DMSETUP_LIMIT, argv, out, sizeof(out));
}

/* dmsetup message dust1 0 <words of msg>; output in out[]. */
static int message(const char *msg)
{
	const char *argv[16] = { "dmsetup", "message", NAME, "0" };
	char buf[256], *p = buf, *tok;
	int i = 4;

	snprintf(buf, sizeof(buf), "%s", msg);
	while ((tok = strsep(&p, " ")) && i < 15)
		if (*tok)
			argv[i++] = tok;
	argv[i] = NULL;
	return cmd(argv);
}

static bool message_says(const char *msg, const char *want)
{
	int rc = message(msg);

	if (rc || strcmp(out, want))
		ktap_diag("'%s': exit %d, output '%s', expected '%s'", msg, rc, out, want);
	return !rc && !strcmp(out, want);
}

static bool message_fails(const char *msg)
{
	int rc = message(msg);

	if (!rc)
		ktap_diag("'%s' succeeded: '%s'", msg, out);
	return rc != 0;
}

static bool dmsetup_says(const char *what, const char *want)
{
	const char *argv[] = { "dmsetup", what, NAME, NULL };
	int rc = cmd(argv);

	if (rc || strcmp(out, want))
		ktap_diag("dmsetup %s: exit %d, '%s', expected '%s'", what, rc, out, want);
	return !rc && !strcmp(out, want);
}

/* dmsetup status prints "0 <len> dust <dev> <read mode> <log mode>". */
static bool status_says(const char *modes)
{
	char want[128];

	snprintf(want, sizeof(want), "0 %llu dust %s %s", TARGET_SECTORS, disk_devno, modes);
	return dmsetup_says("status", want);
}

/*
 * Create a device as dm-dust.rst does.  The guest has no udev: /init sets
 * DM_DISABLE_UDEV, and libdevmapper makes and removes the /dev/mapper
 * nodes itself, as on any system without udev rules.
 */
static int create(const char *name, const char *table)
{
	const char *argv[] = { "dmsetup", "create", name, "--table", table, NULL };

	return cmd(argv);
}

/*
 * Create @name as the plain target: TARGET_SECTORS at the start of the
 * disk, 512-byte blocks.  Its table goes into @table.
 */
static int create_plain(const char *name, char *table, size_t size)
{
	snprintf(table, size, "0 %llu dust %s 0 512", TARGET_SECTORS, DISK);
	return create(name, table);
}

/* create_plain() of NAME as one KTAP result, "@what: create '<table>'". */
static bool start_plain(const char *what)
{
	char table[128];
	bool ok = ktap_ok(create_plain(NAME, table, sizeof(table)) == 0, "%s: create '%s'",
			  what, table);

	if (!ok)
		ktap_diag("%s", out);
	return ok;
}

static int dm_remove(const char *name)
{
	const char *argv[] = { "dmsetup", "remove", name, NULL };

	return cmd(argv);
}

/* The device number of the dm device named @name (sysfs), or 0. */
static dev_t dm_devno(const char *name)
{
	char path[300], buf[64];
	unsigned int maj, min;
	struct dirent *de;
	DIR *d = opendir("/sys/block");
	dev_t devno = 0;

	while (d && !devno && (de = readdir(d))) {
		if (strncmp(de->d_name, "dm-", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dm/name", de->d_name);
		if (file_read(path, buf, sizeof(buf)) < 0 || strcmp(chomp(buf), name))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		if (file_read(path, buf, sizeof(buf)) > 0 &&
		    sscanf(buf, "%u:%u", &maj, &min) == 2)
			devno = makedev(maj, min);
	}
	if (d)
		closedir(d);
	return devno;
}

/*
 * dmsetup create, as written in dm-dust.rst, leaves /dev/mapper/<name>,
 * a node of the new dm device, that the document's dd writes through;
 * dmsetup remove takes it away.
 */
static void test_mapper_node(void)
{
	const char *dd[] = { "dd", "if=/dev/zero", "of=/dev/mapper/" NAME, "bs=512",
			     "count=128", "oflag=direct", NULL };
	struct stat st;
	bool node;

	if (!start_plain("mapper node"))
		return;
	node = !stat("/dev/mapper/" NAME, &st) && S_ISBLK(st.st_mode) &&
	       st.st_rdev == dm_devno(NAME);
	ktap_ok(node, "mapper node: /dev/mapper/" NAME " is the dm device's node");
	ktap_ok(node && cmd(dd) == 0, "mapper node: dd writes through it");
	ktap_ok(dm_remove(NAME) == 0 && access("/dev/mapper/" NAME, F_OK) &&
		errno == ENOENT, "mapper node: remove takes it away");
}

/* No dm device is left in the kernel. */
static bool no_dm_devices(void)
{
	const char *argv[] = { "dmsetup", "ls", NULL };

	return cmd(argv) == 0 && !strcmp(out, "No devices found");
}

static bool device_exists(const char *name)
{
	const char *argv[] = { "dmsetup", "info", name, NULL };

	return cmd(argv) == 0;
}

/* The kernel log since the last klog_clear(). */
static const char *klog(void)
{
	static char buf[KLOG_MAX];

	klog_read(buf, sizeof(buf), false);
	return buf;
}

/* The content of sector s before any test wrote to it. */
static void pattern(uint64_t *buf, unsigned long long s, unsigned long long n)
{
	unsigned long long i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < SECTOR / 8; j++)
			buf[i * SECTOR / 8 + j] = (s + i) * 0x9e3779b97f4a7c15ULL ^ j;
}

static void *aligned(size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, size))
		abort();
	return p;
}

/* Direct I/O of n sectors at sector s: 0 or errno. */
static int dio(const char *dev, bool write_, unsigned long long s,
	       unsigned long long n, void *buf)
{
	int fd = open(dev, (write_ ? O_WRONLY : O_RDONLY) | O_DIRECT);
	ssize_t r;
	int err;

	if (fd < 0)
		return errno;
	if (write_)
		r = pwrite(fd, buf, n * SECTOR, s * SECTOR);
	else
		r = pread(fd, buf, n * SECTOR, s * SECTOR);
	err = r < 0 ? errno : (r == (ssize_t)(n * SECTOR) ? 0 : EIO);
	close(fd);
	return err;
}

static const char *dust_dev(void)
{
	return "/dev/mapper/" NAME;
}

/* Read block b of the target: 0 or errno. */
static int read_block(const struct config *c, unsigned long long b, void *buf)
{
	return dio(dust_dev(), false, b * (c->blksz / SECTOR), c->blksz / SECTOR, buf);
}

static int write_block(const struct config *c, unsigned long long b, void *buf)
{
	return dio(dust_dev(), true, b * (c->blksz / SECTOR), c->blksz / SECTOR, buf);
}

static bool block_has_pattern(const struct config *c, unsigned long long b)
{
	unsigned long long spb = c->blksz / SECTOR;
	void *got = aligned(c->blksz), *want = aligned(c->blksz);
	bool ok;

	pattern(want, c->offset + b * spb, spb);
	ok = read_block(c, b, got) == 0 && !memcmp(got, want, c->blksz);
	free(got);
	free(want);
	return ok;
}

/* Fill the whole scratch disk with the pattern. */
static bool write_pattern(void)
{
	unsigned long long chunk = 2048, s;
	uint64_t *buf = aligned(chunk * SECTOR);
	bool ok = true;

	for (s = 0; ok && s < disk_sectors; s += chunk) {
		pattern(buf, s, chunk);
		ok = dio(DISK, true, s, chunk, buf) == 0;
	}
	free(buf);
	return ok;
}

/*
 * Compare the whole disk with the pattern, except the blocks in @written
 * (target blocks the test overwrote with WRITTEN_BYTE).  Reports the first
 * difference.
 */
static bool check_disk(const struct config *c, const unsigned long long *written,
		       int nwritten)
{
	unsigned long long chunk = 2048, s, i, blk, spb = c->blksz / SECTOR;
	uint64_t *got = aligned(chunk * SECTOR), *want = aligned(chunk * SECTOR);
	bool ok = true;
	int w;

	for (s = 0; ok && s < disk_sectors; s += chunk) {
		if (dio(DISK, false, s, chunk, got)) {
			ktap_diag("read of sector %llu failed", s);
			ok = false;
			break;
		}
		pattern(want, s, chunk);
		for (i = 0; i < chunk; i++) {
			unsigned long long sec = s + i;
			bool overwritten = false;

			if (sec >= c->offset && sec < c->offset + TARGET_SECTORS) {
				blk = (sec - c->offset) / spb;
				for (w = 0; w < nwritten; w++)
					overwritten |= written[w] == blk;
			}
			if (overwritten)
				continue;
			if (memcmp(got + i * SECTOR / 8, want + i * SECTOR / 8, SECTOR)) {
				ktap_diag("sector %llu differs from the pattern%s", sec,
					  sec < c->offset || sec >= c->offset + TARGET_SECTORS ?
					  " (outside the target)" : "");
				ok = false;
				break;
			}
		}
	}
	free(got);
	free(want);
	return ok;
}

/* message_says() of a formatted message. */
static bool says(const char *want, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static bool says(const char *want, const char *fmt, ...)
{
	char msg[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return message_says(msg, want);
}

/* Does the kernel log (since klog_clear()) hold the formatted line? */
static bool logged(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool logged(const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return strstr(klog(), line);
}

/* What dm-dust answers to queryblock (Documentation/.../dm-dust.rst). */
static bool query_says(unsigned long long b, bool found)
{
	char want[128];

	snprintf(want, sizeof(want), "dust_query_block: block %llu %sfound in badblocklist",
		 b, found ? "" : "not ");
	return says(want, "queryblock %llu", b);
}

static bool count_says(int n)
{
	char want[64];

	snprintf(want, sizeof(want), "countbadblocks: %d badblock(s) found", n);
	return message_says("countbadblocks", want);
}

/*
 * The target blocks test_config() uses, by role (valid for every config:
 * the smallest target has 4096 blocks).
 */
enum {
	BLK_BAD = 60,		/* listed, never written: stays bad */
	BLK_HEALED = 67,	/* listed, then healed by a write */
	BLK_GOOD = 68,		/* never listed */
	BLK_BAD2 = 72,		/* listed, never written: stays bad */
	BLK_QUIET = 80,		/* added and healed in quiet mode */
	BLK_VERBOSE = 81,	/* added and healed in verbose mode again */
	BLK_UNLISTED = 99,	/* never listed: removing it fails */
};
/* The blocks test_config() overwrites, with WRITTEN_BYTE. */
static const unsigned long long written[] = { BLK_HEALED, BLK_QUIET, BLK_VERBOSE };
#define WRITTEN_BYTE	0xa5

/* Adding, listing, counting, querying; adding twice, removing unlisted. */
static void config_list(const struct config *c)
{
	char list[64];

	klog_clear();
	ktap_ok(says("", "addbadblock %d", BLK_BAD) && says("", "addbadblock %d", BLK_HEALED) &&
		says("", "addbadblock %d", BLK_BAD2),
		"blksz %u: addbadblock %d %d %d", c->blksz, BLK_BAD, BLK_HEALED, BLK_BAD2);
	ktap_ok(logged("dust_add_block: badblock added at block %d with write fail count 0",
		       BLK_HEALED),
		"blksz %u: addbadblock is logged", c->blksz);
	snprintf(list, sizeof(list), "%d\n%d\n%d", BLK_BAD, BLK_HEALED, BLK_BAD2);
	ktap_ok(message_says("listbadblocks", list), "blksz %u: listbadblocks", c->blksz);
	ktap_ok(count_says(3), "blksz %u: countbadblocks", c->blksz);
	ktap_ok(query_says(BLK_HEALED, true) && query_says(BLK_GOOD, false),
		"blksz %u: queryblock", c->blksz);
	klog_clear();
	ktap_ok(!says("", "addbadblock %d", BLK_HEALED) && strstr(out, "Invalid argument") &&
		logged("block %d already in badblocklist", BLK_HEALED),
		"blksz %u: adding a listed block fails with EINVAL", c->blksz);
	klog_clear();
	ktap_ok(!says("", "removebadblock %d", BLK_UNLISTED) && strstr(out, "Invalid argument") &&
		logged("block %d not found in badblocklist", BLK_UNLISTED),
		"blksz %u: removing an unlisted block fails with EINVAL", c->blksz);
}

/* Bypass reads bad blocks; enabled, they fail with EIO and good ones read. */
static void config_io(const struct config *c, void *buf, unsigned long long nblocks)
{
	ktap_ok(block_has_pattern(c, BLK_HEALED),
		"blksz %u: bypass: bad block %d reads its data", c->blksz, BLK_HEALED);
	ktap_ok(message_says("enable", ""), "blksz %u: enable", c->blksz);
	ktap_ok(status_says("fail_read_on_bad_block verbose"),
		"blksz %u: status fail_read_on_bad_block", c->blksz);
	ktap_ok(read_block(c, BLK_HEALED, buf) == EIO && read_block(c, BLK_BAD, buf) == EIO,
		"blksz %u: enabled: reading a bad block fails with EIO", c->blksz);
	ktap_ok(block_has_pattern(c, BLK_HEALED - 1) && block_has_pattern(c, BLK_GOOD) &&
		block_has_pattern(c, 0) && block_has_pattern(c, nblocks - 1),
		"blksz %u: enabled: good blocks read the data written before", c->blksz);
}

/* A write heals a bad block, and the log names it. */
static void config_heal(const struct config *c, void *buf)
{
	memset(buf, WRITTEN_BYTE, c->blksz);
	klog_clear();
	ktap_ok(write_block(c, BLK_HEALED, buf) == 0,
		"blksz %u: writing bad block %d succeeds", c->blksz, BLK_HEALED);
	ktap_ok(logged("block %d removed from badblocklist by write", BLK_HEALED),
		"blksz %u: the log names block %d", c->blksz, BLK_HEALED);
	ktap_ok(query_says(BLK_HEALED, false) && count_says(2),
		"blksz %u: the write removed block %d from the list", c->blksz, BLK_HEALED);
	memset(buf, 0, c->blksz);
	ktap_ok(read_block(c, BLK_HEALED, buf) == 0 &&
		((unsigned char *)buf)[c->blksz - 1] == WRITTEN_BYTE,
		"blksz %u: block %d reads what was written", c->blksz, BLK_HEALED);
}

/* Quiet mode silences add/remove/remap lines; "quiet" again ends it. */
static void config_quiet(const struct config *c, void *buf)
{
	char line[64];
	bool ok;

	ktap_ok(message_says("quiet", ""), "blksz %u: quiet", c->blksz);
	ktap_ok(status_says("fail_read_on_bad_block quiet"), "blksz %u: status quiet", c->blksz);
	klog_clear();
	memset(buf, WRITTEN_BYTE, c->blksz);
	ok = says("", "addbadblock %d", BLK_QUIET) && write_block(c, BLK_QUIET, buf) == 0 &&
	     !says("", "removebadblock %d", BLK_QUIET);
	snprintf(line, sizeof(line), "block %d", BLK_QUIET);
	ktap_ok(ok && !strstr(klog(), line), "blksz %u: quiet: nothing logged", c->blksz);
	ktap_ok(message_says("quiet", ""), "blksz %u: quiet again: verbose", c->blksz);
	klog_clear();
	ok = says("", "addbadblock %d", BLK_VERBOSE) && write_block(c, BLK_VERBOSE, buf) == 0;
	ktap_ok(ok && logged("block %d removed from badblocklist by write", BLK_VERBOSE),
		"blksz %u: verbose again: removal logged", c->blksz);
}

/* Malformed messages fail and change nothing; the last block is the limit. */
static void config_bad_messages(const struct config *c, unsigned long long nblocks)
{
	static const char *const bad[] = {
		"addbadblock", "addbadblock x", "addbadblock -1", "addbadblock 5 256",
		"addbadblock 5 4294967296", "addbadblock 18446744073709551616",
		"addbadblock 5 1 1", "removebadblock 60 1", "queryblock",
		"frobnicate", "enable 1", "countbadblocks 1",
	};
	char list[64];
	unsigned int i;
	bool ok = true;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok &= message_fails(bad[i]);
	ok &= !says("", "addbadblock %llu", nblocks);
	ok &= says("", "addbadblock %llu", nblocks - 1);
	ok &= says("", "removebadblock %llu", nblocks - 1);
	ktap_ok(ok, "blksz %u: malformed messages fail, block %llu is past the end",
		c->blksz, nblocks);
	snprintf(list, sizeof(list), "%d\n%d", BLK_BAD, BLK_BAD2);
	ktap_ok(message_says("listbadblocks", list) && status_says("bypass verbose"),
		"blksz %u: ... and change nothing", c->blksz);
}

static void test_config(const struct config *c)
{
	unsigned long long nblocks = TARGET_SECTORS / (c->blksz / SECTOR);
	char table[128], want[256];
	void *buf;

	printf("# blksz %u, offset %llu\n", c->blksz, c->offset);
	ktap_ok(write_pattern(), "blksz %u: pattern written over the whole disk", c->blksz);

	snprintf(table, sizeof(table), "0 %llu dust %s %llu %u", TARGET_SECTORS, DISK,
		 c->offset, c->blksz);
	if (!ktap_ok(create(NAME, table) == 0, "blksz %u: create '%s'", c->blksz, table)) {
		ktap_diag("%s", out);
		return;
	}
	snprintf(want, sizeof(want), "0 %llu dust %s %llu %u", TARGET_SECTORS, disk_devno,
		 c->offset, c->blksz);
	ktap_ok(dmsetup_says("table", want), "blksz %u: dmsetup table", c->blksz);
	ktap_ok(status_says("bypass verbose"), "blksz %u: dmsetup status (bypass verbose)",
		c->blksz);

	buf = aligned(c->blksz);
	config_list(c);
	config_io(c, buf, nblocks);
	config_heal(c, buf);
	config_quiet(c, buf);
	free(buf);

	ktap_ok(message_says("disable", ""), "blksz %u: disable", c->blksz);
	ktap_ok(block_has_pattern(c, BLK_BAD) && block_has_pattern(c, BLK_BAD2),
		"blksz %u: disabled: bad blocks read their data", c->blksz);
	config_bad_messages(c, nblocks);

	ktap_ok(message_says("clearbadblocks", "dust_clear_badblocks: badblocks cleared") &&
		message_says("clearbadblocks", "dust_clear_badblocks: no badblocks found") &&
		message_says("listbadblocks", "No blocks in badblocklist") && count_says(0),
		"blksz %u: clearbadblocks", c->blksz);
	ktap_ok(dm_remove(NAME) == 0 && !device_exists(NAME) && no_dm_devices() &&
		access(dust_dev(), F_OK),
		"blksz %u: dmsetup remove leaves no device", c->blksz);
	ktap_ok(check_disk(c, written, sizeof(written) / sizeof(written[0])),
		"blksz %u: data integrity: every other sector of the disk still holds the pattern",
		c->blksz);
}

/*
 * A target whose length is not a whole number of blocks ends in a partial
 * block that I/O reaches: 4.5 blocks of @blksz (4 whole blocks and 1 + 4
 * = 5 in all; with 512-byte blocks, 4 blocks).  The first, the last whole
 * and the partial block take every message and fail reads, a write heals
 * the partial block, and the block after it is refused.
 */
static void test_partial_block(unsigned int blksz, unsigned long long offset)
{
	unsigned long long spb = blksz / SECTOR, len = 4 * spb + spb / 2;
	unsigned long long nr = (len + spb - 1) / spb, last = nr - 1;
	char table[128], msg[64], list[64];
	void *buf = aligned(blksz);
	bool ok;

	snprintf(table, sizeof(table), "0 %llu dust %s %llu %u", len, DISK, offset, blksz);
	if (!ktap_ok(create(NAME, table) == 0, "partial block: create '%s'", table)) {
		ktap_diag("%s", out);
		free(buf);
		return;
	}
	snprintf(msg, sizeof(msg), "addbadblock %llu", last);
	ok = message_says("addbadblock 0", "") && message_says("addbadblock 3", "") &&
	     (last == 3 || message_says(msg, ""));
	if (last == 3)
		snprintf(list, sizeof(list), "0\n3");
	else
		snprintf(list, sizeof(list), "0\n3\n%llu", last);
	ktap_ok(ok && message_says("listbadblocks", list),
		"blksz %u, %llu sectors: the first, the last whole and the last block %llu are bad blocks",
		blksz, len, last);
	snprintf(msg, sizeof(msg), "queryblock %llu", last);
	ok = message(msg) == 0 && strstr(out, "found in badblocklist") &&
	     !strstr(out, "not found");
	ktap_ok(ok, "blksz %u, %llu sectors: queryblock %llu", blksz, len, last);

	message_says("enable", "");
	/* The last sector of the target is in the last block. */
	ok = dio(dust_dev(), false, len - 1, 1, buf) == EIO &&
	     dio(dust_dev(), false, last * spb, 1, buf) == EIO &&
	     dio(dust_dev(), false, 0, 1, buf) == EIO &&
	     dio(dust_dev(), false, 3 * spb + spb - 1, 1, buf) == EIO;
	ktap_ok(ok, "blksz %u, %llu sectors: reads of the first and last sector of blocks 0, 3 and %llu fail with EIO",
		blksz, len, last);
	snprintf(msg, sizeof(msg), "removebadblock %llu", last);
	message_says(msg, "");
	snprintf(msg, sizeof(msg), "addbadblock %llu 1", last);
	memset(buf, WRITTEN_BYTE, SECTOR);
	ok = message_says(msg, "") && dio(dust_dev(), true, len - 1, 1, buf) == EIO &&
	     dio(dust_dev(), true, len - 1, 1, buf) == 0 &&
	     dio(dust_dev(), false, len - 1, 1, buf) == 0;
	ktap_ok(ok, "blksz %u, %llu sectors: block %llu fails one write, then a write heals it",
		blksz, len, last);

	snprintf(msg, sizeof(msg), "addbadblock %llu", nr);
	ok = message_fails(msg);
	snprintf(msg, sizeof(msg), "queryblock %llu", nr);
	ok &= message_fails(msg);
	snprintf(msg, sizeof(msg), "removebadblock %llu", nr);
	ok &= message_fails(msg);
	snprintf(msg, sizeof(msg), "addbadblock %llu 1", nr);
	ok &= message_fails(msg);
	ktap_ok(ok && message_says("listbadblocks", last == 3 ? "0" : "0\n3"),
		"blksz %u, %llu sectors: block %llu, past the last, is refused by every message",
		blksz, len, nr);
	ktap_ok(dm_remove(NAME) == 0 && no_dm_devices(),
		"blksz %u, %llu sectors: removed", blksz, len);
	free(buf);
}

/*
 * A flush of the dust device (fsync() and fdatasync() of the device)
 * reaches the target as an empty REQ_PREFLUSH bio: it must neither fail
 * because block 0 has a write failure count nor remove block 0 from the
 * list.
 */
static void test_flush(void)
{
	int fd, err;

	if (!start_plain("flush"))
		return;
	message_says("addbadblock 0 1", "");
	message_says("addbadblock 1", "");
	message_says("enable", "");
	fd = open(dust_dev(), O_RDWR);
	err = fd < 0 || fsync(fd) ? errno : 0;
	if (err)
		ktap_diag("fsync: %s", strerror(err));
	ktap_ok(!err, "flush: fsync() of the device succeeds while block 0 has a write failure count");
	err = fd < 0 || fdatasync(fd) || fsync(fd) ? errno : 0;
	ktap_ok(!err, "flush: fdatasync() and another fsync() succeed");
	if (fd >= 0)
		close(fd);
	ktap_ok(message_says("listbadblocks", "0\n1") &&
		message_says("queryblock 0", "dust_query_block: block 0 found in badblocklist"),
		"flush: block 0 is still a bad block");
	ktap_ok(dm_remove(NAME) == 0 && no_dm_devices(), "flush: removed");
}

/*
 * The same through a file system: ext2 (1 KiB blocks, so dust blocks 0
 * and 1, the boot sector, are never written by it) on the dust device;
 * an fsync() of a file ends with a flush of the device.  The file is
 * overwritten in place, so the fsync() writes only data and the inode.
 */
#define FS_MNT		"/mnt/dust"
#define FS_FILE		FS_MNT "/f"
#define FS_FILE_SIZE	65536

/* Overwrite FS_FILE with @c and fsync() it: 0 or errno. */
static int fs_write_fsync(char c)
{
	static char buf[FS_FILE_SIZE];
	int fd, err = 0;

	memset(buf, c, sizeof(buf));
	fd = open(FS_FILE, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return errno;
	if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) || fsync(fd))
		err = errno;
	close(fd);
	return err;
}

static void test_fs_flush(void)
{
	const char *mkfs[] = { "busybox", "mke2fs", "-F", "-b", "1024",
			       "/dev/mapper/" NAME, NULL };
	int err;

	if (!start_plain("fs flush"))
		return;
	mkdir("/mnt", 0755);
	mkdir(FS_MNT, 0755);
	if (!ktap_ok(cmd(mkfs) == 0 &&
		     !mount(dust_dev(), FS_MNT, "ext2", 0, NULL) &&
		     !fs_write_fsync('a'),
		     "fs flush: ext2 on the dust device, a file written and fsync()ed")) {
		ktap_diag("mke2fs: %s; mount/write: %s", out, strerror(errno));
		umount(FS_MNT);
		dm_remove(NAME);
		return;
	}
	message_says("addbadblock 0 1", "");
	message_says("addbadblock 1", "");
	message_says("enable", "");
	err = fs_write_fsync('b');
	if (err)
		ktap_diag("fsync: %s", strerror(err));
	ktap_ok(!err, "fs flush: fsync() of a file succeeds while block 0 has a write failure count");
	err = fs_write_fsync('c');
	ktap_ok(!err, "fs flush: a second write and fsync() succeed");
	ktap_ok(message_says("listbadblocks", "0\n1"),
		"fs flush: blocks 0 and 1 are still bad blocks");
	ktap_ok(!umount(FS_MNT), "fs flush: unmounted");
	ktap_ok(dm_remove(NAME) == 0 && no_dm_devices(), "fs flush: removed");
}

/*
 * dust_prepare_ioctl(): an ioctl the block layer does not handle itself
 * goes to the underlying device.  dm passes it through for anyone who has
 * the device open when the target maps all of that device, and asks for
 * CAP_SYS_RAWIO when it maps a part (a start offset or a shorter length).
 * The scratch disk (virtio) has no ioctls of its own, so these cases put
 * dm-dust on a loop device, whose LOOP_GET_STATUS64 answers with the name
 * its backing file was given.  A target with a start offset is always
 * shorter than its device (dm refuses a table that reaches past the end),
 * so its case checks the same length test through another table.
 */
#define LOOP_FILE	"/tmp/dust-loop"
#define LOOP_NAME	"kunit52-dust-loop"
#define LOOP_SECTORS	8192ULL		/* 4 MiB */
#define IOCTL_LIMIT	30		/* s for one case's child */

struct ioctl_case {
	const char *what;
	unsigned long long len;		/* target sectors */
	unsigned long long start;	/* sectors into the loop device */
	bool rawio;			/* the caller keeps CAP_SYS_RAWIO */
	int err;			/* the errno expected, 0: passed through */
};

static const struct ioctl_case ioctl_cases[] = {
	{ "whole device", LOOP_SECTORS, 0, false, 0 },
	{ "one sector short", LOOP_SECTORS - 1, 0, false, ENOTTY },
	{ "one sector short", LOOP_SECTORS - 1, 0, true, 0 },
	{ "start 1, to the end", LOOP_SECTORS - 1, 1, false, ENOTTY },
	{ "start 1, to the end", LOOP_SECTORS - 1, 1, true, 0 },
};

/*
 * In a child: open the dust device, keep only the capabilities of @arg's
 * case and ask for the loop device's status through it.  0, the errno,
 * or EBADMSG if the answer is not the loop device's.
 */
static int ioctl_child(void *arg)
{
	const struct ioctl_case *c = arg;
	struct loop_info64 info = { 0 };
	int fd = open(dust_dev(), O_RDONLY), err;

	if (fd < 0)
		return errno;
	err = cred_drop(CRED_NOBODY, CRED_NOBODY,
			c->rawio ? CRED_CAP(CAP_SYS_RAWIO) : CRED_NO_CAPS);
	if (err)
		return err;
	if (ioctl(fd, LOOP_GET_STATUS64, &info))
		return errno;
	return strcmp((char *)info.lo_file_name, LOOP_NAME) ? EBADMSG : 0;
}

static void ioctl_case_name(const struct ioctl_case *c, char *name, size_t size)
{
	snprintf(name, size, "ioctl: %s, %s CAP_SYS_RAWIO: %s", c->what,
		 c->rawio ? "with" : "without",
		 c->err ? "refused" : "passed through to the loop device");
}

static void test_ioctl_passthrough(void)
{
	const size_t n = sizeof(ioctl_cases) / sizeof(ioctl_cases[0]);
	const struct ioctl_case *c;
	char loop[32], table[128], name[128], why[128];
	bool removed;
	int lfd, err;
	size_t i;

	lfd = loop_attach(LOOP_FILE, LOOP_SECTORS * SECTOR, LOOP_NAME, loop, sizeof(loop));
	snprintf(why, sizeof(why), "no loop device: %s", strerror(-lfd));
	for (i = 0; i < n; i++) {
		c = &ioctl_cases[i];
		ioctl_case_name(c, name, sizeof(name));
		if (lfd < 0) {
			ktap_skip(name, why);
			continue;
		}
		snprintf(table, sizeof(table), "0 %llu dust %s %llu 512", c->len, loop, c->start);
		if (create(NAME, table)) {
			ktap_diag("create '%s': %s", table, out);
			ktap_ok(false, "%s", name);
			continue;
		}
		err = proc_call(ioctl_child, (void *)c, IOCTL_LIMIT, "the ioctl child");
		/* Removed whatever the result, so that one failure stays one. */
		removed = dm_remove(NAME) == 0;
		if (!removed)
			ktap_diag("dmsetup remove %s: %s", NAME, out);
		if (err != c->err)
			ktap_diag("LOOP_GET_STATUS64: %s, expected %s", strerror(err),
				  c->err ? strerror(c->err) : "the loop device's status");
		ktap_ok(err == c->err && removed, "%s", name);
	}
	if (lfd >= 0)
		loop_detach(lfd, LOOP_FILE);
}

struct bad_table {
	const char *args;
	const char *error;
};

/* Table lines dust_ctr() must refuse, with the error it logs. */
static void test_bad_tables(void)
{
	static const struct bad_table bad[] = {
		{ "512", "Invalid argument count" },
		{ "0 512 x", "Invalid argument count" },
		{ "0 0", "Invalid block size parameter" },
		{ "0 511", "Block size must be at least 512" },
		{ "0 513", "Block size must be a power of 2" },
		{ "0 3072", "Block size must be a power of 2" },
		{ "0 2147483648", "Block size is too large" },
		{ "x 512", "Invalid device offset sector" },
		{ "18446744073709551616 512", "Invalid device offset sector" },
		{ "18446744073709551617 512", "Invalid device offset sector" },
	};
	char table[128];
	unsigned int i;
	bool ok;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(table, sizeof(table), "0 %llu dust %s %s", TARGET_SECTORS, DISK,
			 bad[i].args);
		klog_clear();
		ok = create("dust2", table) != 0;
		ok = ok && strstr(klog(), bad[i].error);
		if (device_exists("dust2")) {
			dm_remove("dust2");
			ok = false;
		}
		ktap_ok(ok, "table '... %s' is refused: %s", bad[i].args, bad[i].error);
	}
	/* dust_ctr() gets past its arguments and dm_get_device() fails. */
	snprintf(table, sizeof(table), "0 %llu dust %s 0 512", TARGET_SECTORS, NO_DISK);
	klog_clear();
	ok = create("dust2", table) != 0 && strstr(klog(), "Device lookup failed");
	if (device_exists("dust2")) {
		dm_remove("dust2");
		ok = false;
	}
	ktap_ok(ok, "a table naming a device that does not exist is refused: Device lookup failed");
	/* A 16 MiB target that starts 56 MiB into the 64 MiB disk. */
	snprintf(table, sizeof(table), "0 %llu dust %s %llu 512", TARGET_SECTORS, DISK,
		 disk_sectors - TARGET_SECTORS / 2);
	ok = create("dust2", table) != 0 && !device_exists("dust2");
	if (device_exists("dust2"))
		dm_remove("dust2");
	ktap_ok(ok, "a table reaching past the end of the disk is refused");
}

/* ---- allocation failures (failslab) ---- */

#define ALLOC_BLOCK	5	/* the block whose addbadblock cannot allocate */
#define ALLOC_TABLE	"dust2"	/* the device whose table cannot allocate */

static int alloc_add_block(void)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "addbadblock %d", ALLOC_BLOCK);
	return message(msg);
}

static int alloc_create(void)
{
	char table[128];

	return create_plain(ALLOC_TABLE, table, sizeof(table));
}

/* The failed addbadblock left the list as it was: empty. */
static bool alloc_list_unchanged(void)
{
	return count_says(0) && query_says(ALLOC_BLOCK, false);
}

/* The failed table left no device behind. */
static bool alloc_no_device(void)
{
	if (!device_exists(ALLOC_TABLE))
		return true;
	dm_remove(ALLOC_TABLE);
	return false;
}

struct alloc_case {
	const char *name;
	/* The function that allocates, and its caller should it be inlined. */
	const char *fn, *caller;
	bool quiet;		/* NAME in quiet mode */
	int (*act)(void);	/* makes the allocation: an exit code */
	const char *log;	/* what the failure logs ... */
	bool logs;		/* ... or must not log */
	bool (*unchanged)(void);
};

/* dm-dust's two allocations: the bad block list's nodes and the context. */
static const struct alloc_case alloc_cases[] = {
	{ "addbadblock", "dust_add_block", "dust_message", false, alloc_add_block,
	  "dust_add_block: badblock allocation failed", true, alloc_list_unchanged },
	{ "addbadblock in quiet mode", "dust_add_block", "dust_message", true,
	  alloc_add_block, "badblock allocation failed", false, alloc_list_unchanged },
	{ "table", "dust_ctr", NULL, false, alloc_create,
	  "dust: Cannot allocate context", true, alloc_no_device },
};

/* Arm failslab in @c's function, or its caller if that is not in kallsyms. */
static bool alloc_arm(const struct alloc_case *c)
{
	unsigned long start, end;
	const char *fn = c->fn;
	bool found = ksym_range(fn, &start, &end);

	if (!found && c->caller) {
		fn = c->caller;
		found = ksym_range(fn, &start, &end);
	}
	if (!found) {
		ktap_diag("%s() is not in /proc/kallsyms%s", c->fn,
			  c->caller ? ", nor its caller" : "");
		return false;
	}
	ktap_diag("%s: failing the next allocation in %s() [%#lx, %#lx)", c->name, fn,
		  start, end);
	return failslab_arm(start, end);
}

/* The device's log mode is @quiet: "quiet" toggles it. */
static bool set_quiet(bool quiet)
{
	if (status_says(quiet ? "bypass quiet" : "bypass verbose"))
		return true;
	return message_says("quiet", "") &&
	       status_says(quiet ? "bypass quiet" : "bypass verbose");
}

static void alloc_case_run(const struct alloc_case *c)
{
	bool armed, failed, fired, logged_ok;
	int rc;

	if (!set_quiet(c->quiet)) {
		ktap_ok(false, "allocation failure: %s: " NAME " in %s mode", c->name,
			c->quiet ? "quiet" : "verbose");
		return;
	}
	klog_clear();
	armed = alloc_arm(c);
	rc = armed ? c->act() : -1;
	fired = armed && failslab_fired();
	if (!failslab_disarm())
		armed = false;
	failed = rc > 0;
	logged_ok = !strstr(klog(), c->log) == !c->logs;
	if (!failed || !fired || !logged_ok)
		ktap_diag("armed %d, exit %d (%s), failslab fired %d, '%s' logged: %s",
			  armed, rc, out, fired, c->log, strstr(klog(), c->log) ? "yes" : "no");
	ktap_ok(armed && failed && fired && logged_ok && c->unchanged(),
		"allocation failure: %s fails, %s '%s' and changes nothing", c->name,
		c->logs ? "logs" : "does not log", c->log);
}

/*
 * Every allocation dm-dust makes fails once, with failslab limited to the
 * function that makes it: the message or table fails, the log says so
 * unless in quiet mode, nothing changes, and the same call succeeds once
 * failslab is disarmed.
 */
static void test_alloc_failures(void)
{
	unsigned int i;

	if (!failslab_available()) {
		ktap_skip("allocation failures", FAILSLAB_MISSING);
		return;
	}
	if (!start_plain("allocation failures"))
		return;
	for (i = 0; i < sizeof(alloc_cases) / sizeof(alloc_cases[0]); i++)
		alloc_case_run(&alloc_cases[i]);
	ktap_ok(set_quiet(false) && alloc_add_block() == 0 && count_says(1) &&
		query_says(ALLOC_BLOCK, true),
		"allocation failures: disarmed, addbadblock %d succeeds", ALLOC_BLOCK);
	ktap_ok(alloc_create() == 0 && dm_remove(ALLOC_TABLE) == 0,
		"allocation failures: disarmed, the table is accepted");
	ktap_ok(dm_remove(NAME) == 0 && no_dm_devices(),
		"allocation failures: dmsetup remove leaves no device");
}

int main(void)
{
	struct stat st;
	unsigned int i;
	int fd;

	ktap_begin();
	fd = open(DISK, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ktap_skip("dm_dust", "no scratch disk " DISK);
		return ktap_finish();
	}
	disk_sectors = lseek(fd, 0, SEEK_END) / SECTOR;
	close(fd);
	snprintf(disk_devno, sizeof(disk_devno), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	printf("# scratch disk %s (%s), %llu sectors\n", DISK, disk_devno, disk_sectors);

	for (i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		test_config(&configs[i]);
		test_partial_block(configs[i].blksz, configs[i].offset);
	}
	test_mapper_node();
	test_flush();
	test_fs_flush();
	test_ioctl_passthrough();
	test_bad_tables();
	test_alloc_failures();
	return ktap_finish();
}
