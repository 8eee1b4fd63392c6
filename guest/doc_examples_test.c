// SPDX-License-Identifier: GPL-2.0
/*
 * The documentation's own examples, run as a reader would run them in
 * the guest (make boot), and compared with what the documents show:
 *
 *  - dm-dust.rst's session: every "$ " command of its literal blocks, in
 *    document order, read from the document itself (/docs, copied from
 *    the prepared tree), "sudo " dropped (the guest runs as root), run
 *    as sh runs a simple command (not through busybox sh, whose own dd
 *    applet would answer instead of coreutils' /bin/dd).  The
 *    lines shown under a command must be its output (stdout and stderr),
 *    in order; lines shown as "kernel: TEXT" must be logged while it
 *    runs.  A command shown without output, followed by blocks of output
 *    alone (countbadblocks, queryblock, clearbadblocks), must print one
 *    of those blocks.  A command shown with nothing at all must print
 *    nothing and succeed.
 *  - psi.rst's "Userspace monitor usage example": the program, extracted
 *    from the document and built as written (scripts/initramfs.sh), is run
 *    on a terminal while a cgroup is under memory pressure.
 *  - cgroup-v2.rst's cgroup.freeze and cgroup.events walk-through: what
 *    each sentence says, checked on a cgroup with a task in it.
 *
 * Only what a document marks as variable may differ: its example device,
 * size and device numbers, timings and counts (dust_variables[]), the
 * setup its prose states for an example (dust_prose[]), and the lines it
 * leaves out of a tool's output (dust_omitted[]).  Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cgroup.h"
#include "file.h"
#include "ktap.h"
#include "pressure.h"
#include "proc.h"
#include "wait.h"

#define DOCS		"/docs"
#define DUST_DOC	DOCS "/dm-dust.rst"
#define PSI_DOC		DOCS "/psi.rst"
#define CGROUP_DOC	DOCS "/cgroup-v2.rst"
/* psi.rst's example program, built from the document. */
#define PSI_EXAMPLE	DOCS "/psi_example"
#define DISK		"/dev/vda"
#define DOC_MAX		(1 << 18)
#define MAX_STEPS	64
#define MAX_LINES	16
#define MAX_ALTS	4
#define MAX_WORDS	16
#define LINE_MAX_LEN	256
#define OUT_MAX		8192
/* One command may take this long, in seconds. */
#define CMD_LIMIT_S	60.0
/* psi.rst's example must see an event this soon after pressure starts. */
#define PSI_EVENT_LIMIT_S	15.0
/* A frozen cgroup.events must be notified this soon, in seconds. */
#define FREEZE_LIMIT_S	10.0

/* ---- the dm-dust session ---- */

/* An example value of dm-dust.rst and what stands for it in the guest. */
struct variable {
	const char *doc;	/* as the document writes it */
	const char *why;
	char guest[64];		/* the guest's value; "" matches anything */
};

static struct variable dust_variables[] = {
	{ .doc = "/dev/vdb1", .why = "the example device: the guest's scratch disk" },
	{ .doc = "33552384", .why = "the example device's size in sectors" },
	{ .doc = "252:17", .why = "the example device's major:minor" },
	{ .doc = "0.00040651 s, 0.0 kB/s", .why = "dd's timing" },
	{ .doc = "895", .why = "\"the number of bad blocks currently configured\"" },
};

#define N_VARIABLES	(sizeof(dust_variables) / sizeof(dust_variables[0]))

/* What the prose says about a command that its block does not show. */
enum prose_action {
	PROSE_SKIP,	/* an alternative to a command run instead */
	PROSE_LAST,	/* run after every other command */
	PROSE_SETUP,	/* the example's state: set up before, undone after */
};

struct prose {
	const char *cmd;	/* the document's command */
	const char *first_out;	/* and its first shown line, or NULL */
	enum prose_action action;
	const char *why;	/* the document's words */
	const char *before[3];	/* PROSE_SETUP: commands run before */
	const char *after[3];	/* and after */
};

