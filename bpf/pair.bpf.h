/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Included by graph.bpf.c only: the pairing of entries and exits. An entry
 * opens a frame on the task's stack of calls (task_state) and records it;
 * an exit closes the frame it matches, and those above it that lost their
 * exits. Hiding (-x, --max-depth), tracing_thresh and the frames no exit
 * closes (tail jumps, lazy call sites) are decided here.
 */
#ifndef BG_PAIR_BPF_H
#define BG_PAIR_BPF_H

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
	if (st->in_pause) {
		if (bg_pausing || bpf_ktime_get_ns() - bg_cont_ns < BG_PAUSE_TAIL_NS) {
			stat_inc(BG_ST_PAUSED, 1);
			return NULL;
		}
		st->in_pause = 0;
	}
	emit_comm(st);
	return st;
}

/*
 * Pop frame top (the task's innermost) at now and record its exit (unless
 * shorter than tracing_thresh); hot as emit_as().
 */
static __always_inline void pop_frame(struct task_state *st, __u32 top, __u64 now, __u8 type,
				      __u64 ret, __u32 func, bool hot)
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
			st->stop_at_end = 1;
		}
	}
	if (!top && bg_stop_req && (bpf_get_current_pid_tgid() >> 32) == bg_pause_tgid) {
		bg_stop_req = 0;
		st->stop_at_end = 1;
	}
	/* With stop_at_end, emit() wakes the reader up: the target or the pause waits. */
	if (!bg_thresh_ns || dur >= bg_thresh_ns)
		emit_as(st, type, now, ret, dur, func, top, hot);
	else if (!top)
		flush_cpu(); /* the graph ended, its last exit below the threshold */
	/* SIGSTOP: delivered on the way back to user space. */
	if (!top && st->stop_at_end) {
		st->stop_at_end = 0;
		bg_pausing = 1;
		bpf_send_signal(19 /* SIGSTOP */);
	}
}

/*
 * Frames above a match that lost their exit (a missed program run). A
 * higher limit makes the verifier walk emit() so often that each exit
 * clone loads many times slower (docs/performance.md, "Costs behind the
 * code"), and the clones cannot carry a bpf_loop() callback instead (they
 * are loaded without BTF: EINVAL).
 */
#define BG_UNWIND_MAX 4
/*
 * The bound in use: BG_UNWIND_MAX, or BG_UNWIND_DEEP where the wide net
 * may have an entry-only part (bpfobj_config.wide_ranges), whose chains
 * of lazy frames are as deep as the calls between functions with return
 * hooks: cut at five, a loopback TCP send's receive in the softirq came
 * out at the wrong depth (6.12, the net bounded as on 16 CPUs: first-call
 * recall 0.577 with five, 0.641 with twelve). Read-only data, known to
 * the verifier: the loops below go to BG_UNWIND_DEEP and stop at
 * bg_unwind, so that with BG_UNWIND_MAX it walks about what it did with
 * a constant (the deep bound costs the programs' load 0.3 s on 6.12,
 * paid only there). Not in close_returned() and other_gen_open(), which
 * concern other frames.
 */
const volatile __u8 bg_unwind = BG_UNWIND_MAX;

/*
 * Is the entry of function idx returning to caller a call the lazy frame
 * top makes, where its code's range is known (bg_wranges)? Yes if caller
 * lies in that code, or if it is the lazy call's own return address and
 * the function another: a tail call (the kernel's function_graph nests
 * it too). A loop calling several functions from one site through a
 * pointer looks the same (the return address, the stack pointer), so a
 * frame entered so (the one below has the same return address) takes no
 * such call: a loop's calls nest one level below the first, not each in
 * the one before, and a chain of tail calls one level below the first.
 * No more than BG_LAZY_NEST lazy frames in a row: an exit closes the one
 * on top (close_lazy()) and what lies above its own frame then as returns
 * missed, bg_unwind at most, and a graph whose frames cannot all close
 * never ends. (An entry closes two at most, bg_unwind with the deep
 * bound, then opens one.)
 */
#define BG_LAZY_NEST (1 + bg_unwind)

