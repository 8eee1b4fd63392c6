// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 files and directories (cgroup.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "file.h"
#include "ktap.h"
#include "wait.h"

int cg_write(const char *cg, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return file_write(path, val);
}

int cg_read(const char *cg, const char *file, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return file_read(path, buf, size) < 0 ? errno : 0;
}

int cg_frozen(const char *cg)
{
	char buf[128], *p;

	if (cg_read(cg, "cgroup.events", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "frozen ");
	return p ? atoi(p + 7) : -1;
}

bool cg_create(const char *cg)
{
	if (mkdir(cg, 0755)) {
		ktap_diag("mkdir %s: %s", cg, strerror(errno));
		return false;
	}
	return true;
}

int cg_move(const char *cg, pid_t pid)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", pid);
	return cg_write(cg, "cgroup.procs", buf);
}

/* @cg is removed, once its killed processes are gone (reaped here). */
static enum wait_result removed(void *arg)
{
	if (!rmdir(arg))
		return WAIT_DONE;
	if (errno != EBUSY)
		return WAIT_FAILED;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return WAIT_AGAIN;
}

void cg_destroy(const char *cg)
{
	char sub[512], what[320];
	struct dirent *de;
	DIR *d;

	d = opendir(cg);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", cg, de->d_name);
		cg_destroy(sub);
	}
	closedir(d);
	cg_write(cg, "cgroup.kill", "1");
	snprintf(what, sizeof(what), "%s to be removed", cg);
	if (!wait_until(removed, (void *)cg, CG_REMOVE_LIMIT_S, CG_POLL_S, what) &&
	    !access(cg, F_OK))
		ktap_diag("could not remove %s: %s", cg, strerror(errno));
}
