// SPDX-License-Identifier: GPL-2.0
/*
 * NFS soft, softerr and hard mounts against a server that went away, in
 * the kunit52 guest (Linux 5.2: "NFS: soft mount improvements" and the
 * softerr option).  The kernel's nfsd serves a tmpfs; the kernel's client
 * mounts it from another network namespace over a veth pair (nfs.h), with
 * NFSv3 and NFSv4.2.  With the link cut at the server's end:
 *
 *  - on a soft mount a read, a write, a getattr and a mkdir fail with EIO,
 *    on a softerr mount with ETIMEDOUT, each within the major timeout the
 *    RPC client derives from timeo and retrans over TCP (linear backoff:
 *    timeo * (retrans + 1), net/sunrpc/xprt.c xprt_calc_majortimeo()),
 *    counted from the start of the call; the measured time is printed
 *    next to that bound;
 *  - a hard mount blocks for longer than that and completes once the link
 *    is back, with the data on the server.
 *
 * Also: /proc/mounts shows the options as the kernel understood them, and
 * unknown or contradictory options are refused with EINVAL and a kernel
 * message.  Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"
#include "nfs.h"
#include "proc.h"
#include "wait.h"

/* Mount points: /mnt/KIND-VERSION (mnt_path()). */
#define MNT_LEN		64
#define PATH_LEN	320	/* a file below a mount point, a mountstats key */
#define TIMEO		10	/* deciseconds */
#define RETRANS		2
#define STR(x)		#x
#define XSTR(x)		STR(x)
/* The mount options that set them, and /proc/mounts' words for them. */
#define TIMEO_OPT	"timeo=" XSTR(TIMEO)
#define RETRANS_OPT	"retrans=" XSTR(RETRANS)
#define TIMEOUT_OPTS	TIMEO_OPT "," RETRANS_OPT
/* The RPC major timeout: timeo * (retrans + 1), in seconds. */
#define MAJOR		(TIMEO * (RETRANS + 1) / 10.0)
/* Scheduling and timer slack allowed on top of a bound (TCG guest). */
#define SLACK		1.5
/* Time limits, in seconds. */
#define MOUNT_LIMIT	60
#define PROBE_EXTRA	30	/* past a probe's bound before it is killed */
#define LINK_HOLD_EXTRA	2	/* the link stays cut this long past the bound */
#define RECOVER_LIMIT	90	/* a mount answers again after the link is back */
#define RECOVER_TRY	10	/* one read that tries it */
#define RECOVER_POLL	0.5
#define HARD_LIMIT	120	/* the hard mount's write completes */
#define PROBE_POLL	0.01

struct version {
	const char *name;	/* as /proc/mounts shows it: vers=... */
	const char *opts;
	double bound;		/* seconds until a soft call must fail */
	int client;		/* the client namespace it mounts from */
};

/*
 * NFSv3 calls fail at the major timeout.  A sent NFSv4 call times out
 * only when the connection breaks (net/sunrpc/clnt.c rpc_check_timeout()):
 * the TCP user timeout is the same timeo * (retrans + 1)
 * (xs_tcp_set_socket_timeouts()), and then the reconnection may take the
 * NFSv4 connect timeout, which is the server's lease period, plus a
 * reconnect delay of at most half of it (nfs4_set_lease_period()).
 */
static const struct version versions[] = {
	{ "3", "vers=3,nolock", MAJOR, 0 },
	{ "4.2", "vers=4.2", MAJOR + NFS_LEASE + NFS_LEASE / 2, 1 },
};
#define NR_VERSIONS	(sizeof(versions) / sizeof(versions[0]))

enum op { OP_READ, OP_WRITE, OP_GETATTR, OP_MKDIR, NR_OPS, OP_HARD_WRITE };
static const char *const op_names[] = { "read", "write", "getattr", "mkdir" };
static const char hard_data[] = "kunit52: written while the server was away\n";

