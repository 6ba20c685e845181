/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Kernel symbols from /proc/kallsyms (or any file in its format). */
#ifndef BG_KSYMS_H
#define BG_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	uint32_t size; /* up to the next symbol (text: a function's extent) */
	char type; /* 't'/'T' text, ... as kallsyms prints it */
	const char *name;
	const char *module; /* NULL for vmlinux */
};

struct ksyms;

struct btf;
struct ktext;

/* path NULL: /proc/kallsyms. NULL + errno on failure. */
struct ksyms *ksyms__load(const char *path);
/*
 * The same table read from kernel memory (ksyms_kcore.c), without the
 * kernel's formatting of /proc/kallsyms; btf: vmlinux's, for the module
 * list. NULL + errno where it cannot be read or checked.
 */
struct ksyms *ksyms__load_kcore(struct ktext *kt, const struct btf *btf);
/* Where the symbols came from, for -v. */
const char *ksyms__source(const struct ksyms *ks);
void ksyms__free(struct ksyms *ks);
size_t ksyms__count(const struct ksyms *ks);
const struct ksym *ksyms__at(const struct ksyms *ks, size_t i);
/*
 * The text symbol containing addr, or NULL. The padding before functions
 * (__pfx_ and __cfi_ symbols) is in no symbol: the table leaves them out.
 */
const struct ksym *ksyms__find_addr(const struct ksyms *ks, uint64_t addr);
/* The first symbol at addr or above, or NULL. */
const struct ksym *ksyms__from_addr(const struct ksyms *ks, uint64_t addr);
/* First text symbol with that name (module NULL = any), or NULL. */
const struct ksym *ksyms__find_name(const struct ksyms *ks, const char *name,
				    const char *module);
/*
 * How many text symbols are called name in one scope: vmlinux (module
 * NULL) or that module. The kernel attaches a trampoline by name, so more
 * than one means it may land on another function than the one planned.
 */
size_t ksyms__name_count(const struct ksyms *ks, const char *name, const char *module);
/*
 * The positions (for ksyms__at(), ascending: address order) of the text
 * symbols whose name begins with the len bytes at prefix, in a malloc'd
 * *pos: their count, or -ENOMEM. By the name index, not a scan.
 */
long ksyms__with_prefix(const struct ksyms *ks, const char *prefix, size_t len, size_t **pos);
/* Data symbols kept by name (the rest of kallsyms' data is not). */
enum ksyms_data {
	KSYMS_FTRACE_PAGES, /* ftrace's list of its records (struct ftrace_page *) */
	KSYMS_DATA_NR,
};

/* A kept data symbol's address, 0 when kallsyms does not list it. */
uint64_t ksyms__data(const struct ksyms *ks, enum ksyms_data which);
/* True when every address reads as 0 (kptr_restrict hides them). */
int ksyms__hidden(const struct ksyms *ks);

#endif
