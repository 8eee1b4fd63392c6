// SPDX-License-Identifier: GPL-2.0
/* The NFS test bed (nfs.h). */
#define _GNU_SOURCE
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"
#include "nfs.h"
#include "proc.h"
#include "wait.h"

#define NFS_RPCBIND_SOCK "/run/rpcbind.sock"
#define NFS_MAX_DAEMONS	8
/* Time limits, in seconds. */
#define NETNS_SETUP_LIMIT	10	/* a client's addresses and links */
#define DAEMON_START_LIMIT	20	/* rpcbind listens */
#define CLD_START_LIMIT		60	/* nfsdcld listens for nfsd's pipe */
#define DAEMON_STOP_LIMIT	10	/* a daemon ends after SIGTERM */
#define TOOL_LIMIT		30	/* exportfs */
#define NFSD_LIMIT		60	/* rpc.nfsd starts or stops threads */
#define FS_CREATE_LIMIT		60	/* fsopen() .. FSCONFIG_CMD_CREATE */
#define UMOUNT_LIMIT		20
#define DAEMON_POLL_S		0.05	/* between two looks at a daemon */

struct nfs_client_ns {
	const char *host;	/* UTS host name: part of the NFSv4 client id */
	const char *srv_if, *cli_if;
	const char *srv_addr, *cli_addr;
	int netfd, utsfd;
};

static struct nfs_client_ns clients[NFS_NCLIENTS] = {
	{ "kunit52-client1", "nfs-s1", "nfs-c1", "10.52.1.1", "10.52.1.2", -1, -1 },
	{ "kunit52-client2", "nfs-s2", "nfs-c2", "10.52.2.1", "10.52.2.2", -1, -1 },
};

/* Daemons we started: name and pid, so they can be stopped again. */
struct nfs_daemon {
	const char *name;
	pid_t pid;
};

static struct nfs_daemon daemons[NFS_MAX_DAEMONS];

bool nfs_available(void)
{
	char buf[4096];

	if (file_read("/proc/filesystems", buf, sizeof(buf)) < 0)
		return false;
	return strstr(buf, "\tnfs\n") && strstr(buf, "\tnfsd\n");
}

const char *nfs_client_host(int c)
{
	return clients[c].host;
}

/* ---- network: veth pairs, addresses, link state ---- */

