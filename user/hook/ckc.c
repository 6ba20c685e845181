// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "ckc.h"

int ckc__init(struct ckc *c, struct bg_ckc_slot *t, uint32_t bits)
{
	size_t n = (size_t)1 << bits;

	*c = (struct ckc){ 0 };
	if (!t)
		return 0;
	c->used = calloc(n, 1);
	c->shared = calloc(n, 1);
	if (!c->used || !c->shared) {
		ckc__fini(c);
		return -ENOMEM;
	}
	c->t = t;
	c->bits = bits;
	return 0;
}

void ckc__fini(struct ckc *c)
{
	free(c->used);
	free(c->shared);
	*c = (struct ckc){ 0 };
}

/* addr's slot (its index in *at), claimed for it if add; NULL: none, or no room. */
static struct bg_ckc_slot *slot_of(const struct ckc *c, uint64_t addr, bool add, size_t *at)
{
	uint32_t h = BG_CKC_HASH_N(addr, c->bits);

	for (uint32_t i = 0; i < BG_CKC_PROBES; i++) {
		size_t j = (h + i) & (((size_t)1 << c->bits) - 1);
		struct bg_ckc_slot *s = &c->t[j];
		uint64_t a = __atomic_load_n(&s->addr, __ATOMIC_ACQUIRE);

		*at = j;
		if (a == addr)
			return s;
		if (a)
			continue;
		if (!add)
			return NULL;
		__atomic_store_n(&s->addr, addr, __ATOMIC_RELEASE);
		return s;
	}
	return NULL;
}

void ckc__set(struct ckc *c, uint64_t addr, uint64_t ck, bool fresh)
{
	struct bg_ckc_slot *s;
	size_t at;

	if (!c->t || !addr || !(s = slot_of(c, addr, ck != 0, &at)))
		return;
	if (fresh && c->used[at])
		c->shared[at] = 1;
	c->used[at] = 1;
	__atomic_store_n(&s->ck, c->shared[at] ? 0 : ck, __ATOMIC_RELEASE);
}

uint64_t ckc__get(const struct ckc *c, uint64_t addr)
{
	const struct bg_ckc_slot *s;
	size_t at;

	if (!c->t || !(s = slot_of(c, addr, false, &at)))
		return 0;
	return __atomic_load_n(&s->ck, __ATOMIC_ACQUIRE);
}
