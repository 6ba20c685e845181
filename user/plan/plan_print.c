// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The plan in words: --dry-run's listing and the reasons it gives. */
#include <stdio.h>

#include "plan.h"

const char *plan__skip_text(enum plan_skip s)
{
	switch (s) {
	case PS_NONE: return "attached";
	case PS_DENIED: return "denied: on the tracer's own path";
	case PS_NO_BTF: return "no BTF (compiler clone or stripped): fentry cannot attach";
	case PS_NOT_TRACEABLE: return "not traceable: no fentry site (notrace/noinstr)";
	case PS_DUPLICATE: return "several functions share this name: fentry could "
				  "attach to another one";
	case PS_BTF_AMBIGUOUS: return "BTF has this name with several prototypes: "
				      "fentry could use another one's";
	case PS_LIMIT: return "over --max-funcs";
	}
	return "?";
}

/* Why a function is attached by kprobe rather than fentry, in words. */
static const char *kprobe_reason(enum plan_skip why)
{
	switch (why) {
	case PS_NO_BTF: return "no BTF";
	case PS_DUPLICATE: return "its name is not unique";
	case PS_BTF_AMBIGUOUS: return "BTF has its name with several prototypes";
	case PS_DENIED: return "no trampoline may hook it";
	default: return "fentry refused";
	}
}

void plan__print(const struct plan *p, FILE *out)
{
	for (size_t i = 0; i < p->ncands; i++) {
		const struct plan_cand *c = &p->cands[i];
		char why[256], name[256];

		if (c->sym->module)
			snprintf(name, sizeof(name), "%s [%s]", c->sym->name, c->sym->module);
		else
			snprintf(name, sizeof(name), "%s", c->sym->name);
		if (c->why == PW_ENTRY)
			snprintf(why, sizeof(why), "entry (-G %s)", c->glob);
		else if (c->why == PW_ALLOW)
			snprintf(why, sizeof(why), "allowed (-a %s)", c->glob);
		else if (c->why == PW_IRQ)
			snprintf(why, sizeof(why), "interrupt entry (funcgraph-irqs)");
		else if (c->why == PW_CALLSITE && plan__shared_leaf(c->sym->name))
			snprintf(why, sizeof(why), "a lock every task takes: kprobes where traced "
				 "functions call it (--locks=hooked: hooked)");
		else if (c->why == PW_CALLSITE)
			snprintf(why, sizeof(why), "no trampoline (ours call it): kprobes where traced "
				 "functions call it");
		else
			snprintf(why, sizeof(why), "callee of %s%s, depth %d", c->parent,
				 c->table ? " through a table in kernel data (its callees: once "
					    "it runs)" : "", c->depth);
		fprintf(out, "%-6s %-40s %s%s", c->skip ? "skip" : "attach", name, why,
			c->notrace && !c->skip ? ", notrace (-x): hidden with its subtree" : "");
		if (c->kprobe && c->why != PW_CALLSITE && p->kprobes_only)
			fprintf(out, ", by %s", p->kprobes_how ? p->kprobes_how : "kprobe (--kprobes)");
		else if (c->kprobe && c->why != PW_CALLSITE)
			fprintf(out, ", by kprobe (%s)", kprobe_reason(c->kprobe_why));
		if (c->skip == PS_DENIED)
			fprintf(out, ": denied (%s): on the tracer's own path\n", c->deny);
		else if (c->skip)
			fprintf(out, ": %s\n", plan__skip_text(c->skip));
		else
			fputc('\n', out);
	}
	fprintf(out, "# %zu functions to attach, %zu skipped\n", p->nattach, p->nskipped);
}
