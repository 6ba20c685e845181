// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live discovery's part in the ftrace net (live.h, user/hook/ftnet.h): the
 * kernel's function_graph records the first traced call while nothing of
 * bpfgraph is hooked; its records join the ring buffer's as they are
 * read, under function table indexes found by address. Once that call is
 * over the command is paused, function_graph goes, and what the call met,
 * the plan and the direct callees of the former are hooked before the
 * command resumes: the net's state machine (netfsm.h), paused. Without a
 * command (-p, system-wide) the same, running: nothing waits, the calls
 * begun while what the first call ran is hooked are not traced, and the
 * rest is hooked while the BPF side records (live_ftlink.c).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpfobj.h"
#include "clock.h"
#include "ftgraphs.h"
#include "ftnet.h"
#include "ftpage.h"
#include "hooks.h"
#include "kprobe.h"
#include "links.h"
#include "live.h"
#include "live_int.h"
#include "netfsm.h"
#include "session.h"
#include "stop.h"

#define FT_MIN_CAP 1024

static size_t slot_of(uint64_t addr, size_t cap)
{
	return (size_t)((addr >> 4) * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
}

static int index_put(struct live *l, uint64_t addr, int32_t idx, bool own)
{
	size_t i;

	if (2 * (l->ft_n + 1) > l->ft_cap) {
		size_t cap = l->ft_cap ? 2 * l->ft_cap : FT_MIN_CAP;
		uint64_t *a = calloc(cap, sizeof(*a));
		int32_t *x = malloc(cap * sizeof(*x));
		uint8_t *o = malloc(cap);

		if (!a || !x || !o) {
			free(a);
			free(x);
			free(o);
			return -ENOMEM;
		}
		for (size_t k = 0; k < l->ft_cap; k++) {
			if (!l->ft_addr[k])
				continue;
			for (i = slot_of(l->ft_addr[k], cap); a[i]; i = (i + 1) & (cap - 1))
				;
			a[i] = l->ft_addr[k];
			x[i] = l->ft_idx[k];
			o[i] = l->ft_own[k];
		}
		free(l->ft_addr);
		free(l->ft_idx);
		free(l->ft_own);
		l->ft_addr = a;
		l->ft_idx = x;
		l->ft_own = o;
		l->ft_cap = cap;
	}
	for (i = slot_of(addr, l->ft_cap); l->ft_addr[i]; i = (i + 1) & (l->ft_cap - 1))
		;
	l->ft_addr[i] = addr;
	l->ft_idx[i] = idx;
	l->ft_own[i] = own;
	l->ft_n++;
	return 0;
}

static int index_get(const struct live *l, uint64_t addr, bool *own)
{
	if (!l->ft_cap)
		return -ENOENT;
	for (size_t i = slot_of(addr, l->ft_cap); l->ft_addr[i]; i = (i + 1) & (l->ft_cap - 1)) {
		if (l->ft_addr[i] == addr) {
			*own = l->ft_own[i];
			return l->ft_idx[i];
		}
	}
	return -ENOENT;
}

static int met_push(struct live *l, uint32_t idx)
{
	if (l->ft_nmet == l->ft_metcap) {
		size_t cap = l->ft_metcap ? 2 * l->ft_metcap : 64;
		uint32_t *m = realloc(l->ft_met, cap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		l->ft_met = m;
		l->ft_metcap = cap;
	}
	l->ft_met[l->ft_nmet++] = idx;
	return 0;
}

/*
 * The function table index of the function at addr (a function_graph
 * event's), added by name when first met. Planned only once the net is
 * over: planned here, while function_graph had every fentry site
 * patched, each took half a second under emulation (the planner reads
 * and checks its code), and the net's first records waited for it.
 */
/*
 * kprobes' dispatch, which function_graph draws inside a graph where a
 * kprobe on ftrace was there before it (the stop probes' handlers, or
 * another tool's): left out with what it calls. So is a tracepoint's
 * BPF dispatch (bpf_trace_run*), the exec's tracepoint program's inside
 * a -G function that holds the exec (stop_probes()). Only these: the
 * rest of the planner's deny list (__rcu_read_lock, spin locks, clocks)
 * is the traced code's own work too.
 */
static bool kprobe_path(const char *name)
{
	static const char *const globs[] = {
		"*kprobe*", "*kretprobe*", "*rethook*", "trace_call_bpf", "opt_pre_handler",
		"optimized_callback", "aggr_pre_handler", "aggr_post_handler", "bpf_trace_run*",
		NULL,
	};

	for (int i = 0; globs[i]; i++)
		if (!fnmatch(globs[i], name, 0))
			return true;
	return false;
}

static int index_of(struct live *l, uint64_t addr, bool *own)
{
	const struct ksym *s;
	int idx = index_get(l, addr, own);

	if (idx >= 0)
		return idx;
	s = ksyms__find_addr(l->po.ks, addr);
	if (!s)
		return -ENOENT;
	*own = kprobe_path(s->name);
	idx = functab__find_addr(&l->p->funcs, s->addr);
	if (idx < 0) {
		idx = functab__add(&l->p->funcs, s->name, s->module, s->addr, s->size);
		if (idx >= 0)
			l->p->funcs.f[idx].flags |= BG_FN_INFERRED;
	}
	if (idx < 0 || index_put(l, addr, idx, *own))
		return -ENOMEM;
	return idx;
}

#define FT_READ_PAGES 256 /* per CPU and read while it records: the poll goes on */

static int pass(void *ctx, const struct bg_rec *r)
{
	struct live *l = ctx;
	struct bg_rec c = *r;

	return session__take(l->s, &c);
}

/*
 * The task's name where the BPF side would record it (each graph's start,
 * BG_REC_COMM): from /proc, the event has none.
 */
static int comm_of(void *ctx, const struct bg_rec *r, struct bg_rec *c)
{
	struct live *l = ctx;
	char path[64], buf[64];
	FILE *f;

	/* Read once per run of graphs of one task (a loop's calls, thousands a second). */
	if (l->ft_comm.pid == r->pid && l->ft_comm.type == BG_REC_COMM) {
		*c = l->ft_comm;
		c->cpu = r->cpu;
		return 1;
	}
	memset(c, 0, sizeof(*c));
	c->type = BG_REC_COMM;
	c->pid = r->pid;
	c->cpu = r->cpu;
	snprintf(path, sizeof(path), "/proc/%u/comm", r->pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		size_t n = strcspn(buf, "\n");

		memcpy(&c->ts, buf, n < BG_COMM_LEN ? n : BG_COMM_LEN);
	}
	fclose(f);
	c->dur = ftnet__tgid(r->pid);
	l->ft_comm = *c;
	return 1;
}

/*
 * The first end: the command is told to stop now, not after the rest of
 * this read (the net's state machine would), which a command that goes on
 * calling fills as fast as it is read.
 */
static void first_end(void *ctx)
{
	struct live *l = ctx;

	if (!l->ftg.open && l->net.state == NET_OPEN)
		session__stop_child(l->s);
}

/*
 * A graph ended before the command's exec was done is exec's (stop_probes()).
 * The records' clock is the one bpf_ktime_get_ns() reads (trace_clock mono).
 */
static bool is_first(void *ctx, const struct bg_rec *end)
{
	struct live *l = ctx;
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);
	uint64_t exec_ns;

	if (l->ft_exec && v) {
		exec_ns = __atomic_load_n(v->net_exec_ns, __ATOMIC_ACQUIRE);
		if (!exec_ns || end->ts < exec_ns)
			return false;
	}
	/* With --first-calls=N, the Nth to end is the net's last. */
	return ++l->ft_ends >= l->ft_calls;
}

/*
 * A graph of the command's begun while bpfgraph stopped it: the stop
 * probe's own sending of SIGSTOP (drawn as a graph of its own after the
 * first call's return), or what the thread ran in the signal's delivery
 * and on its way back (bg_pause_in, bg_pause_out). Same clock as above.
 */
static bool is_pause(void *ctx, const struct bg_rec *entry)
{
	struct live *l = ctx;
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);
	uint64_t sig0, sig1, win, end;

	if (!v)
		return false;
	sig0 = __atomic_load_n(&v->net_sig_ns[0], __ATOMIC_ACQUIRE);
	sig1 = __atomic_load_n(&v->net_sig_ns[1], __ATOMIC_ACQUIRE);
	if (sig0 && entry->ts >= sig0 && (!sig1 || entry->ts <= sig1))
		return true;
	win = __atomic_load_n(v->pause_win_ns, __ATOMIC_ACQUIRE);
	end = __atomic_load_n(v->pause_end_ns, __ATOMIC_ACQUIRE);
	return win && entry->pid == __atomic_load_n(v->pause_win_tid, __ATOMIC_ACQUIRE) &&
	       entry->ts >= win && (!end || entry->ts <= end);
}

