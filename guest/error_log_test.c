// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing error_log (Linux 5.2) from user space, in the kunit52
 * guest: malformed kprobe events, synthetic events, hist triggers and
 * event filters each append one entry whose location, message, command
 * and caret are what kernel/trace/ reports and
 * Documentation/trace/ftrace.rst describes ("[time] location: error:
 * text", "  Command: cmd", a caret under the error); each write fails
 * with its errno; a good command adds nothing; the log keeps the last 8
 * entries; an empty write with O_TRUNC clears it and an appending write
 * does not; errors made in a tracing instance land in that instance's
 * log.  Commands are written as the kernel's ftracetest writes them: the
 * '^' in a table entry marks where the caret must be, and is not
 * written.  Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "ktap.h"

#define TRACEFS		"/sys/kernel/tracing"
#define INSTANCE	"instances/kunit52"
/* tracing_log_err(): the entries kept per trace instance. */
#define LOG_MAX_ENTRIES	8
/* The caret line: as many spaces as "  Command: ", then the position. */
#define CMD_PREFIX	"  Command: "
#define LOG_SIZE	16384
#define CMD_MAX		256

/* Where errors of each kind come from, as error_log names them. */
#define LOC_KPROBE	"trace_kprobe"
#define LOC_SYNTH	"synthetic_events"
#define LOC_HIST	"hist:kmem:kmalloc"
#define LOC_FILTER	"event filter parse error"
#define HIST_FILE	"events/kmem/kmalloc/trigger"
#define FILTER_FILE	"events/sched/sched_switch/filter"

struct err_case {
	const char *file;	/* under TRACEFS, written with O_APPEND */
	const char *cmd;	/* '^' marks the caret */
	const char *loc;
	const char *text;
	int err;		/* write()'s errno */
};

static const struct err_case cases[] = {
	/* kernel/trace/trace_probe.h, ERRORS */
	/* validate_probe_symbol() finds no such symbol: a parse error. */
	{ "kprobe_events", "p ^kunit52_no_such_function", LOC_KPROBE,
	  "Invalid probed address or symbol", EINVAL },
	{ "kprobe_events", "p:^ vfs_read", LOC_KPROBE,
	  "Event name is not specified", EINVAL },
	{ "kprobe_events", "p:kunit52/^bar.1 vfs_read", LOC_KPROBE,
	  "Event name must follow the same rules as C identifiers", EINVAL },
	{ "kprobe_events", "p vfs_read ^$retval", LOC_KPROBE,
	  "$retval is not available on probe", EINVAL },
	{ "kprobe_events", "p vfs_read ^$none_var", LOC_KPROBE,
	  "Invalid $-variable specified", EINVAL },
	/* kernel/trace/trace_events_synth.c, ERRORS */
	{ "synthetic_events", "kunit52_ev ^chr arg", LOC_SYNTH,
	  "Invalid type", EINVAL },
	{ "synthetic_events", "kunit52_ev ^unsigned arg", LOC_SYNTH,
	  "Incomplete type", EINVAL },
	{ "synthetic_events", "^kunit52-ev char str[]", LOC_SYNTH,
	  "Illegal name", EINVAL },
	{ "synthetic_events", "kunit52_ev char ^str[257]", LOC_SYNTH,
	  "Invalid array specification", EINVAL },
	{ "synthetic_events", "^kunit52_ev", LOC_SYNTH,
	  "Command must be of the form: <name> field[;field] ...", EINVAL },
	/* kernel/trace/trace_events_hist.c, ERRORS */
	{ HIST_FILE, "hist:keys=common_pid:vals=bytes_req:sort=common_pid,^junk",
	  LOC_HIST, "Sort field must be a key or a val", EINVAL },
	{ HIST_FILE, "hist:keys=common_pid:vals=bytes_req:^sort=", LOC_HIST,
	  "Empty assignment", EINVAL },
	{ HIST_FILE, "hist:keys=common_pid:vals=bytes_req,bytes_alloc:^sort=common_pid,bytes_req,bytes_alloc",
	  LOC_HIST, "Too many sort fields (Max = 2)", EINVAL },
	/* kernel/trace/trace_events_filter.c, ERRORS */
	/* An unknown field: the caret is at its operator (as ftracetest's). */
	{ FILTER_FILE, "kunit52_no_field ^== 1", LOC_FILTER,
	  "Field not found", EINVAL },
	{ FILTER_FILE, "prev_pid =^! 1", LOC_FILTER, "Invalid operator", EINVAL },
	{ FILTER_FILE, "^(prev_pid == 1", LOC_FILTER, "Too many '('", EINVAL },
	{ FILTER_FILE, "prev_pid == 1^)", LOC_FILTER, "Too few '('", EINVAL },
	{ FILTER_FILE, "prev_comm == ^\"kunit52", LOC_FILTER,
	  "Missing matching quote", EINVAL },
};

#define N_CASES	(sizeof(cases) / sizeof(cases[0]))

/* A command without its '^', and the caret's position. */
static int strip_caret(const char *marked, char *cmd, size_t size)
{
	const char *caret = strchr(marked, '^');
	int pos = caret ? (int)(caret - marked) : 0;

	snprintf(cmd, size, "%.*s%s", pos, marked, caret ? caret + 1 : "");
	return pos;
}

static void path_of(char *buf, size_t size, const char *dir, const char *file)
{
	snprintf(buf, size, TRACEFS "/%s%s%s", dir, *dir ? "/" : "", file);
}

/* Write @text to @dir/@file with @flags: 0 or errno. */
static int tr_write(const char *dir, const char *file, const char *text, int flags)
{
	char path[256];

	path_of(path, sizeof(path), dir, file);
	return file_write_flags(path, text, flags);
}

static void log_clear(const char *dir)
{
	tr_write(dir, "error_log", "", O_TRUNC);
}

/* The error_log of @dir into @buf: its length, or -1. */
static ssize_t log_read(const char *dir, char *buf, size_t size)
{
	char path[256];

	path_of(path, sizeof(path), dir, "error_log");
	return file_read(path, buf, size);
}

/* Entries in a log: each has one "error: " line. */
static int log_entries(const char *log)
{
	int n = 0;

	for (; (log = strstr(log, ": error: ")); log++)
		n++;
	return n;
}

/*
 * Does @log hold exactly one entry, for @loc, @text, @cmd, with the caret
 * at @pos?  Its three lines are "[%5llu.%06u] LOC: error: TEXT",
 * CMD_PREFIX CMD and spaces up to the caret.
 */
static bool entry_is(char *log, const char *loc, const char *text,
		     const char *cmd, int pos)
{
	char want[512], *line[3], *save = NULL;
	unsigned long long sec;
	unsigned int usec;
	int i, head = -1;

	for (i = 0; i < 3; i++)
		line[i] = strtok_r(i ? NULL : log, "\n", &save);
	if (!line[2] || strtok_r(NULL, "\n", &save)) {
		ktap_diag("not one three-line entry");
		return false;
	}
	if (sscanf(line[0], "[%llu.%6u]%n", &sec, &usec, &head) < 2 || head < 0) {
		ktap_diag("no timestamp: \"%s\"", line[0]);
		return false;
	}
	snprintf(want, sizeof(want), " %s: error: %s", loc, text);
	if (strcmp(line[0] + head, want)) {
		ktap_diag("\"%s\", expected \"%s\"", line[0] + head, want);
		return false;
	}
	snprintf(want, sizeof(want), CMD_PREFIX "%s", cmd);
	if (strcmp(line[1], want)) {
		ktap_diag("\"%s\", expected \"%s\"", line[1], want);
		return false;
	}
	snprintf(want, sizeof(want), "%*s^", (int)strlen(CMD_PREFIX) + pos, "");
	if (strcmp(line[2], want)) {
		ktap_diag("caret at %d, expected %d", (int)strlen(line[2]) - 1 -
			  (int)strlen(CMD_PREFIX), pos);
		return false;
	}
	return true;
}

/* One bad command in @dir: its errno, then exactly its entry in @log_dir. */
static bool check_case(const struct err_case *c, const char *dir,
		       const char *log_dir)
{
	static char log[LOG_SIZE];
	char cmd[CMD_MAX];
	int pos = strip_caret(c->cmd, cmd, sizeof(cmd)), err;

	log_clear(log_dir);
	err = tr_write(dir, c->file, cmd, O_APPEND);
	if (err != c->err)
		ktap_diag("%s: \"%s\": %s, expected %s", c->file, cmd,
			  err ? strerror(err) : "accepted", strerror(c->err));
	if (log_read(log_dir, log, sizeof(log)) < 0) {
		ktap_diag("cannot read %s error_log", log_dir);
		return false;
	}
	return entry_is(log, c->loc, c->text, cmd, pos) && err == c->err;
}

static void test_cases(void)
{
	size_t i;

	for (i = 0; i < N_CASES; i++)
		ktap_ok(check_case(&cases[i], "", ""), "%s: %s", cases[i].loc,
			cases[i].text);
}

/*
 * Documentation/trace/events.rst's example of a bad filter: reading the
 * filter file back shows it with the caret under the error (the operator
 * after the unknown field "dsig") and the message.
 */
#define DOC_FILTER_FILE	"events/signal/signal_generate/filter"
#define DOC_FILTER	"((sig >= 10 && sig < 15) || dsig ^== 17) && comm != bash"

static void test_filter_file(void)
{
	char cmd[CMD_MAX], path[256], want[512], got[512];
	int pos = strip_caret(DOC_FILTER, cmd, sizeof(cmd)), err;
	bool ok;

	err = tr_write("", DOC_FILTER_FILE, cmd, 0);
	path_of(path, sizeof(path), "", DOC_FILTER_FILE);
	if (file_read(path, got, sizeof(got)) < 0)
		got[0] = '\0';
	snprintf(want, sizeof(want), "%s\n%*s^\nparse_error: Field not found\n",
		 cmd, pos, "");
	ok = err == EINVAL && !strcmp(chomp(got), chomp(want));
	if (!ok)
		ktap_diag("write: %s; %s reads \"%s\", expected \"%s\"",
			  err ? strerror(err) : "accepted", DOC_FILTER_FILE,
			  oneline(got), oneline(want));
	ktap_ok(ok, "filter_file_caret_at_the_error");
	tr_write("", DOC_FILTER_FILE, "0", 0);
}

/* Good commands add no entry (and are undone). */
static void test_good_commands(void)
{
	static char log[LOG_SIZE];
	int err;

	log_clear("");
	err = tr_write("", "kprobe_events", "p:kunit52/good vfs_read", O_APPEND);
	err = err ? err : tr_write("", "kprobe_events", "-:kunit52/good", O_APPEND);
	err = err ? err : tr_write("", FILTER_FILE, "prev_pid == 1", 0);
	err = err ? err : tr_write("", FILTER_FILE, "0", 0);
	err = err ? err : tr_write("", "synthetic_events", "kunit52_ev u64 lat",
				   O_APPEND);
	err = err ? err : tr_write("", "synthetic_events", "!kunit52_ev", O_APPEND);
	if (err)
		ktap_diag("a good command failed: %s", strerror(err));
	log_read("", log, sizeof(log));
	if (log[0])
		ktap_diag("the log is not empty: %s", oneline(log));
	ktap_ok(!err && !log[0], "good_commands_log_nothing");
}

/* Ten errors: the log keeps the last eight, oldest first. */
static void test_max_entries(void)
{
	static char log[LOG_SIZE];
	char cmd[CMD_MAX], *p = log;
	int i, n = LOG_MAX_ENTRIES + 2;
	bool order = true;

	log_clear("");
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "kunit52_no_field_%d == 1", i);
		tr_write("", FILTER_FILE, cmd, 0);
	}
	log_read("", log, sizeof(log));
	for (i = n - LOG_MAX_ENTRIES; i < n && p; i++) {
		snprintf(cmd, sizeof(cmd), CMD_PREFIX "kunit52_no_field_%d == 1\n", i);
		p = strstr(p, cmd);
		order &= p != NULL;
	}
	if (log_entries(log) != LOG_MAX_ENTRIES || !order)
		ktap_diag("%d entries after %d errors; the last %d in order: %s",
			  log_entries(log), n, LOG_MAX_ENTRIES, order ? "yes" : "no");
	ktap_ok(log_entries(log) == LOG_MAX_ENTRIES && order, "keeps_last_%d_entries",
		LOG_MAX_ENTRIES);

	/* An appending write is accepted and changes nothing. */
	tr_write("", "error_log", "x", O_APPEND);
	log_read("", log, sizeof(log));
	ktap_ok(log_entries(log) == LOG_MAX_ENTRIES, "appending_write_keeps_log");

	log_clear("");
	log_read("", log, sizeof(log));
	ktap_ok(!log[0], "empty_write_clears_log");
}

