/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef BG_CKC_H
#define BG_CKC_H

#include <stdbool.h>
#include <stdint.h>

#include "bpfgraph.h"

/*
 * The plan's cookie cache (see BG_CKC_BITS) as user space keeps it: the
 * slots the programs read (mapped), and what this side remembers of them.
 * A slot's address is set once and stays; its cookie is the one of the
 * only link that covers the address, or 0 while there is none or more
 * than one: the program then asks the kernel. Stores are ordered
 * (address, then cookie; a cookie's 8 bytes at once) for the programs
 * that read the slots meanwhile.
 */
struct ckc {
	struct bg_ckc_slot *t; /* 1 << bits slots; NULL: no cache, calls do nothing */
	uint32_t bits;
	uint8_t *used; /* by slot: a link was made for the slot's address */
	uint8_t *shared; /* ... and another one: the slot stays empty */
};

/*
 * The cache over t's 1 << bits slots (BG_CKC_BITS for the plan's); t
 * NULL: none. 0 or -ENOMEM (then none).
 */
int ckc__init(struct ckc *c, struct bg_ckc_slot *t, uint32_t bits);
void ckc__fini(struct ckc *c);

/*
 * addr's cookie is ck from now on (0: none for now). fresh: a link of its
 * own was just made for addr (a second one makes the address shared).
 * An address whose slots are all taken by others is left to the kernel.
 */
void ckc__set(struct ckc *c, uint64_t addr, uint64_t ck, bool fresh);
/* What the programs find for addr (bpf/guard.bpf.h link_cookie()): 0 for none. */
uint64_t ckc__get(const struct ckc *c, uint64_t addr);

#endif
