// SPDX-License-Identifier: GPL-2.0
/* Loop devices for the guest test programs (loop.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "file.h"
#include "loop.h"

/* A free loop device's number, or -errno. */
static int loop_free_nr(void)
{
	int ctl, nr, err;

	ctl = open("/dev/loop-control", O_RDWR);
	if (ctl < 0)
		return -errno;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	err = nr < 0 ? errno : 0;
	close(ctl);
	return err ? -err : nr;
}

int loop_attach(const char *file, unsigned long long bytes, const char *name,
		char *dev, size_t size)
{
	struct loop_config cfg = { 0 };
	int nr, fd, lfd, err;

	nr = loop_free_nr();
	if (nr < 0)
		return nr;
	snprintf(dev, size, "/dev/loop%d", nr);
	err = file_create_sized(file, bytes);
	if (err)
		return -err;
	fd = open(file, O_RDWR);
	if (fd < 0) {
		err = errno;
		unlink(file);
		return -err;
	}
	lfd = open(dev, O_RDWR);
	if (lfd < 0) {
		err = errno;
		close(fd);
		unlink(file);
		return -err;
	}
	cfg.fd = fd;
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", name);
	if (ioctl(lfd, LOOP_CONFIGURE, &cfg)) {
		err = errno;
		close(lfd);
		unlink(file);
		lfd = -err;
	}
	close(fd);	/* the loop device holds its own reference */
	return lfd;
}

void loop_detach(int lfd, const char *file)
{
	ioctl(lfd, LOOP_CLR_FD);
	close(lfd);
	unlink(file);
}
