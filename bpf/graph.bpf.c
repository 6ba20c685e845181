// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel side of bpfgraph: two template programs, cloned by user space
 * once per traced function (fentry and fexit), told apart by the link
 * cookie (function index + flags). They keep per-task state in task local
 * storage and only decide whether to emit a fixed-size record; everything
 * else happens in user space.
 *
 * Semantics follow function_graph with set_graph_function:
 * - outside a graph (-G) function nothing is recorded;
 * - depth counts recorded frames only, the graph function is depth 0;
 * - -x (notrace) functions and everything they call are hidden and not
 *   counted; so is everything at or below --max-depth;
 * - tracing_thresh: entries are never written, exits only when the call
 *   took at least the threshold.
 *
 * This file holds the pairing of entries and exits and the programs; it
 * includes the globals, task state and maps (state.bpf.h), the task
 * filters (filter.bpf.h), the record batching (records.bpf.h) and the
 * kernel-stack walk for untraced callers (callers.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bpfgraph.h"
#include "state.bpf.h"
#include "filter.bpf.h"
#include "records.bpf.h"
#include "callers.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * The state of a task entering an entry function: st (looked up, busy
 * already set), or created, with busy set.
 */
static __always_inline struct task_state *enter_state(struct task_state *st, __u64 ck)
{
	if (st && (st->depth || st->skip))
		return st;
	/* Outside any graph: only an entry function starts one. */
	if (!(ck & BG_CK_GRAPH) || !bg_enabled || !task_selected())
		return NULL;
	if (bg_noirqs && in_hardirq_ctx())
		return NULL;
	if (!st) {
		st = bpf_task_storage_get(&bg_tasks, bpf_get_current_task_btf(), 0,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!st) {
			stat_inc(BG_ST_NOSTATE, 1);
			return NULL;
		}
		st->tid = (__u32)bpf_get_current_pid_tgid();
		st->busy = 1;
	}
	emit_comm(st);
	return st;
}


/*
 * Pop frame top (the task's innermost) at now and record its exit (unless
 * shorter than tracing_thresh).
 */
static __always_inline void pop_frame(struct task_state *st, __u32 top, __u64 now, __u8 type,
				      __u64 ret, __u32 func)
{
	__u64 dur = now - st->calltime[top & BG_DEPTH_MASK];

	st->depth = top;
	if (top < st->irq)
		st->irq = 0; /* the interrupt entry frame closed */
	/*
	 * The first graph is over. The command bpfgraph started is stopped,
	 * and the net stops recording, until what the net met is linked. With
	 * no command to stop (system-wide, -p, --no-pause) the net records on
	 * while user space links what it met (bg_wide_ended). A graph in
	 * another process of the command leaves the net on until user space
	 * narrows it and pauses the command.
	 */
	if (!top && bg_wide_once && bg_wide_on) {
		if (!bg_pause_tgid) {
			if (!bg_wide_ended)
				bg_wide_ended = now;
		} else if ((bpf_get_current_pid_tgid() >> 32) == bg_pause_tgid) {
			bg_wide_on = 0;
			bpf_send_signal(19 /* SIGSTOP: delivered on the way back to user space */);
		}
	}
	if (bg_thresh_ns && dur < bg_thresh_ns) {
		if (!top)
			flush_cpu(); /* the graph ended, its last exit below the threshold */
		return;
	}
	emit(st, type, now, ret, dur, func, top);
}

/*
 * The task's next event after a BG_CK_LAZY call: the callee has returned
 * by now (it calls nothing traced), close its frame first.
 */
static __always_inline void close_lazy(struct task_state *st)
{
	__u32 top = st->depth;

	if (!top || st->skip)
		return;
	top -= 1;
	/* Keep the mask: clang folds the range tests into one the verifier cannot follow. */
	barrier_var(top);
	top &= BG_DEPTH_MASK;
	if (top != st->depth - 1 || st->frame[top] != BG_FRAME_LAZY)
		return;
	pop_frame(st, top, bpf_ktime_get_ns(), BG_REC_EXIT | BG_RF_NOEXIT, 0, st->func[top]);
}

/* Where on_entry() finds the argument registers (funcgraph-args). */
enum bg_args_from {
	BG_ARGS_NONE, /* nowhere: a call site's lazy frame */
	BG_ARGS_TRAMP, /* ctx is the trampoline's u64 array (fentry) */
	BG_ARGS_REGS_AT, /* ctx is the pt_regs at the function's entry (kprobes) */
};

/*
 * The ENTRY r[0] with the first BG_ARGS_REGS argument registers after it
 * (BG_REC_ARGS). A fentry clone of a function with at most three
 * registers (BG_CK_NREGS) leaves the second part out; its ctx has no more.
 */
