/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where the writers find what arguments and return addresses are printed
 * with: the prototypes (a BTF: the running kernel's, or the one a record
 * file carries) and the symbols of return addresses (kallsyms live, the
 * record file's table later). args.h formats; this looks things up, once
 * per function, for a writer.
 */
#ifndef BG_ARGS_SRC_H
#define BG_ARGS_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "functab.h"
#include "graph.h"

struct btf;
struct detail_vals;
struct detail_member;

/* The symbol an address falls in, as kallsyms knows it. */
struct args_sym {
	const char *name;
	const char *module; /* NULL: vmlinux */
	uint64_t start;
	uint64_t size;
};

struct args_src {
	/* Prototypes, found by the function's kallsyms name; NULL: none. */
	const struct btf *btf;
	/*
	 * A module's BTF (split on btf), looked in for a function of that
	 * module that btf has no FUNC for; NULL (or returning NULL): none.
	 */
	const struct btf *(*module_btf)(void *ctx, const char *module);
	void *module_ctx;
	/* The symbol at addr: 0, or -ENOENT (printed as a bare address). */
	int (*sym)(void *ctx, uint64_t addr, struct args_sym *out);
	void *sym_ctx;
};

struct args_fmt;

/* src may be NULL (nothing known: "()" and bare addresses). */
struct args_fmt *args_fmt__new(const struct args_src *src, const struct functab *funcs);
void args_fmt__free(struct args_fmt *af);
/*
 * The text between the parentheses of ev's entry line (ENTER or LEAF)
 * under dialect version and the BG_O_ARGS/BG_O_RETADDR flags: empty when
 * not shown. With BG_O_DETAIL, what --args-detail read follows the value
 * it was read through (detail__snprintf()). snprintf-style, as args__snprintf().
 */
int args_fmt__args(struct args_fmt *af, const struct gev *ev, int version, uint32_t flags,
		   char *buf, size_t size);
/*
 * "<-caller+0x3b/0x160" for ev's return address when the dialect and flags
 * show it, else empty (returns 0). snprintf-style.
 */
int args_fmt__retaddr(struct args_fmt *af, const struct gev *ev, int version, uint32_t flags,
		      char *buf, size_t size);
/*
 * A parameter as the printer sees it: name ("" when BTF has none), C
 * spelling, and its type with typedefs and modifiers skipped: kind
 * (BTF_KIND_*, 0 for void or a type BTF does not have), size in bytes,
 * encoding (BTF_INT_SIGNED, BTF_INT_BOOL; ints, and BTF_INT_SIGNED for
 * a signed enum).
 */
struct args_param {
	const char *name;
	const char *type;
	uint8_t kind;
	uint8_t enc;
	uint32_t size;
};

/*
 * Enumerator k of parameter i of function func when that parameter is an
 * enum (args_param.kind BTF_KIND_ENUM; its enc then has BTF_INT_SIGNED
 * for a signed one): its name, and its 32-bit value in *val; NULL past
 * the last. The record file keeps them for the names 7.3 prints.
 */
const char *args_fmt__enumerator(struct args_fmt *af, uint32_t func, unsigned int i,
				 unsigned int k, int32_t *val);
/*
 * The struct members --args-detail shows of parameter i of function func
 * (detail__param_members()): their number, 0 when it points to no struct.
 * The record file keeps them for report.
 */
int args_fmt__members(struct args_fmt *af, uint32_t func, unsigned int i,
		      struct detail_member *m);
/*
 * The number of parameters of function func (functab index), or -1 when
 * it has no prototype.
 */
int args_fmt__nparams(struct args_fmt *af, uint32_t func);
/*
 * Parameter i of function func; false when there is no such parameter.
 * Pointers stay valid while af lives.
 */
bool args_fmt__param(struct args_fmt *af, uint32_t func, unsigned int i,
		     struct args_param *out);
/*
 * The JSON members of a call with funcgraph-args and/or -retaddr (flags),
 * without a leading comma: "args":[{"name":"dfd","type":"int",
 * "value":"-100"},...] (values as the dialect's text prints them; null
 * when the function has no prototype or the entry no registers) and
 * "retaddr":"caller+0x3b/0x160" (null when unknown). Empty when neither
 * option is on. With BG_O_DETAIL, an argument --args-detail read has
 * "str" (and "truncated"), "fields" or "fault" too (detail__json();
 * detail may be NULL). snprintf-style.
 */
int args_fmt__json(struct args_fmt *af, uint32_t func, uint64_t caller, const uint64_t *args,
		   int nargs, const struct detail_vals *detail, int version, uint32_t flags,
		   char *buf, size_t size);
/* The BTF FUNC id of function func in src's BTF, 0 if none. */
uint32_t args_fmt__func_id(struct args_fmt *af, uint32_t func);
/* The BTF that id is in (src.btf, or its module's), NULL if none. */
const struct btf *args_fmt__btf(struct args_fmt *af, uint32_t func);

#endif
