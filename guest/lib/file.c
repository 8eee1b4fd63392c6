// SPDX-License-Identifier: GPL-2.0
/* Small files, text and the kernel log (file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

#include "file.h"

/* syslog(2) actions. */
#define KLOG_READ_ALL	3
#define KLOG_READ_CLEAR	4
#define KLOG_CLEAR	5

#define CMDLINE_MAX	4096

int file_write(const char *path, const char *text)
{
	return file_write_flags(path, text, O_CREAT | O_TRUNC);
}

int file_write_flags(const char *path, const char *text, int flags)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return errno;
	n = write(fd, text, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

int file_create_sized(const char *path, unsigned long long bytes)
{
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return errno;
	if (ftruncate(fd, bytes))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	return err;
}

ssize_t file_read(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

char *chomp(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == '\n')
		s[--n] = '\0';
	return s;
}

char *oneline(char *s)
{
	char *p;

	chomp(s);
	for (p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = '|';
	return s;
}

void klog_read(char *buf, size_t size, bool clear)
{
	int n = klogctl(clear ? KLOG_READ_CLEAR : KLOG_READ_ALL, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
}

void klog_clear(void)
{
	klogctl(KLOG_CLEAR, NULL, 0);
}

bool cmdline_value(const char *key, char *val, size_t size)
{
	char buf[CMDLINE_MAX], pat[128], *p;

	if (file_read("/proc/cmdline", buf, sizeof(buf)) <= 0)
		return false;
	snprintf(pat, sizeof(pat), "%s=", key);
	for (p = buf; (p = strstr(p, pat)); p++) {
		if (p == buf || p[-1] == ' ') {
			p += strlen(pat);
			snprintf(val, size, "%.*s", (int)strcspn(p, " \n"), p);
			return true;
		}
	}
	return false;
}

long cmdline_long(const char *key, long def)
{
	char val[32];

	return cmdline_value(key, val, sizeof(val)) ? strtol(val, NULL, 10) : def;
}

bool cmdline_has(const char *word)
{
	char buf[CMDLINE_MAX], *p;
	size_t n = strlen(word);

	if (file_read("/proc/cmdline", buf, sizeof(buf)) <= 0)
		return false;
	for (p = buf; (p = strstr(p, word)); p++)
		if ((p == buf || p[-1] == ' ') && strchr(" \n", p[n]))
			return true;
	return false;
}
