/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loop devices for the guest test programs: a block device backed by a
 * file on the guest's tmpfs (/tmp), for a test that needs one beside the
 * scratch disk (dm_dust_test's ioctl pass-through, an ext2 file system
 * for gup_longterm_test).
 */
#ifndef KUNIT52_LOOP_H
#define KUNIT52_LOOP_H

#include <stddef.h>

/*
 * Make @file, @bytes long, and attach it to a free loop device whose
 * LOOP_GET_STATUS64 names the backing file @name.  The device's path goes
 * to @dev (@size bytes).  Returns its open fd, or -errno.
 */
int loop_attach(const char *file, unsigned long long bytes, const char *name,
		char *dev, size_t size);
/* Detach the loop device @lfd from its file, close it and remove @file. */
void loop_detach(int lfd, const char *file);

#endif