static __always_inline void emit_entry_args(const struct task_state *st, void *ctx,
					    enum bg_args_from from, __u64 ck, struct bg_rec *r,
					    __u64 now)
{
	int n = 3;

	for (int i = 1; i < 3; i++) {
		r[i] = r[0];
		r[i].type = BG_REC_ARGS;
		r[i].depth = i - 1;
	}
	if (from == BG_ARGS_TRAMP) {
		/* ts, val, dur|pid: 24 contiguous bytes per record. */
		if (bpf_probe_read_kernel(&r[1], 24, ctx))
			__builtin_memset(&r[1], 0, 24);
		if (BG_CK_NREGS(ck) <= BG_ARGS_PER_REC)
			n = 2;
		else if (bpf_probe_read_kernel(&r[2], 24, (const __u64 *)ctx + 3))
			__builtin_memset(&r[2], 0, 24);
	} else {
		struct pt_regs *regs = ctx;
		__u64 a;

		r[1].ts = PT_REGS_PARM1(regs);
		r[1].val = PT_REGS_PARM2(regs);
		a = PT_REGS_PARM3(regs);
		r[1].dur = (__u32)a;
		r[1].pid = a >> 32;
		r[2].ts = PT_REGS_PARM4(regs);
		r[2].val = PT_REGS_PARM5(regs);
		a = regs->r9; /* x86-64; libbpf 1.1 has no PT_REGS_PARM6 */
		r[2].dur = (__u32)a;
		r[2].pid = a >> 32;
	}
	if (bg_detail_on) {
		__u32 idx = BG_CK_INDEX(ck);
		struct bg_detail_plan *p = bpf_map_lookup_elem(&bg_detail, &idx);

		if (p) {
			put_entry_detail(st, r, n, p, now);
			return;
		}
	}
	put_entry_args(st, r, n, now);
}

/*
 * One call entered. frame pairs it with its exit (see task_state);
 * caller_at is where the return address into the caller can be read, or
 * NULL with that address read already (caller: 0 for none); args where
 * its arguments are (funcgraph-args).
 * Returns the task's state (created here by an entry function), or NULL.
 */
static __always_inline struct task_state *on_entry(void *ctx, struct task_state *st, __u64 ck,
						   __u64 frame, const void *caller_at,
						   __u64 caller, enum bg_args_from args)
{
	__u32 limit = bg_max_depth ? bg_max_depth : BG_MAX_DEPTH;
	__u32 d;
	__u64 now, shown;
	__u8 flags = 0;

	/* Not in a graph: an entry function's program, which may start one. */
	if (!st || (!st->depth && !st->skip))
		st = enter_state(st, ck);
	if (!st)
		return NULL;
	close_lazy(st);
	d = st->depth;
	if (st->skip || (ck & BG_CK_NOTRACE) || d >= limit ||
	    st->switching == BG_SWITCH_HIDE || (bg_noirqs && in_hardirq_ctx())) {
		/* No exit of its own will come to take it off again. */
		if (frame == BG_FRAME_TAIL || frame == BG_FRAME_LAZY)
			return st;
		if (d >= BG_MAX_DEPTH)
			stat_inc(BG_ST_DEEP, 1);
		st->skip++;
		st->opens++;
		return st;
	}
	/* Not shown with tracing_thresh, nor read: entries are not written. */
	if (bg_thresh_ns)
		caller = 0;
	else if (caller_at && bpf_probe_read_kernel(&caller, sizeof(caller), caller_at))
		caller = 0;
	shown = caller;
	/*
	 * A function entered by a tail jump from a function with a return
	 * hook finds that hook's address where its return address goes: the
	 * jumping function's own return was replaced when it was entered. Its
	 * caller is then the one of the frame below, as the kernel's
	 * ftrace_graph_top_ret_addr() skips return_to_handler frames for
	 * funcgraph-retaddr.
	 */
	if (d && caller && (caller == bg_hooked_ret[0] || caller == bg_hooked_ret[1]))
		shown = st->caller[(d - 1) & BG_DEPTH_MASK];
	now = bpf_ktime_get_ns();
	st->caller[d & BG_DEPTH_MASK] = shown;
	st->calltime[d & BG_DEPTH_MASK] = now;
	st->frame[d & BG_DEPTH_MASK] = frame;
	st->func[d & BG_DEPTH_MASK] = BG_CK_INDEX(ck);
	st->depth = d + 1;
	st->opens++;
	if (!st->irq && (ck & BG_CK_IRQ))
		st->irq = d + 1;
	if (st->irq)
		flags = BG_RF_IRQ;
	if (!bg_thresh_ns && bg_args && args != BG_ARGS_NONE) {
		struct bg_rec r[3];

		fill(&r[0], st, BG_REC_ENTRY | flags, now, shown, 0, BG_CK_INDEX(ck), d);
		emit_entry_args(st, ctx, args, ck, r, now);
	} else if (!bg_thresh_ns) {
		emit(st, BG_REC_ENTRY | flags, now, shown, 0, BG_CK_INDEX(ck), d);
	}
	/* As user space's discovery: interrupt work only when asked. */
	if (ctx && caller && d && (!flags || bg_discover_irqs))
		walk_callers(ctx, st, d, caller, now, flags);
	return st;
}


