/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Indirect call sites of traced functions. Static discovery only sees
 * direct calls; what a function reaches through a pointer (f_op->read_iter,
 * an LSM hook, a socket op) is found by a kprobe on each indirect call or
 * jump in its text, which reports targets met inside a graph once
 * (BG_REC_TARGET). The tracer attaches those targets while tracing.
 */
#ifndef BG_ICALL_H
#define BG_ICALL_H

#include <stdint.h>
#include <stdio.h>

struct bpf_program;
struct bg_func;
struct ksyms;
struct ktext;

struct icall_stats {
	unsigned int funcs; /* functions whose sites were looked at */
	unsigned int sites; /* indirect sites found */
	unsigned int probes; /* kprobes placed */
	unsigned int unusable; /* no safe place to read the target: not probed */
	unsigned int failed; /* kprobes the kernel refused */
	double attach_s, detach_s;
};

struct icall;

/* prog: the loaded bg_icall program. NULL + errno on failure. */
struct icall *icall__new(struct bpf_program *prog, const struct ksyms *ks, struct ktext *kt,
			 int verbose, FILE *err);
/* Probes the indirect sites of function idx; how many or -errno. */
int icall__probe(struct icall *ic, uint32_t idx, const struct bg_func *f);
const struct icall_stats *icall__stats(const struct icall *ic);
/* Removes the probes; icall__stats() stays valid. */
void icall__detach(struct icall *ic);
/* Detaches what is left and frees. */
void icall__free(struct icall *ic);

#endif
