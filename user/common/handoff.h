/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Releasing hooks without making the user wait for it.
 *
 * A hook goes when the last file descriptor of its link (or perf event)
 * is closed, and each such close waits for the kernel: an RCU grace
 * period per trampoline or kprobe, serialised by ftrace on kernels without
 * multi-attach (hundreds of functions: tens of seconds to minutes). Once
 * tracing has ended and the output is written, nothing of that concerns
 * the user: a child process takes every descriptor over, and the hooks
 * go when it has closed them or when it dies, whatever kills it (the
 * kernel closes a dead process's descriptors). The programs behind them
 * record nothing meanwhile (bg_stopped).
 *
 * Order matters: this process closes its own copies first (cheap: the
 * child still holds each one), the child closes the last ones.
 */
#ifndef BG_HANDOFF_H
#define BG_HANDOFF_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Makes a child (sharing this process's memory, not its descriptor
 * table) that waits until this process has closed every descriptor above
 * 2, then closes its copies of them, with stdin, stdout and stderr on
 * /dev/null, in a session of its own, and exits. Here: every descriptor
 * above 2 is replaced by /dev/null, then the child is waited for until
 * wait_s seconds after the call (a negative wait_s: no limit): making the
 * child counts against the wait. *spawn_s (if not NULL) is what making
 * it took, the clone and the descriptors.
 *
 * Returns 1 when the child is done, 0 when it is still at work (*pid),
 * or -errno when no child could be made: then nothing was closed and the
 * caller releases the hooks itself. After 0 or 1 every descriptor above 2
 * the caller had is /dev/null: closing it is harmless, using it is
 * pointless, and objects built on them (libbpf links) must not be
 * released again.
 */
int handoff__release(double wait_s, pid_t *pid, double *spawn_s);

/*
 * The same for a process about to _exit() from a signal handler:
 * async-signal-safe (raw clone, close, read). The child keeps every
 * descriptor until this process is gone, then exits: the kernel releases
 * the hooks in the child's exit, and this process's exit is quick.
 * Nothing happens if no child could be made.
 */
void handoff__at_exit(void);

/*
 * Waits, at most max_s seconds (or until a stop signal), while another
 * process releases an earlier trace's hooks (a child of either function
 * above): a net recording the first traced call meanwhile would draw
 * their own calls (a trampoline's __rcu_read_lock and migrate_disable in
 * every hooked function). With kprobes false, not for a process that has
 * only kprobes left (disabled, without programs): their int3 handling is
 * all the ftrace net would see, and it leaves kprobes' own path out,
 * while the wide net hooks functions that path calls (setup_singlestep).
 * Says so on err after half a second, and when it gives up. Returns the
 * seconds waited.
 */
double handoff__wait_others(double max_s, FILE *err, bool kprobes);

#endif
