// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * __rcu_read_lock and __rcu_read_unlock once the wide net is narrowed.
 *
 * function_graph shows their calls inside a graph; no trampoline may hook
 * them, so the net keeps an entry hook on them (wide__narrow's keep link).
 * That hook is machine-wide: every rcu_read_lock() of every task pays an
 * fprobe entry, and so does every run of our own programs (the kernel's
 * kprobe.multi handler takes rcu_read_lock() around each): twice per
 * hooked function per traced call. Probed at their call sites in the
 * traced functions instead (icall__wrap), only the calls that traced code
 * makes pay, and our own runs not at all.
 *
 * The probes are placed in the background, a poll's share at a time, the
 * keep link recording meanwhile; each probe carries BG_CK_SITES and
 * records nothing until bg_rcu_sites is set, which also silences the keep
 * link, so each call is recorded by one of them. Set once every site is
 * probed; the keep link is then closed. A site the kernel refuses leaves
 * the keep link in charge and the site probes are removed: a partial
 * hand-over would lose the calls made at the refused sites.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfobj.h"
#include "icall.h"
#include "links.h"
#include "live_int.h"
#include "plan.h"
#include "stop.h"
#include "wide.h"

/* Attaching per poll at most (a kprobe takes milliseconds, tens emulated). */
#define RCU_STEP_S 0.2

/* The probes' program instance and the call-site prober, or false. */
static bool make_icall(struct live *l)
{
	struct bpfobj *s = bpfobj__probes(l->obj);

	if (!s)
		return false; /* said why */
	l->ic = icall__new(bpfobj__prog(s, BGP_ICALL), l->ks, l->kt, l->verbose, stderr);
	if (!l->ic) {
		if (l->verbose)
			fprintf(stderr, "bpfgraph: __rcu_read_lock/unlock stay hooked for the "
				"whole machine: no call-site probes (%s)\n", strerror(errno));
		return false;
	}
	icall__set_indirect(l->ic, false);
	icall__set_cookie_bits(l->ic, BG_CK_SITES);
	return true;
}

void rcusites__begin(struct live *l)
{
	const struct functab *ft = &l->p->funcs;
	size_t wrapped = 0;

	if (l->rcu != LIVE_RCU_KEEP || !wide__kept(l->w) || !l->kt || l->ic || !make_icall(l))
		return;
	l->rcu_q = malloc((ft->n ? ft->n : 1) * sizeof(*l->rcu_q));
	if (!l->rcu_q)
		goto undo;
	/* The pair first: a function's sites are looked for when it is probed. */
	for (size_t i = 0; i < ft->n; i++) {
		const struct bg_func *f = &ft->f[i];

		if (f->module || !plan__hook_only(f->name))
			continue;
		if (live_wrap(l, (uint32_t)i))
			goto undo;
		wrapped++;
	}
	if (!wrapped)
		goto undo;
	/* Traced or not: a graph's untraced functions call them in its place too. */
	for (size_t i = 0; i < ft->n; i++)
		if (!(ft->f[i].flags & BG_FN_CALLSITE) &&
		    !(!ft->f[i].module && plan__hook_only(ft->f[i].name)))
			l->rcu_q[l->rcu_qn++] = (uint32_t)i;
	l->rcu = LIVE_RCU_PROBING;
	l->rcu_t0 = links__now();
	return;
undo:
	icall__free(l->ic);
	l->ic = NULL;
	free(l->rcu_q);
	l->rcu_q = NULL;
}

/* Every site probed: the keep link is no longer needed. */
static void hand_over(struct live *l)
{
	const struct icall_stats *st = icall__stats(l->ic);

	if (st->cfailed || st->cunusable || st->cnotrace) {
		icall__free(l->ic);
		l->ic = NULL;
		l->rcu = LIVE_RCU_KEEP;
		if (l->verbose)
			fprintf(stderr, "bpfgraph: __rcu_read_lock/unlock stay hooked for the whole "
				"machine: %u of their %u call sites could not be probed\n",
				st->cfailed + st->cunusable + st->cnotrace, st->csites);
		return;
	}
	__atomic_store_n(bpfobj__vars(l->obj)->rcu_sites, 1, __ATOMIC_RELEASE);
	wide__unkeep(l->w);
	l->rcu = LIVE_RCU_SITES;
	if (l->verbose)
		fprintf(stderr, "bpfgraph: __rcu_read_lock/unlock now traced at their %u call "
			"sites in %zu functions, not for the whole machine (%.2f s to probe)\n",
			st->cprobed, l->rcu_qn, links__now() - l->rcu_t0);
}

void rcusites__step(struct live *l)
{
	double t0 = links__now();

	if (l->rcu != LIVE_RCU_PROBING)
		return;
	while (l->rcu_qi < l->rcu_qn && links__now() - t0 < RCU_STEP_S && !stop__signal()) {
		uint32_t idx = l->rcu_q[l->rcu_qi++];

		icall__probe(l->ic, idx, &l->p->funcs.f[idx]);
	}
	if (l->rcu_qi == l->rcu_qn)
		hand_over(l);
}

void rcusites__print(const struct live *l)
{
	if (l->rcu == LIVE_RCU_PROBING)
		fprintf(stderr, "bpfgraph: __rcu_read_lock/unlock: call sites of %zu of %zu "
			"functions probed when the trace ended; the net's hook on them "
			"recorded their calls\n", l->rcu_qi, l->rcu_qn);
}
