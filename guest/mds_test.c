// SPDX-License-Identifier: GPL-2.0
/*
 * The MDS report (Linux 5.2): /sys/devices/system/cpu/vulnerabilities/mds
 * reads what arch/x86/kernel/cpu/bugs.c decides for the emulated CPU and
 * the mds= (and mmio_stale_data=) arguments, as
 * Documentation/admin-guide/hw-vuln/mds.rst describes; on arm64 the
 * generic file reads "Not affected".  The full-system boot runs it on
 * the arch's default CPU; the extra boots of the arch table
 * (qemu_configs/<arch>.py) run it alone under other CPU models and
 * arguments.  The table below says what each must read: a boot it has no
 * row for fails.  Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "file.h"
#include "ktap.h"

#define MDS_FILE	"/sys/devices/system/cpu/vulnerabilities/mds"
#define CMDLINE_MAX	4096

/* mds_strings[] of bugs.c, and the suffix a guest (hypervisor bit) gets. */
#define NOT_AFFECTED	"Not affected"
#define VULNERABLE	"Vulnerable"
#define NO_MICROCODE	"Vulnerable: Clear CPU buffers attempted, no microcode"
#define GUEST_SMT	"; SMT Host state unknown"

/* The CPUs: QEMU's model_id strings, as /proc/cpuinfo's "model name". */
#define CPU_QEMU64	"QEMU Virtual CPU"
#define CPU_KVM64	"Common KVM processor"
#define CPU_SKYLAKE	"Intel Core Processor (Skylake)"
/* arm64 has no "model name": the machine name stands for the CPU. */
#define CPU_ARM64	"aarch64"

struct mds_case {
	const char *cpu;	/* a prefix of the CPU's name */
	const char *args;	/* the mitigation arguments, in order */
	const char *mds;	/* what MDS_FILE reads */
};

static const struct mds_case cases[] = {
	/* AMD (qemu64's vendor): not affected, whatever mds= says. */
	{ CPU_QEMU64, "", NOT_AFFECTED },
	{ CPU_ARM64, "", NOT_AFFECTED },
	/* Intel without md-clear: the clearing is tried, without microcode. */
	{ CPU_KVM64, "", NO_MICROCODE GUEST_SMT },
	{ CPU_KVM64, "mds=off", VULNERABLE GUEST_SMT },
	/*
	 * nosmt would turn SMT off, but the guest has no SMT to turn off
	 * (SeaBIOS's MP table lists one thread a core, and the kernel is
	 * built without ACPI): smt/control reads "notsupported" either way.
	 */
	{ CPU_KVM64, "mds=full,nosmt", NO_MICROCODE GUEST_SMT },
	/* An unknown value is ignored: the default stays. */
	{ CPU_KVM64, "mds=bogus", NO_MICROCODE GUEST_SMT },
	/* MMIO Stale Data's buffer clearing turns MDS's back on... */
	{ CPU_SKYLAKE, "mds=off", NO_MICROCODE GUEST_SMT },
	/* ...unless it is off too. */
	{ CPU_SKYLAKE, "mds=off mmio_stale_data=off", VULNERABLE GUEST_SMT },
};

/* This CPU's name into @buf: x86's "model name", else the machine. */
static void cpu_name(char *buf, size_t size)
{
	static char info[65536];
	struct utsname u;
	char *p;

	if (file_read("/proc/cpuinfo", info, sizeof(info)) > 0 &&
	    (p = strstr(info, "model name\t: "))) {
		p += strlen("model name\t: ");
		snprintf(buf, size, "%.*s", (int)strcspn(p, "\n"), p);
		return;
	}
	uname(&u);
	snprintf(buf, size, "%s", u.machine);
}

/* The mds= and mmio_stale_data= words of the command line, in order. */
static void mitigation_args(char *buf, size_t size)
{
	static char cmdline[CMDLINE_MAX];
	char *w, *save = NULL;
	size_t len = 0;

	buf[0] = '\0';
	if (file_read("/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		return;
	for (w = strtok_r(cmdline, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (strncmp(w, "mds=", 4) && strncmp(w, "mmio_stale_data=", 16))
			continue;
		len += snprintf(buf + len, size - len, "%s%s", len ? " " : "", w);
		if (len >= size)
			break;
	}
}

static const struct mds_case *find_case(const char *cpu, const char *args)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strncmp(cpu, cases[i].cpu, strlen(cases[i].cpu)) &&
		    !strcmp(args, cases[i].args))
			return &cases[i];
	return NULL;
}

/* @path reads @want (one line); a diagnostic says what it read. */
static bool reads(const char *path, const char *want)
{
	char got[256];

	if (file_read(path, got, sizeof(got)) < 0) {
		ktap_diag("%s: %s", path, strerror(errno));
		return false;
	}
	chomp(got);
	ktap_diag("%s: \"%s\"", path, got);
	if (strcmp(got, want))
		ktap_diag("expected \"%s\"", want);
	return !strcmp(got, want);
}

int main(void)
{
	char cpu[128], args[256];
	const struct mds_case *c;

	ktap_begin();
	cpu_name(cpu, sizeof(cpu));
	mitigation_args(args, sizeof(args));
	ktap_diag("CPU \"%s\", arguments \"%s\"", cpu, args);
	c = find_case(cpu, args);
	if (!ktap_ok(c != NULL, "boot_has_an_expectation")) {
		ktap_diag("no row in mds_test.c's table for this CPU and these arguments");
		return ktap_finish();
	}
	ktap_ok(reads(MDS_FILE, c->mds), "mds_report");
	return ktap_finish();
}
