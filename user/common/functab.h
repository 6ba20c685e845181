/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The function table: one entry per traced (or shown) function. The plan
 * fills it; the link cookie of a function's programs is its index here;
 * the graph builder and the writers read names and return types from it.
 * It can grow while tracing (functions found late), so hold indexes, not
 * pointers, across functab__add().
 */
#ifndef BG_FUNCTAB_H
#define BG_FUNCTAB_H

#include <stddef.h>
#include <stdint.h>

/* How a return value is typed (from BTF). */
enum bg_ret_kind {
	BG_RET_UNKNOWN = 0, /* no BTF: print the raw register like the kernel */
	BG_RET_VOID, /* prints no value */
	BG_RET_SIGNED, /* int, long, ...: cut to ret_size, sign-extended */
	BG_RET_UNSIGNED, /* unsigned types, enums without negative values */
	BG_RET_BOOL,
	BG_RET_PTR,
};

/* bg_func.flags */
#define BG_FN_GRAPH 0x1 /* entry function (-G) */
#define BG_FN_NOTRACE 0x2 /* -x: hidden with its subtree */
#define BG_FN_INFERRED 0x4 /* named only, not to be hooked (what the ftrace net met, until planned) */
#define BG_FN_EXPANDED 0x8 /* its direct callees were considered */
#define BG_FN_KPROBE 0x10 /* attached by kprobe/kretprobe, not fentry/fexit */
/* kprobes at its call sites in traced functions, not on itself (icall.h) */
#define BG_FN_CALLSITE 0x20
#define BG_FN_IRQ 0x40 /* an interrupt entry point (funcgraph-irqs) */
/* Variadic, or a struct or union by value in or out: fentry.multi refuses it. */
#define BG_FN_BYVAL 0x80
/* Linked while the wide net records: silent until it stops (BG_CK_NET). */
#define BG_FN_NET 0x100
/* Met by the ftrace net outside kprobes' dispatch: to be planned (live_ftnet.c). */
#define BG_FN_FTMET 0x200
/* The ftrace net recorded a call of it (live_ftnet.c). */
#define BG_FN_FTRAN 0x400
/*
 * Planned, hooked only once the BPF side records (without a COMMAND, the
 * ftrace net's hand-over, live_ftlink.c): attach__all(), the kprobe stage
 * and the call-site probes leave it until then.
 */
#define BG_FN_LATER 0x800
/*
 * Added after the load (the ftrace net's finds), for attach__all() to
 * link with the plan: its verifying runs ahead in threads (loadahead.c).
 */
#define BG_FN_LINK 0x1000

struct bg_func {
	char *name; /* kallsyms name, e.g. "getname_flags.part.0" */
	char *module; /* NULL for vmlinux */
	char *display; /* what function_graph prints: "name" or "name [mod]" */
	size_t display_len; /* strlen(display) */
	uint64_t addr;
	uint32_t size;
	uint32_t btf_id; /* 0: no BTF */
	uint32_t flags;
	uint8_t ret_kind; /* enum bg_ret_kind */
	uint8_t ret_size; /* bytes: 1, 2, 4, 8 */
	uint8_t nr_regs; /* argument registers, for the return address (BG_CK_NREGS) */
	char *ret_type; /* C spelling of the return type ("int", "struct file *") or NULL */
};

struct functab {
	struct bg_func *f;
	size_t n, cap;
};

void functab__init(struct functab *t);
void functab__free(struct functab *t);
/* Adds a copy of name/module; returns the new index or -ENOMEM. */
int functab__add(struct functab *t, const char *name, const char *module,
		 uint64_t addr, uint32_t size);
/* Index of the function called name (and module, NULL = any), or -ENOENT. */
int functab__find(const struct functab *t, const char *name, const char *module);
/* Index of the function starting at addr, or -ENOENT. */
int functab__find_addr(const struct functab *t, uint64_t addr);
/*
 * The link cookie of function idx (bpfgraph.h's BG_CK_*): its index and
 * the flags every hook needs; each hook adds its own fields.
 */
uint64_t functab__cookie(const struct bg_func *f, uint32_t idx);

#endif
