/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small files, text and the kernel log, for the guest test programs.
 * Errors are positive errno values (0: success), as everywhere in
 * guest/lib.
 */
#ifndef KUNIT52_FILE_H
#define KUNIT52_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Write @text to @path (created or truncated, as the shell's '>'): 0 or errno. */
int file_write(const char *path, const char *text);
/* Write @text to @path opened O_WRONLY | @flags (O_APPEND, ...): 0 or errno. */
int file_write_flags(const char *path, const char *text, int flags);
/* Make @path (created or truncated) @bytes long, a sparse file: 0 or errno. */
int file_create_sized(const char *path, unsigned long long bytes);
/* Read the whole (small) file @path into @buf, NUL-terminated: its length, or -1. */
ssize_t file_read(const char *path, char *buf, size_t size);

/* Drop trailing newlines; returns @s. */
char *chomp(char *s);
/* Fold a multi-line text into one line ('|' between lines) for a diagnostic. */
char *oneline(char *s);

/* The kernel log since the last clear into @buf; @clear: then clear it. */
void klog_read(char *buf, size_t size, bool clear);
void klog_clear(void);

/* The value of "@key=" on the kernel command line into @val: false if absent. */
bool cmdline_value(const char *key, char *val, size_t size);
/* The number after "@key=" on the kernel command line, or @def. */
long cmdline_long(const char *key, long def);
/* Is @word, a flag without a value ("nosmap"), on the kernel command line? */
bool cmdline_has(const char *word);

#endif
