/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NFS test bed of the kunit52 guest, shared by nfs_soft_test.c and
 * nfsdcld_test.c: the kernel's NFS server in the initial network namespace
 * and NFS clients in namespaces of their own (a network and a UTS
 * namespace each, so every client has its own address and host name and
 * therefore its own NFSv4 client identity), joined by veth pairs:
 *
 *	server  nfs-s1 10.52.1.1/24  <-->  nfs-c1 10.52.1.2/24  client 1
 *	server  nfs-s2 10.52.2.1/24  <-->  nfs-c2 10.52.2.2/24  client 2
 *
 * The link is cut by setting the server's end down: the client's packets
 * are then dropped, and no server process is touched.  Debian's nfs-utils
 * programs (rpcbind, exportfs, rpc.mountd, rpc.nfsd, nfsdcld) run the
 * server.  Every blocking step has a time limit; a step that runs out of
 * time says what it was waiting for.
 */
#ifndef KUNIT52_NFS_H
#define KUNIT52_NFS_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"

#define NFS_EXPORT	"/srv/nfs"
#define NFS_LIB		"/var/lib/nfs"
#define NFS_PIPEFS	NFS_LIB "/rpc_pipefs"
#define NFS_CLD_DIR	NFS_LIB "/nfsdcld"
#define NFS_RECOVERY	NFS_LIB "/v4recovery"
#define NFS_LOGS	"/tmp/nfs-logs"
#define NFS_RPCBIND_SOCK "/run/rpcbind.sock"
#define NFS_NCLIENTS	2
/* The shortest lease and grace period nfsd accepts, in seconds. */
#define NFS_LEASE	10

struct nfs_client_ns {
	const char *host;	/* UTS host name: part of the NFSv4 client id */
	const char *srv_if, *cli_if;
	const char *srv_addr, *cli_addr;
	int netfd, utsfd;
};

static struct nfs_client_ns nfs_clients[NFS_NCLIENTS] = {
	{ "kunit52-client1", "nfs-s1", "nfs-c1", "10.52.1.1", "10.52.1.2", -1, -1 },
	{ "kunit52-client2", "nfs-s2", "nfs-c2", "10.52.2.1", "10.52.2.2", -1, -1 },
};

/* Daemons we started: name and pid, so they can be stopped again. */
struct nfs_daemon {
	const char *name;
	pid_t pid;
};

static struct nfs_daemon nfs_daemons[8];
static char nfs_out[16384];

