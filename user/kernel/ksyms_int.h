/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The symbol table's inside, for the loaders of user/kernel (ksyms.c, ksyms_kcore.c). */
#ifndef BG_KSYMS_INT_H
#define BG_KSYMS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ksyms.h"

struct ksyms {
	struct ksym *syms; /* sorted by address */
	size_t n, cap;
	size_t *by_name; /* indexes sorted by name */
	char *strs; /* all names and modules, NUL separated */
	size_t strs_len, strs_cap;
	long pad_off; /* 1 + the offset of the name padding symbols share until ksyms_finish(); 0: none */
	int hidden;
	uint64_t data[KSYMS_DATA_NR]; /* ksyms_data_names' addresses, 0: not listed */
	const char *source; /* where the symbols came from, for -v */
};

/* 't', 'T', 'w' or 'W': the symbols kept. */
int ksyms_is_text(char t);
/* A copy of s in the string pool: its offset, or -ENOMEM. */
long ksyms_strs_add(struct ksyms *ks, const char *s);
/*
 * One symbol, in kallsyms' order (vmlinux by address, then each module's
 * symbols together). Names are stored as offsets while the string pool
 * may still move; moff: the module name's offset, or -1. 0 or -ENOMEM.
 */
int ksyms_add_sym(struct ksyms *ks, uint64_t addr, char type, const char *name, long moff);
/* A data symbol of vmlinux: kept when ksyms_data names it. */
void ksyms_keep_named(struct ksyms *ks, uint64_t addr, const char *name);
/* After the last symbol: names resolved, sorted, sizes and the name index. 0 or -ENOMEM. */
int ksyms_finish(struct ksyms *ks);

#endif