static __always_inline bool lazy_holds(struct task_state *st, __u32 top, __u64 caller, __u32 idx)
{
	__u32 func = st->func[top & BG_DEPTH_MASK], i = func & ~BG_FUNC_WIDE;
	__u32 nest = BG_LAZY_NEST;
	struct bg_frange *r;

	if (!caller || !(func & BG_FUNC_WIDE))
		return false;
	r = bpf_map_lookup_elem(&bg_wranges, &i);
	if (!r || !r->hi)
		return false;
	if (top >= nest - 1) {
		__u32 k;

		for (k = 1; k < 1 + BG_UNWIND_DEEP; k++)
			if (k >= nest || st->frame[(top - k) & BG_DEPTH_MASK] != BG_FRAME_LAZY)
				break;
		if (k == nest)
			return false;
	}
	if (caller > r->lo && caller <= r->hi)
		return true;
	return caller == st->caller[top & BG_DEPTH_MASK] && idx != func &&
	       (!top || st->caller[(top - 1) & BG_DEPTH_MASK] != caller);
}

/*
 * Pops the top frame if it is a lazy one that the entry of function idx
 * returning to caller (0: any event) is not a call of.
 */
static __always_inline bool close_lazy_top(struct task_state *st, __u64 caller, __u32 idx)
{
	__u32 top = st->depth;

	if (!top || st->skip)
		return false;
	top -= 1;
	/* Keep the mask: clang folds the range tests into one the verifier cannot follow. */
	barrier_var(top);
	top &= BG_DEPTH_MASK;
	if (top != st->depth - 1 || st->frame[top] != BG_FRAME_LAZY ||
	    lazy_holds(st, top, caller, idx))
		return false;
	pop_frame(st, top, bpf_ktime_get_ns(), BG_REC_EXIT | BG_RF_NOEXIT, 0, st->func[top], false);
	return true;
}

static __always_inline void close_lazy_frames(struct task_state *st, __u64 caller, __u32 idx)
{
	/* Two with the usual bound; as deep as an exit unwinds with the deep one. */
	__u32 most = bg_unwind > BG_UNWIND_MAX ? bg_unwind : 2;

	for (__u32 j = 0; j < BG_UNWIND_DEEP; j++)
		if (j >= most || !close_lazy_top(st, caller, idx) || !caller)
			break;
}

#ifdef BG_LDX
/*
 * close_lazy_frames() out of line (see bg_emit_call): inlined in every
 * entry, it was about a third of what the verifier walked in the kprobe
 * programs (bg_msession 51k instructions on 7.3, each about 12 us of a
 * start under emulation), though a lazy frame is seldom on top. In the
 * object for 6.2 and later only (BG_LDX, as bg_called_by_us()): 6.1's
 * verifier checks a global function in every program that holds it,
 * called or not, and 6.1's programs are on trampolines, inline anyway.
 */
__noinline int bg_close_lazy(struct task_state *st, __u64 caller, __u32 idx)
{
	/* A global function's pointer may be NULL for the verifier (6.8 and later). */
	if (st)
		close_lazy_frames(st, caller, idx);
	return 0;
}
#endif

/*
 * The task's next event after a BG_CK_LAZY call: the callee has returned
 * by now (it calls nothing traced), close its frame first. Unless the
 * event is an entry whose return address (caller) lies in that callee's
 * code, where its range is known (the wide net's entry-only part): a call
 * it makes, which nests in it. Two levels of such frames at most close
 * on one event; an exit closes what is left as returns missed.
 */
static __always_inline void close_lazy(struct task_state *st, __u64 caller, __u32 idx)
{
#ifdef BG_ABLATE_LAZY
	return; /* a measurement build (tests/bench/ablate.sh): lazy frames stay open */
#endif
#ifdef BG_LDX
	if (bg_emit_call) {
		__u32 d = st->depth;

		/* Nothing to close: no lazy frame on top (close_lazy_top()'s first tests). */
		if (d && !st->skip && st->frame[(d - 1) & BG_DEPTH_MASK] == BG_FRAME_LAZY)
			bg_close_lazy(st, caller, idx);
		return;
	}
#endif
	close_lazy_frames(st, caller, idx);
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

		if (bpf_map_lookup_elem(&bg_detail, &idx)) {
			put_entry_detail(st, r, n, idx, now);
			return;
		}
	}
	put_entry_args(st, r, n, now);
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
	if (b->n >= BG_BATCH - bg_unwind)
		flush(b, BPF_RB_NO_WAKEUP);
	for (int j = 0; j < BG_UNWIND_DEEP; j++) {
		__u32 k = top - j;

		if (j >= n || j >= bg_unwind)
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
 * A task's kernel stack: THREAD_SIZE bytes from task->stack (16 KiB on
 * x86-64 without KASAN; a larger stack only makes fewer frames compare).
 * Interrupts and exceptions run on stacks of their own.
 */
