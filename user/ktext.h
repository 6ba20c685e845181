/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Live kernel text and what it calls. The text comes from /proc/kcore, an
 * ELF core file whose PT_LOAD segments map kernel virtual addresses, so it
 * shows the code as patched at boot (alternatives, static calls, retpoline
 * thunks); a vmlinux ELF works too (tests). Calls are found by decoding
 * with capstone, not by pattern matching bytes.
 */
#ifndef BG_KTEXT_H
#define BG_KTEXT_H

#include <stddef.h>
#include <stdint.h>

struct ktext;

/* path NULL: /proc/kcore. NULL + errno on failure. */
struct ktext *ktext__open(const char *path);
void ktext__close(struct ktext *kt);
/* Reads len bytes at kernel address addr: 0 or -errno (-ERANGE: unmapped). */
int ktext__read(struct ktext *kt, uint64_t addr, void *buf, size_t len);

struct kcode_info {
	int fentry_site; /* 1: starts with a patchable fentry site (nop5/call) */
	size_t ncalls; /* direct call/jmp targets outside the function */
};

/*
 * Decodes code (len bytes, loaded at addr) and stores the targets of direct
 * calls and of jumps that leave [addr, addr+len) into targets (up to max).
 * The fentry site's own call is not reported. 0 or -errno.
 */
int kcode__scan(const uint8_t *code, size_t len, uint64_t addr, uint64_t *targets,
		size_t max, struct kcode_info *info);

#endif