/*
 * Frames above a match that lost their exit (a missed program run). Runs
 * of up to 12 were seen; a limit of 16 made the verifier walk emit() so
 * often that loading each exit clone took 12x longer (34 s instead of
 * 2.9 s for 189 clones), and the clones cannot carry a bpf_loop()
 * callback instead (they are loaded without BTF: EINVAL).
 */
#define BG_UNWIND_MAX 4

static __always_inline bool frame_is(struct task_state *st, __u32 i, __u32 idx,
				     __u64 frame)
{
	return st->func[i & BG_DEPTH_MASK] == idx &&
	       st->frame[i & BG_DEPTH_MASK] == frame;
}

/*
 * Is a frame of function idx from another kprobe.multi generation open
 * among the top ones (see BG_CK_GEN)?
 */
static __always_inline bool other_gen_open(struct task_state *st, __u32 top, __u32 idx,
					   __u64 frame)
{
	for (int j = 0; j <= BG_UNWIND_MAX; j++) {
		__u32 k = top - j;
		__u64 f;

		if (j > top)
			break;
		/* clang knows k < BG_MAX_DEPTH and drops a plain mask; the verifier does not. */
		k &= BG_DEPTH_MASK;
		barrier_var(k);
		k &= BG_DEPTH_MASK;
		f = st->frame[k];
		if (st->func[k] == idx && BG_FRAME_IS_MULTI(f) && f != frame)
			return true;
	}
	return false;
}

/*
 * Closes the n frames from top down that lost their exits, innermost first
 * (see BG_RF_NOEXIT). Staged without a flush check each (that made the
 * verifier walk put() BG_UNWIND_MAX times over): room is made first, and
 * the exit that follows at once flushes as needed.
 */
static __always_inline void emit_noexits(struct task_state *st, __u32 top, int n, __u64 now)
{
	struct bg_batch *b = batch_get();
	struct bg_rec r;
	__u64 dur;

	if (!b) {
		stat_inc(BG_ST_DROPS, n); /* a preempted program holds the batch */
		return;
	}
	b->writing = 1;
	if (b->n >= BG_BATCH - BG_UNWIND_MAX)
		flush(b, BPF_RB_NO_WAKEUP);
	for (int j = 0; j < BG_UNWIND_MAX; j++) {
		__u32 k = top - j;

		if (j >= n)
			break;
		dur = now - st->calltime[k & BG_DEPTH_MASK];
		if (bg_thresh_ns && dur < bg_thresh_ns)
			continue;
		fill(&r, st, BG_REC_EXIT | BG_RF_NOEXIT, now, 0, dur, st->func[k & BG_DEPTH_MASK], k);
		stage(b, &r, now);
	}
	b->writing = 0;
}

/*
 * The call of frame returned ret; st: the task's state, inside a graph.
 * multi: a kprobe.multi exit (frame is BG_FRAME_MULTI); tramp: a fexit
 * (frame is the ctx pointer, which the verifier lets no arithmetic touch).
 */
