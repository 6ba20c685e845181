// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function arguments and return addresses in function_graph's words.
 * Mirrors print_function_args() (kernel/trace/trace_output.c, 6.15+) and
 * print_graph_retaddr() with seq_print_ip_sym() and sprint_symbol()
 * (trace_functions_graph.c, trace_output.c, kallsyms.c, 6.13+);
 * docs/function-graph-format.md, "Arguments and return addresses", gives
 * the rules and the versions they changed in.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "args.h"
#include "strbuf.h"

/* Longer chains are not BTF a kernel would load: stop instead of looping. */
#define MAX_MODIFIERS 32

enum bg_args_rules args__rules(int version)
{
	if (version >= BG_ARGS_6_19)
		return BG_ARGS_6_19;
	if (version >= BG_ARGS_6_17)
		return BG_ARGS_6_17;
	if (version >= BG_ARGS_6_15)
		return BG_ARGS_6_15;
	return BG_ARGS_NONE;
}

bool args__shown(int version, bool args_opt, bool retaddr_opt)
{
	enum bg_args_rules r = args__rules(version);

	if (!args_opt || r == BG_ARGS_NONE)
		return false;
	return r >= BG_ARGS_6_19 || !retaddr_opt;
}

bool args__retaddr_shown(int version, bool retaddr_opt)
{
	return retaddr_opt && version >= BG_ARGS_RETADDR_SINCE;
}

uint32_t args__find_func(const struct btf *btf, const char *name)
{
	int id;

	if (!btf || !name)
		return 0;
	/* First match from id 1 up, base BTF first: btf_find_by_name_kind(). */
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	return id > 0 ? (uint32_t)id : 0;
}

/*
 * btf_type_skip_modifiers(): typedef, const, volatile, restrict and type
 * tags are looked through. NULL for an id the BTF does not have.
 */
static const struct btf_type *skip_modifiers(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int i;

	for (i = 0; t && i < MAX_MODIFIERS; i++) {
		if (!btf_is_mod(t) && !btf_is_typedef(t))
			return t;
		t = btf__type_by_id(btf, t->type);
	}
	return NULL;
}

/* btf_type_str(): the kind's name in the kernel's btf_kind_str[]. */
static const char *kind_str(const struct btf_type *t)
{
	static const char *const names[] = {
		[BTF_KIND_UNKN] = "UNKNOWN",	   [BTF_KIND_INT] = "INT",
		[BTF_KIND_PTR] = "PTR",		   [BTF_KIND_ARRAY] = "ARRAY",
		[BTF_KIND_STRUCT] = "STRUCT",	   [BTF_KIND_UNION] = "UNION",
		[BTF_KIND_ENUM] = "ENUM",	   [BTF_KIND_FWD] = "FWD",
		[BTF_KIND_TYPEDEF] = "TYPEDEF",	   [BTF_KIND_VOLATILE] = "VOLATILE",
		[BTF_KIND_CONST] = "CONST",	   [BTF_KIND_RESTRICT] = "RESTRICT",
		[BTF_KIND_FUNC] = "FUNC",	   [BTF_KIND_FUNC_PROTO] = "FUNC_PROTO",
		[BTF_KIND_VAR] = "VAR",		   [BTF_KIND_DATASEC] = "DATASEC",
		[BTF_KIND_FLOAT] = "FLOAT",	   [BTF_KIND_DECL_TAG] = "DECL_TAG",
		[BTF_KIND_TYPE_TAG] = "TYPE_TAG",  [BTF_KIND_ENUM64] = "ENUM64",
	};
	unsigned int k = btf_kind(t);

	return k < sizeof(names) / sizeof(names[0]) && names[k] ? names[k] : "UNKNOWN";
}

/*
 * Any other kind (struct, union, enum64, float) as its kind name and its
 * raw registers, one per 8 bytes of its size: "(STRUCT)[0x1:0x2]". When
 * the registers run out inside it, "...]" ends the whole list: returns -1.
 * Otherwise the last register used.
 */
static int put_blob(struct strbuf *b, const struct btf_type *t,
		    const uint64_t *args, int nr_args, int a)
{
	uint32_t x;

	strbuf__put(b, "(", 1);
	strbuf__str(b, kind_str(t));
	strbuf__put(b, ")[", 2);
	strbuf__hex(b, args[a]);
	for (x = sizeof(uint64_t); x < t->size; x += sizeof(uint64_t)) {
		strbuf__put(b, ":", 1);
		if (++a == nr_args) {
			strbuf__put(b, "...]", 4);
			return -1;
		}
		strbuf__hex(b, args[a]);
	}
	strbuf__put(b, "]", 1);
	return a;
}

/*
 * The name the kernel puts after an enum's number: the first enumerator,
 * in BTF order, whose value is the register's (HRTIMER_MODE_HARD, not
 * HRTIMER_MODE_ABS_HARD, for 8). The 32-bit value is widened by the
 * enum's signedness (BTF_KIND_ENUM's kflag); NULL when none matches.
 */
static const char *enum_name(const struct btf *btf, const struct btf_type *t, uint64_t reg)
{
	const struct btf_enum *e = btf_enum(t);
	bool is_signed = btf_kflag(t);
	uint16_t i, n = btf_vlen(t);

	for (i = 0; i < n; i++) {
		uint64_t v = is_signed ? (uint64_t)(int64_t)e[i].val : (uint64_t)(uint32_t)e[i].val;

		if (v == reg)
			return btf__name_by_offset(btf, e[i].name_off);
	}
	return NULL;
}