/*
 * Without a command a task may be inside a call when function_graph
 * starts: what function_graph then draws of it at depth 0 is no entry
 * function's graph (a finish_task_switch() once switched back in), and
 * the BPF side would not record it either.
 */
static bool foreign(void *ctx, const struct bg_rec *entry)
{
	struct live *l = ctx;

	return !l->net.paused && entry->func < l->p->funcs.n &&
	       !(l->p->funcs.f[entry->func].flags & BG_FN_GRAPH);
}

static void graphs_init(struct live *l)
{
	const struct ftg_ops ops = { .pass = pass, .comm = comm_of, .is_first = is_first,
				     .first_end = first_end, .is_pause = is_pause,
				     .foreign = foreign, .ctx = l };

	ftg__init(&l->ftg, &ops);
}

static void on_lost(void *ctx, uint32_t cpu, uint64_t count)
{
	struct live *l = ctx;

	(void)cpu;
	ftg__lost(&l->ftg, count);
}

/*
 * A -G function's exit at depth 0 that function_graph recorded without
 * its value: the stop probe's kretprobe saw the same return (bg_net_ret),
 * by the same thread, microseconds apart. The nearest within RET_NEAR_NS
 * not used yet gives it.
 */
#define RET_NEAR_NS 5000000ULL
_Static_assert(BG_NET_RETS <= 64, "ft_ret_used has a bit a slot");