static const struct prose dust_prose[] = {
	{ .cmd = "dmsetup create dust1 --table '0 33552384 dust /dev/vdb1 0 4096'",
	  .action = PROSE_SKIP,
	  .why = "\"(For a device with a block size of 4096 bytes)\": the 512-byte one is made" },
	{ .cmd = "dmsetup remove dust1", .action = PROSE_LAST,
	  .why = "\"When finished, remove the device\": the quiet mode section after it needs it" },
	{ .cmd = "dmsetup message dust1 0 listbadblocks", .first_out = "1",
	  .action = PROSE_SETUP,
	  .why = "\"using an example device with blocks 1 and 2 in the bad block list\"",
	  .before = { "dmsetup message dust1 0 addbadblock 1",
		      "dmsetup message dust1 0 addbadblock 2" },
	  .after = { "dmsetup message dust1 0 clearbadblocks" } },
};

#define N_PROSE	(sizeof(dust_prose) / sizeof(dust_prose[0]))

/* Lines of a tool's output that dm-dust.rst leaves out (fnmatch patterns). */
static const char *const dust_omitted[] = {
	"* bytes (*) copied, *",	/* coreutils dd's summary after "records out" */
	"Command failed.",		/* dmsetup's last line after an error */
};

#define N_OMITTED	(sizeof(dust_omitted) / sizeof(dust_omitted[0]))

/* A command of the session with what the document shows for it. */
struct step {
	char cmd[LINE_MAX_LEN];
	int n_out, n_klog, n_alts;
	char out[MAX_LINES][LINE_MAX_LEN];
	char klog[MAX_LINES][LINE_MAX_LEN];	/* after "kernel: " */
	int n_alt_lines[MAX_ALTS];
	char alts[MAX_ALTS][MAX_LINES][LINE_MAX_LEN];
};

static struct step steps[MAX_STEPS];
static int n_steps;
static char doc[DOC_MAX];
static char out[OUT_MAX];

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static bool line_blank(const char *s)
{
	return !*skip_blanks(s);
}

/* Is the .rst line @s part of an indented literal block? */
static bool line_indented(const char *s)
{
	return *s == ' ' || *s == '\t';
}

static void add_line(char lines[][LINE_MAX_LEN], int *n, const char *s)
{
	if (*n < MAX_LINES)
		snprintf(lines[(*n)++], LINE_MAX_LEN, "%s", s);
}

/* Drop trailing blanks of @s; returns @s. */
static char *rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* A new command of the session: @s after its "$ ", "sudo " dropped. */
static struct step *new_step(const char *s)
{
	struct step *st;

	if (n_steps == MAX_STEPS)
		return NULL;
	st = &steps[n_steps++];
	if (!strncmp(s, "sudo ", 5))
		s += 5;
	snprintf(st->cmd, sizeof(st->cmd), "%s", s);
	return st;
}

/*
 * Line @s of a literal block (@first: its first line): a command, a line
 * shown under the block's last command, or, in a block without
 * commands, a line of a possible output of the session's last command
 * if that was shown without any.
 */
static void parse_block_line(const char *s, bool first)
{
	static struct step *cur, *last;
	static int alt = -1;

	if (first) {
		cur = NULL;
		alt = -1;
	}
	if (!strncmp(s, "$ ", 2)) {
		cur = new_step(s + 2);
		last = cur;
		return;
	}
	if (cur && !strncmp(s, "kernel: ", 8)) {
		add_line(cur->klog, &cur->n_klog, s + 8);
		return;
	}
	if (cur) {
		add_line(cur->out, &cur->n_out, s);
		return;
	}
	if (first && last && !last->n_out && !last->n_klog && last->n_alts < MAX_ALTS)
		alt = last->n_alts++;
	if (alt >= 0)
		add_line(last->alts[alt], &last->n_alt_lines[alt], s);
}

/*
 * The session of the .rst text in doc[]: the commands of its literal
 * blocks (the indented lines after a paragraph that ends in "::").
 */
static void parse_session(void)
{
	bool literal_next = false, in_block = false;
	char *save, *line;

	for (line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(rstrip(line));

		if (line_blank(line))
			continue;
		if (!line_indented(line)) {
			in_block = false;
			literal_next = len >= 2 && !strcmp(line + len - 2, "::");
			continue;
		}
		if (!in_block && !literal_next)
			continue;
		parse_block_line(skip_blanks(line), !in_block);
		in_block = true;
		literal_next = false;
	}
}

/* Does variable @v start at @s? */
static bool variable_at(const struct variable *v, const char *s)
{
	return !strncmp(s, v->doc, strlen(v->doc));
}

