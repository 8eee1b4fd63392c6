// SPDX-License-Identifier: GPL-2.0
/* Credentials for the guest test programs (cred.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cred.h"

static int cred_set_caps(unsigned long long caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };
	int i;

	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		data[i].permitted = (__u32)(caps >> (32 * i));
		data[i].effective = data[i].permitted;
		data[i].inheritable = data[i].permitted;
	}
	return syscall(SYS_capset, &hdr, data) ? errno : 0;
}

int cred_drop(uid_t uid, gid_t gid, unsigned long long caps)
{
	/* Keep the permitted set across the change of uid, then trim it. */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return errno;
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return errno;
	return cred_set_caps(caps);
}
