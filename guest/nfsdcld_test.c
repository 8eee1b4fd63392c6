// SPDX-License-Identifier: GPL-2.0
/*
 * NFSv4 client state across a server restart, in the kunit52 guest: the
 * nfsdcld client-tracking daemon (revived in Linux 5.2 as the way for nfsd
 * to remember its clients) and what nfsd does without it.  The kernel's
 * nfsd and two NFSv4.2 clients in network namespaces of their own (nfs.h);
 * "restart" stops every nfsd thread (the server forgets all state) and
 * starts them again with a 10 s grace period.
 *
 *  - With nfsdcld: client 1 holds a file open and a write lock on it; its
 *    record is in nfsdcld's database; after the restart the client reclaims
 *    both (its reads and writes go on, client 2 cannot take the lock);
 *    client 2, which never held state, cannot reclaim: its OPEN is refused
 *    until the grace period is over.
 *  - Without nfsdcld, with a recovery directory: nfsd falls back to the
 *    legacy tracking (CONFIG_NFSD_LEGACY_CLIENT_TRACKING), records the
 *    client there, and the client reclaims after the next restart.
 *  - Legacy tracking, with an allocation failure injected (failslab) into
 *    nfs4_client_to_reclaim() while client 1 establishes itself in the
 *    grace period: nfsd goes on without the reclaim record (before
 *    patch 0015 it dereferenced NULL and the nfsd thread oopsed), and
 *    serves client 1 again after the grace period.
 *  - With neither: nfsd warns ("Is nfsdcld running?") and runs without
 *    tracking; the client cannot reclaim, its lock is lost (client 2 gets
 *    it) and I/O through the old file descriptor fails with EIO.
 *
 * Prints KTAP.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "failslab.h"
#include "file.h"
#include "ktap.h"
#include "nfs.h"
#include "proc.h"
#include "wait.h"

#define MNT1	"/mnt/c1"
#define MNT2	"/mnt/c2"
#define LOCKED	"locked"
/* Time limits, in seconds. */
#define MOUNT_LIMIT	60
#define IO_LIMIT	60	/* an answer from the lock holder */
#define LOCK_LIMIT	60	/* client 2's F_SETLK */
#define GRACE_LIMIT	60	/* the grace period ends (it is NFS_LEASE) */
#define SQLITE_LIMIT	30
#define STOP_LIMIT	10	/* the lock holder quits */
#define GRACE_POLL	0.1
/*
 * How long client 2's OPEN must stay blocked in the grace period for the
 * test to call it waiting (not yet refused or granted): well below the
 * grace period, well above a served call's round trip under TCG.
 */
#define OPEN_BLOCKED	2.0
#define OPEN_POLL	0.05

static char klog[65536];
/* sqlite3's output. */
static char sql_out[16384];

/* The kernel log since the last look, as one line, into klog. */
static void klog_take(void)
{
	klog_read(klog, sizeof(klog), true);
	oneline(klog);
}

/* Fault injection: failslab, limited to allocations made in FAULT_FN. */
#define FAULT_FN	"nfs4_client_to_reclaim"
#define FAULT_WAIT	60	/* s for client 1 to reach FAULT_FN in grace */
#define FAULT_POLL	0.1	/* s between two reads of failslab's times */

/*
 * The lock holder: a process on client 1 that opens MNT1/locked, writes
 * it, takes a write lock on its first 4 KiB and then serves commands
 * ('r' read, 'w' write, 'q' quit) through a pipe, answering with an errno.
 */
struct holder {
	pid_t pid;
	int cmd, res;
};

static void holder_main(int cmd, int res)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_len = 4096 };
	static char buf[4096] __attribute__((aligned(4096)));
	unsigned char err;
	char c;
	int fd;

	memset(buf, 'h', sizeof(buf));
	fd = open(MNT1 "/" LOCKED, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf) ||
	    fcntl(fd, F_SETLK, &fl))
		err = errno;
	else
		err = 0;
	if (write(res, &err, 1) != 1 || err)
		_exit(1);
	while (read(cmd, &c, 1) == 1 && c != 'q') {
		ssize_t n;

		if (c == 'r')
			n = pread(fd, buf, sizeof(buf), 0);
		else
			n = pwrite(fd, buf, sizeof(buf), 0);
		err = n == sizeof(buf) ? 0 : n < 0 ? errno : EIO;
		if (write(res, &err, 1) != 1)
			break;
	}
	_exit(0);
}

/* An answer from the holder within @limit seconds: errno, or -1. */
static int holder_answer(struct holder *h, double limit)
{
	struct pollfd p = { .fd = h->res, .events = POLLIN };
	unsigned char err;

	if (poll(&p, 1, (int)(limit * 1000)) != 1 ||
	    read(h->res, &err, 1) != 1)
		return -1;
	return err;
}