#define BG_STACK_SIZE (16 << 10)

/*
 * Frames an entry at stack pointer sp (the address of its return
 * address: the caller's sp at the call) shows returned although their
 * exits never came (a missed program run, a return hook the kernel
 * skipped), innermost first, up to BG_UNWIND_MAX, closed as an exit's
 * unwinding closes them (docs/kernels.md, "Lost exits"):
 * - with sp on the task's stack, a frame on another stack (an interrupt
 *   or exception frame: the task is back on its own stack, so it is over);
 * - a frame on sp's stack at or above sp. At sp itself a call of another
 *   function only where the return addresses differ: a function entered
 *   by a tail jump has its jumper's sp and return address, and
 *   function_graph nests it in the jumper.
 * Without this a graph whose root lost its exit never ends and every
 * later graph nests in it. caller: the new call's return address (0 if
 * it could not be read). False when that closed the graph and the entry
 * cannot start one.
 */
static __always_inline bool close_returned(struct task_state *st, __u64 sp, __u64 ck,
					   __u64 caller)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 lo = (__u64)BPF_CORE_READ(task, stack);
	__u32 d = st->depth, idx = BG_CK_INDEX(ck);
	bool on_task = sp - lo < BG_STACK_SIZE;
	int n = 0;

	for (int j = 0; j < BG_UNWIND_MAX; j++) {
		__u32 k = d - 1 - j;
		__u64 o;

		if (j >= d)
			break;
		k &= BG_DEPTH_MASK;
		barrier_var(k);
		k &= BG_DEPTH_MASK;
		o = st->sp[k];
		if (!o || !BG_FRAME_HAS_SP(st->frame[k]))
			break;
		if (on_task && o - lo >= BG_STACK_SIZE) {
			n++;
			continue;
		}
		if (o > sp || (o ^ sp) >= BG_STACK_SIZE)
			break;
		if (o == sp && st->func[k] != idx) {
			if (!caller || caller == st->caller[k] || caller == bg_hooked_ret[0] ||
			    caller == bg_hooked_ret[1])
				break;
		}
		n++;
	}
	if (!n)
		return true;
	stat_inc(BG_ST_UNWOUND, n);
	emit_noexits(st, d - 1, n, bpf_ktime_get_ns());
	st->depth = d - n;
	if (st->depth < st->irq)
		st->irq = 0;
	return st->depth || (ck & BG_CK_GRAPH);
}

/*
 * One call entered. frame pairs it with its exit (see task_state);
 * caller: its return address into the caller (0 for none); caller_at,
 * on trampolines only, where that address lies (tramp_caller()), NULL
 * elsewhere; args where its arguments are (funcgraph-args). unwind:
 * close the frames the entry's sp (caller_at) shows returned
 * (close_returned()); a constant, true on fentry-multi only (guarded()
 * says why). hot: as emit_as(), a constant.
 * Returns the task's state (created here by an entry function), or NULL.
 */
static __always_inline struct task_state *on_entry(void *ctx, struct task_state *st, __u64 ck,
						   __u64 frame, const void *caller_at,
						   __u64 caller, enum bg_args_from args,
						   bool unwind, bool hot)
{
	__u32 limit = bg_max_depth ? bg_max_depth : BG_MAX_DEPTH;
	__u32 d;
	__u64 now, shown, sp = 0;
	__u8 flags = 0;

	/* Not in a graph: an entry function's program, which may start one. */
	if (!st || (!st->depth && !st->skip))
		st = enter_state(st, ck);
	if (!st)
		return NULL;
	if (unwind && caller_at) {
		/* Its address as a number, through the map: pointers take no '^'. */
		st->sp[st->depth & BG_DEPTH_MASK] = (__u64)caller_at;
		sp = *(volatile __u64 *)&st->sp[st->depth & BG_DEPTH_MASK];
	}
	/* Not with caller_at (trampolines): no lazy frame there has a range. */
	close_lazy(st, caller_at ? 0 : caller, BG_CK_INDEX(ck));
	/* Closed the graph: a new one, if this task may start one now. */
	if (unwind && sp && st->depth && !st->skip &&
	    (!close_returned(st, sp, ck, caller) || (!st->depth && !enter_state(st, ck))))
		return st;
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
	/* Not shown with tracing_thresh: entries are not written. */
	if (bg_thresh_ns)
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
	if (caller_at) /* trampolines only: see task_state.sp */
		st->sp[d & BG_DEPTH_MASK] = sp;
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
		emit_as(st, BG_REC_ENTRY | flags, now, shown, 0, BG_CK_INDEX(ck), d, hot);
	}
	/* As user space's discovery: interrupt work only when asked. */
	if (ctx && caller && d && (!flags || bg_discover_irqs))
		walk_callers(ctx, st, d, caller, now, flags);
	return st;
}

