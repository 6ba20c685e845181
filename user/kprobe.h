/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Functions fentry/fexit cannot attach to (compiler clones without BTF,
 * names several functions share) are traced by a kprobe on their first
 * instruction and a kretprobe, placed by address, running the same
 * entry/exit logic (bg_kentry, bg_kexit). Costlier per call than a
 * trampoline, and the return value is the raw register, as ftrace shows
 * it.
 */
#ifndef BG_KPROBE_H
#define BG_KPROBE_H

#include <stdint.h>
#include <stdio.h>

struct bpf_program;
struct bg_func;

struct kprobe_stats {
	unsigned int attached; /* functions with both probes */
	unsigned int failed;
	double attach_s, detach_s;
};

struct kprobes;

/* entry, exit: the loaded bg_kentry and bg_kexit programs. */
struct kprobes *kprobes__new(struct bpf_program *entry, struct bpf_program *exit, int verbose,
			     FILE *err);
/* Attaches function idx; 0 or -errno (then nothing stays attached). */
int kprobes__attach(struct kprobes *k, uint32_t idx, const struct bg_func *f);
const struct kprobe_stats *kprobes__stats(const struct kprobes *k);
void kprobes__detach(struct kprobes *k);
void kprobes__free(struct kprobes *k);

#endif
