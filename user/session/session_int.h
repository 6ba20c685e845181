/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Between the reader loop (session.c) and the command it traces (child.c). */
#ifndef BG_SESSION_INT_H
#define BG_SESSION_INT_H

#include <stdbool.h>

struct session;

/* The command exited: reaped, its status kept (1); 0 while it runs. */
int session__child_done(struct session *s);
/* SIGSTOP / SIGCONT the command, once each way. */
void session__set_paused(struct session *s, bool on);
/*
 * A probe stops the child and reports the target; should that report be
 * lost (ring buffer full), nobody would let the child go on: it is
 * continued when nothing is left to attach.
 */
void session__resume_if_stopped(struct session *s);
/* SIGTERM to the command, waited for until it ends; SIGKILL after CHILD_TERM_S. */
void session__end_child(struct session *s);

#endif
