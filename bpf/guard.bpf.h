/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Included by graph.bpf.c only: the run guard every program but bg_switch
 * goes through (guarded()). It decides which runs have work to do and
 * which may start a graph, most before any task state is looked up; keeps
 * to one run at a time per task (our programs call traced functions: the
 * ring buffer's lock); hides the calls trampolines make around our own
 * runs; and hands each run's work to the pairing (pair.bpf.h) or the
 * indirect-call probes (icall.bpf.h).
 */
#ifndef BG_GUARD_BPF_H
#define BG_GUARD_BPF_H

#ifdef BG_LDX
/* A cast the verifier turns into a move; loads through it are guarded plain loads. */
extern void *bpf_rdonly_cast(void *obj, __u32 btf_id) __ksym;
#endif

/*
 * The word at addr, a kernel stack address (the return address at a
 * function's first instruction), 0 if it cannot be read. The object built
 * with BG_LDX, loaded where kprobe programs may call bpf_rdonly_cast()
 * (6.2 and later; user/hook/caps.c probes it), reads it with one load the
 * JIT guards by an exception table entry (a fault reads 0): cheaper than
 * the helper call to bpf_probe_read_kernel(), which cost a failed open
 * about 15 us on 7.3. Any kernel struct with an unsigned long first gives
 * the load its type.
 */
static __always_inline __u64 stack_word(__u64 addr)
{
	__u64 v = 0;

#ifdef BG_LDX
	const struct rb_node *n =
		bpf_rdonly_cast((void *)addr, bpf_core_type_id_kernel(struct rb_node));

	v = n->__rb_parent_color;
#else
	if (bpf_probe_read_kernel(&v, sizeof(v), (void *)addr))
		v = 0;
#endif
	return v;
}

/*
 * Is addr in one of the trampoline helpers' ranges? Asked at every kprobe
 * entry inside a graph: a search of the sorted starts, four steps (a scan
 * of the sixteen cost about 7% of a traced call's added time), after a
 * check of the span they cover, outside which nearly every address lies.
 */
_Static_assert(BG_SELF_RANGES == 16, "in_self_range() searches 16 ranges");
static __always_inline bool in_self_range(__u64 addr)
{
	__u32 i = 0;

	if (addr < bg_self_lo[0] || addr >= bg_self_end)
		return false;
	if (addr >= bg_self_lo[i + 8])
		i += 8;
	if (addr >= bg_self_lo[i + 4])
		i += 4;
	if (addr >= bg_self_lo[i + 2])
		i += 2;
	if (addr >= bg_self_lo[i + 1])
		i += 1;
	return addr >= bg_self_lo[i] && addr < bg_self_hi[i];
}

/*
 * Is ret, a hooked function's return address, in one of the trampoline's
 * helpers, or just past the trampoline's call of one? The latter is a
 * tail call: __bpf_tramp_enter and __bpf_tramp_exit (around the traced
 * function, in every trampoline with an fexit program) end in
 * percpu_ref_get/put's rcu_read_unlock(), compiled as a jmp to
 * __rcu_read_unlock, which then returns straight into the trampoline
 * image (7.3). Read from the call instruction (e8 rel32) before ret.
 * A global function, checked once: inlined, its ways out multiplied what
 * the verifier walked of every kprobe entry after it (bg_kentry and
 * bg_msession about 6k instructions each on 7.3). Kprobe programs only
 * (hide_own_call()), which are loaded with their BTF function records;
 * inline in 6.1's object (see bg_close_lazy()).
 */
#ifdef BG_LDX
__noinline int bg_called_by_us(__u64 ret)
#else
static __always_inline int bg_called_by_us(__u64 ret)
#endif
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
	__u64 ret = stack_word(PT_REGS_SP(regs));

	/*
	 * What the verifier learns of ret below (ranges against the
	 * trampoline's helpers) would stay with the copy on_entry() shows
	 * and keep it from pruning states there: give it an unknown one.
	 */
	*caller = ret ^ bg_opaque_zero;
#ifdef BG_ABLATE_HIDE
	return false; /* a measurement build (tests/bench/ablate.sh): no check */
#endif
	if (!ret || !bg_called_by_us(ret))
		return false;
	if (st && (st->depth || st->skip) && !(ck & BG_CK_LAZY)) {
		st->skip++;
		st->opens++;
	}
	return true;
}