static void net_retval(struct live *l, struct bg_rec *r)
{
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);
	uint64_t best = RET_NEAR_NS + 1;
	uint32_t n;
	int at = -1;

	if (!v || !v->net_ret || r->func >= l->p->funcs.n ||
	    !(l->p->funcs.f[r->func].flags & BG_FN_GRAPH))
		return;
	n = __atomic_load_n(v->net_nret, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n && i < BG_NET_RETS; i++) {
		uint64_t ns = v->net_ret[i].ns, d;

		if (!ns || v->net_ret[i].tid != r->pid || (l->ft_ret_used & (1ULL << i)))
			continue;
		d = ns > r->ts ? ns - r->ts : r->ts - ns;
		if (d < best) {
			best = d;
			at = (int)i;
		}
	}
	if (at < 0)
		return;
	l->ft_ret_used |= 1ULL << at;
	r->val = v->net_ret[at].val;
	r->type &= (uint8_t)~BG_RF_NOVAL;
}

static int take(void *ctx, struct bg_rec *r, uint64_t addr, uint32_t flags)
{
	struct live *l = ctx;
	uint64_t until = stop__requested_ns();
	uint64_t skipped;
	struct bg_func *f;
	bool own = false;
	int idx, err;

	/* After a stop: not the trace's (the BPF side records nothing once stopped). */
	if (until && r->ts > until)
		return 0;
	idx = index_of(l, addr, &own);
	if (idx == -ENOMEM)
		return idx;
	if (idx < 0) {
		l->s->st.unmapped++;
		return 0;
	}
	r->func = (uint32_t)idx;
	if (bg_rec_type(r) == BG_REC_EXIT && (r->type & BG_RF_NOVAL) && !r->depth)
		net_retval(l, r);
	/* As the BPF side marks an entry inside interrupt work (discovery leaves it alone). */
	if (bg_rec_type(r) == BG_REC_ENTRY && (flags & (FTP_FLAG_HARDIRQ | FTP_FLAG_SOFTIRQ)))
		r->type |= BG_RF_IRQ;
	l->ft_records++;
	skipped = l->ftg.own;
	err = ftg__take(&l->ftg, r, own);
	if (err || l->ftg.own != skipped)
		return err;
	/*
	 * Met: planned once the net is over. Not what kprobes' dispatch
	 * called (left out above): a function our own programs run, such as
	 * migrate_disable, would then be hooked and draw their calls.
	 */
	f = &l->p->funcs.f[idx];
	f->flags |= BG_FN_FTRAN;
	if ((f->flags & (BG_FN_INFERRED | BG_FN_FTMET)) == BG_FN_INFERRED) {
		f->flags |= BG_FN_FTMET;
		return met_push(l, (uint32_t)idx);
	}
	return 0;
}