static void rta_add(struct nlmsghdr *n, unsigned short type, const void *data,
		    size_t len)
{
	struct rtattr *rta = (void *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static struct rtattr *rta_nest(struct nlmsghdr *n, unsigned short type)
{
	struct rtattr *nest = (void *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	rta_add(n, type, NULL, 0);
	return nest;
}

static void rta_end(struct nlmsghdr *n, struct rtattr *nest)
{
	nest->rta_len = (char *)n + n->nlmsg_len - (char *)nest;
}

/* Send the rtnetlink request @n and read its ack: 0 or errno. */
static int rtnl_request(struct nlmsghdr *n)
{
	struct {
		struct nlmsghdr n;
		struct nlmsgerr e;
		char buf[256];
	} ack;
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return errno;
	if (send(fd, n, n->nlmsg_len, 0) < 0 ||
	    recv(fd, &ack, sizeof(ack), 0) < 0)
		err = errno;
	else if (ack.n.nlmsg_type == NLMSG_ERROR)
		err = -ack.e.error;
	else
		err = EPROTO;
	close(fd);
	return err;
}

/* ip link add SRV type veth peer name CLI netns NETFD: 0 or errno. */
static int veth_add(const char *srv, const char *cli, int netfd)
{
	static union {
		struct nlmsghdr n;
		char buf[1024];
	} req;
	struct nlmsghdr *n = &req.n;
	struct rtattr *linkinfo, *data, *peer;

	memset(&req, 0, sizeof(req));
	n->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	n->nlmsg_type = RTM_NEWLINK;
	n->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
	rta_add(n, IFLA_IFNAME, srv, strlen(srv) + 1);
	linkinfo = rta_nest(n, IFLA_LINKINFO);
	rta_add(n, IFLA_INFO_KIND, "veth", 4);
	data = rta_nest(n, IFLA_INFO_DATA);
	peer = rta_nest(n, VETH_INFO_PEER);
	n->nlmsg_len += sizeof(struct ifinfomsg);	/* the peer's, zeroed */
	rta_add(n, IFLA_IFNAME, cli, strlen(cli) + 1);
	rta_add(n, IFLA_NET_NS_FD, &netfd, sizeof(netfd));
	rta_end(n, peer);
	rta_end(n, data);
	rta_end(n, linkinfo);

	return rtnl_request(n);
}

/*
 * ip link del NAME: 0, or errno (ENODEV: there is none).  Deleting one
 * end of a veth pair deletes both, at once.
 */
static int link_del(const char *name)
{
	static union {
		struct nlmsghdr n;
		char buf[256];
	} req;
	struct nlmsghdr *n = &req.n;

	memset(&req, 0, sizeof(req));
	n->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	n->nlmsg_type = RTM_DELLINK;
	n->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	rta_add(n, IFLA_IFNAME, name, strlen(name) + 1);
	return rtnl_request(n);
}

/* ifconfig NAME [ADDR/24] up|down, in the current network namespace. */
static int ifconfig(const char *name, const char *addr, bool up)
{
	struct ifreq ifr = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (addr) {
		sin->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &sin->sin_addr);
		if (ioctl(fd, SIOCSIFADDR, &ifr))
			err = errno;
		inet_pton(AF_INET, "255.255.255.0", &sin->sin_addr);
		if (!err && ioctl(fd, SIOCSIFNETMASK, &ifr))
			err = errno;
	}
	if (!err && ioctl(fd, SIOCGIFFLAGS, &ifr))
		err = errno;
	if (!err) {
		if (up)
			ifr.ifr_flags |= IFF_UP;
		else
			ifr.ifr_flags &= ~IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			err = errno;
	}
	close(fd);
	return err;
}

bool nfs_link(int c, bool up)
{
	int err = ifconfig(clients[c].srv_if, NULL, up);

	if (err)
		ktap_diag("cannot set %s %s: %s", clients[c].srv_if,
			  up ? "up" : "down", strerror(err));
	return !err;
}

int nfs_enter(int c)
{
	if (setns(clients[c].netfd, CLONE_NEWNET) ||
	    setns(clients[c].utsfd, CLONE_NEWUTS))
		return errno;
	return 0;
}

/* Make client @c's namespaces (back in ours after): 0 or errno. */
static int client_ns_make(struct nfs_client_ns *cl, int self_net, int self_uts)
{
	if (unshare(CLONE_NEWNET | CLONE_NEWUTS))
		return errno;
	sethostname(cl->host, strlen(cl->host));
	cl->netfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	cl->utsfd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	if (setns(self_net, CLONE_NEWNET) || setns(self_uts, CLONE_NEWUTS))
		return errno;
	return cl->netfd < 0 || cl->utsfd < 0 ? EBADF : 0;
}

/* Client @c's link and addresses: 0 or errno. */
static int client_link_make(int c)
{
	struct nfs_client_ns *cl = &clients[c];
	int err, status;
	pid_t pid;

	/*
	 * The NFS test that ran before this one left its link: the kernel
	 * destroys a dropped network namespace, and the pair with it, from a
	 * workqueue, later (a hardened boot under load saw EEXIST here).
	 */
	err = link_del(cl->srv_if);
	if (err && err != ENODEV)
		return err;
	err = veth_add(cl->srv_if, cl->cli_if, cl->netfd);
	if (!err)
		err = ifconfig(cl->srv_if, cl->srv_addr, true);
	if (err)
		return err;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		err = nfs_enter(c);
		if (!err)
			err = ifconfig("lo", "127.0.0.1", true);
		if (!err)
			err = ifconfig(cl->cli_if, cl->cli_addr, true);
		_exit(err);
	}
	err = proc_wait_or_kill(pid, NETNS_SETUP_LIMIT, &status,
				"a client's addresses to be set");
	return err ? err : proc_exit_code(status);
}

int nfs_net_setup(void)
{
	int self_net, self_uts, c, err = 0;

	self_net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	self_uts = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	if (self_net < 0 || self_uts < 0)
		err = errno;
	sethostname("kunit52-server", strlen("kunit52-server"));
	for (c = 0; !err && c < NFS_NCLIENTS; c++) {
		err = client_ns_make(&clients[c], self_net, self_uts);
		if (!err)
			err = client_link_make(c);
	}
	if (self_net >= 0)
		close(self_net);
	if (self_uts >= 0)
		close(self_uts);
	return err ? err : ifconfig("lo", "127.0.0.1", true);
}

/* ---- daemons ---- */

static void log_path(const char *name, char *path, size_t size)
{
	snprintf(path, size, NFS_LOGS "/%s.log", name);
}

void nfs_show_log(const char *name)
{
	char path[128], buf[4096];

	log_path(name, path, sizeof(path));
	if (file_read(path, buf, sizeof(buf)) > 0)
		ktap_diag("%s log: %s", name, oneline(buf));
}

/* Start daemon @name (argv[0] a full path), its output in its log. */
static pid_t spawn(const char *name, const char *const argv[])
{
	char path[128];
	unsigned int i;
	pid_t pid;
	int fd;

	log_path(name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		setsid();
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd);
	for (i = 0; pid > 0 && i < NFS_MAX_DAEMONS; i++) {
		if (!daemons[i].pid) {
			daemons[i].name = name;
			daemons[i].pid = pid;
			break;
		}
	}
	return pid;
}

static struct nfs_daemon *daemon_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < NFS_MAX_DAEMONS; i++)
		if (daemons[i].pid && !strcmp(daemons[i].name, name))
			return &daemons[i];
	return NULL;
}

