/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The C spelling of BTF types ("struct file *", "unsigned int"), made once
 * per BTF and type id. The common shapes (pointers to a named type, itself
 * const, volatile or neither) are spelled here as btf_dump spells them;
 * the rest by a btf_dump, which sizes its arrays by the BTF's type count
 * (milliseconds per name for vmlinux). Each of those is made by a fresh
 * btf_dump: one kept for all renames a second distinct type of the same
 * name "name___2".
 */
#ifndef BG_BTFNAME_H
#define BG_BTFNAME_H

#include <stdint.h>

struct btf;
struct btf_names;

struct btf_names *btf_names__new(void);
void btf_names__free(struct btf_names *n);
/*
 * The spelling of type_id in btf ("void" for 0), valid until
 * btf_names__free(); NULL when it cannot be made (no memory, no such type).
 * Longer spellings are cut at BTF_NAME_MAX - 1 bytes.
 */
const char *btf_names__get(struct btf_names *n, const struct btf *btf, uint32_t type_id);

#define BTF_NAME_MAX 96

#endif
