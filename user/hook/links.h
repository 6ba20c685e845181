/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A growable set of libbpf links (kprobes of icall.c and kprobe.c) and
 * the monotonic clock the attach and detach costs are measured with.
 */
#ifndef BG_LINKS_H
#define BG_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_link;

/* Entry i is a libbpf link (v[i]) or, where v[i] is NULL, a raw link fd (fds[i]). */
struct linkvec {
	struct bpf_link **v;
	int *fds;
	size_t n, cap;
};

/* bpf(2)'s attach type for kprobe.session links (6.10+; libbpf 1.1 predates it). */
#define BG_ATTACH_KPROBE_SESSION 56

/* CLOCK_MONOTONIC in seconds. */
double links__now(void);
/*
 * Time for a progress line on stderr? Only for work that has run a second
 * since t0, every half second (*last: when the last line was, 0: none);
 * final: the last call, due whenever lines were due at all. Sets *last.
 */
bool links__progress_due(double t0, double *last, bool final);
/* Keeps l; -ENOMEM (l is not kept: the caller still owns it). */
int linkvec__push(struct linkvec *lv, struct bpf_link *l);
/* Keeps the link fd; -ENOMEM (not kept: the caller still owns it). */
int linkvec__push_fd(struct linkvec *lv, int fd);
/* Keeps l, or with l NULL the link fd: as the two above. */
int linkvec__push_entry(struct linkvec *lv, struct bpf_link *l, int fd);
/* Destroys l, or with l NULL closes fd (if >= 0). */
void links__close_one(struct bpf_link *l, int fd);
/*
 * A kprobe.multi link by raw bpf(2) (libbpf 1.1 makes no kprobe.session
 * link): prog_fd on n addresses with their cookies, attach_type
 * BPF_TRACE_KPROBE_MULTI or BG_ATTACH_KPROBE_SESSION. The link's fd, or
 * -errno.
 */
int links__kprobe_multi(int prog_fd, unsigned int attach_type, const uint64_t *addrs,
			const uint64_t *cookies, size_t n);
/*
 * Closes n links: libbpf links (v) or link fds (fds), either NULL; where
 * both are given, fds[i] for each v[i] that is NULL.
 * Each close waits until no CPU can still be running the hook (an RCU
 * grace period per kprobe or trampoline update): one after the other,
 * hundreds took minutes. Several threads close at once so that those waits
 * overlap. progress(done, n, ctx), if not NULL, is called now and then
 * from the calling thread.
 */
void links__close_all(struct bpf_link **v, int *fds, size_t n,
		      void (*progress)(size_t done, size_t n, void *ctx), void *ctx);
/* Destroys every link (the set stays usable); the seconds it took. */
double linkvec__destroy_all(struct linkvec *lv);
/* Destroys what is left and frees the set. */
void linkvec__free(struct linkvec *lv);

#endif