static __always_inline void on_exit(struct task_state *st, __u64 ck, __u64 frame, __u64 ret,
				    bool multi, bool tramp)
{
	__u32 idx = BG_CK_INDEX(ck);
	__u64 now, dur;
	__u32 top;
	int i;

	if (st->skip) {
		/*
		 * Hidden calls are nested in the innermost recorded one, so
		 * that call's own exit (its trampoline frame: unique while it
		 * runs) comes after all of theirs. If it comes while skip is
		 * still up, a hidden call's exit was missed; swallowing this
		 * exit instead would leave the frame open, and a graph whose
		 * last exit is lost never ends: later graphs nest inside it.
		 */
		top = st->depth - 1;
		barrier_var(top);
		top &= BG_DEPTH_MASK;
		if (!tramp || !st->depth || !frame_is(st, top, idx, frame)) {
			st->skip--;
			return;
		}
		stat_inc(BG_ST_HIDDEN_LOST, st->skip);
		st->skip = 0;
	}
	close_lazy(st);
	if (!st->depth)
		return;
	top = st->depth - 1;
	if (top >= BG_MAX_DEPTH)
		return;
	/*
	 * clang knows top < BG_MAX_DEPTH from here and drops the masks below;
	 * the verifier may lose that bound on a spilled copy (6.1 did).
	 */
	barrier_var(top);
	top &= BG_DEPTH_MASK;
	if (!frame_is(st, top, idx, frame)) {
		/*
		 * While two kprobe.multi generations are attached, a return can
		 * run both exit programs: the other generation's is not this
		 * call's (its entry was not recorded by that generation).
		 */
		if (multi && other_gen_open(st, top, idx, frame))
			return;
		for (i = 1; i <= BG_UNWIND_MAX; i++) {
			if (i > top || frame_is(st, top - i, idx, frame))
				break;
		}
		if (i > top || i > BG_UNWIND_MAX) {
			/* Its entry was not recorded: started before we did. */
			stat_inc(BG_ST_UNMATCHED_EXIT, 1);
			return;
		}
		now = bpf_ktime_get_ns();
		if (i == 1 && st->frame[top & BG_DEPTH_MASK] == BG_FRAME_TAIL) {
			/* It tail-jumped to the function above: that one returns now. */
			dur = now - st->calltime[top & BG_DEPTH_MASK];
			if (!bg_thresh_ns || dur >= bg_thresh_ns)
				emit(st, BG_REC_EXIT, now, ret, dur, st->func[top & BG_DEPTH_MASK],
				     top);
		} else {
			stat_inc(BG_ST_UNWOUND, i);
			emit_noexits(st, top, i, now);
		}
		top -= i;
	}
	pop_frame(st, top, bpf_ktime_get_ns(), BG_REC_EXIT, ret, idx);
}

static __always_inline void on_icall(struct pt_regs *regs, struct task_state *st);


static __always_inline bool in_self_range(__u64 addr)
{
	for (int i = 0; i < BG_SELF_RANGES; i++)
		if (addr >= bg_self_lo[i] && addr < bg_self_hi[i])
			return true;
	return false;
}

/*
 * Is ret, a hooked function's return address, in one of the trampoline's
 * helpers, or just past the trampoline's call of one? The latter is a
 * tail call: __bpf_tramp_enter and __bpf_tramp_exit (around the traced
 * function, in every trampoline with an fexit program) end in
 * percpu_ref_get/put's rcu_read_unlock(), compiled as a jmp to
 * __rcu_read_unlock, which then returns straight into the trampoline
 * image (7.3). Read from the call instruction (e8 rel32) before ret.
 */
static __always_inline bool called_by_us(__u64 ret)
{
	__u8 call[5];
	__s32 rel;

	if (in_self_range(ret))
		return true;
	/* The kernel's own text is no trampoline: no read for the common case. */
	if (ret >= bg_ktext_lo && ret < bg_ktext_hi)
		return false;
	if (bpf_probe_read_kernel(call, sizeof(call), (void *)(ret - sizeof(call))) ||
	    call[0] != 0xe8)
		return false;
	__builtin_memcpy(&rel, &call[1], sizeof(rel));
	return in_self_range(ret + (__s64)rel);
}

/*
 * A kprobed function called by a trampoline around one of our program
 * runs, inside a graph: hidden with its exit, like a -x function. A hook
 * without a return side (BG_CK_LAZY: the net's __rcu_read_lock/unlock once
 * narrowed) opens nothing: no exit would come to close it, and every
 * fentry-multi call runs the trampoline's helpers twice. *caller gets the
 * return address, read at the function's first instruction (0 if it
 * cannot be), which on_entry() shows: one read for both.
 */
static __always_inline bool hide_own_call(struct pt_regs *regs, struct task_state *st, __u64 ck,
					  __u64 *caller)
{
	__u64 ret = 0;

	if (bpf_probe_read_kernel(&ret, sizeof(ret), (void *)PT_REGS_SP(regs)))
		ret = 0;
	/*
	 * What the verifier learns of ret below (ranges against the
	 * trampoline's helpers) would stay with the copy on_entry() shows
	 * and keep it from pruning states there: give it an unknown one.
	 */
	*caller = ret ^ bg_opaque_zero;
	if (!ret || !called_by_us(ret))
		return false;
	if (st && (st->depth || st->skip) && !(ck & BG_CK_LAZY)) {
		st->skip++;
		st->opens++;
	}
	return true;
}

