/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --args-detail's reads as they come back: the data of an entry's
 * BG_REC_DETAIL records, gathered per argument while the graph is built.
 * Rendering them is the writers' business (out/detail.h).
 */
#ifndef BG_DETAIL_VALS_H
#define BG_DETAIL_VALS_H

#include <stdint.h>

#include "bpfgraph.h"

/* One argument's detail as recorded: the data of its records, in order. */
struct detail_val {
	uint8_t arg; /* register index */
	uint8_t flags; /* BG_RF_D_* */
	uint8_t nparts; /* records seen */
	uint8_t data[BG_DETAIL_PARTS * BG_DETAIL_PART];
};

/* The details of one entry, in the order of its records. */
struct detail_vals {
	uint8_t n;
	struct detail_val v[BG_DETAIL_OPS];
};

/* Adds record rec's data to vals (a BG_REC_DETAIL following the entry). */
void detail_vals__add(struct detail_vals *vals, const struct bg_rec *rec);

#endif
