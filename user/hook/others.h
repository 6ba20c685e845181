/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Another bpfgraph on this kernel. Two instances would each draw the
 * other's program runs into their graphs (its helpers take traced locks,
 * its trampolines call traced functions) and unmatched entries and exits
 * follow; so a second one refuses to start. Programs are global, so an
 * instance in another container or mount namespace is found too.
 */
#ifndef BG_OTHERS_H
#define BG_OTHERS_H

#include <stdint.h>

/*
 * The id of a loaded program of another bpfgraph that is tracing (by
 * name, before ours are loaded), its name in name; 0 when there is none.
 * One whose trace has ended is left out: its programs return at once
 * while its hooks are being released (bg_stopped, handoff.h).
 */
uint32_t others__find(char *name, size_t len);
/*
 * 0 when no other bpfgraph is tracing, waiting up to wait_ms for the
 * programs of one that just ended (the kernel frees them shortly after
 * its exit); else -EBUSY, reported on stderr.
 */
int others__check(unsigned int wait_ms);

#endif
