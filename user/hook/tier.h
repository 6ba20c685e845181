/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The hook tier of a trace: how its functions are hooked, chosen once
 * from what --hook and --wide ask and what the kernel offers (caps.h).
 * Every later step reads this one value.
 */
#ifndef BG_TIER_H
#define BG_TIER_H

#include <stdbool.h>

#include "caps.h"
#include "options.h"

struct tier_request {
	enum bg_hook hook; /* --hook */
	enum bg_wide wide; /* --wide */
	bool no_discovery; /* --no-discovery: nothing found while tracing */
	/*
	 * The ftrace net could record the first call: a COMMAND bpfgraph
	 * pauses (or none, where the kernel has no kprobe.session net),
	 * options function_graph can follow, tracefs's top instance free
	 * (ftnet__usable()).
	 */
	bool ftnet_ok;
};

struct tier {
	/* KMULTI, FENTRY, KPROBE or TMULTI: never AUTO or KSESSION */
	enum bg_hook hook;
	/* fentry-multi: what it cannot take goes to kprobe.multi (the kernel has it) */
	bool kmulti_rest;
	/* kprobe.multi (the tier or the rest) by kprobe.session links, not pairs */
	bool ksession;
	bool wide; /* the wide net (wide.h) finds the first call's functions */
	bool ftnet; /* ... or the ftrace net (ftnet.h): the kernel's function_graph */
	const char *why; /* the hooks, for -v and --dry-run */
	const char *wide_why;
};

/* 0, or -EOPNOTSUPP (said why on stderr) when the kernel lacks what was asked. */
int tier__choose(struct tier *t, const struct tier_request *r, const struct caps *c);
/* The trampoline tiers: the fentry templates are loaded. */
bool tier__trampolines(const struct tier *t);
/* kprobe.multi programs are loaded (the tier, or fentry-multi's rest). */
bool tier__kmulti(const struct tier *t);
/* How the planner's kprobe-only functions are hooked: "kprobe.session", ... */
const char *tier__kprobes_how(const struct tier *t);
/* "# hooks: ..." and, where a net could be, "# wide net: ..." lines. */
void tier__print(const struct tier *t, FILE *f, const char *prefix);

#endif
