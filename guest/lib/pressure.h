/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pressure a guest test causes on purpose, for PSI: a task that runs in
 * a cgroup whose memory.high is PRESSURE_MEM_HIGH and keeps touching
 * PRESSURE_MEM_TOUCH bytes of anonymous memory.  The guest has no swap,
 * so the task is throttled in reclaim above memory.high: memory stall
 * in its cgroup and, through it, in the system's /proc/pressure/memory.
 */
#ifndef KUNIT52_PRESSURE_H
#define KUNIT52_PRESSURE_H

#define PRESSURE_MEM_HIGH	"16M"
#define PRESSURE_MEM_TOUCH	(64L << 20)

/* Touch PRESSURE_MEM_TOUCH bytes, unmap, again, forever (in a child). */
void pressure_memory(void) __attribute__((noreturn));

#endif