/*
 * Whether a trampoline frame of each layout has been seen (tramp_caller()),
 * counted once each in bg_stats for -v: a count per call was a per-CPU
 * map lookup at every trampoline entry.
 */
__u8 bg_tramp_seen[2] = {};

/*
 * The traced function's return address into its caller, from the
 * trampoline frame; returns where it lies (what on_entry() takes for the
 * call's stack pointer). A trampoline called from the fentry site has
 * the return into the traced function (just past that site) above its
 * saved rbp, and the caller's return address one slot further; one
 * entered by a jmp (x86 kernels since 6.19) has the caller's return
 * address right there. Which one it is shows per call: a slot pointing
 * just past the function's start is the fentry site's return. (A
 * recursive call's return address lies further in.) Both slots in one
 * read: a helper call less per entry than reading the caller after
 * deciding where it is.
 */
static __always_inline const void *tramp_caller(void *ctx, __u64 ck, __u64 *caller)
{
	const __u64 *slot = (const __u64 *)ctx + BG_CK_NREGS(ck) + 2;
	__u32 idx = BG_CK_INDEX(ck), jmp;
	struct bg_frange *r = bpf_map_lookup_elem(&bg_franges, &idx);
	__u64 v[2] = {};

	/*
	 * A failed read (the slots are on the trampoline's own stack: not
	 * seen) leaves v zeroed, the helper clears it: caller 0. Its result
	 * is not looked at: a path on which the verifier knows caller is 0
	 * would be walked through on_entry() on its own (twice the load
	 * time of every entry copy on 6.1).
	 */
	bpf_probe_read_kernel(v, sizeof(v), slot);
	jmp = r && r->hi && !(v[0] > r->lo && v[0] <= r->lo + BG_FENTRY_SITE_END);
	if (r && r->hi && !bg_tramp_seen[jmp]) {
		bg_tramp_seen[jmp] = 1;
		stat_inc(jmp ? BG_ST_TRAMP_JMP : BG_ST_TRAMP_CALL, 1);
	}
	if (jmp) {
		*caller = v[0];
		return slot;
	}
	*caller = v[1];
	return slot + 1;
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
	BG_RUN_WENTRY, /* the wide net's entry (bg_wide); its return runs as SEXIT */
	BG_RUN_TENTRY, /* fentry.multi (bg_tentry): as ENTRY, graph functions by cookie */
	BG_RUN_SEXIT, /* a kprobe.session's return: as MEXIT, the cookie left to on_exit() */
};

/*
 * The link cookie of this run. cached: the program's links are the plan's
 * kprobe.multi links, whose cookies user space keeps in bg_ckc by address
 * (see BG_CKC_BITS); what it does not hold, the kernel's search gives.
 */
static __always_inline __u64 link_cookie(void *ctx, bool cached)
{
	if (cached) {
		__u64 ip = bpf_get_func_ip(ctx), a, ck;
		__u32 h = BG_CKC_HASH(ip);

#pragma unroll
		for (int i = 0; i < BG_CKC_PROBES; i++) {
			__u32 key = (h + i) & (BG_CKC_SLOTS - 1);
			struct bg_ckc_slot *s = bpf_map_lookup_elem(&bg_ckc, &key);

			if (!s)
				break;
			a = *(volatile __u64 *)&s->addr;
			if (a == ip) {
				ck = *(volatile __u64 *)&s->ck;
				if (ck)
					return ck;
				break;
			}
			if (!a)
				break;
		}
		stat_inc(BG_ST_CKC_MISS, 1);
	}
	return bpf_get_attach_cookie(ctx);
}

/* Can a run of kind what start a graph (given its cookie)? */
static __always_inline bool run_kentry(enum bg_run what)
{
	return what == BG_RUN_KENTRY || what == BG_RUN_MENTRY || what == BG_RUN_WENTRY ||
	       what == BG_RUN_TENTRY;
}

