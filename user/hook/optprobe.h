/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's kprobe optimizer held off while many kprobes are placed in
 * a row (the call-site and indirect-call probes of live discovery).
 *
 * A kprobe placed inside a function (not at its fentry site) is a
 * breakpoint that the kernel later turns into a jump: a worker does it a
 * few ticks after each placement, holding the kprobe lock through an
 * RCU-tasks grace period (kprobe_optimizer() in kernel/kprobes.c). Every
 * kprobe placed meanwhile waits for that lock, so a hundred placed in a
 * row wait for many grace periods. With debug.kprobes-optimization at 0
 * none is optimized; set back to 1, the kernel optimizes them all in one
 * pass, in the background.
 *
 * The setting is the machine's: a guard process puts it back should
 * bpfgraph die while holding it, and nothing is changed where it was
 * already 0, cannot be written (a container's read-only /proc/sys) or
 * does not exist (no CONFIG_OPTPROBES).
 */
#ifndef BG_OPTPROBE_H
#define BG_OPTPROBE_H

#include <stdbool.h>

#include "guard.h"

struct optprobe_hold {
	bool held; /* the setting was 1 and this process made it 0 */
	struct guard guard; /* puts it back should bpfgraph die */
};

/*
 * Optimization off until optprobe__release(), if it was on. 0 when held,
 * else -errno (nothing changed: placing the kprobes just takes longer).
 */
int optprobe__hold(struct optprobe_hold *h);
/* Back on (if optprobe__hold() turned it off), the guard gone. */
void optprobe__release(struct optprobe_hold *h);

#endif