/*
 * @text of the document with its variables replaced: by the guest's
 * values, or (@glob) as an fnmatch() pattern, "*" for a value that may be
 * anything and every other character matched as itself.
 */
static void instantiate(const char *text, bool glob, char *buf, size_t size)
{
	size_t n = 0, i;

	while (*text && n + 2 < size) {
		for (i = 0; i < N_VARIABLES; i++)
			if (variable_at(&dust_variables[i], text))
				break;
		if (i < N_VARIABLES) {
			const char *val = dust_variables[i].guest;

			text += strlen(dust_variables[i].doc);
			if (!*val && glob) {
				buf[n++] = '*';
				continue;
			}
			for (; *val && n + 2 < size; val++) {
				if (glob && strchr("*?[\\", *val))
					buf[n++] = '\\';
				buf[n++] = *val;
			}
			continue;
		}
		if (glob && strchr("*?[\\", *text))
			buf[n++] = '\\';
		buf[n++] = *text++;
	}
	buf[n] = '\0';
}

static bool line_matches(const char *doc_line, const char *line)
{
	char pat[2 * LINE_MAX_LEN];

	instantiate(doc_line, true, pat, sizeof(pat));
	return !fnmatch(pat, line, 0);
}

static bool omitted(const char *line)
{
	size_t i;

	for (i = 0; i < N_OMITTED; i++)
		if (!fnmatch(dust_omitted[i], line, 0))
			return true;
	return false;
}

/*
 * Is @output (lines) the document's @n lines, in order, with only
 * dust_omitted[] lines between or after them?
 */
static bool output_is(const char *output, char lines[][LINE_MAX_LEN], int n)
{
	char copy[OUT_MAX], *save, *line;
	int i = 0;

	snprintf(copy, sizeof(copy), "%s", output);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (i < n && line_matches(lines[i], line))
			i++;
		else if (!omitted(line))
			return false;
	}
	return i == n;
}

/* The kernel log from now on: /dev/kmsg at its end (-1 if none). */
static int kmsg_from_now(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* The messages logged on @fd since kmsg_from_now(), one a line, into @buf. */
static void kmsg_read(int fd, char *buf, size_t size)
{
	char rec[1024];
	size_t n = 0;
	ssize_t len;

	buf[0] = '\0';
	while ((len = read(fd, rec, sizeof(rec) - 1)) > 0 || (len < 0 && errno == EPIPE)) {
		char *text, *end;

		if (len < 0)
			continue;	/* overwritten records: read on */
		rec[len] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		end = strchr(++text, '\n');
		if (end)
			*end = '\0';
		n += snprintf(buf + n, size - n, "%s\n", text);
		if (n >= size)
			break;
	}
}

/* Does a message of @log (lines) match the document's kernel line? */
static bool logged(const char *log, const char *doc_line)
{
	char copy[OUT_MAX], *save, *line;

	snprintf(copy, sizeof(copy), "%s", log);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line_matches(doc_line, line))
			return true;
	return false;
}

/*
 * Split the simple command @cmd into words in place, as sh does: blanks
 * separate them, quotes group them.  NULL-terminated @argv; false for
 * what a simple command does not have (pipes, redirections, expansions).
 */
static bool split_words(char *cmd, const char *argv[], int max)
{
	char *r = cmd, *w = cmd;
	int n = 0;

	while (*r) {
		char quote = 0;

		while (*r == ' ' || *r == '\t')
			r++;
		if (!*r)
			break;
		if (n == max - 1)
			return false;
		argv[n++] = w;
		for (; *r && (quote || (*r != ' ' && *r != '\t')); r++) {
			if (!quote && strchr("|&;<>()$`\\*?", *r))
				return false;
			if (*r == quote)
				quote = 0;
			else if (!quote && (*r == '\'' || *r == '"'))
				quote = *r;
			else
				*w++ = *r;
		}
		if (quote)
			return false;
		if (*r)
			r++;
		*w++ = '\0';
	}
	argv[n] = NULL;
	return n > 0;
}

/*
 * Run the document's command @doc_cmd: its exit code, output in out[].
 * Not through busybox sh, which runs its own applets before PATH's
 * programs: the document's dd is coreutils'.
 */