/*
 * Where the trampoline frame holds the traced function's return address
 * (see BG_CK_NREGS). A trampoline called from the fentry site has the
 * return into the traced function (just past that site) above its saved
 * rbp, and the caller's return address one slot further; one entered by
 * a jmp (x86 kernels since 6.19) has the caller's return address right
 * there. Which one it is shows per call: a slot pointing just past the
 * function's start is the fentry site's return. (A recursive call's
 * return address lies further in.)
 */
static __always_inline const void *tramp_caller_at(void *ctx, __u64 ck)
{
	const __u64 *slot = (const __u64 *)ctx + BG_CK_NREGS(ck) + 2;
	__u32 idx = BG_CK_INDEX(ck);
	struct bg_frange *r = bpf_map_lookup_elem(&bg_franges, &idx);
	__u64 v = 0;

	if (!r || !r->hi || bpf_probe_read_kernel(&v, sizeof(v), slot))
		return slot + 1;
	if (v > r->lo && v <= r->lo + BG_FENTRY_SITE_END) {
		stat_inc(BG_ST_TRAMP_CALL, 1);
		return slot + 1;
	}
	stat_inc(BG_ST_TRAMP_JMP, 1);
	return slot;
}

/* Is the hooked function one of the -G functions (bg_graph_lo)? */
static __always_inline bool graph_func_ip(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	for (int i = 0; i < BG_GRAPH_IPS; i++)
		if (i < bg_graph_n && ip - bg_graph_lo[i] < BG_FENTRY_SITE_END)
			return true;
	return false;
}

enum bg_run {
	BG_RUN_ENTRY, BG_RUN_EXIT, BG_RUN_KENTRY, BG_RUN_KEXIT, BG_RUN_ICALL,
	BG_RUN_MENTRY, BG_RUN_MEXIT, /* kprobe.multi: as KENTRY/KEXIT, with generations */
	BG_RUN_WENTRY, /* the wide net's entry (bg_wide); its return runs as MEXIT */
	BG_RUN_TENTRY, /* fentry.multi (bg_tentry): as ENTRY, graph functions by cookie */
};

/*
 * Runs the work of program kind what unless this task is already inside
 * one of our programs (see task_state.busy). graph: the fentry
 * program of -G functions, the only one that starts graphs; the others
 * leave its filters and task-state creation out, which the verifier then
 * need not walk for every clone.
 */