static char klog[65536];

/* The kernel log since the last look, as one line. */
static const char *klog_take(void)
{
	klog_read(klog, sizeof(klog), true);
	return oneline(klog);
}

/* Where version @v mounts its @kind mount: /mnt/soft-3. */
static void mnt_path(const struct version *v, const char *kind, char *path)
{
	snprintf(path, MNT_LEN, "/mnt/%s-%s", kind, v->name);
}

/*
 * The file each mount's probes use: /mnt/soft-3 -> /mnt/soft-3/soft-3.dat,
 * NFS_EXPORT/soft-3.dat on the server.
 */
static void test_file(const char *dir, char *path, size_t size)
{
	snprintf(path, size, "%s/%s.dat", dir, strrchr(dir, '/') + 1);
}

/* One operation on one mount while the link is cut. */
struct probe {
	const char *kind, *dir;
	enum op op;
	int want;		/* errno expected, 0: success */
	int fd;
	pid_t pid;
	double t0, secs;
	int err;		/* errno seen, -1: still blocked */
	bool block;		/* expected to block while the link is cut */
};

/*
 * A read, a write or a getattr is one call.  mkdir(2) may fail only after
 * two: on a soft mount both the revalidation of the directory (GETATTR)
 * and the permission check (ACCESS, never cached with noac) time out
 * before the MKDIR is sent; the calls that timed out are printed from
 * /proc/self/mountstats.
 */
static double op_bound(const struct version *v, enum op op)
{
	return op == OP_MKDIR ? 2 * v->bound : v->bound;
}

/* Do @op on mount @dir; 0 or errno.  @fd: the test file, open O_DIRECT. */
static int do_op(enum op op, const char *dir, int fd)
{
	char buf[4096], path[128];
	struct stat st;

	memset(buf, 'w', sizeof(buf));
	switch (op) {
	case OP_READ:
		return pread(fd, buf, sizeof(buf), 0) < 0 ? errno : 0;
	case OP_WRITE:
		return pwrite(fd, buf, sizeof(buf), 0) < 0 ? errno : 0;
	case OP_GETATTR:
		return fstat(fd, &st) ? errno : 0;
	case OP_MKDIR:
		snprintf(path, sizeof(path), "%s/dir-%d", dir, getpid());
		return mkdir(path, 0755) ? errno : 0;
	case OP_HARD_WRITE:
		memset(buf, 0, sizeof(buf));
		memcpy(buf, hard_data, sizeof(hard_data) - 1);
		return pwrite(fd, buf, sizeof(hard_data) - 1, 0) ==
		       sizeof(hard_data) - 1 ? 0 : errno;
	default:
		return EINVAL;
	}
}

struct probe_run {
	struct probe *p;
	int n, left;		/* probes, those that must end and have not */
	double hold_end;	/* keep the link cut until then */
};

/* Reap the probes that ended; done when every probe that must end did
 * and the link was cut for long enough. */
static enum wait_result probes_ended(void *arg)
{
	struct probe_run *r = arg;
	int i, status;

	for (i = 0; i < r->n; i++) {
		struct probe *p = &r->p[i];

		if (p->err >= 0 || waitpid(p->pid, &status, WNOHANG) != p->pid)
			continue;
		p->secs = now_s() - p->t0;
		p->err = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
		r->left -= !p->block;
	}
	return !r->left && now_s() >= r->hold_end ? WAIT_DONE : WAIT_AGAIN;
}

/*
 * Cut the link, start every probe at once (each in a child), wait for
 * the probes that must end (at most @limit seconds) and keep the link cut
 * for at least @hold seconds, then restore it.  Probes that must block
 * are left running (their err stays -1), the others are killed.
 */
