/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Credentials for the guest test programs: become an unprivileged user
 * that holds exactly the capabilities a case names.  Errors are positive
 * errno values (0: success), as everywhere in guest/lib.
 */
#ifndef KUNIT52_CRED_H
#define KUNIT52_CRED_H

#include <sys/types.h>

/* The user (and group) the unprivileged cases run as: "nobody". */
#define CRED_NOBODY	65534
/* cred_drop()'s @caps: no capability at all. */
#define CRED_NO_CAPS	0ULL
/* One capability as a cred_drop() mask. */
#define CRED_CAP(cap)	(1ULL << (cap))

/*
 * Become @uid/@gid (real, effective and saved; no supplementary groups)
 * with @caps (a mask of CRED_CAP() bits) as the permitted, effective and
 * inheritable sets and nothing else.  For a child process: there is no
 * way back.
 */
int cred_drop(uid_t uid, gid_t gid, unsigned long long caps);

#endif