/*
 * Most runs are for tasks outside any graph (a traced function called by
 * unrelated work): while no task is inside one (bg_active), one load and
 * out, before anything else. Only an entry function can start a graph
 * (and create the state: on_entry).
 */
static __always_inline bool run_needed(enum bg_run what, bool graph)
{
	return !bg_stopped && (graph || run_kentry(what) || bg_active);
}

/*
 * The tests of a run that need no task state, after run_needed(): false
 * if this run has nothing to do. in: this CPU's bg_cpu_in slot. *ck gets
 * the link cookie, *start whether the run may start a graph.
 */
static __always_inline bool run_wanted(void *ctx, enum bg_run what, bool graph, bool cached,
				       const struct bg_cpu_in *in, __u64 *ck, bool *start)
{
	bool kentry = run_kentry(what), here;

	/*
	 * A session's return runs only where its entry was taken: what the
	 * cookie decides below was decided there (a BG_CK_NET function's
	 * entry is taken only once the net is off, which it stays).
	 */
	if (what == BG_RUN_SEXIT) {
		*ck = 0;
		*start = false;
		return true;
	}
	/*
	 * With a task inside a graph somewhere, the task here may not be
	 * (bg_cpu_in): then only a run that can start a graph goes on.
	 */
	here = bg_active && (!bg_cpu_in_on || in->in);
	if (!graph && !kentry && !here)
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
		if (!bg_wide_on || !here)
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
	if (what == BG_RUN_MENTRY && bg_graph_n && !here && !graph_func_ip(ctx))
		return false;
	*ck = link_cookie(ctx, cached);
	/*
	 * A link pair being replaced, or not in use yet: see BG_CK_GEN. (The
	 * plan's kprobe.session links record in any generation: a call's
	 * second run is told apart by its frame, session_dup().)
	 */
	if (what == BG_RUN_MENTRY && !cached && !(*ck & (BG_CK_KEEP | BG_CK_NETONLY)) &&
	    BG_CK_GEN(*ck) != (bg_gen & 0xff))
		return false;
	/* The net records this function until it is off: see BG_CK_NET. */
	if ((*ck & BG_CK_NET) && bg_wide_on)
		return false;
	/* The keep link, or the call sites that replace it: see BG_CK_SITES. */
	if ((*ck & BG_CK_KEEP) ? bg_rcu_sites : (*ck & BG_CK_SITES) && !bg_rcu_sites)
		return false;
	/* ... and its entry-only part only while it is on (as bg_wide above). */
	if ((*ck & BG_CK_NETONLY) &&
	    (!bg_wide_on ||
	     (bg_wide_ended && bpf_ktime_get_ns() - bg_wide_ended > BG_WIDE_GRACE_NS)))
		return false;
	*start = graph || (kentry && (*ck & BG_CK_GRAPH));
	if (!*start && !here)
		return false;
	return true;
}

/*
 * Is this kprobe.session entry the second run of a call the first one
 * took? While a merge replaces link pairs (BG_CK_GEN), two links cover
 * each function and a call runs the program for both, both taking the
 * cookie the table (bg_ckc) gives: the frame on top is then this
 * function's, opened at this stack pointer (a kprobe.multi frame keeps
 * it), or the last hidden call was (hid_fn, hid_sp). Returning 1 for it,
 * the second run gets no return of its own: each call has one link's
 * return to wait for, the newer link's (ftrace runs the newest hook
 * first), so the old links can be closed once the calls they took are
 * over (bg_epoch). A hidden call taken for another one is harmless: it
 * is counted by neither run.
 */
static __always_inline bool session_dup(__u64 sp, const struct task_state *st, __u64 ck)
{
	__u32 top;

	if (!st)
		return false;
	if (st->skip)
		return st->hid_fn == BG_CK_INDEX(ck) && st->hid_sp == sp;
	if (!st->depth)
		return false;
	top = (st->depth - 1) & BG_DEPTH_MASK;
	return st->func[top] == BG_CK_INDEX(ck) && BG_FRAME_IS_MULTI(st->frame[top]) &&
	       st->sp[top] == sp;
}

/*
 * What session_dup() looks at, after a kprobe.session entry at stack
 * pointer sp: the call it hid, or the frame it opened (opens: the task's
 * count before; skip: its hidden calls before).
 */