static int shell(const char *doc_cmd)
{
	char cmd[2 * LINE_MAX_LEN];
	const char *argv[MAX_WORDS];

	instantiate(doc_cmd, false, cmd, sizeof(cmd));
	if (!split_words(cmd, argv, MAX_WORDS)) {
		snprintf(out, sizeof(out), "not a simple command: %s", doc_cmd);
		return -1;
	}
	return run(CMD_LIMIT_S, argv, out, sizeof(out));
}

/* Run commands the prose implies (a step's setup): all must succeed. */
static bool run_prose(const char *const cmds[], size_t n)
{
	bool ok = true;
	size_t i;

	for (i = 0; i < n && cmds[i]; i++) {
		int rc = shell(cmds[i]);

		if (rc)
			ktap_diag("prose setup '%s': exit %d: %s", cmds[i], rc, oneline(out));
		ok = ok && !rc;
	}
	return ok;
}

/* Run step @st and compare it with the document. */
static bool step_ok(const struct step *st)
{
	char log[OUT_MAX];
	bool ok = true;
	int fd, rc, i;

	fd = kmsg_from_now();
	rc = shell(st->cmd);
	log[0] = '\0';
	if (fd >= 0) {
		kmsg_read(fd, log, sizeof(log));
		close(fd);
	}
	if (st->n_alts) {
		for (i = 0; i < st->n_alts; i++)
			if (output_is(out, (char (*)[LINE_MAX_LEN])st->alts[i], st->n_alt_lines[i]))
				break;
		if (i == st->n_alts) {
			ktap_diag("output '%s' is none of the %d the document shows", oneline(out),
				  st->n_alts);
			ok = false;
		}
	} else if (!output_is(out, (char (*)[LINE_MAX_LEN])st->out, st->n_out)) {
		ktap_diag("output '%s'; the document shows %d line(s), first '%s'",
			  oneline(out), st->n_out, st->n_out ? st->out[0] : "");
		ok = false;
	}
	if (!st->n_out && !st->n_alts && rc) {
		ktap_diag("exit %d, where the document shows no error", rc);
		ok = false;
	}
	for (i = 0; i < st->n_klog; i++) {
		if (!logged(log, st->klog[i])) {
			ktap_diag("not logged: '%s' (log: '%s')", st->klog[i], oneline(log));
			ok = false;
		}
	}
	return ok;
}

static const struct prose *prose_of(const struct step *st)
{
	size_t i;

	for (i = 0; i < N_PROSE; i++) {
		const struct prose *p = &dust_prose[i];

		if (!strcmp(p->cmd, st->cmd) &&
		    (!p->first_out || (st->n_out && !strcmp(p->first_out, st->out[0]))))
			return p;
	}
	return NULL;
}

static void run_step(const struct step *st, int n)
{
	const struct prose *p = prose_of(st);
	bool ok;

	if (p && p->action == PROSE_SKIP) {
		char name[LINE_MAX_LEN + 32];

		snprintf(name, sizeof(name), "dm-dust.rst %d: %s", n, st->cmd);
		ktap_skip(name, p->why);
		return;
	}
	if (p && p->action == PROSE_SETUP)
		ktap_diag("%s: %s", st->cmd, p->why);
	ok = !p || p->action != PROSE_SETUP || run_prose(p->before, 3);
	ok = step_ok(st) && ok;
	if (p && p->action == PROSE_SETUP)
		ok = run_prose(p->after, 3) && ok;
	ktap_ok(ok, "dm-dust.rst %d: %s", n, st->cmd);
}

/* The guest's values of the document's example device. */
static bool dust_variables_init(void)
{
	char buf[64];

	snprintf(dust_variables[0].guest, sizeof(dust_variables[0].guest), "%s", DISK);
	if (file_read("/sys/block/vda/size", buf, sizeof(buf)) <= 0)
		return false;
	snprintf(dust_variables[1].guest, sizeof(dust_variables[1].guest), "%s", chomp(buf));
	if (file_read("/sys/block/vda/dev", buf, sizeof(buf)) <= 0)
		return false;
	snprintf(dust_variables[2].guest, sizeof(dust_variables[2].guest), "%s", chomp(buf));
	return true;
}