static __always_inline bool guarded(void *ctx, enum bg_run what, bool graph)
{
	struct pt_regs *regs = ctx;
	struct task_state *st, *ran;
	bool start, was, now_in, opened;
	__u64 ck, ret = 0;
	__u32 opens = 0;

	/*
	 * Most runs are for tasks outside any graph (a traced function called
	 * by unrelated work): while no task is inside one (bg_active), one load
	 * and out; else one task storage lookup and out. Only an entry
	 * function can start a graph (and create the state: on_entry).
	 */
	bool kentry = what == BG_RUN_KENTRY || what == BG_RUN_MENTRY || what == BG_RUN_WENTRY ||
		      what == BG_RUN_TENTRY;

	if (bg_stopped || (!graph && !kentry && !bg_active))
		return false;
	/*
	 * The net starts no graph (no BG_CK_GRAPH in its cookies): outside
	 * one, and once narrowed, it returns before the cookie, which on
	 * kprobe.multi is a binary search among the link's 40 000 addresses.
	 */
	if (what == BG_RUN_WENTRY) {
		if (bg_wide_probe_tgid &&
		    (bpf_get_current_pid_tgid() >> 32) == bg_wide_probe_tgid)
			__sync_fetch_and_add(&bg_wide_probed, 1);
		if (!bg_wide_on || !bg_active)
			return false;
		/* A reader starved under a load does not keep the net on. */
		if (bg_wide_ended && bpf_ktime_get_ns() - bg_wide_ended > BG_WIDE_GRACE_NS)
			return false;
	}
	/*
	 * The plan's entries, for all the work outside a graph: with no task
	 * inside one, only a -G function can start one, and its address
	 * says so more cheaply than the cookie.
	 */
	if (what == BG_RUN_MENTRY && bg_graph_n && !bg_active && !graph_func_ip(ctx))
		return false;
	ck = bpf_get_attach_cookie(ctx);
	/* A link pair being replaced, or not in use yet: see BG_CK_GEN. */
	if (what == BG_RUN_MENTRY && !(ck & BG_CK_KEEP) && BG_CK_GEN(ck) != (bg_gen & 0xff))
		return false;
	/* The net records this function until it is off: see BG_CK_NET. */
	if ((ck & BG_CK_NET) && bg_wide_on)
		return false;
	start = graph || (kentry && (ck & BG_CK_GRAPH));
	if (!start && !bg_active)
		return false;
	st = bpf_task_storage_get(&bg_tasks, bpf_get_current_task_btf(), 0, 0);
	was = st && (st->depth || st->skip);
	if (!start && !was)
		return false;
	if (st) {
		if (st->busy) {
			stat_inc(BG_ST_NESTED, 1);
			return false;
		}
		st->busy = 1;
		opens = st->opens;
	}
	ran = st;
	switch (what) {
	case BG_RUN_ENTRY:
	case BG_RUN_TENTRY:
		ran = on_entry(ctx, st, ck, (__u64)ctx, tramp_caller_at(ctx, ck), 0, BG_ARGS_TRAMP);
		break;
	case BG_RUN_EXIT:
		bpf_get_func_ret(ctx, &ret);
		if (st)
			on_exit(st, ck, (__u64)ctx, ret, false, true);
		break;
	case BG_RUN_KENTRY:
		/*
		 * On a call site (icall.h): its caller is the traced function.
		 * The argument registers are set for the call already; with no
		 * return address read, ctx only serves them.
		 */
		if (ck & BG_CK_CALLSITE) {
			ran = on_entry(ctx, st, ck, (ck & BG_CK_TAIL)   ? BG_FRAME_TAIL :
					       (ck & BG_CK_LAZY) ? BG_FRAME_LAZY :
								   BG_FRAME_KPROBE, NULL, 0, BG_ARGS_REGS_AT);
			break;
		}
		/* At the function's first instruction: sp points at the return address. */
		if (hide_own_call(regs, st, ck, &ret))
			break;
		ran = on_entry(ctx, st, ck, BG_FRAME_KPROBE, NULL, ret, BG_ARGS_REGS_AT);
		break;
	case BG_RUN_KEXIT:
		if (st)
			on_exit(st, ck, BG_FRAME_KPROBE, PT_REGS_RC(regs), false, false);
		break;
	case BG_RUN_MENTRY:
	case BG_RUN_WENTRY:
		if (hide_own_call(regs, st, ck, &ret))
			break;
		/* No return hook (wide__narrow()): closed at the task's next event. */
		if (ck & BG_CK_LAZY) {
			ran = on_entry(ctx, st, ck, BG_FRAME_LAZY, NULL, ret, BG_ARGS_REGS_AT);
			break;
		}
		ran = on_entry(ctx, st, ck, BG_FRAME_MULTI(BG_CK_GEN(ck)), NULL, ret,
			       BG_ARGS_REGS_AT);
		break;
	case BG_RUN_MEXIT:
		if (st)
			on_exit(st, ck, BG_FRAME_MULTI(BG_CK_GEN(ck)), PT_REGS_RC(regs), true, false);
		break;
	case BG_RUN_ICALL:
		if (st)
			on_icall(regs, st);
		break;
	}
	/* st if it existed; else the state an entry function created (busy). */
	if (st)
		ran = st;
	if (!ran)
		return false;
	opened = ran->opens != opens;
	now_in = ran->depth || ran->skip;
	if (now_in != was) {
		__sync_fetch_and_add(&bg_active, now_in ? 1 : -1);
		/* Never below 0 if every transition is counted (read once, racy but
		 * only ever >= 0 then). */
		if (!now_in && bg_active < 0)
			stat_inc(BG_ST_ACTIVE_NEG, 1);
	}
	ran->busy = 0;
	return opened;
}

SEC("fentry")
int BPF_PROG(bg_entry)
{
	guarded(ctx, BG_RUN_ENTRY, false);
	return 0;
}

/* bg_entry for -G functions (BG_CK_GRAPH): it starts graphs. */
SEC("fentry")
int BPF_PROG(bg_entry_graph)
{
	guarded(ctx, BG_RUN_ENTRY, true);
	return 0;
}

/*
 * The tracing_multi tier (fentry.multi, attach type BPF_TRACE_FENTRY_MULTI):
 * one program for every function of the plan, its instructions loaded
 * again by user space with that attach type (user/hook/attach.c). Each
 * function still gets a trampoline of its own, built for its prototype,
 * so ctx is laid out as for bg_entry; the cookie's BG_CK_GRAPH says which
 * functions may start a graph. Its exit twin is bg_exit's code.
 */
SEC("fentry")
int BPF_PROG(bg_tentry)
{
	guarded(ctx, BG_RUN_TENTRY, false);
	return 0;
}

SEC("fexit")
int BPF_PROG(bg_exit)
{
	guarded(ctx, BG_RUN_EXIT, false);
	return 0;
}