static void run_probes(const struct version *v, struct probe *p, int n,
		       double limit, double hold)
{
	struct probe_run r = { p, n, 0, 0 };
	int i;

	if (!nfs_link(v->client, false))
		return;
	r.hold_end = now_s() + hold;
	for (i = 0; i < n; i++) {
		p[i].err = -1;
		p[i].t0 = now_s();
		p[i].pid = fork();
		if (p[i].pid == 0)
			_exit(do_op(p[i].op, p[i].dir, p[i].fd));
		r.left += !p[i].block;
	}
	/* A probe still running at the limit is reported by the caller. */
	wait_until(probes_ended, &r, limit, PROBE_POLL, NULL);
	nfs_link(v->client, true);
	for (i = 0; i < n; i++) {
		if (p[i].err < 0) {
			p[i].secs = now_s() - p[i].t0;
			if (!p[i].block)
				proc_kill(p[i].pid);
		}
	}
}

/* One read of the test file below @arg (a mount) answers. */
static enum wait_result answers(void *arg)
{
	char path[PATH_LEN];
	int status = 0;
	pid_t pid;

	test_file(arg, path, sizeof(path));
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_RDONLY | O_DIRECT);

		_exit(fd >= 0 && pread(fd, path, 1, 0) >= 0 ? 0 : 1);
	}
	/* A read that hangs is one more try that failed. */
	if (pid < 0 || proc_wait_or_kill(pid, RECOVER_TRY, &status, NULL))
		return WAIT_AGAIN;
	return status == 0 ? WAIT_DONE : WAIT_AGAIN;
}

/* After the link is back: wait (bounded) until the mount answers again. */
static bool wait_recovered(const char *dir)
{
	char what[PATH_LEN];

	snprintf(what, sizeof(what), "%s to answer after the link came back", dir);
	return wait_until(answers, (void *)dir, RECOVER_LIMIT, RECOVER_POLL, what);
}

/* Mount @dir with @opts and check that /proc/mounts shows @expect. */
static bool mount_and_show(const struct version *v, const char *dir,
			   const char *opts, const char *const expect[])
{
	char all[256], shown[2048];
	bool ok = true;
	int err, i;

	snprintf(all, sizeof(all), "%s,%s", v->opts, opts);
	err = nfs_mount(v->client, dir, all, MOUNT_LIMIT);
	if (err)
		ktap_diag("mount: %s; kernel log: %s", strerror(err), klog_take());
	if (!ktap_ok(!err, "vers=%s: mount -o %s", v->name, opts))
		return false;
	if (!nfs_mount_opts(dir, shown, sizeof(shown))) {
		ktap_ok(false, "vers=%s: %s is in /proc/mounts", v->name, dir);
		return false;
	}
	ktap_diag("%s", shown);
	for (i = 0; expect[i]; i++) {
		bool neg = expect[i][0] == '!';

		if (nfs_has_opt(shown, expect[i] + neg) == neg) {
			ktap_diag("/proc/mounts %s '%s'", neg ? "has" : "lacks",
				  expect[i] + neg);
			ok = false;
		}
	}
	ktap_ok(ok, "vers=%s: /proc/mounts shows -o %s as understood", v->name,
		opts);
	return true;
}

/*
 * Open the test file while the link is up: 4 KiB of data to read, or
 * (@empty) truncated for the hard mount's write.
 */
