/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Functions traced by kprobe rather than by trampoline, placed by address
 * (compiler clones without BTF and names several functions share have no
 * usable name), running the same entry/exit logic as fentry/fexit.
 *
 * Two ways, one interface:
 * - per function: a kprobe on its first instruction and a kretprobe, two
 *   perf-event links each (any kernel with KPROBES);
 * - kprobe.multi: functions are queued and attached by kprobes__flush() in
 *   one kprobe.multi and one kretprobe.multi link per batch (kernels with
 *   CONFIG_FPROBE): thousands of functions in a fraction of a second, one
 *   close each to detach. A batch the kernel refuses as a whole (one of its
 *   functions cannot be probed) is split in halves until the culprits are
 *   found, so one bad function costs only itself.
 * - kprobe.session (6.10+), as kprobe.multi but one link per batch: its
 *   program runs at the entry and returns 0 to be run at the return too,
 *   which it does only for calls inside a graph. A call by unrelated work
 *   then costs one entry hook, and no return runs without its entry.
 * The return value is the raw register, as ftrace shows it.
 */
#ifndef BG_KPROBE_H
#define BG_KPROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct bpf_program;
struct bg_func;
struct functab;

struct kprobe_stats {
	unsigned int attached; /* functions with both probes */
	unsigned int failed;
	unsigned int no_fds; /* ... of which for want of file descriptors */
	unsigned int links; /* links made (two per function or batch, one per session batch) */
	unsigned int merges; /* multi: times the link pairs were merged into one */
	/* multi: links attached (until the hooks go), of them replaced by a merge */
	unsigned int live, replaced;
	double merge_s; /* ... and the time it took (included in attach_s) */
	double attach_s, detach_s;
};

struct kprobes_opts {
	/* the loaded entry and exit programs: bg_kentry/bg_kexit, or bg_mentry/bg_mexit */
	struct bpf_program *entry, *exit;
	bool multi; /* kprobe.multi links (entry/exit are the .multi programs) */
	/*
	 * multi: one kprobe.session link per batch running entry (bg_msession,
	 * loaded as a session program) at the entry and, for the calls whose
	 * entry asked for it, at the return; exit is unused
	 */
	bool session;
	const struct functab *funcs; /* names for messages */
	/* multi: the programs' bg_gen (BG_CK_GEN), set when link pairs are merged */
	volatile uint32_t *gen;
	/*
	 * ... their count of tasks inside a graph (bg_active), and the same by
	 * the parity of the epoch they entered it in (bg_in_epoch[2], the
	 * epoch: bg_epoch): replaced pairs are closed once no task of the
	 * epoch before the merge is inside a graph, so that no call loses its
	 * exit
	 */
	volatile int64_t *active;
	volatile int64_t *in_epoch;
	volatile uint32_t *epoch;
	/* ... and bg_merging: set while a merge's new and old links are both attached */
	volatile uint32_t *merging;
	/*
	 * session: the programs' cookie cache (bg_ckc, BG_CKC_SLOTS slots,
	 * mapped), kept by this module for every function it links; NULL: none
	 */
	struct bg_ckc_slot *ckc;
	int verbose;
	bool progress; /* "attaching N/M" on err while it takes long */
	FILE *err;
};

struct kprobes;

struct kprobes *kprobes__new(const struct kprobes_opts *o);
/*
 * Attaches function idx (per function), or queues it (multi: attached by
 * the next kprobes__flush()). 0 or -errno; a failure leaves nothing behind.
 */
int kprobes__attach(struct kprobes *k, uint32_t idx, const struct bg_func *f);
/*
 * Multi: attaches what is queued; the functions that could not be are
 * counted as failed (and named with -v). Returns how many failed.
 */
unsigned int kprobes__flush(struct kprobes *k);
/*
 * Multi: when more than max_pairs link pairs are attached (one per flush)
 * and no earlier merge's pairs wait to be closed, replace them by one pair
 * for every function attached (see BG_CK_GEN). Returns 0, or -errno when
 * the new pair could not be made (the old ones stay, nothing is lost).
 */
int kprobes__merge(struct kprobes *k, unsigned int max_pairs);
/*
 * Multi: close the pairs a merge replaced once no call they took can be
 * under way (no task that entered its graph before the merge is inside
 * it). Cheap: called after every poll.
 */
void kprobes__retire(struct kprobes *k);
/* Function idx is attached (after its flush, in multi mode). */
bool kprobes__attached(const struct kprobes *k, uint32_t idx);
const struct kprobe_stats *kprobes__stats(const struct kprobes *k);
void kprobes__detach(struct kprobes *k);
void kprobes__free(struct kprobes *k);
/*
 * Does this kernel attach kprobe.multi links? 1 yes, 0 no (-errno when
 * even a probe program cannot be loaded). Touches no function: a link
 * request for no functions is refused with EOPNOTSUPP by a kernel
 * without CONFIG_FPROBE (and by its stub in 5.18+), with EINVAL by one
 * that would make it.
 */
int kprobes__multi_supported(void);
/*
 * Does this kernel attach kprobe.session links (6.10+)? 1 yes, 0 no, or
 * -errno.
 */
int kprobes__session_supported(void);
/*
 * A two-instruction kprobe program of that expected attach type, for
 * probing what the kernel accepts: its fd, or -errno.
 */
int kprobes__probe_prog(unsigned int expected_attach_type);

#endif
