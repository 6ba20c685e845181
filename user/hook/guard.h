/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A process that undoes a change to the machine's settings (tracefs's top
 * instance, a sysctl) should bpfgraph die without undoing it (SIGKILL, a
 * second Ctrl-C): it reads a pipe whose other end only bpfgraph holds,
 * and takes an end of file without a word first for bpfgraph's death. It
 * keeps no other descriptor but one undo may need (no BPF object of
 * bpfgraph's may live on in it), ignores the terminal's signals, and
 * makes only system calls and formatting into its stack: undo must be as
 * careful.
 *
 * A change made and undone more than once (a setting held off for a while,
 * then again) keeps one guard: guard__arm() tells it whether the change is
 * in force, and bpfgraph's death undoes it only then.
 */
#ifndef BG_GUARD_H
#define BG_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

struct guard {
	pid_t pid; /* 0: none */
	int fd; /* the pipe's write end */
};

/*
 * Before the change: undo(arg) runs in the guard should bpfgraph die
 * while it is armed, as it is from the start. keep: a descriptor (3 or
 * above) the guard keeps open at its number, which undo needs (a path
 * through /proc/self/fd: tracefs.h); -1: none. 0 or -errno.
 */
int guard__start(struct guard *g, void (*undo)(void *arg), void *arg, int keep);
/* Armed before the change is made again, disarmed once it is undone. 0 or -errno. */
int guard__arm(struct guard *g, bool armed);
/*
 * The guard goes: without undoing (done: bpfgraph undid the change
 * itself), or once it has undone it (!done). Waits for it.
 */
void guard__stop(struct guard *g, bool done);

#endif