static inline double nfs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Fold a multi-line text into one line for a KTAP diagnostic. */
static inline char *nfs_oneline(char *s)
{
	size_t n = strlen(s);
	char *p;

	while (n && s[n - 1] == '\n')
		s[--n] = '\0';
	for (p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = '|';
	return s;
}

static inline void nfs_sleep(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Wait up to @limit seconds for child @pid.  Returns 0 and its wait status
 * in *@status, or -1 if it is still running (it is left running).
 */
static inline int nfs_wait(pid_t pid, double limit, int *status)
{
	double end = nfs_now() + limit;

	do {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		nfs_sleep(0.02);
	} while (nfs_now() < end);
	return -1;
}

/* Kill a child that ran out of time and reap it (bounded). */
static inline void nfs_kill(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	if (nfs_wait(pid, 5, &status))
		ktap_diag("pid %d did not die after SIGKILL", pid);
}

/*
 * Run argv with a time limit, output (stdout and stderr) in nfs_out.
 * Returns the exit status, 128 + signal, or -1 when it ran out of time
 * (then it is killed and the failure is printed).
 */
static inline int nfs_run(double limit, const char *const argv[])
{
	char path[] = "/tmp/nfs-run-XXXXXX";
	int fd, status, rc;
	ssize_t n;
	pid_t pid;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (nfs_wait(pid, limit, &status)) {
		ktap_diag("%s: still running after %.0f s, killed", argv[0], limit);
		nfs_kill(pid);
		rc = -1;
	} else {
		rc = WIFEXITED(status) ? WEXITSTATUS(status) :
					 128 + WTERMSIG(status);
	}
	n = pread(fd, nfs_out, sizeof(nfs_out) - 1, 0);
	nfs_out[n > 0 ? n : 0] = '\0';
	close(fd);
	return rc;
}

/* nfs_run(), and on failure print the command's output. */
static inline bool nfs_run_ok(double limit, const char *const argv[])
{
	int rc = nfs_run(limit, argv);

	if (rc == 0)
		return true;
	ktap_diag("%s failed (status %d): %s", argv[0], rc, nfs_oneline(nfs_out));
	return false;
}

static inline bool nfs_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	return !close(fd) && ok;
}

/* Read a whole (small) file into buf; returns its length or -1. */
static inline ssize_t nfs_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

/* Print a daemon's log (after a failure). */
static inline void nfs_show_log(const char *name)
{
	char path[128], buf[4096];

	snprintf(path, sizeof(path), NFS_LOGS "/%s.log", name);
	if (nfs_read_file(path, buf, sizeof(buf)) > 0)
		ktap_diag("%s log: %s", name, nfs_oneline(buf));
}

/* Kernel log since the last clear, into buf (and clear it). */
static inline void nfs_klog(char *buf, size_t size)
{
	int n = klogctl(4 /* SYSLOG_ACTION_READ_CLEAR */, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	nfs_oneline(buf);
}

/*
 * Does this kernel have the NFS client and server?  (A kernel built
 * without them skips the NFS tests instead of failing them.)
 */
static inline bool nfs_available(void)
{
	static char buf[4096];

	if (nfs_read_file("/proc/filesystems", buf, sizeof(buf)) < 0)
		return false;
	return strstr(buf, "\tnfs\n") && strstr(buf, "\tnfsd\n");
}

/* ---- network: veth pairs, addresses, link state ---- */

static inline void nfs_rta(struct nlmsghdr *n, unsigned short type,
		    const void *data, size_t len)
{
	struct rtattr *rta = (void *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static inline struct rtattr *nfs_rta_nest(struct nlmsghdr *n, unsigned short type)
{
	struct rtattr *nest = (void *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	nfs_rta(n, type, NULL, 0);
	return nest;
}

static inline void nfs_rta_end(struct nlmsghdr *n, struct rtattr *nest)
{
	nest->rta_len = (char *)n + n->nlmsg_len - (char *)nest;
}

/* ip link add SRV type veth peer name CLI netns NETFD */
static inline int nfs_veth_add(const char *srv, const char *cli, int netfd)
{
	static union {
		struct nlmsghdr n;
		char buf[1024];
	} req;
	struct {
		struct nlmsghdr n;
		struct nlmsgerr e;
		char buf[256];
	} ack;
	struct nlmsghdr *n = &req.n;
	struct rtattr *linkinfo, *data, *peer;
	int fd, err;

	memset(&req, 0, sizeof(req));
	n->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	n->nlmsg_type = RTM_NEWLINK;
	n->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
	nfs_rta(n, IFLA_IFNAME, srv, strlen(srv) + 1);
	linkinfo = nfs_rta_nest(n, IFLA_LINKINFO);
	nfs_rta(n, IFLA_INFO_KIND, "veth", 4);
	data = nfs_rta_nest(n, IFLA_INFO_DATA);
	peer = nfs_rta_nest(n, VETH_INFO_PEER);
	n->nlmsg_len += sizeof(struct ifinfomsg);	/* the peer's, zeroed */
	nfs_rta(n, IFLA_IFNAME, cli, strlen(cli) + 1);
	nfs_rta(n, IFLA_NET_NS_FD, &netfd, sizeof(netfd));
	nfs_rta_end(n, peer);
	nfs_rta_end(n, data);
	nfs_rta_end(n, linkinfo);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (send(fd, n, n->nlmsg_len, 0) < 0 ||
	    recv(fd, &ack, sizeof(ack), 0) < 0)
		err = -errno;
	else if (ack.n.nlmsg_type == NLMSG_ERROR)
		err = ack.e.error;
	else
		err = -EPROTO;
	close(fd);
	return err;
}

/* ifconfig NAME [ADDR/24] up|down, in the current network namespace. */
static inline int nfs_ifconfig(const char *name, const char *addr, bool up)
{
	struct ifreq ifr = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (addr) {
		sin->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &sin->sin_addr);
		if (ioctl(fd, SIOCSIFADDR, &ifr))
			err = -errno;
		inet_pton(AF_INET, "255.255.255.0", &sin->sin_addr);
		if (!err && ioctl(fd, SIOCSIFNETMASK, &ifr))
			err = -errno;
	}
	if (!err && ioctl(fd, SIOCGIFFLAGS, &ifr))
		err = -errno;
	if (!err) {
		if (up)
			ifr.ifr_flags |= IFF_UP;
		else
			ifr.ifr_flags &= ~IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			err = -errno;
	}
	close(fd);
	return err;
}

/* Cut (or restore) client @c's link at the server's end. */
static inline bool nfs_link(int c, bool up)
{
	int err = nfs_ifconfig(nfs_clients[c].srv_if, NULL, up);

	if (err)
		ktap_diag("cannot set %s %s: %s", nfs_clients[c].srv_if,
			  up ? "up" : "down", strerror(-err));
	return !err;
}

/* Enter client @c's network and UTS namespaces (in a child process). */
static inline int nfs_enter(int c)
{
	if (setns(nfs_clients[c].netfd, CLONE_NEWNET) ||
	    setns(nfs_clients[c].utsfd, CLONE_NEWUTS))
		return -errno;
	return 0;
}

/* Make the client namespaces and their links; 0 or -errno. */
static inline int nfs_net_setup(void)
{
	int self_net, self_uts, c, err;
	pid_t pid;
	int status;

	self_net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	self_uts = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	if (self_net < 0 || self_uts < 0)
		return -errno;
	sethostname("kunit52-server", 14);
	for (c = 0; c < NFS_NCLIENTS; c++) {
		struct nfs_client_ns *cl = &nfs_clients[c];

		if (unshare(CLONE_NEWNET | CLONE_NEWUTS))
			return -errno;
		sethostname(cl->host, strlen(cl->host));
		cl->netfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		cl->utsfd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
		if (setns(self_net, CLONE_NEWNET) ||
		    setns(self_uts, CLONE_NEWUTS))
			return -errno;
		if (cl->netfd < 0 || cl->utsfd < 0)
			return -EBADF;
		err = nfs_veth_add(cl->srv_if, cl->cli_if, cl->netfd);
		if (err)
			return err;
		err = nfs_ifconfig(cl->srv_if, cl->srv_addr, true);
		if (err)
			return err;
		pid = fork();
		if (pid == 0) {
			err = nfs_enter(c);
			if (!err)
				err = nfs_ifconfig("lo", "127.0.0.1", true);
			if (!err)
				err = nfs_ifconfig(cl->cli_if, cl->cli_addr, true);
			_exit(err ? 1 : 0);
		}
		if (nfs_wait(pid, 10, &status) || status)
			return -EIO;
	}
	close(self_net);
	close(self_uts);
	return nfs_ifconfig("lo", "127.0.0.1", true);
}

/* ---- the server ---- */

static inline pid_t nfs_spawn(const char *name, const char *const argv[])
{
	char path[128];
	unsigned int i;
	pid_t pid;
	int fd;

	snprintf(path, sizeof(path), NFS_LOGS "/%s.log", name);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		setsid();
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd);
	for (i = 0; i < sizeof(nfs_daemons) / sizeof(nfs_daemons[0]); i++) {
		if (!nfs_daemons[i].pid) {
			nfs_daemons[i].name = name;
			nfs_daemons[i].pid = pid;
			break;
		}
	}
	return pid;
}

static inline struct nfs_daemon *nfs_daemon(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(nfs_daemons) / sizeof(nfs_daemons[0]); i++)
		if (nfs_daemons[i].pid && !strcmp(nfs_daemons[i].name, name))
			return &nfs_daemons[i];
	return NULL;
}

/* Is daemon @name still running (not exited)? */
static inline bool nfs_daemon_alive(const char *name)
{
	struct nfs_daemon *d = nfs_daemon(name);
	int status;

	if (!d)
		return false;
	if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
		ktap_diag("%s exited (status 0x%x)", name, status);
		nfs_show_log(name);
		d->pid = 0;
		return false;
	}
	return true;
}

static inline void nfs_stop_daemon(const char *name)
{
	struct nfs_daemon *d = nfs_daemon(name);
	int status;

	if (!d)
		return;
	kill(d->pid, SIGTERM);
	if (nfs_wait(d->pid, 10, &status)) {
		ktap_diag("%s ignored SIGTERM for 10 s", name);
		nfs_kill(d->pid);
	}
	d->pid = 0;
}

/*
 * Wait until a daemon accepts connections on the unix socket @path (the
 * file alone is not enough: it may be left from an earlier run, or the
 * daemon may not listen yet); bounded.
 */
static inline bool nfs_wait_listen(const char *path, double limit, const char *what)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	double end = nfs_now() + limit;
	int fd, err;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return false;
		err = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) ? errno : 0;
		close(fd);
		if (!err)
			return true;
		if (nfs_now() > end) {
			ktap_diag("timed out after %.0f s waiting for %s to listen on %s (%s)",
				  limit, what, path, strerror(err));
			return false;
		}
		nfs_sleep(0.05);
	}
}

