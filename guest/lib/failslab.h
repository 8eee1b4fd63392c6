/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation failures for the guest test programs: failslab
 * (Documentation/fault-injection/fault-injection.rst) made to fail the
 * next slab allocation whose call stack passes through one kernel
 * function, and no other (kunitconfigs/guest has the options it needs).
 */
#ifndef KUNIT52_FAILSLAB_H
#define KUNIT52_FAILSLAB_H

#include <stdbool.h>

#define FAILSLAB	"/sys/kernel/debug/failslab"
/* Why failslab_available() is false: the reason a case skips with. */
#define FAILSLAB_MISSING	"no " FAILSLAB "/require-start (CONFIG_FAILSLAB, " \
	"CONFIG_FAULT_INJECTION_DEBUG_FS, CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"

/* Does this kernel offer failslab with a stack filter? */
bool failslab_available(void);

/*
 * [*start, *end) of the text of kernel function @fn: its address and the
 * next higher symbol's, from /proc/kallsyms.  False if @fn is not there
 * (not built, or inlined into its callers).
 */
bool ksym_range(const char *fn, unsigned long *start, unsigned long *end);

/*
 * Fail the next slab allocation (GFP_KERNEL ones included) made with
 * [@start, @end) on the stack, once; verbose, so the kernel log shows the
 * failing call's stack.  False, with a diagnostic, if a knob refused.
 */
bool failslab_arm(unsigned long start, unsigned long end);
/* Back to failslab's defaults: no injection.  False, with a diagnostic, on error. */
bool failslab_disarm(void);
/* Has the armed failure been injected ("times" counted down to 0)? */
bool failslab_fired(void);

#endif
