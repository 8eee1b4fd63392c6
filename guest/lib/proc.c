// SPDX-License-Identifier: GPL-2.0
/* Child processes with a time limit (proc.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"
#include "proc.h"
#include "wait.h"

struct child {
	pid_t pid;
	int *status;
};

static enum wait_result child_ended(void *arg)
{
	struct child *c = arg;
	pid_t r = waitpid(c->pid, c->status, WNOHANG);

	if (r == c->pid)
		return WAIT_DONE;
	if (r < 0 && errno != EINTR) {
		ktap_diag("waitpid(%d): %s", c->pid, strerror(errno));
		return WAIT_FAILED;
	}
	return WAIT_AGAIN;
}

int proc_wait(pid_t pid, double limit, int *status, const char *what)
{
	struct child c = { pid, status };

	return wait_until(child_ended, &c, limit, PROC_POLL_S, what) ? 0 : ETIME;
}

void proc_kill(pid_t pid)
{
	char what[64];
	int status;

	snprintf(what, sizeof(what), "pid %d to die after SIGKILL", pid);
	kill(pid, SIGKILL);
	proc_wait(pid, PROC_KILL_LIMIT_S, &status, what);
}

int proc_wait_or_kill(pid_t pid, double limit, int *status, const char *what)
{
	int err = proc_wait(pid, limit, status, what);

	if (err)
		proc_kill(pid);
	return err;
}

int proc_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int proc_call(int (*fn)(void *arg), void *arg, double limit, const char *what)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int rc = fn(arg);

		fflush(NULL);
		_exit(rc);
	}
	if (proc_wait_or_kill(pid, limit, &status, what))
		return -1;
	return proc_exit_code(status);
}

int run(double limit, const char *const argv[], char *out, size_t size)
{
	char path[] = "/tmp/kunit52-run-XXXXXX", what[128];
	int fd, status, rc;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
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
	snprintf(what, sizeof(what), "%s to exit", argv[0]);
	if (pid < 0)
		rc = -1;
	else if (proc_wait_or_kill(pid, limit, &status, what))
		rc = -1;
	else
		rc = proc_exit_code(status);
	n = pread(fd, out, size - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	chomp(out);
	return rc;
}

bool run_ok(double limit, const char *const argv[], char *out, size_t size)
{
	int rc = run(limit, argv, out, size);

	if (rc == 0)
		return true;
	ktap_diag("%s failed (status %d): %s", argv[0], rc, oneline(out));
	return false;
}