/* Wait until daemon @name's log contains @text; bounded. */
static inline bool nfs_wait_log(const char *name, const char *text, double limit)
{
	static char buf[16384];
	double end = nfs_now() + limit;
	char path[128];

	snprintf(path, sizeof(path), NFS_LOGS "/%s.log", name);
	while (nfs_read_file(path, buf, sizeof(buf)) < 0 || !strstr(buf, text)) {
		if (nfs_now() > end || !nfs_daemon_alive(name)) {
			ktap_diag("timed out after %.0f s waiting for %s to log '%s'",
				  limit, name, text);
			nfs_show_log(name);
			return false;
		}
		nfs_sleep(0.05);
	}
	return true;
}

static const char *const nfs_nfsd_start[] = {
	"/usr/sbin/rpc.nfsd", "--lease-time", "10", "--grace-time", "10",
	"4", NULL
};
static const char *const nfs_nfsd_stop[] = { "/usr/sbin/rpc.nfsd", "0", NULL };

/* Start nfsd threads (with the shortest lease and grace period). */
static inline bool nfs_nfsd_up(void)
{
	return nfs_run_ok(60, nfs_nfsd_start);
}

/* Stop every nfsd thread: the server forgets all NFSv4 state. */
static inline bool nfs_nfsd_down(void)
{
	return nfs_run_ok(60, nfs_nfsd_stop);
}