static void read_net(struct live *l, uint32_t max_pages)
{
	const struct ftnet_sink sink = { .take = take, .lost = on_lost, .ctx = l };
	long n = l->ft ? ftnet__read(l->ft, max_pages, &sink) : 0;

	if (n < 0)
		fprintf(stderr, "bpfgraph: cannot read function_graph's records: %s\n",
			strerror((int)-n));
}

/* The stop probes go (their programs stay loaded, unused). */
static void stop_probes_free(struct live *l)
{
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);

	if (v && v->net_armed)
		__atomic_store_n(v->net_armed, 0, __ATOMIC_RELEASE);
	for (size_t i = 0; i < l->ft_nstop; i++)
		bpf_link__destroy(l->ft_stop[i]);
	free(l->ft_stop);
	l->ft_stop = NULL;
	l->ft_nstop = 0;
}

/*
 * The first call is the first to end after the command's exec is done
 * (bg_net_exec, on sched_process_exec): the calls exec makes itself (an
 * ELF segment's mapping, a fault on the argument pages) are its own work,
 * at fixed addresses and on fresh memory, not the command's. Ended by
 * them, the net saw none of what the command's own first call reached
 * (7.3, -G vm_mmap_pgoff: the workload's first mmap searched for a free
 * area two calls below what exec's fixed mappings ran, missed, recall
 * 0.82-0.93). Their graphs are shown all the same, and what they met is
 * hooked with the rest. Without the tracepoint, the first to end.
 */
static void exec_probe(struct live *l)
{
	struct bpf_program *ex = bpfobj__prog(l->obj, BGP_NET_EXEC);
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);
	struct bpf_link *ln;

	if (!ex || bpf_program__fd(ex) < 0)
		return;
	ln = bpf_program__attach(ex);
	if (libbpf_get_error(ln)) {
		if (l->verbose)
			fprintf(stderr, "bpfgraph: ftrace net: no tracepoint on the command's exec "
				"(%s): the first traced call to end is the first, exec's own "
				"included\n", strerror((int)-libbpf_get_error(ln)));
		return;
	}
	l->ft_stop[l->ft_nstop++] = ln; /* its slot: stop_probes() */
	__atomic_store_n(v->net_wait_exec, 1, __ATOMIC_RELEASE);
	l->ft_exec = true;
}

/*
 * The probes that stop the command at its first traced call's end
 * (bg_net_enter, bg_net_leave), made once function_graph is on: ftrace
 * calls its newest callback first, so they run outside the graph (where
 * an older kprobe's callback makes them run inside, their calls are left
 * out: kprobe_path()). Should one fail, the command is stopped
 * once that end is read, as without them.
 */