/*
 * Functions fentry cannot attach to (no BTF: compiler clones such as
 * name.part.0; variadic; refused by the kernel) are kprobed instead:
 * kprobe on the first instruction and kretprobe, or, with
 * BG_CK_CALLSITE, kprobes on a call to the function in a traced function
 * and on the instruction after it (bg_kexit as a plain kprobe: the
 * return value is in rax there too).
 */
SEC("kprobe")
int bg_kentry(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_KENTRY, false);
	return 0;
}

SEC("kretprobe")
int bg_kexit(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_KEXIT, false);
	return 0;
}

/*
 * The same two for the kprobe.multi tier (kernels with CONFIG_FPROBE):
 * one link each for a whole batch of functions, by address, the cookie
 * per address. The return link is made first, so that on kernels where
 * the newest ftrace callback runs first the entry program reads the
 * caller's return address before the return hook replaces it.
 */
SEC("kprobe.multi")
int bg_mentry(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_MENTRY, false);
	return 0;
}

SEC("kretprobe.multi")
int bg_mexit(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_MEXIT, false);
	return 0;
}

/*
 * A kprobe.session program's run (loaded as such by user space: libbpf 1.1
 * does not know the section). It runs at the entry and, when the entry
 * returned 0, at the return of the same call: only calls that opened a
 * frame (inside a graph) ask for their return, so unrelated work pays one
 * entry hook per call, and no exit comes without its entry. Which of the
 * two runs now shows in the registers: at the entry the ip is just past
 * the fentry site, at the return it is the return address into the caller
 * (a call of the function to itself returns further in than
 * BG_FENTRY_SITE_END). bpf_session_is_return() would say it too, but its
 * signature differs between kernels (6.12: no argument; 7.x: the context).
 */
static __always_inline int session_run(struct pt_regs *regs, enum bg_run entry)
{
	if (PT_REGS_IP(regs) - bpf_get_func_ip(regs) >= BG_FENTRY_SITE_END) {
		guarded(regs, BG_RUN_MEXIT, false);
		return 0;
	}
	return guarded(regs, entry, false) ? 0 : 1;
}

/* The plan on the kprobe.multi tier where the kernel has kprobe.session links (6.10+). */
SEC("kprobe.multi")
int bg_msession(struct pt_regs *regs)
{
	return session_run(regs, BG_RUN_MENTRY);
}

/*
 * The wide net: one kprobe.session link over every traceable function
 * that has no link of its own (user/hook/wide.h), so that the first traced
 * call is complete before anything was learned about it. A program of its
 * own, not bg_msession choosing by cookie: sharing one cost a loaded
 * machine more while the net was open (stop_bounds 'dur' on 6.12).
 */
SEC("kprobe.multi")
int bg_wide(struct pt_regs *regs)
{
	return session_run(regs, BG_RUN_WENTRY);
}

/*
 * Indirect calls out of traced functions (function pointers: VFS and
 * socket ops, LSM hooks): a kprobe just before each call site of a traced
 * function reads the register holding the target, or the pointer the
 * target is about to be loaded from. Each new target met inside a
 * graph is reported once, and user space attaches it, so the calls after
 * this one show the function and what it calls.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u32); /* BG_TARGET_SEEN, or BG_TARGET_WRAPPED(functab index) */
} bg_targets SEC(".maps");

/* Offset of register reg in struct pt_regs, or -1. */
static __always_inline int reg_offset(__u32 reg)
{
	switch (reg) {
	case BG_REG_AX: return __builtin_offsetof(struct pt_regs, ax);
	case BG_REG_CX: return __builtin_offsetof(struct pt_regs, cx);
	case BG_REG_DX: return __builtin_offsetof(struct pt_regs, dx);
	case BG_REG_BX: return __builtin_offsetof(struct pt_regs, bx);
	case BG_REG_BP: return __builtin_offsetof(struct pt_regs, bp);
	case BG_REG_SI: return __builtin_offsetof(struct pt_regs, si);
	case BG_REG_DI: return __builtin_offsetof(struct pt_regs, di);
	case BG_REG_R8: return __builtin_offsetof(struct pt_regs, r8);
	case BG_REG_R9: return __builtin_offsetof(struct pt_regs, r9);
	case BG_REG_R10: return __builtin_offsetof(struct pt_regs, r10);
	case BG_REG_R11: return __builtin_offsetof(struct pt_regs, r11);
	case BG_REG_R12: return __builtin_offsetof(struct pt_regs, r12);
	case BG_REG_R13: return __builtin_offsetof(struct pt_regs, r13);
	case BG_REG_R14: return __builtin_offsetof(struct pt_regs, r14);
	case BG_REG_R15: return __builtin_offsetof(struct pt_regs, r15);
	default: return -1;
	}
}