static inline bool nfs_cld_up(void)
{
	static const char *const argv[] = {
		"/usr/sbin/nfsdcld", "-F", "-d", "-p", NFS_PIPEFS,
		"-s", NFS_CLD_DIR, NULL
	};

	/*
	 * nfsd waits only a second for nfsdcld to open its pipe, and
	 * nfsdcld notices the pipe only once it listens for events: wait
	 * for it to say so (-d) before nfsd may start.
	 */
	return nfs_spawn("nfsdcld", argv) > 0 &&
	       nfs_wait_log("nfsdcld", "Starting event dispatch handler", 60);
}

/* Write what the programs need, mount nfsd and rpc_pipefs, start rpcbind and
 * rpc.mountd, export NFS_EXPORT (a tmpfs).  @cld: start nfsdcld too. */
static inline bool nfs_server_setup(bool cld)
{
	static const char *const rpcbind[] = { "/sbin/rpcbind", "-f", NULL };
	static const char *const mountd[] = {
		"/usr/sbin/rpc.mountd", "-F", "--debug", "general", NULL
	};
	static const char *const exportfs[] = { "/usr/sbin/exportfs", "-ra", NULL };

	mkdir("/srv", 0755);
	mkdir(NFS_EXPORT, 0755);
	mkdir("/etc", 0755);
	mkdir("/var", 0755);
	mkdir("/var/lib", 0755);
	mkdir(NFS_LIB, 0755);
	mkdir(NFS_PIPEFS, 0755);
	mkdir(NFS_CLD_DIR, 0700);
	mkdir("/proc/fs/nfsd", 0755);
	mkdir(NFS_LOGS, 0755);
	if (!nfs_write_file("/etc/passwd",
			    "root:x:0:0:root:/:/bin/sh\n"
			    "_rpc:x:100:65534::/run/rpcbind:/bin/false\n"
			    "statd:x:101:65534::/var/lib/nfs:/bin/false\n"
			    "nobody:x:65534:65534:nobody:/:/bin/false\n") ||
	    !nfs_write_file("/etc/group", "root:x:0:\nnogroup:x:65534:\n") ||
	    !nfs_write_file("/etc/hosts", "127.0.0.1 localhost\n") ||
	    !nfs_write_file("/etc/exports",
			    NFS_EXPORT " 10.52.0.0/16(rw,sync,no_root_squash,"
			    "no_subtree_check,insecure,fsid=52)\n")) {
		ktap_diag("cannot write the server's configuration: %s",
			  strerror(errno));
		return false;
	}
	if (mount("tmpfs", NFS_EXPORT, "tmpfs", 0, "size=64m") ||
	    mount("nfsd", "/proc/fs/nfsd", "nfsd", 0, NULL) ||
	    mount("rpc_pipefs", NFS_PIPEFS, "rpc_pipefs", 0, NULL)) {
		ktap_diag("cannot mount the export, nfsd or rpc_pipefs: %s",
			  strerror(errno));
		return false;
	}
	/* A socket left by the rpcbind of an earlier test answers nothing. */
	unlink(NFS_RPCBIND_SOCK);
	if (nfs_spawn("rpcbind", rpcbind) < 0 ||
	    !nfs_wait_listen(NFS_RPCBIND_SOCK, 20, "rpcbind") ||
	    !nfs_run_ok(30, exportfs) ||
	    nfs_spawn("rpc.mountd", mountd) < 0 ||
	    (cld && !nfs_cld_up()))
		return false;
	if (!nfs_nfsd_up())
		return false;
	return nfs_daemon_alive("rpcbind") && nfs_daemon_alive("rpc.mountd") &&
	       (!cld || nfs_daemon_alive("nfsdcld"));
}