bool nfs_daemon_alive(const char *name)
{
	struct nfs_daemon *d = daemon_by_name(name);
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

void nfs_stop_daemon(const char *name)
{
	struct nfs_daemon *d = daemon_by_name(name);
	char what[64];
	int status;

	if (!d)
		return;
	snprintf(what, sizeof(what), "%s to end after SIGTERM", name);
	kill(d->pid, SIGTERM);
	proc_wait_or_kill(d->pid, DAEMON_STOP_LIMIT, &status, what);
	d->pid = 0;
}

/* A daemon accepts connections on a unix socket (the file alone is not
 * enough: it may be left from an earlier run, or not listened on yet). */
static enum wait_result listening(void *arg)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, err;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", (const char *)arg);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return WAIT_FAILED;
	err = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	close(fd);
	return err ? WAIT_AGAIN : WAIT_DONE;
}

struct log_wait {
	const char *name, *text;
};

/* Daemon @name's log contains @text (and the daemon still runs). */
static enum wait_result logged(void *arg)
{
	const struct log_wait *w = arg;
	char path[128], buf[16384];

	log_path(w->name, path, sizeof(path));
	if (file_read(path, buf, sizeof(buf)) >= 0 && strstr(buf, w->text))
		return WAIT_DONE;
	return nfs_daemon_alive(w->name) ? WAIT_AGAIN : WAIT_FAILED;
}

static bool wait_log(const char *name, const char *text, double limit)
{
	struct log_wait w = { name, text };
	char what[128];

	snprintf(what, sizeof(what), "%s to log '%s'", name, text);
	if (wait_until(logged, &w, limit, DAEMON_POLL_S, what))
		return true;
	nfs_show_log(name);
	return false;
}

static const char *const nfsd_start[] = {
	"/usr/sbin/rpc.nfsd", "--lease-time", "10", "--grace-time", "10",
	"4", NULL
};
static const char *const nfsd_stop[] = { "/usr/sbin/rpc.nfsd", "0", NULL };

bool nfs_nfsd_up(void)
{
	char out[4096];

	return run_ok(NFSD_LIMIT, nfsd_start, out, sizeof(out));
}

bool nfs_nfsd_down(void)
{
	char out[4096];

	return run_ok(NFSD_LIMIT, nfsd_stop, out, sizeof(out));
}

static bool cld_up(void)
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
	return spawn("nfsdcld", argv) > 0 &&
	       wait_log("nfsdcld", "Starting event dispatch handler", CLD_START_LIMIT);
}

static const char *const server_dirs[] = {
	"/srv", NFS_EXPORT, "/etc", "/var", "/var/lib", NFS_LIB, NFS_PIPEFS,
	"/proc/fs/nfsd", NFS_LOGS,
};

static const struct {
	const char *path, *text;
} server_files[] = {
	{ "/etc/passwd", "root:x:0:0:root:/:/bin/sh\n"
			 "_rpc:x:100:65534::/run/rpcbind:/bin/false\n"
			 "statd:x:101:65534::/var/lib/nfs:/bin/false\n"
			 "nobody:x:65534:65534:nobody:/:/bin/false\n" },
	{ "/etc/group", "root:x:0:\nnogroup:x:65534:\n" },
	{ "/etc/hosts", "127.0.0.1 localhost\n" },
	{ "/etc/exports", NFS_EXPORT " 10.52.0.0/16(rw,sync,no_root_squash,"
			  "no_subtree_check,insecure,fsid=52)\n" },
};

/* The directories, files and mounts the server programs need. */
static bool server_files_make(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(server_dirs) / sizeof(server_dirs[0]); i++)
		mkdir(server_dirs[i], 0755);
	mkdir(NFS_CLD_DIR, 0700);
	for (i = 0; i < sizeof(server_files) / sizeof(server_files[0]); i++) {
		err = file_write(server_files[i].path, server_files[i].text);
		if (err) {
			ktap_diag("cannot write %s: %s", server_files[i].path,
				  strerror(err));
			return false;
		}
	}
	if (mount("tmpfs", NFS_EXPORT, "tmpfs", 0, "size=64m") ||
	    mount("nfsd", "/proc/fs/nfsd", "nfsd", 0, NULL) ||
	    mount("rpc_pipefs", NFS_PIPEFS, "rpc_pipefs", 0, NULL)) {
		ktap_diag("cannot mount the export, nfsd or rpc_pipefs: %s",
			  strerror(errno));
		return false;
	}
	return true;
}

