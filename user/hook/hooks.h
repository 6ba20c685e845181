/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How a function is hooked, in one place. Each way is a backend behind
 * struct hook_ops: trampolines (attach.h: fentry clones, or fentry-multi
 * batches) and kprobes (kprobe.h: per function, kprobe.multi pairs or
 * kprobe.session links). The facade gives a function to the tier's
 * backend, and what that refuses (a variadic function, no BTF...) to the
 * kprobe backend. Call-site probes (icall.h) and the wide net (wide.h)
 * hook code, not functions of the table: they keep their own interfaces.
 */
#ifndef BG_HOOKS_H
#define BG_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "functab.h"

struct hook_ops {
	const char *name;
	/* Hook function idx (a batching backend queues it): 0 or -errno. */
	int (*add)(void *be, uint32_t idx, struct bg_func *f);
	/*
	 * Link what add() queued. refused(ctx, idx) for each function the
	 * kernel would not take, if the backend can tell them apart;
	 * returns how many it refused.
	 */
	unsigned int (*flush)(void *be, void (*refused)(void *ctx, uint32_t idx), void *ctx);
	/* Function idx is hooked (its links are in place). */
	bool (*hooked)(const void *be, uint32_t idx);
	/* Function idx failed here and goes to the next backend (optional). */
	void (*disown)(void *be, uint32_t idx);
};

/* The backends (attach.c, kprobe.c); be is their struct attach / struct kprobes. */
extern const struct hook_ops hook_ops_tramp;
extern const struct hook_ops hook_ops_kprobe;

struct hook_backend {
	const struct hook_ops *ops;
	void *be; /* NULL: absent */
};

struct hooks {
	struct functab *funcs;
	/* The tier's trampolines (absent on kprobe tiers), then the kprobes. */
	struct hook_backend tramp, kprobe;
	unsigned int refused; /* by the last hooks__flush() */
};

/*
 * Function idx, by the tier, else by kprobe (BG_FN_KPROBE functions go
 * there at once): 0 (hooked or queued) or -errno.
 */
int hooks__add(struct hooks *h, uint32_t idx);
/*
 * Everything queued is linked: trampoline batches first; what they
 * refuse goes to kprobes, whose batch follows. Returns how many functions
 * ended up without a hook.
 */
unsigned int hooks__flush(struct hooks *h);
/* Function idx by kprobe, whatever the tier (what the wide net met): 0 or -errno. */
int hooks__add_kprobe(struct hooks *h, uint32_t idx);
/* Function idx is hooked by either backend. */
bool hooks__hooked(const struct hooks *h, uint32_t idx);
/*
 * After the trampolines were attached as a whole: each function they
 * did not take goes to the kprobe backend's care (BG_FN_KPROBE).
 */
void hooks__hand_refused(struct hooks *h);

#endif
