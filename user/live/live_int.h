/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* live's state, shared by its files (live.c, rcusites.c). */
#ifndef BG_LIVE_INT_H
#define BG_LIVE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "hooks.h"
#include "netfsm.h"
#include "plan.h"
#include "tier.h"

struct attach;
struct bpfobj;
struct icall;
struct kprobes;
struct ksyms;
struct ktext;
struct session;
struct wide;

/* Who records __rcu_read_lock/unlock once the wide net is narrowed. */
enum live_rcu {
	LIVE_RCU_KEEP, /* the net's keep link (wide__narrow), or nothing */
	LIVE_RCU_PROBING, /* the keep link, while their call sites are probed */
	LIVE_RCU_SITES, /* the call-site probes: the keep link is closed */
};

/*
 * Functions found between traced ones while tracing (discover.h): attach
 * what can be attached, so that the calls after this one are drawn under
 * the right parent; say once, with -v, why the others cannot be.
 */
struct live {
	struct plan *p;
	struct plan_opts po;
	struct attach *a;
	struct bpfobj *obj;
	struct tier tier;
	bool fprobe_fgraph; /* live_opts.fprobe_fgraph */
	bool progress;
	struct icall *ic; /* NULL: indirect calls are not probed */
	struct kprobes *kp; /* functions fentry cannot attach to */
	struct hooks hooks; /* how a function is hooked: a and kp behind one facade */
	int verbose;
	unsigned int attached, failed, skipped;
	unsigned int targets; /* indirect targets reported */
	unsigned int targets_new; /* ... that were not traced yet */
	/* The wide net (user/hook/wide.h), NULL: none. */
	struct wide *w;
	int32_t *wmap; /* function table index by wide index; -1: not met yet */
	struct netfsm net; /* its state (netfsm.h) */
	bool wide_always; /* --wide=always: never narrowed */
	unsigned int wide_met; /* functions it found */
	double first_end; /* the first traced call's end (running: when it was linked) */
	bool ended_seen; /* bg_wide_ended, at the last poll */
	struct session *s;
	/* Kernel symbols and text, for call-site probes (live__probe_calls). */
	const struct ksyms *ks;
	struct ktext *kt;
	/* The rcu pair's hand-over from the keep link to call sites (rcusites.c). */
	enum live_rcu rcu;
	uint32_t *rcu_q; /* functions whose call sites are still to probe */
	size_t rcu_qn, rcu_qi; /* how many, the next one */
	double rcu_t0; /* when the hand-over began */
};

/*
 * Function idx is probed where the functions probed from now on call it,
 * and where traced functions call it through a pointer (bg_targets).
 */
int live_wrap(struct live *l, uint32_t idx);
/*
 * The wide net was narrowed with a keep link: the call sites of the rcu
 * pair in the traced functions are probed from now on, a few each poll
 * (rcusites__step), and take over from it when all are placed.
 */
void rcusites__begin(struct live *l);
/* Probes some more (a poll's share); hands over when done. */
void rcusites__step(struct live *l);
/* One line for -v: what the hand-over did. */
void rcusites__print(const struct live *l);

#endif
