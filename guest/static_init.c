// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the initramfs of an arch that Debian has no packages for
 * (guest_tests in its qemu_configs/ table: 32-bit PowerPC), where there
 * is no busybox to run guest/init.  It does what guest/init does for such
 * a guest: mounts the kernel's file systems, runs every program in /tests
 * whose name matches kunit52.tests=GLOB, each under kunit52.timeout=
 * seconds, reports each as a KTAP subtest on the virtio console (hvc0),
 * prints the end marker that scripts/system.sh waits for, and reboots
 * (QEMU runs with -no-reboot, so it ends).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"
#include "proc.h"
#include "wait.h"

#define TESTS_DIR	"/tests"
#define KTAP_CONSOLE	"/dev/hvc0"
#define DEFAULT_LIMIT_S	300	/* guest/init's kunit52.timeout default */
#define OUTPUT_MAX	(256 * 1024)
#define TAIL_MAX	256	/* room for the line run_test() adds */
#define GLOB_MAX	256
#define VERSION_MAX	512	/* a line of /proc/version */
/* The end marker: scripts/system.sh's judge() looks for it. */
#define ALL_DONE	"kunit52: all tests done"

static const struct {
	const char *type, *dir;
} mounts[] = {
	{ "proc", "/proc" },
	{ "sysfs", "/sys" },
	{ "devtmpfs", "/dev" },
	{ "tmpfs", "/tmp" },
	{ "debugfs", "/sys/kernel/debug" },
};

static char output[OUTPUT_MAX];

/* Progress for the console log, apart from the KTAP. */
static FILE *console;

static void mount_all(void)
{
	size_t i;

	for (i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		mkdir(mounts[i].dir, 0755);
		if (mount(mounts[i].type, mounts[i].dir, mounts[i].type, 0, NULL))
			fprintf(console, "static_init: cannot mount %s on %s: %m\n",
				mounts[i].type, mounts[i].dir);
	}
}

/* KTAP to the virtio console, when there is one; else to the console. */
static void ktap_to_virtio_console(void)
{
	int fd = open(KTAP_CONSOLE, O_WRONLY);

	if (fd < 0)
		return;
	dup2(fd, 1);
	close(fd);
}

static int is_test(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Run /tests/@name under @limit seconds and report it as a subtest. */
static void run_test(const char *name, double limit)
{
	char path[512];
	const char *const argv[] = { path, NULL };
	double t0 = now_s();
	int rc;

	snprintf(path, sizeof(path), TESTS_DIR "/%s", name);
	fprintf(console, "kunit52: running %s\n", name);
	rc = run(limit, argv, output, sizeof(output) - TAIL_MAX);
	fprintf(console, "kunit52: %s ended (status %d)\n", name, rc);
	snprintf(output + strlen(output), TAIL_MAX, "\n# %.64s: ran %.1f s, exit code %d%s",
		 name, now_s() - t0, rc, rc < 0 ? " (did not run, or ran out of time)" : "");
	ktap_subtest_output(name, output, rc == 0);
}

/*
 * The kernel's banner, before the KTAP on its channel (where no kernel
 * message can split it), for the harness to check that the kernel it
 * built is the one that booted (scripts/lib.sh, check_booted_kernel).
 */
static void print_kernel_banner(void)
{
	char version[VERSION_MAX];

	if (file_read("/proc/version", version, sizeof(version)) <= 0)
		fprintf(console, "static_init: cannot read /proc/version: %m\n");
	else
		printf("kunit52: kernel: %s\n", chomp(version));
}

int main(void)
{
	char glob[GLOB_MAX] = "*";
	struct dirent **tests;
	double limit;
	int i, n;

	console = fdopen(dup(1), "w");
	setvbuf(console, NULL, _IOLBF, 0);
	mount_all();
	cmdline_value("kunit52.tests", glob, sizeof(glob));
	limit = cmdline_long("kunit52.timeout", DEFAULT_LIMIT_S);
	ktap_to_virtio_console();
	print_kernel_banner();

	printf("KTAP version 1\n");
	ktap_begin();
	n = scandir(TESTS_DIR, &tests, is_test, alphasort);
	for (i = 0; i < n; i++) {
		if (!fnmatch(glob, tests[i]->d_name, 0))
			run_test(tests[i]->d_name, limit);
		free(tests[i]);
	}
	if (n < 0)
		fprintf(console, "static_init: cannot read %s: %m\n", TESTS_DIR);
	ktap_finish();
	printf("# " ALL_DONE "\n");
	fflush(stdout);
	fprintf(console, ALL_DONE "\n");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