static bool holder_start(struct holder *h)
{
	int cmd[2], res[2], err;

	if (pipe(cmd) || pipe(res))
		return false;
	h->pid = fork();
	if (h->pid == 0) {
		close(cmd[1]);
		close(res[0]);
		holder_main(cmd[0], res[1]);
	}
	close(cmd[0]);
	close(res[1]);
	h->cmd = cmd[1];
	h->res = res[0];
	err = holder_answer(h, IO_LIMIT);
	if (err)
		ktap_diag("lock holder: %s", err < 0 ? "no answer in time" :
			  strerror(err));
	return err == 0;
}

static int holder_ask(struct holder *h, char c, double limit)
{
	if (write(h->cmd, &c, 1) != 1)
		return -1;
	return holder_answer(h, limit);
}

static void holder_stop(struct holder *h)
{
	int status;

	if (!h->pid)
		return;
	if (write(h->cmd, "q", 1) != 1)
		proc_kill(h->pid);
	else
		proc_wait_or_kill(h->pid, STOP_LIMIT, &status, "the lock holder to quit");
	close(h->cmd);
	close(h->res);
	h->pid = 0;
}

/* F_SETLK on the held range from client 2: 0 or errno; -1 if it hangs. */
static int child_lock(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_len = 4096 };
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		int fd = open(MNT2 "/" LOCKED, O_RDWR);

		if (fd < 0 || fcntl(fd, F_SETLK, &fl))
			_exit(errno);
		_exit(0);
	}
	if (proc_wait_or_kill(pid, LOCK_LIMIT, &status, "client 2's F_SETLK to return"))
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
}

/* nfsd's grace period: 'N' while it lasts, 'Y' once it is over. */
static char grace_ended(void)
{
	char buf[8];

	if (file_read("/proc/fs/nfsd/v4_end_grace", buf, sizeof(buf)) < 1)
		return '?';
	return buf[0];
}

static enum wait_result grace_over(void *arg)
{
	(void)arg;
	return grace_ended() == 'Y' ? WAIT_DONE : WAIT_AGAIN;
}

static bool wait_grace_end(void)
{
	return wait_until(grace_over, NULL, GRACE_LIMIT, GRACE_POLL,
			  "nfsd's grace period to end");
}

/* Restart nfsd; the kernel log of the restart goes to klog. */
static bool restart(void)
{
	klog_take();
	if (!nfs_nfsd_down() || !nfs_nfsd_up())
		return false;
	klog_take();
	return true;
}

/* ---- what nfsdcld recorded ---- */

static void to_hex(const char *s, char *hex)
{
	for (; *s; s++, hex += 2)
		sprintf(hex, "%02X", (unsigned char)*s);
	*hex = '\0';
}

/* sqlite3 on nfsdcld's database; output in sql_out. */
static bool cld_query(const char *sql)
{
	const char *const argv[] = {
		"/usr/bin/sqlite3", "-batch", NFS_CLD_DIR "/main.sqlite", sql, NULL
	};

	return run_ok(SQLITE_LIMIT, argv, sql_out, sizeof(sql_out));
}

/* Is client @c's name in the record table of nfsdcld's current epoch? */
static bool cld_has_client(int c, bool show)
{
	char sql[256], hex[128];
	unsigned long long cur, rec;

	if (!cld_query("SELECT current, recovery FROM grace;") ||
	    sscanf(sql_out, "%llu|%llu", &cur, &rec) != 2) {
		ktap_diag("nfsdcld's grace table: %s", oneline(sql_out));
		return false;
	}
	snprintf(sql, sizeof(sql), "SELECT hex(id) FROM \"rec-%016llx\";", cur);
	if (!cld_query(sql))
		return false;
	if (show)
		ktap_diag("nfsdcld: epoch %llu (recovery %llu), records: %s",
			  cur, rec, oneline(sql_out));
	to_hex(nfs_client_host(c), hex);
	return strstr(sql_out, hex);
}

/* ---- the scenarios ---- */

static bool mount_client(int c, const char *dir)
{
	int err = nfs_mount(c, dir, "vers=4.2,hard", MOUNT_LIMIT);

	if (!ktap_ok(!err, "client %d mounts vers=4.2", c + 1))
		ktap_diag("mount: %s", strerror(err));
	return !err;
}

/* After a restart with tracking: client 1 keeps its open file and lock. */
static void expect_reclaimed(struct holder *h, const char *how)
{
	int err;

	err = holder_ask(h, 'r', IO_LIMIT);
	ktap_ok(err == 0, "%s: client 1 reads through the file it held open",
		how);
	if (err)
		ktap_diag("read: %s", err < 0 ? "no answer in time" : strerror(err));
	if (!wait_grace_end())
		return;
	err = holder_ask(h, 'w', IO_LIMIT);
	ktap_ok(err == 0, "%s: client 1 writes through it after the grace period",
		how);
	err = child_lock();
	ktap_ok(err == EAGAIN, "%s: client 1 reclaimed its lock (client 2's F_SETLK: EAGAIN)",
		how);
	if (err != EAGAIN)
		ktap_diag("client 2's F_SETLK: %s", err < 0 ? "hung" :
			  err ? strerror(err) : "granted");
}

