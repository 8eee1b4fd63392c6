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
 * time says what it was waiting for.  Clients are numbered from 0.
 * Errors are positive errno values (0: success), as everywhere in
 * guest/lib; bool functions print why they failed.
 */
#ifndef KUNIT52_NFS_H
#define KUNIT52_NFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define NFS_EXPORT	"/srv/nfs"
#define NFS_LIB		"/var/lib/nfs"
#define NFS_PIPEFS	NFS_LIB "/rpc_pipefs"
#define NFS_CLD_DIR	NFS_LIB "/nfsdcld"
#define NFS_RECOVERY	NFS_LIB "/v4recovery"
#define NFS_LOGS	"/tmp/nfs-logs"
#define NFS_NCLIENTS	2
/* The shortest lease and grace period nfsd accepts, in seconds. */
#define NFS_LEASE	10

/* Does this kernel have the NFS client and server? */
bool nfs_available(void);

/* The KTAP case of nfs_net_setup(), the same in every test. */
#define NFS_NET_CASE	"two network namespaces linked by veth pairs"

/* Make the client namespaces and their links: 0 or errno. */
int nfs_net_setup(void);
/* Cut (or restore) client @c's link at the server's end. */
bool nfs_link(int c, bool up);
/* Enter client @c's network and UTS namespaces (in a child): 0 or errno. */
int nfs_enter(int c);
/* Client @c's host name (part of its NFSv4 client identity). */
const char *nfs_client_host(int c);

/*
 * Write what the server programs need, mount nfsd and rpc_pipefs, start
 * rpcbind and rpc.mountd, export NFS_EXPORT (a tmpfs) and start nfsd
 * threads.  @cld: start nfsdcld too, before nfsd.
 */
bool nfs_server_setup(bool cld);
void nfs_server_teardown(void);
/* Start nfsd threads (with the shortest lease and grace period). */
bool nfs_nfsd_up(void);
/* Stop every nfsd thread: the server forgets all NFSv4 state. */
bool nfs_nfsd_down(void);

/* Daemons started by the test bed, by name ("nfsdcld", "rpcbind", ...). */
bool nfs_daemon_alive(const char *name);
void nfs_stop_daemon(const char *name);
/* Print a daemon's log as a diagnostic (after a failure). */
void nfs_show_log(const char *name);

/*
 * mount -t nfs SERVER:NFS_EXPORT @dir -o @opts from client @c's
 * namespaces: 0 or the errno of mount(2); ETIME if it did not return
 * within @limit seconds.
 */
int nfs_mount(int c, const char *dir, const char *opts, double limit);
/*
 * Create (not mount) an NFS superblock with the new mount API from client
 * @c's namespaces: fsopen("nfs"), one fsconfig() per option of @opts, then
 * FSCONFIG_CMD_CREATE.  0 or the errno of the call that failed; the
 * kernel's own messages (from the fs_context) go to @msg.
 */
int nfs_fs_create(int c, const char *opts, char *msg, size_t size);
/* Unmount (forced and lazy if it would block); bounded. */
void nfs_umount(const char *dir);
/* The options field of @dir's line in /proc/mounts. */
bool nfs_mount_opts(const char *dir, char *opts, size_t size);
/* Is @opt one of the comma-separated options in @opts? */
bool nfs_has_opt(const char *opts, const char *opt);

#endif
