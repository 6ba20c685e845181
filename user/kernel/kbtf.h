/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Kernel BTF: which functions have a BTF FUNC (fentry needs one) and
 * their return types. vmlinux and module BTF, indexed once by name. */
#ifndef BG_KBTF_H
#define BG_KBTF_H

#include <stdbool.h>
#include <stdint.h>

struct btf;
struct kbtf;

struct kbtf_func {
	uint32_t btf_id;
	uint8_t ret_kind; /* enum bg_ret_kind */
	uint8_t ret_size;
	uint8_t nr_regs; /* argument registers (BG_CK_NREGS) */
	bool byval; /* variadic, or a struct/union by value in or out (BG_FN_BYVAL) */
	char ret_type[96]; /* C spelling, "" for unknown */
};

/* dir: where "vmlinux" and module BTF files live (NULL: /sys/kernel/btf). */
struct kbtf *kbtf__load(const char *dir);
void kbtf__free(struct kbtf *kb);
/*
 * 0 and *out filled, -ENOENT when the function has no BTF, -ENOTUNIQ when
 * BTF has FUNCs of that name with different prototypes (which one is it?).
 */
int kbtf__func(struct kbtf *kb, const char *name, const char *module,
	       struct kbtf_func *out);
/* The BTF holding module's types (vmlinux for NULL), or NULL. */
struct btf *kbtf__btf(struct kbtf *kb, const char *module);

#endif
