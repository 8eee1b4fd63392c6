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
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"

#define DISK		"/dev/vda"
#define NAME		"dust1"
#define SECTOR		512ULL
#define TARGET_SECTORS	32768ULL	/* 16 MiB of the 64 MiB disk */

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

/* Run argv, capture stdout+stderr in out[]; return the exit status. */
static int run(const char *const argv[])
{
	int pipefd[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += n;
	close(pipefd[0]);
	out[len] = '\0';
	while (len && out[len - 1] == '\n')
		out[--len] = '\0';
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
	return run(argv);
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
	int rc = run(argv);

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
 * Create a device; without udev in the guest, dmsetup mknodes makes its
 * /dev/mapper node.
 */
static int create(const char *name, const char *table)
{
	const char *argv[] = { "dmsetup", "create", "--noudevsync", name,
			       "--table", table, NULL };
	const char *mknodes[] = { "dmsetup", "mknodes", name, NULL };
	int rc = run(argv);

	if (!rc)
		run(mknodes);
	return rc;
}

static int dm_remove(const char *name)
{
	const char *argv[] = { "dmsetup", "remove", "--noudevsync", name, NULL };
	const char *mknodes[] = { "dmsetup", "mknodes", NULL };
	int rc = run(argv);

	run(mknodes);	/* drops nodes of devices that are gone */
	return rc;
}

/* No dm device is left in the kernel. */
static bool no_dm_devices(void)
{
	const char *argv[] = { "dmsetup", "ls", NULL };

	return run(argv) == 0 && !strcmp(out, "No devices found");
}

static bool device_exists(const char *name)
{
	const char *argv[] = { "dmsetup", "info", name, NULL };

	return run(argv) == 0;
}

/* The kernel log since the last klog_clear(). */
static const char *klog(void)
{
	static char buf[1 << 17];
	int n = klogctl(3, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void klog_clear(void)
{
	klogctl(5, NULL, 0);
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

/* Direct I/O of n sectors at sector s; returns 0 or -errno. */
static int dio(const char *dev, bool write_, unsigned long long s,
	       unsigned long long n, void *buf)
{
	int fd = open(dev, (write_ ? O_WRONLY : O_RDONLY) | O_DIRECT);
	ssize_t r;
	int err;

	if (fd < 0)
		return -errno;
	if (write_)
		r = pwrite(fd, buf, n * SECTOR, s * SECTOR);
	else
		r = pread(fd, buf, n * SECTOR, s * SECTOR);
	err = r < 0 ? -errno : (r == (ssize_t)(n * SECTOR) ? 0 : -EIO);
	close(fd);
	return err;
}

static const char *dust_dev(void)
{
	return "/dev/mapper/" NAME;
}

/* Read block b of the target: 0, or -errno. */
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
 * (target blocks the test overwrote with 0xa5).  Reports the first
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

static void test_config(const struct config *c)
{
	unsigned long long nblocks = TARGET_SECTORS / (c->blksz / SECTOR);
	static const unsigned long long written[] = { 67, 80, 81 };
	char table[128], want[256], msg[64];
	void *buf = aligned(c->blksz);
	bool ok;

	printf("# blksz %u, offset %llu\n", c->blksz, c->offset);
	ktap_ok(write_pattern(), "blksz %u: pattern written over the whole disk", c->blksz);

	snprintf(table, sizeof(table), "0 %llu dust %s %llu %u", TARGET_SECTORS, DISK,
		 c->offset, c->blksz);
	if (!ktap_ok(create(NAME, table) == 0, "blksz %u: create '%s'", c->blksz, table)) {
		ktap_diag("%s", out);
		free(buf);
		return;
	}
	snprintf(want, sizeof(want), "0 %llu dust %s %llu %u", TARGET_SECTORS, disk_devno,
		 c->offset, c->blksz);
	ktap_ok(dmsetup_says("table", want), "blksz %u: dmsetup table", c->blksz);
	ktap_ok(status_says("bypass verbose"), "blksz %u: dmsetup status (bypass verbose)",
		c->blksz);

	/* Adding, listing, counting, querying. */
	klog_clear();
	ok = message_says("addbadblock 60", "") && message_says("addbadblock 67", "") &&
	     message_says("addbadblock 72", "");
	ktap_ok(ok, "blksz %u: addbadblock 60 67 72", c->blksz);
	ktap_ok(strstr(klog(), "dust_add_block: badblock added at block 67 with write fail count 0"),
		"blksz %u: addbadblock is logged", c->blksz);
	ktap_ok(message_says("listbadblocks", "60\n67\n72"), "blksz %u: listbadblocks", c->blksz);
	ktap_ok(message_says("countbadblocks", "countbadblocks: 3 badblock(s) found"),
		"blksz %u: countbadblocks", c->blksz);
	ktap_ok(message_says("queryblock 67", "dust_query_block: block 67 found in badblocklist") &&
		message_says("queryblock 68",
			     "dust_query_block: block 68 not found in badblocklist"),
		"blksz %u: queryblock", c->blksz);
	klog_clear();
	ktap_ok(message_fails("addbadblock 67") && strstr(out, "Invalid argument") &&
		strstr(klog(), "block 67 already in badblocklist"),
		"blksz %u: adding a listed block fails with EINVAL", c->blksz);
	klog_clear();
	ktap_ok(message_fails("removebadblock 99") && strstr(out, "Invalid argument") &&
		strstr(klog(), "block 99 not found in badblocklist"),
		"blksz %u: removing an unlisted block fails with EINVAL", c->blksz);

	/* Bypass: bad blocks read fine. */
	ktap_ok(block_has_pattern(c, 67), "blksz %u: bypass: bad block 67 reads its data",
		c->blksz);

	/* Enabled: bad blocks fail with EIO, good blocks read their data. */
	ktap_ok(message_says("enable", ""), "blksz %u: enable", c->blksz);
	ktap_ok(status_says("fail_read_on_bad_block verbose"),
		"blksz %u: status fail_read_on_bad_block", c->blksz);
	ktap_ok(read_block(c, 67, buf) == -EIO && read_block(c, 60, buf) == -EIO,
		"blksz %u: enabled: reading a bad block fails with EIO", c->blksz);
	ktap_ok(block_has_pattern(c, 66) && block_has_pattern(c, 68) && block_has_pattern(c, 0) &&
		block_has_pattern(c, nblocks - 1),
		"blksz %u: enabled: good blocks read the data written before", c->blksz);

	/* A write heals a bad block, and the log names it. */
	memset(buf, 0xa5, c->blksz);
	klog_clear();
	ktap_ok(write_block(c, 67, buf) == 0, "blksz %u: writing bad block 67 succeeds", c->blksz);
	ktap_ok(strstr(klog(), "block 67 removed from badblocklist by write"),
		"blksz %u: the log names block 67", c->blksz);
	ktap_ok(message_says("queryblock 67",
			     "dust_query_block: block 67 not found in badblocklist") &&
		message_says("countbadblocks", "countbadblocks: 2 badblock(s) found"),
		"blksz %u: the write removed block 67 from the list", c->blksz);
	memset(buf, 0, c->blksz);
	ktap_ok(read_block(c, 67, buf) == 0 && ((unsigned char *)buf)[c->blksz - 1] == 0xa5,
		"blksz %u: block 67 reads what was written", c->blksz);

	/* Quiet mode silences add/remove/remap lines. */
	ktap_ok(message_says("quiet", ""), "blksz %u: quiet", c->blksz);
	ktap_ok(status_says("fail_read_on_bad_block quiet"), "blksz %u: status quiet", c->blksz);
	klog_clear();
	memset(buf, 0xa5, c->blksz);
	ok = message_says("addbadblock 80", "") && write_block(c, 80, buf) == 0 &&
	     message_fails("removebadblock 80");
	ktap_ok(ok && !strstr(klog(), "block 80"), "blksz %u: quiet: nothing logged", c->blksz);
	ktap_ok(message_says("quiet", ""), "blksz %u: quiet again: verbose", c->blksz);
	klog_clear();
	ok = message_says("addbadblock 81", "") && write_block(c, 81, buf) == 0;
	ktap_ok(ok && strstr(klog(), "block 81 removed from badblocklist by write"),
		"blksz %u: verbose again: removal logged", c->blksz);

	/* Disabled: all reads succeed. */
	ktap_ok(message_says("disable", ""), "blksz %u: disable", c->blksz);
	ktap_ok(block_has_pattern(c, 60) && block_has_pattern(c, 72),
		"blksz %u: disabled: bad blocks read their data", c->blksz);

	/* Bad messages fail and change nothing. */
	{
		static const char *const bad[] = {
			"addbadblock", "addbadblock x", "addbadblock -1", "addbadblock 5 256",
			"addbadblock 5 4294967296", "addbadblock 18446744073709551616",
			"addbadblock 5 1 1", "removebadblock 60 1", "queryblock",
			"frobnicate", "enable 1", "countbadblocks 1",
		};
		unsigned int i;

		ok = true;
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			ok &= message_fails(bad[i]);
		snprintf(msg, sizeof(msg), "addbadblock %llu", nblocks);
		ok &= message_fails(msg);
		snprintf(msg, sizeof(msg), "addbadblock %llu", nblocks - 1);
		ok &= message_says(msg, "");
		snprintf(msg, sizeof(msg), "removebadblock %llu", nblocks - 1);
		ok &= message_says(msg, "");
		ktap_ok(ok, "blksz %u: malformed messages fail, block %llu is past the end",
			c->blksz, nblocks);
		ktap_ok(message_says("listbadblocks", "60\n72") &&
			status_says("bypass verbose"),
			"blksz %u: ... and change nothing", c->blksz);
	}

	/* Clearing. */
	ktap_ok(message_says("clearbadblocks", "dust_clear_badblocks: badblocks cleared") &&
		message_says("clearbadblocks", "dust_clear_badblocks: no badblocks found") &&
		message_says("listbadblocks", "No blocks in badblocklist") &&
		message_says("countbadblocks", "countbadblocks: 0 badblock(s) found"),
		"blksz %u: clearbadblocks", c->blksz);

	/* Removal leaves nothing behind. */
	ktap_ok(dm_remove(NAME) == 0 && !device_exists(NAME) && no_dm_devices() &&
		access(dust_dev(), F_OK),
		"blksz %u: dmsetup remove leaves no device", c->blksz);

	ktap_ok(check_disk(c, written, sizeof(written) / sizeof(written[0])),
		"blksz %u: data integrity: every other sector of the disk still holds the pattern",
		c->blksz);
	free(buf);
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
	ok = dio(dust_dev(), false, len - 1, 1, buf) == -EIO &&
	     dio(dust_dev(), false, last * spb, 1, buf) == -EIO &&
	     dio(dust_dev(), false, 0, 1, buf) == -EIO &&
	     dio(dust_dev(), false, 3 * spb + spb - 1, 1, buf) == -EIO;
	ktap_ok(ok, "blksz %u, %llu sectors: reads of the first and last sector of blocks 0, 3 and %llu fail with EIO",
		blksz, len, last);
	snprintf(msg, sizeof(msg), "removebadblock %llu", last);
	message_says(msg, "");
	snprintf(msg, sizeof(msg), "addbadblock %llu 1", last);
	memset(buf, 0xa5, SECTOR);
	ok = message_says(msg, "") && dio(dust_dev(), true, len - 1, 1, buf) == -EIO &&
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
	char table[128];
	int fd, err;

	snprintf(table, sizeof(table), "0 %llu dust %s 0 512", TARGET_SECTORS, DISK);
	if (!ktap_ok(create(NAME, table) == 0, "flush: create '%s'", table)) {
		ktap_diag("%s", out);
		return;
	}
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
	char table[128];
	int err;

	snprintf(table, sizeof(table), "0 %llu dust %s 0 512", TARGET_SECTORS, DISK);
	if (!ktap_ok(create(NAME, table) == 0, "fs flush: create '%s'", table)) {
		ktap_diag("%s", out);
		return;
	}
	mkdir("/mnt", 0755);
	mkdir(FS_MNT, 0755);
	if (!ktap_ok(run(mkfs) == 0 &&
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
	/* A 16 MiB target that starts 56 MiB into the 64 MiB disk. */
	snprintf(table, sizeof(table), "0 %llu dust %s %llu 512", TARGET_SECTORS, DISK,
		 disk_sectors - TARGET_SECTORS / 2);
	ok = create("dust2", table) != 0 && !device_exists("dust2");
	if (device_exists("dust2"))
		dm_remove("dust2");
	ktap_ok(ok, "a table reaching past the end of the disk is refused");
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
	test_flush();
	test_fs_flush();
	test_bad_tables();
	return ktap_finish();
}