/*
 * A tracing instance has an error_log of its own: a filter or hist error
 * made there is logged there, not in the top one.
 */
static void test_instance(void)
{
	static char log[LOG_SIZE];
	size_t i;

	if (mkdir(TRACEFS "/" INSTANCE, 0755) && errno != EEXIST) {
		ktap_ok(false, "instance (mkdir: %s)", strerror(errno));
		return;
	}
	for (i = 0; i < N_CASES; i++) {
		const struct err_case *c = &cases[i];

		if (strcmp(c->loc, LOC_HIST) && strcmp(c->loc, LOC_FILTER))
			continue;
		log_clear("");
		ktap_ok(check_case(c, INSTANCE, INSTANCE) &&
			log_read("", log, sizeof(log)) == 0,
			"instance: %s: %s", c->loc, c->text);
	}
	log_clear(INSTANCE);
	rmdir(TRACEFS "/" INSTANCE);
}

int main(void)
{
	ktap_begin();
	if (access(TRACEFS "/error_log", F_OK) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL)) {
		ktap_diag("cannot mount tracefs: %s", strerror(errno));
		ktap_ok(false, "tracefs");
		return ktap_finish();
	}
	test_cases();
	test_filter_file();
	test_good_commands();
	test_max_entries();
	test_instance();
	return ktap_finish();
}
