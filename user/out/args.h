/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Function arguments and return addresses as function_graph prints them
 * with funcgraph-args (6.15+) and funcgraph-retaddr (6.13+): the text
 * between a call's parentheses, typed from BTF, and the "<-caller+off/size"
 * of its return address. Pure formatting, no kernel needed; the rules per
 * version are in docs/function-graph-format.md, "Arguments and return
 * addresses".
 */
#ifndef BG_ARGS_H
#define BG_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

/*
 * Argument registers the kernel records per entry (FTRACE_REGS_MAX_ARGS:
 * 6 on x86-64 and wherever the architecture does not say otherwise). The
 * "..." comes where they run out, so a writer that wants the kernel's text
 * records this many, whatever the prototype needs.
 */
#define BG_ARGS_MAX 6

/*
 * The argument rules of each kernel, numbered like enum bg_dialect
 * (major * 100 + minor) so that a dialect converts by value: a version
 * follows the rules of the highest entry not above it (7.3 those of 6.19).
 */
enum bg_args_rules {
	BG_ARGS_NONE = 0, /* before 6.15: no funcgraph-args, always "()" */
	BG_ARGS_6_15 = 615, /* every integer signed decimal; retaddr drops the args */
	BG_ARGS_6_17 = 617, /* unsigned integers (and bool) in hex */
	BG_ARGS_6_19 = 619, /* args and retaddr together; enum names (seen on 7.3) */
};

/* First version with funcgraph-retaddr (CONFIG_FUNCTION_GRAPH_RETADDR). */
#define BG_ARGS_RETADDR_SINCE 613

/* The rules a kernel version (major * 100 + minor) prints with. */
enum bg_args_rules args__rules(int version);

/*
 * Whether an entry recorded under these options shows arguments: 6.15 to
 * 6.18 record either the return address or the arguments, and the return
 * address wins (graph_entry()); 6.19 records both.
 */
bool args__shown(int version, bool args_opt, bool retaddr_opt);
/* Whether an entry shows its return address (6.13+, option on). */
bool args__retaddr_shown(int version, bool retaddr_opt);

/*
 * The BTF FUNC the kernel would type name's arguments with: the first
 * FUNC of that name, vmlinux before a module when btf is a module's split
 * BTF. Compiler clones ("foo.isra.0") have none. 0 when there is none.
 */
uint32_t args__find_func(const struct btf *btf, const char *name);

/*
 * Writes what print_function_args() puts between the parentheses of
 * "func(...)" for the raw argument registers args[0..nr_args) under the
 * rules of version: "dfd=-100, filename=0x47a073, how=0xff46...". Empty
 * when the version has no arguments, func_id is 0 or not a FUNC, the
 * prototype has no parameters, or nr_args is 0 (an entry recorded without
 * arguments). The caller adds "(" and ")", then ";" for a leaf or " {"
 * for a nested entry.
 *
 * snprintf-style: buf gets at most size - 1 bytes and a NUL (nothing when
 * size is 0); returns the length of the whole text, or -EINVAL.
 */
int args__snprintf(char *buf, size_t size, const struct btf *btf,
		   uint32_t func_id, const uint64_t *args, int nr_args,
		   int version);

/*
 * Text added right behind a parameter's value (bpfgraph's own, never the
 * kernel's: --args-detail): fn writes it for the parameter held in
 * register reg (its first) of value val, snprintf-style, and must not
 * write ", ".
 */
struct args_after {
	int (*fn)(void *ctx, unsigned int reg, uint64_t val, char *buf, size_t size);
	void *ctx;
};

/* args__snprintf() with after's text behind each value (after may be NULL). */
int args__snprintf_after(char *buf, size_t size, const struct btf *btf,
			 uint32_t func_id, const uint64_t *args, int nr_args,
			 int version, const struct args_after *after);

/*
 * Writes the return address as print_graph_retaddr() does, from "<-" on:
 * "<-caller+0x3b/0x160", "<-nf_hook_slow+0x44/0xf0 [nf_tables]" (module
 * may be NULL), "<-0xffffffffc0a01234" when name is NULL or empty (no
 * symbol), "<-0" for address 0. The caller puts it in a C-style comment
 * after the entry: alone after a nested entry's " {", before the return
 * value's " ret=v" after a leaf's ";" (the format document has the exact
 * lines). Address 0 is the kernel's "0", not "0x0". snprintf-style, as
 * above.
 */
int args__retaddr_snprintf(char *buf, size_t size, uint64_t addr,
			   const char *name, const char *module,
			   uint64_t offset, uint64_t sym_size);

#endif