static void stop_probes(struct live *l)
{
	struct bpf_program *in = bpfobj__prog(l->obj, BGP_NET_ENTER);
	struct bpf_program *out = bpfobj__prog(l->obj, BGP_NET_LEAVE);
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);
	int err = 0;

	if (!in || !out || !v || bpf_program__fd(in) < 0 || bpf_program__fd(out) < 0)
		return;
	/* Two probes a -G function, and the exec's tracepoint. */
	l->ft_stop = calloc(2 * l->ft_ngraph + 1, sizeof(*l->ft_stop));
	for (size_t i = 0; l->ft_stop && i < l->ft_ngraph && !err; i++) {
		/* The return probe first: the entry count must never miss its return. */
		for (int k = 1; k >= 0 && !err; k--) {
			struct bpf_link *ln = bpf_program__attach_kprobe(k ? out : in, k,
									 l->ft_graph[i]);

			err = libbpf_get_error(ln);
			if (!err)
				l->ft_stop[l->ft_nstop++] = ln;
		}
	}
	if (!l->ft_stop || err) {
		if (l->verbose)
			fprintf(stderr, "bpfgraph: ftrace net: no probe to stop the command at its "
				"first call's end (%s): stopped once that end is read\n",
				strerror(l->ft_stop ? (int)-err : ENOMEM));
		stop_probes_free(l);
		return;
	}
	exec_probe(l);
	__atomic_store_n(v->net_calls, l->ft_calls, __ATOMIC_RELEASE);
	__atomic_store_n(v->net_armed, 1, __ATOMIC_RELEASE);
}

static void graph_names_free(struct live *l)
{
	for (size_t i = 0; i < l->ft_ngraph; i++)
		free(l->ft_graph[i]);
	free(l->ft_graph);
	l->ft_graph = NULL;
	l->ft_ngraph = 0;
}

/* Everything it recorded is read, function_graph is off, tracefs as it was found. */
void live_ft_close(struct live *l)
{
	if (!l->ft)
		return;
	stop_probes_free(l);
	ftnet__stop(l->ft);
	read_net(l, 0);
	ftg__close(&l->ftg);
	l->s->st.paused_net = l->ftg.paused;
	if (l->ft_end_unread && !l->ftg.first_over)
		fprintf(stderr, "bpfgraph: function_graph did not record the first traced call's "
			"end (its per-CPU buffers were full: tracefs's buffer_size_kb): the call is "
			"drawn as far as it was recorded\n");
	if (l->ftg.lost_first)
		fprintf(stderr, "bpfgraph: function_graph lost %llu records of the first traced "
			"call (its per-CPU buffers were full: tracefs's buffer_size_kb)\n",
			(unsigned long long)l->ftg.lost_first);
	if (l->ftg.cut && l->net.paused)
		fprintf(stderr, "bpfgraph: %llu traced calls made after the first, before the "
			"command was stopped, are not shown: function_graph's buffers were full\n",
			(unsigned long long)l->ftg.cut);
	else if (l->ftg.cut)
		fprintf(stderr, "bpfgraph: %llu traced calls under way when function_graph "
			"stopped (or with records its full buffers dropped) are not shown\n",
			(unsigned long long)l->ftg.cut);
	ftnet__free(l->ft);
	l->ft = NULL;
}

static void net_act(struct live *l, enum net_action act)
{
	switch (act) {
	case NET_ACT_LINK_MET:
		live_ft_link_running(l);
		break;
	case NET_ACT_STOP_PAUSE:
		/* Inside a traced call: once it ends (on_poll). */
		if (!l->ftg.open)
			session__stop_child(l->s);
		break;
	case NET_ACT_CLOSE:
		live_ft_close(l);
		break;
	case NET_ACT_LINK_RESUME:
		live_ft_link_paused(l);
		live_net_resume(l);
		break;
	case NET_ACT_RELEASE:
		l->s->hold_growth = false;
		break;
	default:
		break;
	}
}

/*
 * The stop probe saw the first call end and stopped the command, whose
 * end the records may never show: function_graph's buffers full when it
 * came (overwrite is off), and no later event to carry the mark of the
 * loss, the command being stopped. Waiting for that end hung the trace
 * (6.12, -G __x64_sys_execve over a shell: the exec's 34 000 records
 * filled the 1.4 MiB buffer within a poll). The net closes as after the
 * end, the call drawn as far as it was recorded.
 */
static bool probe_over(struct live *l)
{
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);

	if (l->ftg.first_over || !l->ft_nstop || !v ||
	    __atomic_load_n(v->net_armed, __ATOMIC_ACQUIRE) || !session__child_stopped(l->s))
		return false;
	l->ft_end_unread = true;
	return true;
}