/* Every variable and prose note still applies to the document. */
static bool dust_notes_apply(const char *text)
{
	bool ok = true;
	size_t i;
	int j;

	for (i = 0; i < N_VARIABLES; i++) {
		if (!strstr(text, dust_variables[i].doc)) {
			ktap_diag("variable '%s' (%s) is not in the document",
				  dust_variables[i].doc, dust_variables[i].why);
			ok = false;
		}
	}
	for (i = 0; i < N_PROSE; i++) {
		for (j = 0; j < n_steps; j++)
			if (prose_of(&steps[j]) == &dust_prose[i])
				break;
		if (j == n_steps) {
			ktap_diag("prose note on '%s' matches no command", dust_prose[i].cmd);
			ok = false;
		}
	}
	return ok;
}

static void test_dust_session(void)
{
	static char text[DOC_MAX];
	int i;

	if (!ktap_ok(file_read(DUST_DOC, doc, sizeof(doc)) > 0, "dm-dust.rst is in " DOCS))
		return;
	memcpy(text, doc, sizeof(text));
	parse_session();
	ktap_ok(n_steps > 0 && dust_variables_init() && dust_notes_apply(text),
		"dm-dust.rst: %d commands; its variables and prose notes apply", n_steps);
	for (i = 0; i < n_steps; i++) {
		const struct prose *p = prose_of(&steps[i]);

		if (!p || p->action != PROSE_LAST)
			run_step(&steps[i], i + 1);
	}
	for (i = 0; i < n_steps; i++) {
		const struct prose *p = prose_of(&steps[i]);

		if (p && p->action == PROSE_LAST)
			run_step(&steps[i], i + 1);
	}
	shell("dmsetup remove dust1");	/* if a step failed before its removal */
}

/* ---- psi.rst's example program ---- */

/* What the example program prints (its printf()s in psi.rst). */
#define PSI_WAITING	"waiting for events..."
#define PSI_EVENT	"event triggered!"
#define PSI_CG		CG_ROOT "/kunit52-doc-psi"

/*
 * A terminal for the example (/init mounts devpts), as a reader runs it:
 * its stdout is line buffered there (to a pipe, nothing would show before
 * it exits, and it never exits).  The master's fd, or -1; the slave's path in @slave.
 */
