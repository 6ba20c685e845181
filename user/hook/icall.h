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

#include <stdbool.h>
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
	unsigned int csites; /* calls to wrapped functions (icall__wrap) */
	unsigned int cprobed; /* ... with kprobes on the call and after it */
	unsigned int cunusable; /* tail jumps, prefixed calls: not probed */
	unsigned int cfailed; /* ... the kernel refused */
	unsigned int clazy; /* ... probed on the call only (BG_CK_LAZY) */
	unsigned int cnotrace; /* ... in functions without an fentry site: refused */
	double attach_s, detach_s;
	double read_s; /* of attach_s: reading and decoding the functions' code */
};

struct icall;

/* How many functions icall__wrap() takes. */
#define ICALL_MAX_WRAP 32

/* prog: the loaded bg_icall program. NULL + errno on failure. */
struct icall *icall__new(struct bpf_program *prog, const struct ksyms *ks, struct ktext *kt,
			 int verbose, FILE *err);
/*
 * A function fentry cannot attach to and a kprobe on it would slow every
 * caller in the kernel (__rcu_read_lock): traced where traced functions
 * call it instead, by a kprobe on the call (entry, bg_kentry) and one on
 * the instruction after it (exit, bg_kexit as a plain kprobe: the return
 * value is in the register there). Cookies carry BG_CK_CALLSITE and idx,
 * the wrapped function's own functab index. Only functions probed after
 * this call get these kprobes. A tail jump to it gets the entry kprobe
 * only (BG_CK_TAIL): it returns for the traced function, whose exit
 * closes both. 0 or -errno.
 */
int icall__wrap(struct icall *ic, struct bpf_program *entry, struct bpf_program *exit,
		uint64_t addr, uint32_t idx);
/*
 * Probes the indirect sites of function idx, and its calls to wrapped
 * functions; how many indirect sites or -errno.
 */
int icall__probe(struct icall *ic, uint32_t idx, const struct bg_func *f);
/*
 * Only the calls to wrapped functions in f, a function that is not
 * traced itself (no fentry site): function_graph shows what it calls in
 * its place (ipv4_mtu's rcu_read_lock() under __ip_finish_output). How
 * many calls or -errno.
 */
int icall__probe_calls(struct icall *ic, const struct bg_func *f);
const struct icall_stats *icall__stats(const struct icall *ic);
/*
 * Cookie bits the call-site probes placed after this carry besides
 * BG_CK_CALLSITE (BG_CK_SITES: quiet until they take over, rcusites.c).
 */
void icall__set_ck(struct icall *ic, uint64_t ck);
/* off: icall__probe places only the call-site probes of icall__wrap. */
void icall__set_indirect(struct icall *ic, bool on);
/* Removes the probes; icall__stats() stays valid. */
void icall__detach(struct icall *ic);
/* Detaches what is left and frees. */
void icall__free(struct icall *ic);

#endif