/*
 * Each poll: what function_graph recorded, then the net's next steps. It
 * is closed once the first graph is over, no graph is under way and the
 * command is stopped: a graph begun meanwhile would be cut, and what the
 * command did while the plan is hooked (seconds on a kernel without
 * kprobe.multi) would be traced by nothing. The command is told to stop
 * outside any traced call: stopped asleep inside one, the call would
 * return early and run again, drawn twice. Here it is late (function_graph
 * tells of the call's end only when it is read): a sleep outside traced
 * calls is cut short and run again, unseen.
 */
static void on_poll(void *ctx, uint64_t graphs_done)
{
	struct live *l = ctx;
	struct net_input in = { 0 };
	enum net_action act;

	(void)graphs_done;
	read_net(l, FT_READ_PAGES);
	/* The first call's end taken (not exec's), and a graph through the session. */
	in.first_over = (l->ftg.first_over && l->s->graphs_done > 0) || probe_over(l);
	in.child_exited = l->net.state == NET_OPEN && session__child_exited(l->s);
	do {
		in.now = links__now();
		if (l->net.state == NET_DRAINING && l->ft) {
			read_net(l, FT_READ_PAGES);
			if (!l->ftg.open)
				session__stop_child(l->s);
		}
		in.active = l->ftg.open > 0 || !session__child_stopped(l->s);
		in.closed = l->net.state == NET_CLOSING && !l->ft;
		act = netfsm__step(&l->net, &in);
		net_act(l, act);
	} while (act != NET_ACT_NONE);
	kprobes__retire(l->kp);
}

/* The trace is over while the net records (the command ended in its first call). */
static void on_stopped(void *ctx)
{
	struct live *l = ctx;

	live_ft_close(l);
}

void live_ftnet_bind(struct session *s)
{
	s->on_poll = on_poll;
	s->on_stopped = on_stopped;
}

void live_free_ftnet(struct live *l)
{
	if (l->ft)
		live_ft_close(l);
	stop_probes_free(l);
	graph_names_free(l);
	ftg__free(&l->ftg);
}

int live__open_ftnet(struct live *l, const struct ftnet_opts *o, int (*link_plan)(void *ctx),
		     void *ctx, char *why, size_t cap)
{
	graphs_init(l);
	l->ft_graph = calloc(o->ngraph + 1, sizeof(*l->ft_graph));
	for (size_t i = 0; l->ft_graph && i < o->ngraph; i++)
		if ((l->ft_graph[l->ft_ngraph] = strdup(o->graph[i])))
			l->ft_ngraph++;
	l->ft = ftnet__new(o, why, cap);
	if (!l->ft)
		return -errno;
	l->ft_calls = o->calls;
	l->ft_used = true;
	l->link_plan = link_plan;
	l->link_ctx = ctx;
	netfsm__open(&l->net, true, false);
	return 0;
}

/*
 * Should function_graph not start (another reader of tracefs holds its
 * buffers), the trace goes on without the net: the plan is hooked now.
 */
int live__start_ftnet(struct live *l)
{
	int err = l->ft ? ftnet__start(l->ft) : 0;

	if (!err) {
		/* Without a command the net's end is read from its records: nothing to stop. */
		if (l->ft && l->net.paused)
			stop_probes(l);
		/* Without one, function_graph's wait for a first call is bounded (waited_out()). */
		if (l->ft)
			netfsm__bound(&l->net, links__now(), l->wide_wait_s);
		return 0;
	}
	fprintf(stderr, "bpfgraph: cannot start function_graph (%s): the first traced call "
		"shows what was planned\n", strerror(-err));
	ftnet__free(l->ft);
	l->ft = NULL;
	l->ft_used = false;
	l->net.state = NET_NONE;
	l->s->pause_child = l->s->child > 0;
	l->s->hold_growth = false;
	err = l->link_plan(l->link_ctx);
	if (!err && l->probe_later.due) {
		l->probe_later.due = false;
		live__probe_calls(l, l->probe_later.ks, l->probe_later.kt, l->probe_later.indirect);
	}
	return err;
}

bool live__ftnet_used(const struct live *l)
{
	return l->ft_used;
}
