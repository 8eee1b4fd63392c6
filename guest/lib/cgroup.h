/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 files and directories for the guest test programs (the
 * hierarchy is mounted on CG_ROOT by /init).  Errors are positive errno
 * values (0: success), as everywhere in guest/lib.
 */
#ifndef KUNIT52_CGROUP_H
#define KUNIT52_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CG_ROOT		"/sys/fs/cgroup"
/* How long cg_destroy() waits for a killed cgroup to empty, in seconds. */
#define CG_REMOVE_LIMIT_S	10.0
/* How often it looks, in seconds. */
#define CG_POLL_S	0.005

/* Write @val to @cg/@file: 0 or errno. */
int cg_write(const char *cg, const char *file, const char *val);
/* Read @cg/@file into @buf: 0 or errno. */
int cg_read(const char *cg, const char *file, char *buf, size_t size);
/* The "frozen" field of @cg's cgroup.events, or -1. */
int cg_frozen(const char *cg);
/* mkdir @cg (a diagnostic says why not). */
bool cg_create(const char *cg);
/* Move process @pid into @cg: 0 or errno. */
int cg_move(const char *cg, pid_t pid);
/* Kill everything in @cg and below (cgroup.kill), reap, remove them all. */
void cg_destroy(const char *cg);

#endif