static __always_inline void session_took(__u64 sp, struct task_state *st, __u64 ck, __u32 opens,
					 __u32 skip)
{
	if (st->skip > skip) {
		st->hid_fn = BG_CK_INDEX(ck);
		st->hid_sp = sp;
	} else if (st->depth && st->opens != opens) {
		st->sp[(st->depth - 1) & BG_DEPTH_MASK] = sp;
	}
}

/*
 * Marks st busy for this run, *opens: its count of opened frames so far.
 * False if one of our programs already runs for the task.
 */
static __always_inline bool claim_task(struct task_state *st, __u32 *opens)
{
	if (st->busy) {
		stat_inc(BG_ST_NESTED, 1);
		return false;
	}
	st->busy = 1;
	*opens = st->opens;
	return true;
}

/*
 * The end of a run for ran, the task's state: bg_active counts the task in
 * or out if the run took it into a graph or out of one (was: inside one
 * before), this CPU's bg_cpu_in slot (in) says which, and
 * busy drops. Returns whether the run opened a frame (opens: ran's count
 * before it).
 */
static __always_inline bool end_run(struct task_state *ran, bool was, __u32 opens,
				    struct bg_cpu_in *in)
{
	bool now_in, opened;

	opened = ran->opens != opens;
	now_in = ran->depth || ran->skip;
	cpu_in_set(in, now_in);
	if (now_in != was) {
		if (now_in)
			ran->epoch = bg_epoch;
		__sync_fetch_and_add(&bg_in_epoch[ran->epoch & 1], now_in ? 1 : -1);
		__sync_fetch_and_add(&bg_active, now_in ? 1 : -1);
		/* Never below 0 if every transition is counted (read once, racy but
		 * only ever >= 0 then). */
		if (!now_in && bg_active < 0)
			stat_inc(BG_ST_ACTIVE_NEG, 1);
	}
	ran->busy = 0;
	return opened;
}

/*
 * A kprobe.multi or kprobe.session entry (the plan's, or the wide net's:
 * BG_RUN_MENTRY, BG_RUN_WENTRY); cached: the plan's session program (see
 * session_dup()), whose records are made inline (emit_as()'s hot).
 * opens: the task's count of opened frames before. Returns the task's
 * state, as on_entry().
 */
static __always_inline struct task_state *multi_entry(struct pt_regs *regs, struct task_state *st,
						      __u64 ck, bool cached, __u32 opens)
{
	/* Only while a merge's two links are attached (bg_merging). */
	bool dedup = cached && bg_merging;
	struct task_state *ran;
	__u64 sp, frame, ret = 0;
	__u32 skip;

	/* Read once: clang would derive a pointer from ctx, which the verifier refuses. */
	sp = PT_REGS_SP(regs);
	barrier_var(sp);
	if (dedup && session_dup(sp, st, ck))
		return st;
	skip = st ? st->skip : 0;
	if (hide_own_call(regs, st, ck, &ret)) {
		if (dedup && st)
			session_took(sp, st, ck, opens, skip);
		return st;
	}
	/*
	 * No return hook (wide__narrow()): closed at the task's next event.
	 * One on_entry() for both frames, the frame a value the verifier
	 * does not know: inlined twice, with a constant each, it walked the
	 * whole entry twice (most of what loading these programs costs).
	 */
	frame = (ck & BG_CK_LAZY) ? BG_FRAME_LAZY : BG_FRAME_MULTI(BG_CK_GEN(ck));
	barrier_var(frame);
	ran = on_entry(regs, st, ck, frame, NULL, ret, BG_ARGS_REGS_AT, false, cached);
	/*
	 * bg_merging read again, not dedup: a flag the verifier knows (0 or
	 * 1, from the test above) carried across on_entry() and tested
	 * after it keeps it from pruning there (it marks the flag precise),
	 * and it walked the whole entry twice (20k instructions on 7.3). A
	 * merge that began or ended meanwhile only takes or skips a note.
	 */
	if (cached && bg_merging && ran && !(ck & BG_CK_LAZY))
		session_took(sp, ran, ck, opens, skip);
	return ran;
}