struct open_wait {
	pid_t pid;
	int status;
	bool reaped;
};

/* Client 2's OPEN returned, or the grace period ended. */
static enum wait_result open_or_grace_over(void *arg)
{
	struct open_wait *w = arg;

	if (waitpid(w->pid, &w->status, WNOHANG) == w->pid)
		w->reaped = true;
	return w->reaped || grace_ended() != 'N' ? WAIT_DONE : WAIT_AGAIN;
}

static void with_nfsdcld(struct holder *h)
{
	struct open_wait ow = { 0 };
	double t0;
	bool blocked;

	if (!ktap_ok(strstr(klog, "Using nfsdcld client tracking operations"),
		     "nfsd uses nfsdcld")) {
		ktap_diag("kernel: %s", klog);
		nfs_show_log("nfsdcld");
	}
	ktap_ok(cld_has_client(0, true),
		"nfsdcld recorded client 1 (its name is in the current epoch)");
	ktap_ok(!cld_has_client(1, false),
		"nfsdcld has no record of client 2, which never mounted");

	/*
	 * Keep client 1 away while client 2 tries: once every recorded
	 * client has reclaimed, nfsd ends the grace period early.
	 */
	if (!nfs_link(0, false))
		return;
	if (!ktap_ok(restart(), "nfsd restarts")) {
		nfs_link(0, true);
		return;
	}
	ktap_ok(grace_ended() == 'N', "nfsdcld: the restarted nfsd is in its grace period");

	/* Client 2 has no record: its OPEN is refused during the grace period. */
	if (!mount_client(1, MNT2)) {
		nfs_link(0, true);
		return;
	}
	ow.pid = fork();
	if (ow.pid == 0) {
		int fd = open(MNT2 "/new", O_RDWR | O_CREAT, 0644);

		_exit(fd < 0 ? errno : 0);
	}
	t0 = now_s();
	/* A negative check: it must not end within OPEN_BLOCKED. */
	blocked = ow.pid > 0 &&
		  !wait_until(open_or_grace_over, &ow, OPEN_BLOCKED, OPEN_POLL, NULL);
	if (!blocked)
		ktap_diag("after %.1f s: open returned (status 0x%x) or grace over (%c)",
			  now_s() - t0, ow.status, grace_ended());
	ktap_ok(blocked, "client 2 (no record) cannot reclaim: its OPEN waits while the grace period lasts");

	/* Client 1 comes back and reclaims within the grace period. */
	nfs_link(0, true);
	expect_reclaimed(h, "nfsdcld");
	if (blocked) {
		bool done = !proc_wait_or_kill(ow.pid, GRACE_LIMIT, &ow.status,
					       "client 2's OPEN after the grace period");

		ktap_ok(done && WIFEXITED(ow.status) && !WEXITSTATUS(ow.status),
			"client 2's OPEN succeeds once the grace period is over");
	} else if (ow.pid > 0 && !ow.reaped) {
		proc_wait_or_kill(ow.pid, GRACE_LIMIT, &ow.status,
				  "client 2's OPEN after the grace period");
	}
	ktap_ok(cld_has_client(0, true) && cld_has_client(1, false),
		"nfsdcld recorded both clients in the new epoch");
	ktap_ok(nfs_daemon_alive("nfsdcld"), "nfsdcld still runs");
}

/* How many client records are in the legacy recovery directory. */
static int recovery_records(void)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(NFS_RECOVERY);

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void legacy_recoverydir(struct holder *h)
{
	nfs_stop_daemon("nfsdcld");
	mkdir(NFS_RECOVERY, 0700);
	if (!ktap_ok(restart(), "without nfsdcld: nfsd restarts"))
		return;
	ktap_ok(strstr(klog, "Using legacy client tracking operations"),
		"without nfsdcld, with %s: nfsd falls back to the legacy tracking",
		NFS_RECOVERY);
	ktap_diag("kernel: %s", klog);
	/* The switch loses what nfsdcld knew; start over with a new lock. */
	holder_stop(h);
	if (!wait_grace_end() || !holder_start(h))
		return;
	ktap_ok(recovery_records() >= 1, "legacy: client 1 is recorded in %s",
		NFS_RECOVERY);
	ktap_diag("%d record(s) in %s", recovery_records(), NFS_RECOVERY);
	if (!ktap_ok(restart(), "legacy: nfsd restarts"))
		return;
	expect_reclaimed(h, "legacy");
}

