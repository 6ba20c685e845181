/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --args-detail: what bpfgraph reads through pointer arguments beyond what
 * the kernel prints (strings, one level of struct members), never in the
 * ftrace-compatible default text. The read plan of a function comes from
 * its BTF prototype (detail__plan(), filled into the bg_detail map); the
 * values come back in BG_REC_DETAIL records (include/bpfgraph.h) and are
 * rendered here. The rules are in docs/function-graph-format.md,
 * "bpfgraph's own extensions".
 */
#ifndef BG_DETAIL_H
#define BG_DETAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfgraph.h"
#include "detail_vals.h"

struct btf;

/* What --args-detail asked for (also BG_O_DETAIL_* in the options' flags). */
#define DETAIL_STRINGS 0x1
#define DETAIL_FIELDS 0x2

/*
 * Whether btf marks user pointers with the "user" type tag (kernels built
 * with a compiler and pahole that emit them). Without them a string is
 * read as a kernel one and, when that fails, as a user one.
 */
bool detail__btf_has_user_tags(const struct btf *btf);

/*
 * The read plan of function func_id (a BTF FUNC) for what (DETAIL_*):
 * char pointers read as strings, pointers to structs as up to
 * BG_DETAIL_FIELDS scalar members, at most BG_DETAIL_OPS arguments, first
 * first. Returns the number of operations (0: nothing to read).
 */
int detail__plan(const struct btf *btf, uint32_t func_id, unsigned int what, bool user_tags,
		 struct bg_detail_plan *out);

/* A struct member the plan reads: what it is called, where, how wide. */
struct detail_member {
	const char *name; /* valid while the BTF is */
	uint32_t off;
	uint8_t size;
	bool is_signed;
};

/*
 * The members parameter i of func_id shows when it points to a struct
 * (what a record file keeps of them); returns their number, 0 if none.
 */
int detail__param_members(const struct btf *btf, uint32_t func_id, unsigned int i,
			  struct detail_member *m);

/*
 * The detail of register arg as the text shows it after the value, with
 * its leading space: ' "/tmp/missing"', ' "long..."...',
 * ' {flags=0x8000 mode=0 resolve=0}', ' <fault>'; empty when there is
 * none (or the pointer was NULL: ptr). snprintf-style.
 */
int detail__snprintf(char *buf, size_t size, const struct btf *btf, uint32_t func_id,
		     const struct detail_vals *vals, unsigned int arg, uint64_t ptr);

/*
 * The same as JSON members, with a leading comma: ',"str":"/tmp/missing"'
 * (and ',"truncated":true'), ',"fields":{"flags":"0x8000",...}' or
 * ',"fault":true'; empty when none. snprintf-style.
 */
int detail__json(char *buf, size_t size, const struct btf *btf, uint32_t func_id,
		 const struct detail_vals *vals, unsigned int arg, uint64_t ptr);

#endif