/*
 * Runs the work of program kind what unless this task is already inside
 * one of our programs (see task_state.busy). graph: the fentry
 * program of -G functions, the only one that starts graphs; the others
 * leave its filters and task-state creation out, which the verifier then
 * need not walk for every clone. The stack-pointer close (on_entry()'s
 * unwind) only on fentry-multi (BG_RUN_TENTRY), where lost exits come
 * from: the kprobe programs' frames keep no sp (BG_FRAME_HAS_SP), and a
 * close stops at them (docs/kernels.md, "Lost exits"). hot: the plan's
 * kprobe.session program, whose records are made inline (emit_as());
 * fexit's exits are made so always, a leaf's folded inline there.
 */
static __always_inline bool guarded_ck(void *ctx, enum bg_run what, bool graph, bool cached,
				       bool hot)
{
	struct pt_regs *regs = ctx;
	struct task_state *st, *ran;
	bool start, was;
	__u64 ck, ret = 0, frame = BG_FRAME_KPROBE;
	struct bg_cpu_in *in;
	__u32 opens = 0;

	if (!run_needed(what, graph))
		return false;
	in = cpu_in_slot();
	if (!in || !run_wanted(ctx, what, graph, cached, in, &ck, &start))
		return false;
	st = bpf_task_storage_get(&bg_tasks, bpf_get_current_task_btf(), 0, 0);
	was = st && (st->depth || st->skip);
	if (!start && !was) {
		/* The task here is outside any graph: its next runs stop sooner. */
		cpu_in_set(in, false);
		return false;
	}
	if (st && !claim_task(st, &opens))
		return false;
	ran = st;
	switch (what) {
	case BG_RUN_ENTRY:
	case BG_RUN_TENTRY: {
		const void *at = tramp_caller(ctx, ck, &ret);

		ran = on_entry(ctx, st, ck, (__u64)ctx, at, ret, BG_ARGS_TRAMP,
			       what == BG_RUN_TENTRY, false);
		break;
	}
	case BG_RUN_EXIT:
		bpf_get_func_ret(ctx, &ret);
		if (st)
			on_exit(st, ck, (__u64)ctx, ret, false, true, NULL, true);
		break;
	case BG_RUN_KENTRY:
		/*
		 * On a call site (icall.h): its caller is the traced function.
		 * The argument registers are set for the call already; with no
		 * return address read, ctx only serves them. Elsewhere at the
		 * function's first instruction: sp points at the return
		 * address. One on_entry() for both (see multi_entry()).
		 */
		if (ck & BG_CK_CALLSITE)
			frame = (ck & BG_CK_TAIL) ? BG_FRAME_TAIL :
				(ck & BG_CK_LAZY) ? BG_FRAME_LAZY : BG_FRAME_KPROBE;
		else if (hide_own_call(regs, st, ck, &ret))
			break;
		barrier_var(frame);
		ran = on_entry(ctx, st, ck, frame, NULL, ret, BG_ARGS_REGS_AT, false, false);
		break;
	case BG_RUN_KEXIT:
		if (st)
			on_exit(st, ck, BG_FRAME_KPROBE, PT_REGS_RC(regs), false, false, NULL, false);
		break;
	case BG_RUN_MENTRY:
	case BG_RUN_WENTRY:
		ran = multi_entry(regs, st, ck, cached, opens);
		break;
	case BG_RUN_MEXIT:
	case BG_RUN_SEXIT: /* ck 0: on_exit() takes it from the frame or the link */
		if (st)
			on_exit(st, ck, BG_FRAME_MULTI(BG_CK_GEN(ck)), PT_REGS_RC(regs), true, false,
				what == BG_RUN_SEXIT ? ctx : NULL, hot);
		break;
	case BG_RUN_ICALL:
		if (st)
			on_icall(regs, st);
		break;
	}
	/* st if it existed; else the state an entry function created (busy). */
	ran = st ? st : ran;
	if (!ran)
		return false;
	return end_run(ran, was, opens, in);
}

/* A run whose cookie is the kernel's to find (see link_cookie()). */
static __always_inline bool guarded(void *ctx, enum bg_run what, bool graph)
{
	return guarded_ck(ctx, what, graph, false, false);
}

#endif
