/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A growable set of libbpf links (kprobes of icall.c and kprobe.c) and
 * the monotonic clock the attach and detach costs are measured with.
 */
#ifndef BG_LINKS_H
#define BG_LINKS_H

#include <stddef.h>

struct bpf_link;

struct linkvec {
	struct bpf_link **v;
	size_t n, cap;
};

/* CLOCK_MONOTONIC in seconds. */
double links__now(void);
/* Keeps l; -ENOMEM (l is not kept: the caller still owns it). */
int linkvec__push(struct linkvec *lv, struct bpf_link *l);
/* Destroys every link (the set stays usable); the seconds it took. */
double linkvec__destroy_all(struct linkvec *lv);
/* Destroys what is left and frees the set. */
void linkvec__free(struct linkvec *lv);

#endif
