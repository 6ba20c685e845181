// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>

#include "hooks.h"

static bool has(const struct hook_backend *b)
{
	return b->ops && b->be;
}

static int kprobe_add(struct hooks *h, uint32_t idx)
{
	if (!has(&h->kprobe))
		return -EOPNOTSUPP;
	return h->kprobe.ops->add(h->kprobe.be, idx, &h->funcs->f[idx]);
}

static void disown(struct hooks *h, uint32_t idx)
{
	if (has(&h->tramp) && h->tramp.ops->disown)
		h->tramp.ops->disown(h->tramp.be, idx);
	h->funcs->f[idx].flags |= BG_FN_KPROBE;
}

int hooks__add(struct hooks *h, uint32_t idx)
{
	struct bg_func *f = &h->funcs->f[idx];

	if (!(f->flags & BG_FN_KPROBE) &&
	    (!has(&h->tramp) || h->tramp.ops->add(h->tramp.be, idx, f)))
		disown(h, idx); /* variadic...: try a kprobe */
	if (f->flags & BG_FN_KPROBE)
		return kprobe_add(h, idx);
	return 0;
}

/* A batch of trampolines refused idx: a kprobe may take it. */
static void tramp_refused(void *ctx, uint32_t idx)
{
	struct hooks *h = ctx;

	disown(h, idx);
	if (kprobe_add(h, idx))
		h->refused++;
}

unsigned int hooks__flush(struct hooks *h)
{
	h->refused = 0;
	if (has(&h->tramp) && h->tramp.ops->flush)
		h->tramp.ops->flush(h->tramp.be, tramp_refused, h);
	if (has(&h->kprobe) && h->kprobe.ops->flush)
		h->refused += h->kprobe.ops->flush(h->kprobe.be, NULL, NULL);
	return h->refused;
}

int hooks__add_kprobe(struct hooks *h, uint32_t idx)
{
	return kprobe_add(h, idx);
}

bool hooks__hooked(const struct hooks *h, uint32_t idx)
{
	return (has(&h->tramp) && h->tramp.ops->hooked(h->tramp.be, idx)) ||
	       (has(&h->kprobe) && h->kprobe.ops->hooked(h->kprobe.be, idx));
}

void hooks__hand_refused(struct hooks *h)
{
	for (uint32_t i = 0; i < h->funcs->n; i++) {
		const struct bg_func *f = &h->funcs->f[i];

		if (!(f->flags & (BG_FN_KPROBE | BG_FN_INFERRED | BG_FN_LATER)) &&
		    !(has(&h->tramp) && h->tramp.ops->hooked(h->tramp.be, i)))
			disown(h, i);
	}
}