static inline void nfs_server_teardown(void)
{
	static const char *const unexport[] = { "/usr/sbin/exportfs", "-ua", NULL };

	nfs_nfsd_down();
	nfs_run(30, unexport);
	nfs_stop_daemon("rpc.mountd");
	nfs_stop_daemon("nfsdcld");
	nfs_stop_daemon("rpcbind");
	umount2(NFS_PIPEFS, MNT_DETACH);
	umount2("/proc/fs/nfsd", MNT_DETACH);
	umount2(NFS_EXPORT, MNT_DETACH);
}

/* ---- clients ---- */

/*
 * mount -t nfs SERVER:/srv/nfs DIR -o OPTS from client @c's namespaces.
 * Returns 0 or the errno of mount(2); ETIME if it did not return within
 * @limit seconds.
 */
static inline int nfs_mount(int c, const char *dir, const char *opts, double limit)
{
	struct nfs_client_ns *cl = &nfs_clients[c];
	char src[64], data[512];
	int status;
	pid_t pid;

	mkdir(dir, 0755);
	snprintf(src, sizeof(src), "%s:" NFS_EXPORT, cl->srv_addr);
	snprintf(data, sizeof(data), "%s,addr=%s,clientaddr=%s", opts,
		 cl->srv_addr, cl->cli_addr);
	pid = fork();
	if (pid == 0) {
		int err = nfs_enter(c);

		if (!err && mount(src, dir, "nfs", 0, data))
			err = -errno;
		_exit(-err);
	}
	if (nfs_wait(pid, limit, &status)) {
		ktap_diag("mount -o %s did not return within %.0f s", opts, limit);
		nfs_kill(pid);
		return ETIME;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
}

/*
 * Create (not mount) an NFS superblock with the new mount API from client
 * @c's namespaces: fsopen("nfs") and one fsconfig() per option of @opts,
 * then FSCONFIG_CMD_CREATE.  Returns 0 or the errno of the call that
 * failed; the kernel's own error message (read from the fs_context) goes
 * to @msg.
 */
static inline int nfs_fs_create(int c, const char *opts, char *msg, size_t size)
{
	struct nfs_client_ns *cl = &nfs_clients[c];
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	msg[0] = '\0';
	if (pipe(pipefd))
		return errno;
	pid = fork();
	if (pid == 0) {
		char all[512], src[64], buf[512], *p = all, *tok;
		int fd, err = -nfs_enter(c);

		close(pipefd[0]);
		snprintf(all, sizeof(all), "%s,addr=%s", opts, cl->srv_addr);
		snprintf(src, sizeof(src), "%s:" NFS_EXPORT, cl->srv_addr);
		fd = err ? -1 : fsopen("nfs", FSOPEN_CLOEXEC);
		if (!err && fd < 0)
			err = errno;
		if (!err && fsconfig(fd, FSCONFIG_SET_STRING, "source", src, 0))
			err = errno;
		while (!err && (tok = strsep(&p, ","))) {
			char *val = strchr(tok, '=');

			if (val)
				*val++ = '\0';
			if (fsconfig(fd, val ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG,
				     tok, val, 0))
				err = errno;
		}
		if (!err && fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
			err = errno;
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = '\0';
			if (write(pipefd[1], buf, n) != n || write(pipefd[1], "|", 1) != 1)
				break;
		}
		_exit(err);
	}
	close(pipefd[1]);
	if (nfs_wait(pid, 60, &status)) {
		ktap_diag("creating an NFS superblock with -o %s took over 60 s", opts);
		nfs_kill(pid);
		close(pipefd[0]);
		return ETIME;
	}
	n = read(pipefd[0], msg, size - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
}

/* Unmount (forced and lazy if it would block); bounded. */
static inline void nfs_umount(const char *dir)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(umount(dir) ? errno : 0);
	if (nfs_wait(pid, 20, &status)) {
		nfs_kill(pid);
		status = -1;
	}
	if (status)
		umount2(dir, MNT_FORCE | MNT_DETACH);
}

/* The options field of DIR's line in /proc/mounts. */
static inline bool nfs_mount_opts(const char *dir, char *opts, size_t size)
{
	static char buf[16384];
	char *line, *save;

	if (nfs_read_file("/proc/mounts", buf, sizeof(buf)) < 0)
		return false;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char src[256], mnt[256], type[32], o[2048];

		if (sscanf(line, "%255s %255s %31s %2047s", src, mnt, type, o) == 4 &&
		    !strcmp(mnt, dir)) {
			snprintf(opts, size, "%s", o);
			return true;
		}
	}
	return false;
}

/* Is @opt one of the comma-separated options in @opts? */
static inline bool nfs_has_opt(const char *opts, const char *opt)
{
	size_t n = strlen(opt);
	const char *p = opts;

	while ((p = strstr(p, opt))) {
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

#endif