static int pty_open(char *slave, size_t size)
{
	int fd;

	fd = posix_openpt(O_RDWR | O_NOCTTY);
	if (fd < 0 || grantpt(fd) || unlockpt(fd) || ptsname_r(fd, slave, size)) {
		ktap_diag("pty: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Start @path on the terminal @slave (raw: no "\r" added): its pid. */
static pid_t start_on_pty(const char *path, const char *slave)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct termios t;
		int fd;

		setsid();
		fd = open(slave, O_RDWR);
		if (fd < 0)
			_exit(127);
		tcgetattr(fd, &t);
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * Read the terminal @fd into @buf (appending) until it shows the line
 * @want or @limit seconds pass.
 */
static bool pty_wait_line(int fd, char *buf, size_t size, const char *want, double limit)
{
	double deadline = now_s() + limit;
	char line[LINE_MAX_LEN + 2];
	size_t n = strlen(buf);

	snprintf(line, sizeof(line), "%s\n", want);
	while (!strstr(buf, line)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - now_s();
		ssize_t got;

		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0) {
			ktap_diag("no line '%s' in %.0f s; the program printed '%s'", want,
				  limit, oneline(buf));
			return false;
		}
		got = read(fd, buf + n, size - n - 1);
		if (got <= 0) {
			ktap_diag("terminal closed before '%s'; printed '%s'", want, oneline(buf));
			return false;
		}
		n += got;
		buf[n] = '\0';
	}
	return true;
}

/* A task pressing memory in PSI_CG (memory.high): its pid, or -1. */
static pid_t start_memory_pressure(void)
{
	pid_t pid;

	cg_write(CG_ROOT, "cgroup.subtree_control", "+memory");
	if (!cg_create(PSI_CG) || cg_write(PSI_CG, "memory.high", PRESSURE_MEM_HIGH))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (cg_move(PSI_CG, getpid()))
			_exit(1);
		pressure_memory();
	}
	return pid;
}

/*
 * psi.rst's program, built as the document writes it: it prints that it
 * waits, and an event once a cgroup stalls on memory.
 */
static void test_psi_example(void)
{
	char slave[64], shown[OUT_MAX] = "";
	bool waits, fires = false;
	pid_t example, hog;
	int fd;

	if (file_read(PSI_DOC, doc, sizeof(doc)) <= 0 || !strstr(doc, PSI_WAITING) ||
	    !strstr(doc, PSI_EVENT)) {
		ktap_ok(false, "psi.rst's example prints '%s' and '%s'", PSI_WAITING, PSI_EVENT);
		return;
	}
	fd = pty_open(slave, sizeof(slave));
	example = fd < 0 ? -1 : start_on_pty(PSI_EXAMPLE, slave);
	waits = example > 0 && pty_wait_line(fd, shown, sizeof(shown), PSI_WAITING, CMD_LIMIT_S);
	ktap_ok(waits, "psi.rst's example: '%s'", PSI_WAITING);
	if (waits) {
		hog = start_memory_pressure();
		fires = hog > 0 && pty_wait_line(fd, shown, sizeof(shown), PSI_EVENT,
						 PSI_EVENT_LIMIT_S);
	}
	ktap_ok(fires, "psi.rst's example: '%s' under memory pressure", PSI_EVENT);
	if (example > 0)
		proc_kill(example);
	cg_destroy(PSI_CG);
	if (fd >= 0)
		close(fd);
}

/* ---- cgroup-v2.rst's cgroup.freeze and cgroup.events ---- */

#define FZ_PARENT	CG_ROOT "/kunit52-doc-freeze"
#define FZ_CHILD	FZ_PARENT "/child"
#define FZ_NEW		FZ_PARENT "/new"

static pid_t fz_task;

/* cgroup.events of FZ_PARENT and FZ_CHILD (the one with the task). */
static const char *const fz_watched[] = { FZ_PARENT, FZ_CHILD };

#define N_FZ_WATCHED	(sizeof(fz_watched) / sizeof(fz_watched[0]))

/*
 * Write @val to FZ_PARENT's cgroup.freeze: has the cgroup.events of
 * both it and its child (frozen through it, the task's own cgroup) been
 * notified (POLLPRI) within FREEZE_LIMIT_S?
 */
static bool notified_after(const char *val)
{
	struct pollfd p[N_FZ_WATCHED];
	int fds[N_FZ_WATCHED];
	bool seen[N_FZ_WATCHED] = { false };
	double deadline = now_s() + FREEZE_LIMIT_S;
	size_t i, n_seen = 0;
	char path[256], buf[128];

	for (i = 0; i < N_FZ_WATCHED; i++) {
		snprintf(path, sizeof(path), "%s/cgroup.events", fz_watched[i]);
		fds[i] = open(path, O_RDONLY);
		p[i].fd = fds[i];
		p[i].events = POLLPRI;
		/* A notification is news only after a read. */
		if (fds[i] < 0 || read(fds[i], buf, sizeof(buf)) < 0)
			ktap_diag("%s: %s", path, strerror(errno));
	}
	if (!cg_write(FZ_PARENT, "cgroup.freeze", val)) {
		while (n_seen < N_FZ_WATCHED && now_s() < deadline &&
		       poll(p, N_FZ_WATCHED, (int)((deadline - now_s()) * 1000) + 1) > 0) {
			for (i = 0; i < N_FZ_WATCHED; i++) {
				if (seen[i] || !(p[i].revents & POLLPRI))
					continue;
				seen[i] = true;
				n_seen++;
				p[i].fd = -1;	/* poll() skips it now */
			}
		}
	}
	for (i = 0; i < N_FZ_WATCHED; i++) {
		if (!seen[i])
			ktap_diag("%s/cgroup.events: no notification in %.0f s after writing %s",
				  fz_watched[i], FREEZE_LIMIT_S, val);
		if (fds[i] >= 0)
			close(fds[i]);
	}
	return n_seen == N_FZ_WATCHED;
}

static bool fz_not_on_root(void)
{
	return access(CG_ROOT "/cgroup.freeze", F_OK) && errno == ENOENT &&
	       !access(FZ_CHILD "/cgroup.freeze", F_OK);
}

static bool fz_default_0(void)
{
	char buf[16];

	return !cg_read(FZ_CHILD, "cgroup.freeze", buf, sizeof(buf)) && !strcmp(chomp(buf), "0");
}

static bool fz_only_0_and_1(void)
{
	char buf[16];
	int err = cg_write(FZ_CHILD, "cgroup.freeze", "2");

	ktap_diag("writing \"2\": %s", err ? strerror(err) : "accepted");
	return err && !cg_read(FZ_CHILD, "cgroup.freeze", buf, sizeof(buf)) &&
	       !strcmp(chomp(buf), "0");
}

static bool fz_freeze_notifies(void)
{
	return notified_after("1") && cg_frozen(FZ_PARENT) == 1;
}

static bool fz_descendants_frozen(void)
{
	char stat[512], *p;

	snprintf(stat, sizeof(stat), "/proc/%d/stat", fz_task);
	if (cg_frozen(FZ_CHILD) != 1 || file_read(stat, stat, sizeof(stat)) <= 0)
		return false;
	p = strrchr(stat, ')');
	ktap_diag("the child cgroup's task is in state %c", p ? p[2] : '?');
	return true;
}

static bool fz_ancestor_keeps_frozen(void)
{
	return !cg_write(FZ_CHILD, "cgroup.freeze", "0") && cg_frozen(FZ_CHILD) == 1;
}

static bool fz_tree_operations(void)
{
	return cg_create(FZ_NEW) && !rmdir(FZ_NEW);
}

static bool fz_kill(void)
{
	int status;

	kill(fz_task, SIGKILL);
	if (proc_wait(fz_task, FREEZE_LIMIT_S, &status, "the frozen task to die"))
		return false;
	fz_task = 0;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

static bool fz_unfreeze_notifies(void)
{
	return notified_after("0") && cg_frozen(FZ_PARENT) == 0;
}

/* A sentence of cgroup.freeze's text and a check of what it says. */
struct freeze_claim {
	const char *quote;
	bool (*check)(void);
};

static const struct freeze_claim freeze_claims[] = {
	{ "A read-write single value file which exists on non-root cgroups.", fz_not_on_root },
	{ "The default is \"0\".", fz_default_0 },
	{ "Allowed values are \"0\" and \"1\".", fz_only_0_and_1 },
	{ "when this action is completed, the \"frozen\" value in the cgroup.events "
	  "control file will be updated to \"1\" and the corresponding notification "
	  "will be issued.", fz_freeze_notifies },
	{ "Writing \"1\" to the file causes freezing of the cgroup and all descendant cgroups.",
	  fz_descendants_frozen },
	{ "If any of ancestor cgroups is frozen, the cgroup will remain frozen.",
	  fz_ancestor_keeps_frozen },
	{ "it's possible to delete a frozen (and empty) cgroup, as well as create new sub-cgroups.",
	  fz_tree_operations },
	{ "Processes in the frozen cgroup can be killed by a fatal signal.", fz_kill },
	{ "frozen 1 if the cgroup is frozen; otherwise, 0.", fz_unfreeze_notifies },
};

#define N_FREEZE_CLAIMS	(sizeof(freeze_claims) / sizeof(freeze_claims[0]))

/* @s with every run of blanks as one space (in place); returns @s. */
static char *squeeze(char *s)
{
	char *r = s, *w = s;

	for (; *r; r++)
		if (!strchr(" \t\n", *r))
			*w++ = *r;
		else if (w > s && w[-1] != ' ')
			*w++ = ' ';
	*w = '\0';
	return s;
}

static void test_freeze_walkthrough(void)
{
	size_t i;

	if (!ktap_ok(file_read(CGROUP_DOC, doc, sizeof(doc)) > 0, "cgroup-v2.rst is in " DOCS))
		return;
	squeeze(doc);
	cg_destroy(FZ_PARENT);
	if (!cg_create(FZ_PARENT) || !cg_create(FZ_CHILD)) {
		ktap_ok(false, "cgroup.freeze: cgroups made");
		return;
	}
	fz_task = fork();
	if (fz_task == 0) {
		for (;;)
			pause();
	}
	ktap_ok(fz_task > 0 && !cg_move(FZ_CHILD, fz_task), "cgroup.freeze: a task in %s",
		FZ_CHILD);
	for (i = 0; i < N_FREEZE_CLAIMS; i++) {
		const struct freeze_claim *c = &freeze_claims[i];
		bool quoted = strstr(doc, c->quote);

		if (!quoted)
			ktap_diag("not in cgroup-v2.rst any more: '%s'", c->quote);
		ktap_ok(quoted && c->check(), "cgroup.freeze: %s", c->quote);
	}
	if (fz_task > 0)
		proc_kill(fz_task);
	cg_destroy(FZ_PARENT);
}

int main(void)
{
	ktap_begin();
	test_dust_session();
	test_psi_example();
	test_freeze_walkthrough();
	return ktap_finish();
}