static __always_inline bool frame_is(struct task_state *st, __u32 i, __u32 idx,
				     __u64 frame)
{
	return st->func[i & BG_DEPTH_MASK] == idx &&
	       st->frame[i & BG_DEPTH_MASK] == frame;
}

/*
 * Is frame i the one an exit of function idx closes? A kprobe.session
 * return (session) is always the call's whose entry took it, by whichever
 * link: any generation's frame of the function. An entry's generation is
 * the cookie table's, which while a merge begins can be the old link's
 * when the new link took the call: compared, it left the frame open for
 * good whenever the exit had to look below the top frame.
 */
static __always_inline bool exit_frame_is(struct task_state *st, __u32 i, __u32 idx,
					  __u64 frame, bool session)
{
	if (!session)
		return frame_is(st, i, idx, frame);
	return st->func[i & BG_DEPTH_MASK] == idx &&
	       BG_FRAME_IS_MULTI(st->frame[i & BG_DEPTH_MASK]);
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
 * A kprobe.session return's function index and frame (sctx: its
 * context): the top frame's when that frame is the kprobe.multi hook's of
 * the function at the hooked address (its code range, bg_franges, says by
 * the index the frame was opened with), else the link cookie's. A
 * session's return runs only for a call whose entry opened a frame (or a
 * hidden one), the innermost open one unless an exit was lost; the cookie
 * of a kprobe.multi link is a binary search among its addresses, so user
 * space sets the range of every function it hooks (-v counts the returns
 * that searched).
 */
static __always_inline void session_frame(struct task_state *st, __u32 top, void *sctx,
					  __u32 *idx, __u64 *frame)
{
	__u32 f = st->func[top & BG_DEPTH_MASK];
	struct bg_frange *r = bpf_map_lookup_elem(&bg_franges, &f);
	__u64 ck;

	if (r && bpf_get_func_ip(sctx) - r->lo < BG_FENTRY_SITE_END &&
	    BG_FRAME_IS_MULTI(st->frame[top & BG_DEPTH_MASK])) {
		*idx = f;
		*frame = st->frame[top & BG_DEPTH_MASK];
		return;
	}
	stat_inc(BG_ST_SEXIT_SEARCH, 1);
	ck = bpf_get_attach_cookie(sctx);
	*idx = BG_CK_INDEX(ck);
	*frame = BG_FRAME_MULTI(BG_CK_GEN(ck));
}

/*
 * The call of frame returned ret; st: the task's state, inside a graph.
 * multi: a kprobe.multi exit (frame is BG_FRAME_MULTI); tramp: a fexit
 * (frame is the ctx pointer, which the verifier lets no arithmetic touch).
 * sctx: a kprobe.session return's context, ck and frame then found by
 * session_frame(). hot: as emit_as(), a constant.
 */
static __always_inline void on_exit(struct task_state *st, __u64 ck, __u64 frame, __u64 ret,
				    bool multi, bool tramp, void *sctx, bool hot)
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
	close_lazy(st, 0, 0);
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
	if (sctx)
		session_frame(st, top, sctx, &idx, &frame);
	if (!exit_frame_is(st, top, idx, frame, sctx != NULL)) {
		/*
		 * While two kprobe.multi generations are attached, a return can
		 * run both exit programs: the other generation's is not this
		 * call's (its entry was not recorded by that generation). A
		 * session's return has one link's program only.
		 */
		if (multi && !sctx && other_gen_open(st, top, idx, frame))
			return;
		for (i = 1; i <= BG_UNWIND_DEEP; i++) {
			if (i > bg_unwind || i > top ||
			    exit_frame_is(st, top - i, idx, frame, sctx != NULL))
				break;
		}
		if (i > top || i > bg_unwind) {
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
	pop_frame(st, top, bpf_ktime_get_ns(), BG_REC_EXIT, ret, idx, hot);
}

#endif