static int open_test_file(const char *dir, bool empty)
{
	char path[PATH_LEN], buf[4096];
	int fd;

	test_file(dir, path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	memset(buf, 'i', sizeof(buf));
	if (fd >= 0 && !empty && pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The calls of mount @dir that hit a major timeout, from
 * /proc/self/mountstats ("OP: ops trans timeouts ..."), as "OP xN, ...".
 */
static void timed_out_calls(const char *dir, char *out, size_t size)
{
	static char buf[65536];
	char mnt[PATH_LEN], *sec, *line, *save;
	size_t len = 0;

	out[0] = '\0';
	snprintf(mnt, sizeof(mnt), " mounted on %s with fstype", dir);
	if (file_read("/proc/self/mountstats", buf, sizeof(buf)) < 0)
		return;
	sec = strstr(buf, mnt);
	if (!sec)
		return;
	line = strstr(sec, "per-op statistics");
	for (line = line ? strtok_r(line, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char op[32];
		unsigned long ops, trans, timeouts;

		if (strstr(line, "device "))
			break;
		if (sscanf(line, " %31[A-Z_]: %lu %lu %lu", op, &ops, &trans,
			   &timeouts) == 4 && timeouts && len < size)
			len += snprintf(out + len, size - len, "%s%s x%lu",
					len ? ", " : "", op, timeouts);
	}
}

/* The hard mount's write, still blocked when the link came back. */
static void hard_completes(const struct version *v, struct probe *h)
{
	char buf[4096], srv[256];
	double t0 = now_s();
	int status = 0;
	bool done;

	done = !proc_wait_or_kill(h->pid, HARD_LIMIT, &status,
				  "the hard mount's write to complete");
	if (done)
		ktap_diag("it completed %.1f s after the link came back, status 0x%x",
			  now_s() - t0, status);
	ktap_ok(done && WIFEXITED(status) && !WEXITSTATUS(status),
		"vers=%s hard: the write completes after the link returns",
		v->name);
	snprintf(srv, sizeof(srv), NFS_EXPORT "/hard-%s.dat", v->name);
	ktap_ok(file_read(srv, buf, sizeof(buf)) >= 0 &&
		!strcmp(buf, hard_data),
		"vers=%s hard: the data is intact on the server", v->name);
}

/*
 * With the link cut once: soft: every operation fails with EIO; softerr
 * (with nosoftreval): with ETIMEDOUT; softerr alone implies softreval
 * (fs/nfs/fs_context.c), so a getattr is answered from the attribute
 * cache once the server timed out; hard: a write blocks for longer than
 * the soft bound and completes when the link is back.
 */
static void cut_link_probes(const struct version *v)
{
	static const struct {
		const char *kind, *mnt;
		int want;
		bool all_ops;
	} mounts[] = {
		{ "soft", "soft", EIO, true },
		{ "softerr,nosoftreval", "softerr", ETIMEDOUT, true },
		{ "softerr (softreval)", "softreval", 0, false },
		{ "hard", "hard", 0, false },
	};
	const int nmounts = sizeof(mounts) / sizeof(mounts[0]);
	struct probe p[2 * NR_OPS + 2], *hard = NULL;
	double hold = v->bound + LINK_HOLD_EXTRA;
	int i, m, n = 0, fds[4];
	char dirs[4][MNT_LEN];

	for (m = 0; m < nmounts; m++) {
		mnt_path(v, mounts[m].mnt, dirs[m]);
		fds[m] = open_test_file(dirs[m],
					!strcmp(mounts[m].kind, "hard"));
		if (!ktap_ok(fds[m] >= 0, "vers=%s %s: open a file", v->name,
			     mounts[m].kind)) {
			while (m--)
				close(fds[m]);
			return;
		}
		if (!strcmp(mounts[m].kind, "hard")) {
			hard = &p[n];
			p[n++] = (struct probe){ .kind = "hard", .dir = dirs[m],
						 .op = OP_HARD_WRITE, .fd = fds[m],
						 .block = true };
			continue;
		}
		for (i = 0; i < NR_OPS; i++) {
			if (!mounts[m].all_ops && i != OP_GETATTR)
				continue;
			p[n++] = (struct probe){ .kind = mounts[m].kind,
						 .dir = dirs[m], .op = i,
						 .want = mounts[m].want,
						 .fd = fds[m] };
		}
	}
	run_probes(v, p, n, v->bound + PROBE_EXTRA, hold);
	for (i = 0; i < n; i++) {
		if (p[i].block)
			continue;
		if (p[i].err < 0)
			ktap_diag("%s: still blocked after %.1f s", op_names[p[i].op],
				  p[i].secs);
		else
			ktap_diag("%s: %s after %.2f s (bound %.1f s)",
				  op_names[p[i].op],
				  p[i].err ? strerror(p[i].err) : "success",
				  p[i].secs, op_bound(v, p[i].op));
		ktap_ok(p[i].err == p[i].want && p[i].secs >= TIMEO / 10.0 &&
			p[i].secs <= op_bound(v, p[i].op) + SLACK,
			"vers=%s %s: %s %s %s within the bound", v->name,
			p[i].kind, op_names[p[i].op],
			p[i].want ? "fails with" : "is served from the cache",
			p[i].want ? strerror(p[i].want) : "after the timeout");
	}
	for (m = 0; m < nmounts; m++) {
		char calls[512];

		timed_out_calls(dirs[m], calls, sizeof(calls));
		ktap_diag("%s: calls that timed out: %s", dirs[m],
			  calls[0] ? calls : "none");
	}
	if (hard->err >= 0)
		ktap_diag("the write returned (%s) with the link cut",
			  hard->err ? strerror(hard->err) : "success");
	if (ktap_ok(hard->err < 0, "vers=%s hard: a write blocks while the link is cut (%.0f s)",
		    v->name, hold))
		hard_completes(v, hard);
	for (m = 0; m < nmounts; m++)
		close(fds[m]);
	for (m = 0; m < nmounts; m++)
		if (!wait_recovered(dirs[m]))
			break;
}

struct bad_opts {
	const char *opts, *why;
};

static const struct bad_opts bad[] = {
	{ "vers=3,bogus_option", "unknown option" },
	{ "vers=3,minorversion=1", "minorversion needs vers=4" },
	{ "vers=3,migration", "migration needs NFSv4" },
	{ "vers=4.2,proto=udp", "NFSv4 over UDP" },
	{ "vers=3,proto=tcp6", "IPv6 transport, IPv4 address" },
	{ "vers=3,timeo=abc", "timeo not a number" },
	{ "vers=3,retrans=-1", "retrans negative" },
	{ "vers=3,nconnect=17", "nconnect above 16" },
	{ "vers=5", "no NFS version 5" },
	{ "vers=3,sec=bogus", "unknown security flavour" },
	{ "vers=3,lookupcache=sometimes", "unknown lookupcache mode" },
};

#define GOOD_OPTS	"vers=3,nolock,soft," TIMEO_OPT

/* Refused: EINVAL, and the kernel says why (the fs_context log). */
static void bad_options(void)
{
	unsigned int i;
	char msg[1024];
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = nfs_fs_create(0, bad[i].opts, msg, sizeof(msg));
		ktap_diag("-o %s: %s; kernel: %s", bad[i].opts,
			  err ? strerror(err) : "accepted",
			  msg[0] ? msg : "(no message)");
		ktap_ok(err == EINVAL && msg[0],
			"-o %s is refused with EINVAL and a message (%s)",
			bad[i].opts, bad[i].why);
	}
	/* The same path accepts good options: the probe itself works. */
	err = nfs_fs_create(0, GOOD_OPTS, msg, sizeof(msg));
	if (err)
		ktap_diag("-o " GOOD_OPTS ": %s; kernel: %s", strerror(err), msg);
	ktap_ok(!err, "-o " GOOD_OPTS " is accepted by the same path");
}

/* Flags given twice: the last one wins, as for every mount option. */
static void last_wins(const struct version *v)
{
	static const char *const hard[] = { "hard", "!soft", "!softerr", NULL };
	static const char *const softerr[] = { "softerr", "!soft", "!hard", NULL };
	char last[MNT_LEN];

	mnt_path(v, "last", last);
	if (mount_and_show(v, last, "soft,hard", hard))
		nfs_umount(last);
	if (mount_and_show(v, last, "soft,softerr", softerr))
		nfs_umount(last);
}

/* Everything of one version, on its own client's link. */
static void test_version(int i)
{
	const struct version *v = &versions[i];
	static const char *const hard[] = {
		"hard", "proto=tcp", TIMEO_OPT, RETRANS_OPT, "!soft", NULL
	};
	static const char *const soft[] = {
		"soft", "!softerr", "!hard", TIMEO_OPT, RETRANS_OPT, "noac", NULL
	};
	static const char *const softerr[] = {
		"softerr", "!soft", "!hard", "!softreval", TIMEO_OPT,
		RETRANS_OPT, "noac", NULL
	};
	static const char *const softreval[] = {
		"softerr", "softreval", "!soft", "!hard", NULL
	};
	char vers[16], shown[2048], path[128], buf[64];
	char mhard[MNT_LEN], msoft[MNT_LEN], msofterr[MNT_LEN], msoftreval[MNT_LEN];
	int fd;

	mnt_path(v, "hard", mhard);
	mnt_path(v, "soft", msoft);
	mnt_path(v, "softerr", msofterr);
	mnt_path(v, "softreval", msoftreval);
	if (!mount_and_show(v, mhard, "hard," TIMEOUT_OPTS, hard))
		return;
	nfs_mount_opts(mhard, shown, sizeof(shown));
	snprintf(vers, sizeof(vers), "vers=%s", v->name);
	ktap_ok(nfs_has_opt(shown, vers), "vers=%s: /proc/mounts shows %s",
		v->name, vers);

	/* Served by our nfsd: written by the client, read on the server. */
	snprintf(path, sizeof(path), "%s/hello-%s", mhard, v->name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, "hello\n", 6) != 6 || fsync(fd))
			ktap_diag("write %s: %s", path, strerror(errno));
		close(fd);
	}
	snprintf(path, sizeof(path), NFS_EXPORT "/hello-%s", v->name);
	ktap_ok(file_read(path, buf, sizeof(buf)) == 6 &&
		!strcmp(buf, "hello\n"),
		"vers=%s: a file written through the mount is on the server",
		v->name);

	if (mount_and_show(v, msoft, "soft," TIMEOUT_OPTS ",noac", soft) &&
	    mount_and_show(v, msofterr,
			   "softerr,nosoftreval," TIMEOUT_OPTS ",noac", softerr) &&
	    mount_and_show(v, msoftreval, "softerr," TIMEOUT_OPTS ",noac",
			   softreval))
		cut_link_probes(v);
	nfs_umount(msoftreval);
	nfs_umount(msofterr);
	nfs_umount(msoft);
	last_wins(v);
	nfs_umount(mhard);
}

int main(void)
{
	static char labels[NR_VERSIONS][16];
	const char *names[NR_VERSIONS];
	unsigned int i;
	int err;

	ktap_begin();
	if (!nfs_available()) {
		ktap_skip("nfs_soft_test", "no NFS client and server in this kernel");
		return ktap_finish();
	}
	mkdir("/mnt", 0755);
	err = nfs_net_setup();
	if (err)
		ktap_diag("setup: %s", strerror(err));
	if (!ktap_ok(!err, NFS_NET_CASE))
		return ktap_finish();
	if (!ktap_ok(nfs_server_setup(false),
		     "nfsd, rpc.mountd and rpcbind serve " NFS_EXPORT)) {
		nfs_show_log("rpcbind");
		nfs_show_log("rpc.mountd");
		ktap_diag("kernel log: %s", klog_take());
		nfs_server_teardown();
		return ktap_finish();
	}
	/* The versions cut their own links: they run at the same time. */
	for (i = 0; i < NR_VERSIONS; i++) {
		snprintf(labels[i], sizeof(labels[i]), "vers=%s", versions[i].name);
		names[i] = labels[i];
	}
	ktap_parallel(NR_VERSIONS, names, test_version);
	bad_options();
	nfs_server_teardown();
	return ktap_finish();
}
