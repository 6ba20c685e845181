/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's kprobe optimizer held off while many kprobes are placed in
 * a row (the call-site and indirect-call probes of live discovery, the
 * rcu pair's call sites after the wide net).
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
 * The setting is the machine's, held for the process: holders from any
 * thread count, the first one's hold turns it off and the last one's
 * release back on. One guard process (guard.h), started at the first
 * hold, puts it back should bpfgraph die while it is off. Nothing is
 * changed where it was already 0, cannot be written (a container's
 * read-only /proc/sys) or does not exist (no CONFIG_OPTPROBES). Each
 * change is a line in the kernel's log and unoptimizes every optimized
 * kprobe of the machine until the release: for rows of probes, not one.
 */
#ifndef BG_OPTPROBE_H
#define BG_OPTPROBE_H

#include <stdbool.h>

struct optprobe_hold {
	bool held; /* this holder counts in the process's hold */
};

/*
 * Optimization off until optprobe__release(h), if it was on. 0 when held
 * (by this call or a holder before it), else -errno (nothing changed:
 * placing the kprobes just takes longer). Thread-safe.
 */
int optprobe__hold(struct optprobe_hold *h);
/* h's hold ends: the last one turns it back on. Thread-safe; idempotent. */
void optprobe__release(struct optprobe_hold *h);
/* Every hold from now on fails with -EPERM (--no-optimizer-hold). */
void optprobe__forbid(void);
/* What optprobe__hold()'s result meant, for -v: "held off, then back on"... */
const char *optprobe__text(int err);
/* The trace is over: the guard goes (every holder released first). */
void optprobe__end(void);

#endif