/*
 * One value from register a on. Integers of any size print the whole
 * register, upper bits included (what the caller left there), never cut
 * to the type's width. Returns the last register used, or -1 to stop.
 */
static int put_value(struct strbuf *b, const struct btf *btf, const struct btf_type *t,
		     const uint64_t *args, int nr_args, int a,
		     enum bg_args_rules rules)
{
	const char *name;

	switch (t ? btf_kind(t) : BTF_KIND_UNKN) {
	case BTF_KIND_UNKN:
		/* void (a "..." parameter) or an id BTF does not have */
		strbuf__put(b, "?", 1);
		strbuf__hex(b, args[a]);
		return a;
	case BTF_KIND_PTR:
		strbuf__hex(b, args[a]);
		return a;
	case BTF_KIND_INT:
		/* 6.17 (3ca824369b71): hex unless BTF_INT_SIGNED; bool too */
		if (rules >= BG_ARGS_6_17 && !(btf_int_encoding(t) & BTF_INT_SIGNED))
			strbuf__hex(b, args[a]);
		else
			strbuf__dec(b, args[a]);
		return a;
	case BTF_KIND_ENUM:
		/* "%ld" in every version; " [NAME]" after it in 7.3 (6.19 here) */
		strbuf__dec(b, args[a]);
		name = rules >= BG_ARGS_6_19 ? enum_name(btf, t, args[a]) : NULL;
		if (name && *name) {
			strbuf__put(b, " [", 2);
			strbuf__str(b, name);
			strbuf__put(b, "]", 1);
		}
		return a;
	default:
		return put_blob(b, t, args, nr_args, a);
	}
}

/* What after adds behind the value of register reg. */
static void put_after(struct strbuf *b, const struct args_after *after, unsigned int reg,
		      uint64_t val)
{
	char tmp[512];
	int n = after->fn(after->ctx, reg, val, tmp, sizeof(tmp));

	if (n > 0)
		strbuf__put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/*
 * The parameter list: "name=value" joined by ", ", and "..." where the
 * recorded registers run out. A register is used per parameter, however
 * wide its type (an __int128 takes one), plus one per further 8 bytes of
 * a struct or union.
 */
static void put_params(struct strbuf *b, const struct btf *btf,
		       const struct btf_param *p, int nr,
		       const uint64_t *args, int nr_args,
		       enum bg_args_rules rules, const struct args_after *after)
{
	const char *name;
	int a, i, first;

	for (a = 0, i = 0; i < nr; a++, i++) {
		if (i)
			strbuf__put(b, ", ", 2);
		if (a >= nr_args) {
			strbuf__put(b, "...", 3);
			return;
		}
		/* An unnamed parameter still gets its "=": the name is "". */
		name = btf__name_by_offset(btf, p[i].name_off);
		if (name) {
			strbuf__str(b, name);
			strbuf__put(b, "=", 1);
		}
		first = a;
		a = put_value(b, btf, skip_modifiers(btf, p[i].type), args, nr_args,
			      a, rules);
		if (a < 0)
			return;
		if (after)
			put_after(b, after, (unsigned int)first, args[first]);
	}
}

int args__snprintf(char *buf, size_t size, const struct btf *btf,
		   uint32_t func_id, const uint64_t *args, int nr_args,
		   int version)
{
	return args__snprintf_after(buf, size, btf, func_id, args, nr_args, version, NULL);
}

int args__snprintf_after(char *buf, size_t size, const struct btf *btf,
			 uint32_t func_id, const uint64_t *args, int nr_args,
			 int version, const struct args_after *after)
{
	struct strbuf b = { .buf = buf, .size = size };
	enum bg_args_rules rules = args__rules(version);
	const struct btf_type *t;

	if ((!buf && size) || nr_args < 0 || (nr_args && !args))
		return -EINVAL;
	/* No record of arguments, or no BTF FUNC: the kernel prints "()". */
	if (rules == BG_ARGS_NONE || !btf || !func_id || !nr_args)
		return strbuf__finish(&b);
	t = btf__type_by_id(btf, func_id);
	if (!t || !btf_is_func(t))
		return strbuf__finish(&b);
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return strbuf__finish(&b);
	put_params(&b, btf, btf_params(t), btf_vlen(t), args, nr_args, rules, after);
	return strbuf__finish(&b);
}

int args__retaddr_snprintf(char *buf, size_t size, uint64_t addr,
			   const char *name, const char *module,
			   uint64_t offset, uint64_t sym_size)
{
	struct strbuf b = { .buf = buf, .size = size };

	if (!buf && size)
		return -EINVAL;
	strbuf__put(&b, "<-", 2);
	if (!addr) {
		/* seq_print_ip_sym() prints a bare 0 for a null address */
		strbuf__put(&b, "0", 1);
	} else if (!name || !*name) {
		/* sprint_symbol() without a symbol: the address alone */
		strbuf__hex(&b, addr);
	} else {
		/* "%s+%#lx/%#lx", then " [%s]" for a module's symbol */
		strbuf__str(&b, name);
		strbuf__put(&b, "+", 1);
		strbuf__hex(&b, offset);
		strbuf__put(&b, "/", 1);
		strbuf__hex(&b, sym_size);
		if (module && *module) {
			strbuf__put(&b, " [", 2);
			strbuf__str(&b, module);
			strbuf__put(&b, "]", 1);
		}
	}
	return strbuf__finish(&b);
}
