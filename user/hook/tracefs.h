/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where tracefs is: /sys/kernel/tracing, else debugfs's tracing/ (either
 * writable: a read-only mount is passed over), else a mount of
 * bpfgraph's own that no mount namespace holds (fsopen() and fsmount(),
 * 5.2+, CAP_SYS_ADMIN), reached through /proc/self/fd. A
 * container or a host where nobody mounted tracefs still has the
 * kernel's one top instance: the ftrace net can take it there as
 * anywhere (it checks that nobody uses it), and nothing is left mounted
 * once bpfgraph is gone.
 */
#ifndef BG_TRACEFS_H
#define BG_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The directory holding current_tracer, found (or mounted) once: NULL and
 * a reason in why when there is none. *private_mount (may be NULL) tells
 * whether it is bpfgraph's own mount.
 */
const char *tracefs__root(bool *private_mount, char *why, size_t cap);
/*
 * The descriptor of bpfgraph's own mount, which its root path goes
 * through: a process bpfgraph forks that needs the path keeps it
 * open at the same number. -1 when there is none.
 */
int tracefs__fd(void);

#endif
