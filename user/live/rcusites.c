// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * __rcu_read_lock and __rcu_read_unlock once the wide net is narrowed.
 *
 * function_graph shows their calls inside a graph; no trampoline may hook
 * them, so the narrowed net keeps an entry hook on them (wide__narrow's
 * keep link). That hook is machine-wide: every rcu_read_lock() of every
 * task pays an fprobe entry, and so does every run of our own programs
 * (the kernel's kprobe.multi handler takes rcu_read_lock() around each).
 * Where the traced functions call them, kprobes on the call and on the
 * instruction after it show the same calls at no cost to the rest of the
 * machine (user/hook/icall.c), as after the ftrace net.
 *
 * A kprobe's registration patches kernel text and waits for the other
 * CPUs; under a load one took seconds, and placing them all from the
 * reading thread once held a stop for minutes (docs/performance.md, "The
 * rcu pair at its call sites"). So a thread of its own places them while
 * the keep link records; the probes are quiet (BG_CK_SITES) until all are
 * placed. Then one store (bg_rcu_sites) silences the keep link and wakes
 * the probes, and the thread closes the keep link. What the function
 * table gains meanwhile (live discovery) is handed to the thread in
 * rounds, until a round finds nothing new. A placing that takes longer
 * than RCUSITES_MAX_S, or a call site the kernel refuses, leaves the keep
 * link in charge. The thread starts once the net is closed: it loads the
 * probe programs, whose verification beside a net that records ran for
 * tens of seconds without a reschedule (the soft-lockup watchdog's).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpfobj.h"
#include "icall.h"
#include "links.h"
#include "live_int.h"
#include "optprobe.h"
#include "stop.h"
#include "wide.h"

/* Seconds of placing after which the keep link stays in charge. */
#define RCUSITES_MAX_S 30.0

enum rs_state {
	RS_IDLE, /* a round is done (or none given yet): the reader's turn */
	RS_WORK, /* the thread places a round */
	RS_CLOSE, /* the thread closes the keep link and ends */
	RS_QUIT, /* the trace is over: end now */
	RS_GAVE_UP, /* the thread ended, the keep link stays */
};

struct rs_func {
	struct bg_func f; /* a copy: the table may grow (realloc) meanwhile */
	uint32_t idx;
	bool notrace; /* looked through by the plan (no fentry site): its calls only */
};

struct rcusites {
	pthread_t th;
	struct bpfobj *obj;
	const struct ksyms *ks;
	struct ktext *kt;
	int verbose;
	uint64_t waddr[ICALL_MAX_WRAP];
	uint32_t widx[ICALL_MAX_WRAP];
	size_t nwrap;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum rs_state state;
	struct icall *ic; /* the thread's until the switch, then live's (l->ic) */
	struct rs_func *round;
	size_t nround;
	size_t next; /* table entries up to here were handed to the thread */
	size_t cands; /* and the plan's looked-through candidates up to here */
	int keep_fd; /* RS_CLOSE: the keep link, the thread's to close */
	double t0, switched_at;
	double setup_s; /* loading the probe programs */
	unsigned int funcs, rounds;
	int opt_err; /* the first round's optprobe__hold() */
	char why[96]; /* RS_GAVE_UP: why */
	bool joined, told;
};

static enum rs_state state_of(struct rcusites *rs)
{
	enum rs_state s;

	pthread_mutex_lock(&rs->mu);
	s = rs->state;
	pthread_mutex_unlock(&rs->mu);
	return s;
}

static void set_state(struct rcusites *rs, enum rs_state s)
{
	pthread_mutex_lock(&rs->mu);
	/* Once told to quit, it stays so. */
	if (rs->state != RS_QUIT || s == RS_GAVE_UP)
		rs->state = s;
	pthread_cond_broadcast(&rs->cv);
	pthread_mutex_unlock(&rs->mu);
}

/*
 * A round's probes, placed in a row: false when the thread is to give up
 * (rs->why says why).
 */
static bool place_probes(struct rcusites *rs)
{
	for (size_t i = 0; i < rs->nround; i++) {
		const struct rs_func *r = &rs->round[i];

		if (state_of(rs) == RS_QUIT)
			return false;
		if (r->notrace)
			icall__probe_calls(rs->ic, &r->f);
		else
			icall__probe(rs->ic, r->idx, &r->f);
		rs->funcs++;
		if (icall__stats(rs->ic)->cfailed) {
			snprintf(rs->why, sizeof(rs->why), "the kernel refused a call site's kprobe");
			return false;
		}
		if (links__now() - rs->t0 > RCUSITES_MAX_S) {
			snprintf(rs->why, sizeof(rs->why), "placing took more than %.0f s",
				 RCUSITES_MAX_S);
			return false;
		}
	}
	return true;
}

/* One round, with the kprobe optimizer held off meanwhile (optprobe.h). */
static bool place_round(struct rcusites *rs)
{
	struct optprobe_hold opt = { 0 };
	int err = rs->nround ? optprobe__hold(&opt) : 0;
	bool ok;

	if (rs->rounds == 1)
		rs->opt_err = err;
	ok = place_probes(rs);
	optprobe__release(&opt);
	return ok;
}

/* The functions probed at their call sites (the plan's BG_FN_CALLSITE ones). */
static int wrap_list(struct live *l, struct rcusites *rs)
{
	for (size_t i = 0; i < l->p->funcs.n; i++) {
		const struct bg_func *f = &l->p->funcs.f[i];

		if (!(f->flags & BG_FN_CALLSITE))
			continue;
		if (rs->nwrap == ICALL_MAX_WRAP)
			return -E2BIG;
		rs->waddr[rs->nwrap] = f->addr;
		rs->widx[rs->nwrap++] = (uint32_t)i;
	}
	return rs->nwrap ? 0 : -ENOENT;
}

/*
 * The thread's start: the probe programs loaded (a verification of
 * seconds under emulation, kept off the reading thread) and the wrapped
 * functions told to icall. False: give up (rs->why).
 */
static bool rs_setup(struct rcusites *rs)
{
	struct bpfobj *s = bpfobj__probes(rs->obj);

	if (!s) {
		snprintf(rs->why, sizeof(rs->why), "the probe programs did not load (%s)",
			 strerror(errno));
		return false;
	}
	rs->ic = icall__new(bpfobj__prog(s, BGP_ICALL), rs->ks, rs->kt, rs->verbose, stderr);
	if (!rs->ic) {
		snprintf(rs->why, sizeof(rs->why), "%s", strerror(errno));
		return false;
	}
	icall__set_indirect(rs->ic, false);
	icall__set_ck(rs->ic, BG_CK_SITES);
	for (size_t i = 0; i < rs->nwrap; i++)
		if (icall__wrap(rs->ic, bpfobj__prog(s, BGP_KENTRY), bpfobj__prog(s, BGP_KEXIT),
				rs->waddr[i], rs->widx[i])) {
			snprintf(rs->why, sizeof(rs->why), "too many functions to probe at "
				 "their call sites");
			return false;
		}
	return true;
}

static void *rs_thread(void *arg)
{
	struct rcusites *rs = arg;

	if (!rs_setup(rs)) {
		set_state(rs, RS_GAVE_UP);
		return NULL;
	}
	rs->setup_s = links__now() - rs->t0;
	for (;;) {
		enum rs_state s;

		pthread_mutex_lock(&rs->mu);
		while (rs->state == RS_IDLE)
			pthread_cond_wait(&rs->cv, &rs->mu);
		s = rs->state;
		pthread_mutex_unlock(&rs->mu);
		if (s == RS_QUIT)
			return NULL;
		if (s == RS_CLOSE) {
			close(rs->keep_fd);
			rs->keep_fd = -1;
			return NULL;
		}
		if (!place_round(rs)) {
			set_state(rs, RS_GAVE_UP);
			return NULL;
		}
		set_state(rs, RS_IDLE);
	}
}

/* What the table and the plan's candidates gained since the last round. */
static int next_round(struct live *l, struct rcusites *rs)
{
	size_t n = l->p->funcs.n - rs->next, nc = l->p->ncands - rs->cands, k = 0;
	struct rs_func *v = n + nc ? calloc(n + nc, sizeof(*v)) : NULL;

	if (n + nc && !v)
		return -ENOMEM;
	for (size_t i = rs->next; i < l->p->funcs.n; i++) {
		v[k].f = l->p->funcs.f[i];
		v[k++].idx = (uint32_t)i;
	}
	for (size_t i = rs->cands; i < l->p->ncands; i++) {
		const struct plan_cand *c = &l->p->cands[i];

		if (c->skip != PS_NOT_TRACEABLE || c->notrace)
			continue;
		v[k].f = (struct bg_func){ .name = (char *)c->sym->name, .addr = c->sym->addr,
					   .size = c->sym->size };
		v[k++].notrace = true;
	}
	rs->next = l->p->funcs.n;
	rs->cands = l->p->ncands;
	free(rs->round);
	rs->round = v;
	rs->nround = k;
	return (int)k;
}

static void rs_free(struct rcusites *rs)
{
	/* Told to close it, but told to quit before it could. */
	if (rs->keep_fd >= 0)
		close(rs->keep_fd);
	icall__free(rs->ic);
	free(rs->round);
	pthread_mutex_destroy(&rs->mu);
	pthread_cond_destroy(&rs->cv);
	free(rs);
}

void rcusites__begin(struct live *l)
{
	struct rcusites *rs;

	if (!l->probe_later.due || l->rcu || l->ic || !wide__kept(l->w))
		return;
	l->probe_later.due = false;
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return;
	pthread_mutex_init(&rs->mu, NULL);
	pthread_cond_init(&rs->cv, NULL);
	rs->obj = l->obj;
	rs->ks = l->probe_later.ks;
	rs->kt = l->probe_later.kt;
	rs->verbose = l->verbose;
	rs->keep_fd = -1;
	rs->t0 = links__now();
	rs->state = RS_WORK;
	rs->rounds = 1;
	if (wrap_list(l, rs) || next_round(l, rs) < 0 ||
	    pthread_create(&rs->th, NULL, rs_thread, rs)) {
		rs_free(rs);
		return;
	}
	l->rcu = rs;
}

static void tell_gave_up(struct rcusites *rs)
{
	rs->told = true;
	fprintf(stderr, "bpfgraph: __rcu_read_lock/unlock: hooked machine-wide for the rest "
		"of the trace: %s (%u functions' code read)\n", rs->why, rs->funcs);
}

/* All placed and nothing new: the probes take over, the keep link goes. */
static void take_over(struct live *l, struct rcusites *rs)
{
	__atomic_store_n(bpfobj__vars(l->obj)->rcu_sites, 1, __ATOMIC_RELEASE);
	rs->switched_at = links__now();
	/* live discovery probes the call sites of what it attaches from now on */
	l->ic = rs->ic;
	rs->ic = NULL;
	rs->keep_fd = wide__take_keep(l->w);
	set_state(rs, RS_CLOSE);
	if (l->verbose) {
		const struct icall_stats *st = icall__stats(l->ic);

		fprintf(stderr, "bpfgraph: __rcu_read_lock/unlock: at their call sites from now "
			"on, %.2f s after the net closed (programs loaded in %.2f s; %u functions' "
			"code read in %u rounds, %.2f s; %u calls probed, %.2f s, kprobe optimization "
			"%s); the hook on them goes\n", rs->switched_at - rs->t0, rs->setup_s, rs->funcs,
			rs->rounds, st->read_s, st->cprobed, st->attach_s - st->read_s,
			optprobe__text(rs->opt_err));
	}
}

void rcusites__step(struct live *l)
{
	struct rcusites *rs = l->rcu;
	int n;

	if (!rs || rs->switched_at || rs->joined)
		return;
	switch (state_of(rs)) {
	case RS_IDLE:
		/* Beside a net that still records (no command), once it is off. */
		if (__atomic_load_n(bpfobj__vars(l->obj)->wide_on, __ATOMIC_ACQUIRE))
			break;
		n = next_round(l, rs);
		if (n == 0) {
			take_over(l, rs);
		} else if (n > 0) {
			rs->rounds++;
			set_state(rs, RS_WORK);
		}
		break;
	case RS_GAVE_UP:
		pthread_join(rs->th, NULL);
		rs->joined = true;
		/* Its probes stay quiet; they go with the other hooks. */
		if (l->verbose)
			tell_gave_up(rs);
		break;
	default:
		break;
	}
}

void rcusites__stop(struct live *l)
{
	struct rcusites *rs = l->rcu;

	if (!rs || rs->joined)
		return;
	set_state(rs, RS_QUIT);
	pthread_join(rs->th, NULL);
	rs->joined = true;
}

/*
 * Its probes, if they did not take over. Not while the thread may still
 * place them (a release before the trace's end): they go with the process.
 */
void rcusites__detach(struct live *l)
{
	if (l->rcu && l->rcu->joined)
		icall__detach(l->rcu->ic);
}

void rcusites__free(struct live *l)
{
	struct rcusites *rs = l->rcu;

	if (!rs)
		return;
	rcusites__stop(l);
	rs_free(rs);
	l->rcu = NULL;
}

/* -v, at the end: a move that did not finish (a take-over said so when it came). */
void rcusites__print(const struct live *l)
{
	struct rcusites *rs = l->rcu;

	if (!rs || rs->switched_at || rs->told)
		return;
	if (rs->why[0])
		tell_gave_up(rs);
	else
		fprintf(stderr, "bpfgraph: __rcu_read_lock/unlock stayed hooked machine-wide: "
			"the trace ended while their call sites were being probed (%u "
			"functions' code read)\n", rs->funcs);
}