static __always_inline void on_icall(struct pt_regs *regs, struct task_state *st)
{
	__u64 ck = bpf_get_attach_cookie(regs), target = 0;
	int off = reg_offset(BG_IC_REG(ck));
	__u32 seen = BG_TARGET_SEEN, *v;
	long err;

	if (!st->depth || st->skip)
		return;
	close_lazy(st); /* events in order: a lazy frame before closes first */
	/* The verifier refuses ctx loads at a computed offset: read it. */
	if (off < 0 || bpf_probe_read_kernel(&target, sizeof(target), (char *)regs + off))
		return;
	if ((ck & BG_IC_LOAD) &&
	    bpf_probe_read_kernel(&target, sizeof(target), (char *)target + BG_IC_DISP(ck)))
		return;
	if (!target)
		return;
	v = bpf_map_lookup_elem(&bg_targets, &target);
	if (v && *v != BG_TARGET_SEEN) {
		/*
		 * A function no trampoline may hook, called through a pointer
		 * (the clocksource's read): its frame opens here and closes at
		 * the task's next event, as for a call site without an exit probe.
		 */
		on_entry(NULL, st, BG_TARGET_INDEX(*v) | BG_CK_CALLSITE | BG_CK_LAZY,
			 BG_FRAME_LAZY, NULL, 0, BG_ARGS_NONE);
		return;
	}
	if (v || (st->irq && !bg_discover_irqs))
		return;
	err = bpf_map_update_elem(&bg_targets, &target, &seen, BPF_NOEXIST);
	if (err) {
		if (err != -17 /* EEXIST: reported by another CPU */)
			stat_inc(BG_ST_TARGETS_FULL, 1);
		return;
	}
	emit(st, BG_REC_TARGET, bpf_ktime_get_ns(), target, 0, BG_IC_FUNC(ck), st->depth);
	/* Delivered on the way back to user space, not here. */
	if (bg_pause_tgid && (bpf_get_current_pid_tgid() >> 32) == bg_pause_tgid)
		bpf_send_signal(19 /* SIGSTOP */);
}

/*
 * On every context switch. A task inside a graph leaves this CPU's batch
 * behind (see struct bg_batch): flush it now, before the task can go on
 * elsewhere or sleep for long. The ring buffer's lock taken meanwhile is a
 * traced call of this task: busy hides it.
 *
 * nosleep-time (bg_nosleep): function_graph's sched_switch probe moves the
 * start of every open call of a task switched back in by the time it was
 * out, so durations leave sleep out. Same here, on the task's state.
 */
const volatile __u8 bg_nosleep = 0;

SEC("tp_btf/sched_switch")
int BPF_PROG(bg_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now, away;
	struct task_state *st;
	__u32 busy;

	/* No task inside a graph: none leaves or comes back inside one. */
	if (bg_stopped || !bg_active)
		return 0;
	st = bpf_task_storage_get(&bg_tasks, prev, 0, 0);
	if (st && (st->depth || st->skip)) {
		busy = st->busy;
		st->busy = 1;
		flush_cpu();
		st->busy = busy;
		/*
		 * function_graph with a pid filter (set_ftrace_pid, perf ftrace
		 * -p, trace-cmd -P) decides at this tracepoint whether the CPU
		 * traces on: for next. When next is not traced, the calls prev
		 * makes on its way out (enter_lazy_tlb, the FPU state's save)
		 * are not shown: nor here, with -p or a COMMAND.
		 */
		st->switching = bg_filter_pid && !pid_listed(next) ? BG_SWITCH_HIDE : BG_SWITCH_OUT;
		if (bg_nosleep && st->depth)
			st->out_at = bpf_ktime_get_ns();
	}
	st = bpf_task_storage_get(&bg_tasks, next, 0, 0);
	if (!st)
		return 0;
	st->switching = 0;
	if (!bg_nosleep || !st->out_at)
		return 0;
	now = bpf_ktime_get_ns();
	away = now - st->out_at;
	st->out_at = 0;
	for (__u32 i = 0; i < BG_MAX_DEPTH; i++) {
		if (i >= st->depth)
			break;
		st->calltime[i] += away;
	}
	return 0;
}

/*
 * Guarded like the others: the ring buffer's lock and the map's are
 * traced functions too, and their programs must not run inside this one.
 */
SEC("kprobe")
int bg_icall(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_ICALL, false);
	return 0;
}
