// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tier.h"

static const char *no_what(const struct cap *k, const char *none)
{
	return k->have < 0 ? strerror(-k->have) : none;
}

/* --hook=fentry-multi: refused where the kernel has no tracing_multi. */
static int choose_tmulti(struct tier *t, const struct caps *c)
{
	if (c->tracing_multi.have <= 0) {
		fprintf(stderr, "bpfgraph: this kernel cannot attach fentry.multi links (%s): "
			"it needs tracing_multi (7.x); --hook=auto takes the best this kernel has\n",
			no_what(&c->tracing_multi, "no BPF_TRACE_FENTRY_MULTI"));
		return -EOPNOTSUPP;
	}
	t->kmulti_rest = c->kprobe_multi.have > 0;
	t->ksession = t->kmulti_rest && c->kprobe_session.have > 0;
	t->why = "fentry.multi/fexit.multi, one link pair for all functions, a "
		 "trampoline per function (--hook=fentry-multi)";
	return 0;
}

static const char *kmulti_why(enum bg_hook asked, bool ksession)
{
	if (asked == BG_HOOK_KMULTI)
		return "kprobe.multi and kretprobe.multi, a link pair for all functions "
		       "(--hook=kprobe-multi)";
	if (asked == BG_HOOK_KSESSION)
		return "kprobe.session, one link for all functions, returns hooked only "
		       "inside graphs (--hook=kprobe-session)";
	return ksession ? "kprobe.session, one link for all functions, returns hooked only "
			  "inside graphs (the kernel has it; --hook=fentry for trampolines)" :
			  "kprobe.multi and kretprobe.multi, a link pair for all functions "
			  "(the kernel has no kprobe.session; --hook=fentry for trampolines)";
}

/*
 * auto, kprobe-multi, kprobe-session: kprobe.multi where the kernel has
 * it, which attaches the whole plan with one link (or pair) and detaches
 * it with as many closes; else trampolines per function (a program load
 * and a trampoline update per function and direction).
 */
static int choose_kmulti(struct tier *t, enum bg_hook asked, const struct caps *c)
{
	if (c->kprobe_multi.have > 0) {
		t->hook = BG_HOOK_KMULTI;
		t->ksession = asked != BG_HOOK_KMULTI && c->kprobe_session.have > 0;
		if (asked == BG_HOOK_KSESSION && !t->ksession) {
			fprintf(stderr, "bpfgraph: this kernel cannot attach kprobe.session links "
				"(6.10+): --hook=kprobe-multi hooks returns by kretprobe.multi\n");
			return -EOPNOTSUPP;
		}
		t->why = kmulti_why(asked, t->ksession);
		return 0;
	}
	if (asked == BG_HOOK_KMULTI || asked == BG_HOOK_KSESSION) {
		fprintf(stderr, "bpfgraph: this kernel cannot attach kprobe.multi links (%s): "
			"it needs CONFIG_FPROBE (5.18+); use --hook=fentry or --hook=kprobe\n",
			no_what(&c->kprobe_multi, "no CONFIG_FPROBE"));
		return -EOPNOTSUPP;
	}
	t->hook = BG_HOOK_FENTRY;
	t->why = "fentry/fexit, a trampoline per function (the kernel has no kprobe.multi)";
	return 0;
}

/*
 * What makes the first traced call complete. For a COMMAND, where
 * tracefs's top instance is free, the kernel's function_graph (the ftrace
 * net, ftnet.h; without a command too where the kernel has no wide net
 * that draws the first call whole, run__ftnet_fits()): it costs every other
 * function call of the machine a ftrace hook and a filter test, no
 * fprobe return memory per CPU, and
 * starts in a fraction of the wide net's time (docs/kernels.md, "The
 * ftrace net"). Otherwise, where the kernel has kprobe.session links,
 * the wide net: every traceable function hooked until the first traced
 * call returns, so that it is complete without indirect-call and
 * call-site probes. Once narrowed, what it met goes to kprobe.multi
 * links (live.c).
 */
