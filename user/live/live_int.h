/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What live.c and live_net.c (the wide net's part) share: the state of
 * live discovery and the steps both take.
 */
#ifndef BG_LIVE_INT_H
#define BG_LIVE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ftgraphs.h"
#include "hooks.h"
#include "live.h"
#include "netfsm.h"
#include "optprobe.h"

struct icall;
struct kprobes;
struct ksym;

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
	unsigned int met_callees; /* functions attached as direct callees of what the net met */
	/* The wide net (user/hook/wide.h), NULL: none. */
	struct wide *w;
	int32_t *wmap; /* function table index by wide index; -1: not met yet */
	struct netfsm net; /* its state (netfsm.h) */
	bool wide_always; /* --wide=always: never narrowed */
	double wide_wait_s; /* --wide-wait (netfsm__bound) */
	unsigned int wide_met; /* functions it found */
	double first_end; /* the first traced call's end (running: when it was linked) */
	bool ended_seen; /* bg_wide_ended, at the last poll */
	struct session *s;
	/* The ftrace net (user/hook/ftnet.h), NULL: none, or closed. */
	struct ftnet *ft;
	bool ft_used; /* the trace began under it */
	/* Its functions' table indexes by address (open addressing). */
	uint64_t *ft_addr;
	int32_t *ft_idx;
	uint8_t *ft_own; /* on the tracer's own path (plan__denied) */
	size_t ft_cap, ft_n;
	/* What it met that the plan did not hook: linked when it is over. */
	uint32_t *ft_met;
	size_t ft_nmet, ft_metcap;
	uint64_t ft_records;
	struct ftgraphs ftg; /* its graphs under way (ftgraphs.h) */
	/* The -G functions, and the probes on them that stop the command (live_ftnet.c). */
	char **ft_graph;
	size_t ft_ngraph;
	struct bpf_link **ft_stop;
	size_t ft_nstop;
	bool ft_exec; /* the first call is the first to end after the command's exec */
	uint32_t ft_calls; /* calls the net records (--first-calls; 0: one) */
	uint32_t ft_ends; /* of them, ended so far (is_first) */
	bool ft_end_unread; /* the stop probe ended the first call before its end was read */
	uint64_t ft_ret_used; /* the stop probe's returns (bg_net_ret) put on an exit */
	/* The last task's name record (comm_of()): a busy task's graphs read /proc once. */
	struct bg_rec ft_comm;
	/* The plan's hooks, made once it is over (live__open_ftnet). */
	int (*link_plan)(void *ctx);
	void *link_ctx;
	/* live__probe_calls() while it is open: done once it is over. */
	struct {
		const struct ksyms *ks;
		struct ktext *kt;
		bool indirect, due;
	} probe_later;
	/* The rcu pair's move from the keep link to call sites (rcusites.c). */
	struct rcusites *rcu;
	/* Discovery's probes in the burst under way (live_burst_probe()). */
	struct {
		bool on, tried;
		unsigned int from; /* l->ic's probes when it began */
		double t0;
		int opt_err;
		struct optprobe_hold opt;
	} burst;
};

/*
 * Where function idx's calls return to (struct bg_frange), for the entry
 * programs' untraced-caller check.
 */
void live_frange_set(struct bpfobj *obj, uint32_t idx, const struct bg_func *f);
/*
 * Attach the direct callees of s; through a callee that cannot be
 * attached, one level further (function_graph shows its callees in its
 * place).
 */
void live_attach_callees(struct live *l, const struct ksym *s, bool through);
/*
 * Function idx, in the table already, hooked now (queued where hooks
 * batch: hooks__flush), its return range and indirect calls set up:
 * 0 or -errno.
 */
int live_hook(struct live *l, uint32_t idx);
/*
 * Before discovery places probes (l->ic): a burst of them begins, or has
 * placed enough for the kprobe optimizer to be held off for the rest of
 * it (optprobe.h).
 */
void live_burst_probe(struct live *l);
/* What discovery found is hooked: the burst is over, the optimizer back on. */
void live_burst_end(struct live *l);
/*
 * A paused net is over and what it met hooked: the command resumes, with
 * live discovery pausing it as without a net.
 */
void live_net_resume(struct live *l);
/*
 * The wide net was narrowed with a keep link on the rcu pair: a thread
 * probes their call sites in the traced functions (probe_later's), the
 * probes take over when all are placed (rcusites__step, at each poll).
 */
void rcusites__begin(struct live *l);
void rcusites__step(struct live *l);
/* The trace is over: the thread ends (its probes stay until detached). */
void rcusites__stop(struct live *l);
void rcusites__detach(struct live *l);
void rcusites__free(struct live *l);
/* One line for -v: what became of the move. */
void rcusites__print(const struct live *l);
/* The session's callbacks for the ftrace net (live_ftnet.c). */
void live_ftnet_bind(struct session *s);
/* Everything function_graph recorded is read, it is off, tracefs as it was found. */
void live_ft_close(struct live *l);
/*
 * The ftrace net's first call is over (live_ftlink.c): the command paused,
 * everything is hooked; running (-p, system-wide), what the call ran is
 * hooked with the BPF side off, which says when it was, the rest after.
 */
void live_ft_link_paused(struct live *l);
void live_ft_link_running(struct live *l);
/* Closes the ftrace net, if open. */
void live_free_ftnet(struct live *l);
/* The session's callbacks for the wide net: what it met, each poll, the end. */
void live_net_bind(struct session *s);
/* wait: for a child still closing the net too (releasing the hooks here). */
void live_free_wide(struct live *l, bool wait);

#endif
