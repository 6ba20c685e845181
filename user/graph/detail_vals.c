// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "detail_vals.h"

void detail_vals__add(struct detail_vals *vals, const struct bg_rec *rec)
{
	unsigned int arg = BG_DETAIL_ARG(rec->depth), part = BG_DETAIL_PART_OF(rec->depth);
	struct detail_val *v = NULL;
	uint64_t w[3] = { rec->ts, rec->val, (uint64_t)rec->pid << 32 | rec->dur };

	if (part >= BG_DETAIL_PARTS)
		return;
	for (unsigned int i = 0; i < vals->n; i++)
		if (vals->v[i].arg == arg)
			v = &vals->v[i];
	if (!v) {
		if (part || vals->n >= BG_DETAIL_OPS)
			return;
		v = &vals->v[vals->n++];
		memset(v, 0, sizeof(*v));
		v->arg = (uint8_t)arg;
	}
	/* Parts come in order; a stray one (a damaged file) is left out. */
	if (part != v->nparts)
		return;
	v->flags |= rec->type & ~BG_REC_TYPE_MASK;
	for (int j = 0; j < 3; j++)
		for (int k = 0; k < 8; k++)
			v->data[part * BG_DETAIL_PART + j * 8 + k] = (uint8_t)(w[j] >> (8 * k));
	v->nparts++;
}