static void choose_wide(struct tier *t, const struct tier_request *r, const struct caps *c)
{
	t->wide = t->ftnet = false;
	if (r->wide == BG_WIDE_OFF || r->no_discovery) {
		t->wide_why = r->wide == BG_WIDE_OFF ? "off (--wide=off)" : "off (--no-discovery)";
		return;
	}
	if (r->wide == BG_WIDE_FTRACE) {
		t->ftnet = r->ftnet_ok;
		t->wide_why = t->ftnet ? "function_graph records the first traced call "
					 "(--wide=ftrace)" :
			      "none: the ftrace net (--wide=ftrace) needs tracefs's top instance "
			      "free and options function_graph can follow (-v says why)";
		return;
	}
	if (r->wide == BG_WIDE_FIRST && r->ftnet_ok) {
		t->ftnet = true;
		t->wide_why = "function_graph records the first traced call, "
			      "tracefs's top instance being free (--wide=session: the "
			      "kprobe.session net)";
		return;
	}
	if (!tier__kmulti(t)) {
		t->wide_why = c->kprobe_session.have > 0 ?
			"none (it needs kprobe.multi links; --wide=ftrace: the kernel's "
			"function_graph)" :
			"none (no kprobe.session links; function_graph where tracefs's top "
			"instance is free: the ftrace net)";
		return;
	}
	if (c->kprobe_session.have <= 0) {
		t->wide_why = "none (this kernel has no kprobe.session links: 6.10+)";
		return;
	}
	t->wide = true;
	t->wide_why = r->wide == BG_WIDE_ALWAYS ?
		"every traceable function by kprobe.session, the whole trace (--wide=always)" :
		"every traceable function by kprobe.session, until the first traced "
		"call returns (--wide=off: none)";
}

/*
 * fentry-multi is not auto's choice: beside the wide net each traced call
 * costs it eight entry hooks on __rcu_read_lock/unlock from the
 * trampoline's helpers (docs/performance.md, "Hook tiers side by side").
 */
int tier__choose(struct tier *t, const struct tier_request *r, const struct caps *c)
{
	int err = 0;

	*t = (struct tier){ .hook = r->hook };
	switch (r->hook) {
	case BG_HOOK_TMULTI:
		err = choose_tmulti(t, c);
		break;
	case BG_HOOK_FENTRY:
		t->why = "fentry/fexit, a trampoline per function (--hook=fentry)";
		break;
	case BG_HOOK_KPROBE:
		t->why = "kprobe/kretprobe per function (--hook=kprobe)";
		break;
	default:
		err = choose_kmulti(t, r->hook, c);
		break;
	}
	if (!err)
		choose_wide(t, r, c);
	return err;
}

bool tier__trampolines(const struct tier *t)
{
	return t->hook == BG_HOOK_FENTRY || t->hook == BG_HOOK_TMULTI;
}

bool tier__kmulti(const struct tier *t)
{
	return t->hook == BG_HOOK_KMULTI || (t->hook == BG_HOOK_TMULTI && t->kmulti_rest);
}

const char *tier__kprobes_how(const struct tier *t)
{
	if (t->hook != BG_HOOK_KMULTI)
		return NULL;
	return t->ksession ? "kprobe.session" : "kprobe.multi";
}

/* What fentry-multi cannot take (variadic...): by kprobe.multi where the kernel has it. */
static const char *rest_why(const struct tier *t)
{
	return t->hook != BG_HOOK_TMULTI ? "" :
	       t->ksession		 ? "; what it cannot take by kprobe.session" :
	       t->kmulti_rest		 ? "; what it cannot take by kprobe.multi" :
					   "; what it cannot take by kprobe";
}

void tier__print(const struct tier *t, FILE *f, const char *prefix)
{
	fprintf(f, "%shooks: %s%s\n", prefix, t->why, rest_why(t));
	if (t->wide_why)
		fprintf(f, "%swide net: %s\n", prefix, t->wide_why);
}