bool nfs_server_setup(bool cld)
{
	static const char *const rpcbind[] = { "/sbin/rpcbind", "-f", NULL };
	static const char *const mountd[] = {
		"/usr/sbin/rpc.mountd", "-F", "--debug", "general", NULL
	};
	static const char *const exportfs[] = { "/usr/sbin/exportfs", "-ra", NULL };
	char out[4096];

	if (!server_files_make())
		return false;
	/* A socket left by the rpcbind of an earlier test answers nothing. */
	unlink(NFS_RPCBIND_SOCK);
	if (spawn("rpcbind", rpcbind) < 0 ||
	    !wait_until(listening, NFS_RPCBIND_SOCK, DAEMON_START_LIMIT,
			DAEMON_POLL_S, "rpcbind to listen on " NFS_RPCBIND_SOCK) ||
	    !run_ok(TOOL_LIMIT, exportfs, out, sizeof(out)) ||
	    spawn("rpc.mountd", mountd) < 0 ||
	    (cld && !cld_up()))
		return false;
	if (!nfs_nfsd_up())
		return false;
	return nfs_daemon_alive("rpcbind") && nfs_daemon_alive("rpc.mountd") &&
	       (!cld || nfs_daemon_alive("nfsdcld"));
}

void nfs_server_teardown(void)
{
	static const char *const unexport[] = { "/usr/sbin/exportfs", "-ua", NULL };
	char out[4096];

	nfs_nfsd_down();
	run(TOOL_LIMIT, unexport, out, sizeof(out));
	nfs_stop_daemon("rpc.mountd");
	nfs_stop_daemon("nfsdcld");
	nfs_stop_daemon("rpcbind");
	umount2(NFS_PIPEFS, MNT_DETACH);
	umount2("/proc/fs/nfsd", MNT_DETACH);
	umount2(NFS_EXPORT, MNT_DETACH);
}

/* ---- clients ---- */

int nfs_mount(int c, const char *dir, const char *opts, double limit)
{
	struct nfs_client_ns *cl = &clients[c];
	char src[64], data[512], what[600];
	int status;
	pid_t pid;

	mkdir(dir, 0755);
	snprintf(src, sizeof(src), "%s:" NFS_EXPORT, cl->srv_addr);
	snprintf(data, sizeof(data), "%s,addr=%s,clientaddr=%s", opts,
		 cl->srv_addr, cl->cli_addr);
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		int err = nfs_enter(c);

		if (!err && mount(src, dir, "nfs", 0, data))
			err = errno;
		_exit(err);
	}
	snprintf(what, sizeof(what), "mount -o %s to return", opts);
	if (proc_wait_or_kill(pid, limit, &status, what))
		return ETIME;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
}

/* In the child of nfs_fs_create(): the errno of the call that failed;
 * the fs_context's messages written to @msgfd. */
static int fs_create_child(int c, const char *opts, int msgfd)
{
	struct nfs_client_ns *cl = &clients[c];
	char all[512], src[64], buf[512], *p = all, *tok;
	int fd, err = nfs_enter(c);
	ssize_t n;

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
		if (write(msgfd, buf, n) != n || write(msgfd, "|", 1) != 1)
			break;
	}
	return err;
}

int nfs_fs_create(int c, const char *opts, char *msg, size_t size)
{
	char what[600];
	int pipefd[2], status, err;
	ssize_t n;
	pid_t pid;

	msg[0] = '\0';
	if (pipe(pipefd))
		return errno;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		_exit(fs_create_child(c, opts, pipefd[1]));
	}
	close(pipefd[1]);
	snprintf(what, sizeof(what), "an NFS superblock with -o %s", opts);
	if (pid < 0)
		err = errno;
	else if (proc_wait_or_kill(pid, FS_CREATE_LIMIT, &status, what))
		err = ETIME;
	else
		err = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
	if (pid > 0 && err != ETIME) {
		n = read(pipefd[0], msg, size - 1);
		msg[n > 0 ? n : 0] = '\0';
	}
	close(pipefd[0]);
	return err;
}

void nfs_umount(const char *dir)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0)
		_exit(umount(dir) ? errno : 0);
	/* A timeout is handled: forced and lazy below. */
	if (pid < 0 || proc_wait_or_kill(pid, UMOUNT_LIMIT, &status, NULL))
		status = -1;
	if (status)
		umount2(dir, MNT_FORCE | MNT_DETACH);
}

bool nfs_mount_opts(const char *dir, char *opts, size_t size)
{
	static char buf[16384];
	char *line, *save;

	if (file_read("/proc/mounts", buf, sizeof(buf)) < 0)
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

bool nfs_has_opt(const char *opts, const char *opt)
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
