/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Ctrl-C, SIGTERM and SIGHUP in every phase. The first asks bpfgraph to
 * stop: attaching ends after the function at hand, tracing after the
 * current poll, and what was done is detached and summed up as usual. The
 * second ends bpfgraph at once: the kernel takes every program, link and
 * probe with its file descriptors, and the command bpfgraph started dies
 * with it (session__spawn), and a child process takes the release of the
 * hooks over (handoff.h). SIGPIPE is ignored: a closed output is a write
 * error the outputs report (output.h).
 */
#ifndef BG_STOP_H
#define BG_STOP_H

#include <stdint.h>

/* Installs the handlers; again is harmless. */
void stop__catch(void);
/* The signal that asked to stop, 0: none. */
int stop__signal(void);
/* CLOCK_MONOTONIC ns when the first stop request came, 0: none yet. */
uint64_t stop__requested_ns(void);
/*
 * A stop request of its own (SIGALRM) in ms milliseconds, as a first
 * signal would make one: whatever honours stop__signal() ends with it.
 * 0 cancels it.
 */
void stop__after_ms(uint64_t ms);
/*
 * Once the trace is written: the next signal counts as a first one again
 * (it ends the wait for the hooks' release, handoff.h), the one after it
 * ends bpfgraph at once.
 */
void stop__rearm(void);

#endif