/* Empty the legacy recovery directory (nfsd loads no record from it). */
static void rm_recovery_records(void)
{
	char path[512];
	struct dirent *e;
	DIR *d = opendir(NFS_RECOVERY);

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), NFS_RECOVERY "/%s", e->d_name);
		rmdir(path);
	}
	if (d)
		closedir(d);
}

static void rm_recovery(void)
{
	rm_recovery_records();
	rmdir(NFS_RECOVERY);
}

/* ---- allocation failures injected with failslab ---- */

/* failslab has injected its one failure. */
static enum wait_result failslab_check_fired(void *arg)
{
	(void)arg;
	return failslab_fired() ? WAIT_DONE : WAIT_AGAIN;
}

static bool failslab_wait_fired(double limit)
{
	return wait_until(failslab_check_fired, NULL, limit, FAULT_POLL,
			  "an allocation in " FAULT_FN "() to fail");
}

/*
 * nfs4_client_to_reclaim() fails while client 1 establishes itself in the
 * grace period.  The recovery directory is emptied first: the restart
 * loads no record, so client 1's RECLAIM_COMPLETE makes a new one through
 * __nfsd4_create_reclaim_record_grace(), the allocation that fails.
 */
static void legacy_alloc_failure(struct holder *h)
{
	unsigned long start, end;
	bool armed, fired;
	int err;

	if (!failslab_available()) {
		ktap_skip("legacy: nfsd survives a failed reclaim record allocation in its grace period",
			  FAILSLAB_MISSING);
		return;
	}
	if (!ktap_ok(ksym_range(FAULT_FN, &start, &end),
		     "legacy: " FAULT_FN "() is in /proc/kallsyms"))
		return;
	rm_recovery_records();
	if (!ktap_ok(restart(), "legacy, no records: nfsd restarts"))
		return;
	armed = failslab_arm(start, end);
	ktap_ok(armed, "failslab fails the next allocation in " FAULT_FN "() [%#lx, %#lx)",
		start, end);
	/* Client 1 notices the restart on its next call and reclaims. */
	err = holder_ask(h, 'r', FAULT_WAIT);
	ktap_diag("client 1's read after the restart: %s",
		  err < 0 ? "no answer" : err ? strerror(err) : "success");
	fired = armed && failslab_wait_fired(FAULT_WAIT);
	ktap_ok(failslab_disarm(), "failslab is disarmed");
	ktap_ok(fired, "legacy: an allocation in " FAULT_FN "() failed while client 1 established itself in the grace period");
	klog_take();
	ktap_diag("kernel: %s", klog);
	if (!wait_grace_end())
		return;
	holder_stop(h);
	ktap_ok(holder_start(h),
		"legacy: nfsd survived the failed allocation: client 1 opens, writes and locks a file again");
}

static void no_tracking(struct holder *h)
{
	int err;

	rm_recovery();
	if (!ktap_ok(restart(), "without any tracking: nfsd restarts"))
		return;
	ktap_ok(strstr(klog, "Unable to initialize client recovery tracking") &&
		strstr(klog, "Is nfsdcld running?"),
		"without any tracking: nfsd warns that it cannot track clients");
	if (!wait_grace_end())
		return;
	err = child_lock();
	ktap_ok(err == 0, "without tracking: client 1 could not reclaim its lock (client 2 gets it)");
	if (err)
		ktap_diag("client 2's F_SETLK: %s", err < 0 ? "hung" : strerror(err));
	err = holder_ask(h, 'r', IO_LIMIT);
	ktap_ok(err == EIO, "without tracking: I/O through client 1's old file descriptor fails with EIO");
	ktap_diag("client 1's read: %s", err < 0 ? "no answer in time" :
		  err ? strerror(err) : "success");
}

int main(void)
{
	struct holder h = { 0 };
	int err;

	ktap_begin();
	mkdir("/mnt", 0755);
	err = nfs_net_setup();
	if (!ktap_ok(!err, NFS_NET_CASE)) {
		ktap_diag("setup: %s", strerror(err));
		return ktap_finish();
	}
	klog_take();
	if (!ktap_ok(nfs_server_setup(true),
		     "nfsd, nfsdcld, rpc.mountd and rpcbind serve " NFS_EXPORT)) {
		nfs_show_log("nfsdcld");
		klog_take();
		ktap_diag("kernel log: %s", klog);
		nfs_server_teardown();
		return ktap_finish();
	}
	klog_take();
	if (mount_client(0, MNT1) &&
	    ktap_ok(holder_start(&h), "client 1 opens a file and locks it")) {
		with_nfsdcld(&h);
		legacy_recoverydir(&h);
		legacy_alloc_failure(&h);
		no_tracking(&h);
	}
	holder_stop(&h);
	nfs_umount(MNT2);
	nfs_umount(MNT1);
	nfs_server_teardown();
	return ktap_finish();
}
