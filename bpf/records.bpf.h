/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Included by graph.bpf.c only: records out, batched per CPU into the
 * ring buffer (struct bg_rec, include/bpfgraph.h).
 */
#ifndef BG_RECORDS_BPF_H
#define BG_RECORDS_BPF_H

/*
 * Records wait in a per-CPU batch and go to the ring buffer BG_BATCH at a
 * time. Each reservation takes the ring buffer's spin lock, and
 * _raw_spin_lock_irqsave/_raw_spin_unlock_irqrestore are traced functions
 * in most sets (interrupt paths): every record ran two more trampolines
 * and four program runs (skipped by the busy guard, but paid for).
 * Leaving the lock functions out took getpid from +10.6 to +4.3 us per
 * traced call in the bench; batching keeps them traced and pays that
 * once per BG_BATCH records. (On 6.12, where each of those hooks is a
 * kprobe.session run with a return, 16 records a batch cost a failed
 * open about 25 us more than 256.)
 *
 * A batch holds records of one CPU in time order, so the reader's per-CPU
 * queues stay ordered. It is flushed when full, when a graph ends, when a
 * task inside a graph is switched out (bg_switch: before it can run on
 * another CPU; what it records after the tracepoint goes out at once),
 * when its oldest record is BG_BATCH_AGE_NS old, and for discovery's
 * records (BG_REC_TARGET). What is left when tracing stops is read from
 * the map by user space once everything is detached.
 *
 * Writers: only programs run for a task inside a graph, one at a time per
 * task (task_state.busy), and an interrupt's program cannot run inside one
 * of the task's. A preemptible kernel could still switch to another task
 * in the middle of a write: writing says so, and that task's records then
 * go to the ring buffer one by one.
 */
#define BG_BATCH_AGE_NS (10 * 1000 * 1000ULL)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bg_batch);
} bg_batch SEC(".maps");

static __always_inline void flush(struct bg_batch *b, __u64 flags)
{
	__u32 n = b->n;

	b->n = 0;
	if (!n)
		return;
	/*
	 * n is 1..BG_BATCH: the verifier must see the size bounded by the
	 * array, and clang must not drop the mask that tells it so.
	 */
	barrier_var(n);
	n = ((n - 1) & (BG_BATCH - 1)) + 1;
	if (bpf_ringbuf_output(&bg_events, b->rec, n * sizeof(struct bg_rec), flags))
		stat_inc(BG_ST_DROPS, n);
}

/* This CPU's batch, or NULL while a preempted program writes to it. */
static __always_inline struct bg_batch *batch_get(void)
{
	__u32 zero = 0;
	struct bg_batch *b = bpf_map_lookup_elem(&bg_batch, &zero);

	return b && !b->writing ? b : NULL;
}

/* Flushes this CPU's batch (the end of a graph, a task switched out). */
static __always_inline void flush_cpu(void)
{
	struct bg_batch *b = batch_get();

	if (b && b->n) {
		b->writing = 1;
		flush(b, BPF_RB_NO_WAKEUP);
		b->writing = 0;
	}
}

/*
 * Appends r (made at now) to batch b, which has room: a batch is flushed
 * as soon as it is full, and unwinding makes room first.
 */
static __always_inline void stage(struct bg_batch *b, const struct bg_rec *r, __u64 now)
{
	__u32 n = b->n & (BG_BATCH - 1);

	if (!n)
		b->first_ts = now;
	b->rec[n] = *r;
	b->n = n + 1;
}

/*
 * An EXIT whose ENTRY is the last record staged in this CPU's batch
 * (nothing in between: a leaf) rewrites that entry into a BG_REC_LEAF,
 * staging nothing: returns 1 then. An entry followed by its ARGS, a
 * switch or an interrupt's records is not last, and a flushed one is
 * gone: those exits are staged as such. The caller holds the batch
 * (writing). type_depth: the exit's type byte << 8 | its depth.
 * b: the batch, looked up by the caller.
 */
static __always_inline int fold_into(struct bg_batch *b, __u32 pid, __u32 func, __u32 type_depth,
				     __u64 val, __u32 dur)
{
	struct bg_rec *e;
	__u32 n;

	if (!b->n)
		return 0;
	n = b->n;
	e = &b->rec[(n - 1) & (BG_BATCH - 1)];
	if ((e->type & BG_REC_TYPE_MASK) != BG_REC_ENTRY || e->pid != pid || e->func != func ||
	    e->depth != (type_depth & 0xff))
		return 0;
	e->type = BG_REC_LEAF | (e->type & BG_RF_IRQ) |
		  ((type_depth >> 8) & (BG_RF_DUR_US | BG_RF_NOEXIT));
	e->val = val;
	e->dur = dur;
	return 1;
}

/*
 * fold_into() out of line, for every exit but the plan's kprobe.session
 * ones and fexit's (put()'s hot): a global function, which the verifier
 * checks once per program, not at every exit of every program (inline
 * everywhere, it added 0.3 s to loading 6.12's programs). Left out of
 * the trampolines' copies (no fold but the hot one there).
 */
__noinline int bg_fold_leaf(__u32 pid, __u32 func, __u32 type_depth, __u64 val, __u32 dur)
{
	__u32 zero = 0;
	struct bg_batch *b;

	/*
	 * Unused without folding: a constant test, the rest dead code to the
	 * verifier. Copies of the programs leave the function out altogether
	 * where it is unused (func_unused() in user/hook/bpfobj.c), so that the
	 * return stays 0 with or without it; the same for bg_emit() and
	 * bg_stage_detail().
	 */
	if (!bg_fold)
		return 0;
	b = bpf_map_lookup_elem(&bg_batch, &zero);
	return b ? fold_into(b, pid, func, type_depth, val, dur) : 0;
}

/*
 * Stages r (made at now) in this CPU's batch, or folds it into the entry
 * there (exit: r is an EXIT, known where the caller's type is a constant),
 * and flushes the batch when full, when out (a graph ended, the
 * task is on its way out of the CPU, a target for discovery) or when its
 * oldest record waited long enough. hot: as emit_as(); the fold is then
 * made inline, on the batch already looked up.
 */
static __always_inline void put(const struct bg_rec *r, __u64 now, bool out, __u64 flags,
				bool exit, bool hot)
{
	struct bg_batch *b = batch_get();

#if defined(BG_ABLATE_BATCH) || defined(BG_ABLATE_STAGE)
	/*
	 * Measurement builds (tests/bench/ablate.sh): the batch looked up and
	 * nothing staged (BATCH); the leaf fold tried, nothing staged (STAGE).
	 */
	if (b && !out) {
#ifdef BG_ABLATE_STAGE
		b->writing = 1;
		if (exit && bg_fold)
			bg_fold_leaf(r->pid, r->func, (__u32)r->type << 8 | r->depth, r->val, r->dur);
		b->writing = 0;
#endif
		barrier_var(b);
		return;
	}
#endif
#ifdef BG_ABLATE_FOLD
	exit = false; /* a measurement build (tests/bench/ablate.sh): leaves unfolded */
#endif
	if (!b) {
		if (bpf_ringbuf_output(&bg_events, (void *)r, sizeof(*r), flags))
			stat_inc(BG_ST_DROPS, 1);
		return;
	}
	b->writing = 1;
	if (!exit || !bg_fold ||
	    !(hot ? fold_into(b, r->pid, r->func, (__u32)r->type << 8 | r->depth, r->val, r->dur) :
		    bg_fold_leaf(r->pid, r->func, (__u32)r->type << 8 | r->depth, r->val, r->dur)))
		stage(b, r, now);
	if (out || b->n >= BG_BATCH || now - b->first_ts >= BG_BATCH_AGE_NS)
		flush(b, flags);
	b->writing = 0;
}

/* A record of thread tid; a duration past 32 bits goes in microseconds. */
static __always_inline void fill_tid(struct bg_rec *r, __u32 tid, __u8 type, __u64 ts, __u64 val,
				     __u64 dur, __u32 func, __u32 depth)
{
	if (dur > 0xffffffffULL) {
		dur /= 1000;
		type |= BG_RF_DUR_US;
		if (dur > 0xffffffffULL)
			dur = 0xffffffffULL;
	}
	r->ts = ts;
	r->val = val;
	r->dur = dur;
	r->pid = tid;
	r->func = func;
	r->cpu = bpf_get_smp_processor_id();
	r->type = type;
	r->depth = depth;
}

static __always_inline void fill(struct bg_rec *r, const struct task_state *st, __u8 type,
				 __u64 ts, __u64 val, __u64 dur, __u32 func, __u32 depth)
{
	fill_tid(r, st->tid, type, ts, val, dur, func, depth);
}

/* bg_emit()'s last argument: the record's type and depth, and how put() takes it. */
#define BG_EMIT_DEPTH_SHIFT 8
#define BG_EMIT_OUT (1ULL << 16)
#define BG_EMIT_EXIT (1ULL << 17)
#define BG_EMIT_WAKE (1ULL << 18)

/*
 * fill() and put() of one record, out of line (see bg_emit_call): every
 * argument a scalar, so that the verifier checks it once for any values.
 * pid_func: the thread id << 32 | the function index.
 */
__noinline int bg_emit(__u64 ts, __u64 val, __u64 dur, __u64 pid_func, __u64 bits)
{
	struct bg_rec r;

	/* Unused where records are made inline: as bg_fold_leaf(). */
	if (!bg_emit_call)
		return 0;
	fill_tid(&r, pid_func >> 32, bits & 0xff, ts, val, dur, (__u32)pid_func,
		 (bits >> BG_EMIT_DEPTH_SHIFT) & 0xff);
	put(&r, ts, bits & BG_EMIT_OUT, bits & BG_EMIT_WAKE ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP,
	    bits & BG_EMIT_EXIT, false);
	return 0;
}

/*
 * Records never wake the reader, which polls (user/session/session.c): a wake-up
 * is an irq_work self-interrupt that lands inside the traced call, and
 * with interrupt work traced its own records asked for the next one: the
 * CPU ended up in irq_work interrupts only (seen system-wide). Only what
 * live discovery must act on at once (a new indirect target) wakes it.
 * hot: made inline even where bg_emit_call asks for bg_emit(): the
 * plan's own entries and exits, which run for every traced call (the
 * call cost a failed open's trace 5% more on 6.12), and fexit's, which
 * folds leaves only so; everywhere else emit() saves the verifier a walk
 * of put() per call site.
 */
static __always_inline void emit_as(const struct task_state *st, __u8 type, __u64 ts, __u64 val,
				    __u64 dur, __u32 func, __u32 depth, bool hot)
{
	bool target = (type & BG_REC_TYPE_MASK) == BG_REC_TARGET;
	bool end = (type & BG_REC_TYPE_MASK) == BG_REC_EXIT && !depth;
	bool exit = (type & BG_REC_TYPE_MASK) == BG_REC_EXIT;
	/*
	 * The graph function returned: let the reader have its graph. A
	 * target wakes the reader up, unless the command stops at the graph's
	 * end (stop_at_end): then that end does. A wake-up is an interrupt
	 * (irq_work) on this CPU, drawn in the graph when it lands inside one.
	 */
	bool out = end || st->switching || target;
	bool wake = (target && !st->stop_at_end) || (end && st->stop_at_end);
	struct bg_rec r;

#ifdef BG_ABLATE_EMIT
	/* A measurement build (tests/bench/ablate.sh): the plan's records not made. */
	if (hot && !end)
		return;
#endif
	if (bg_emit_call && !hot) {
		bg_emit(ts, val, dur, (__u64)st->tid << 32 | func,
			type | (__u64)(depth & 0xff) << BG_EMIT_DEPTH_SHIFT |
				(out ? BG_EMIT_OUT : 0) | (exit ? BG_EMIT_EXIT : 0) |
				(wake ? BG_EMIT_WAKE : 0));
		return;
	}
	fill(&r, st, type, ts, val, dur, func, depth);
	put(&r, ts, out, wake ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP, exit, hot);
}

static __always_inline void emit(const struct task_state *st, __u8 type, __u64 ts, __u64 val,
				 __u64 dur, __u32 func, __u32 depth)
{
	emit_as(st, type, ts, val, dur, func, depth, false);
}

/*
 * An ENTRY (r[0]) and its BG_REC_ARGS records (r[1], and r[2] when n is
 * 3), staged together so that nothing comes between them in the CPU's
 * stream: the reader takes them as one.
 */
static __always_inline void put_entry_args(const struct task_state *st, struct bg_rec *r,
					   int n, __u64 now)
{
	struct bg_batch *b = batch_get();

	if (!b) {
		if (n == 3 ? bpf_ringbuf_output(&bg_events, r, 3 * sizeof(*r), BPF_RB_NO_WAKEUP) :
			     bpf_ringbuf_output(&bg_events, r, 2 * sizeof(*r), BPF_RB_NO_WAKEUP))
			stat_inc(BG_ST_DROPS, n);
		return;
	}
	b->writing = 1;
	if (b->n > BG_BATCH - 3)
		flush(b, BPF_RB_NO_WAKEUP);
	stage(b, &r[0], now);
	stage(b, &r[1], now);
	if (n == 3)
		stage(b, &r[2], now);
	if (st->switching || b->n >= BG_BATCH || now - b->first_ts >= BG_BATCH_AGE_NS)
		flush(b, BPF_RB_NO_WAKEUP);
	b->writing = 0;
}

/* Register reg (0..5) of the entry's ARGS records r[1] and r[2]. */
static __always_inline __u64 entry_reg(const struct bg_rec *r1, const struct bg_rec *r2, __u32 reg)
{
	const struct bg_rec *a = reg < BG_ARGS_PER_REC ? r1 : r2;

	switch (reg % BG_ARGS_PER_REC) {
	case 0:
		return a->ts;
	case 1:
		return a->val;
	default:
		return (__u64)a->pid << 32 | a->dur;
	}
}

/* A detail record of the entry r: part of register arg, 24 data bytes from d. */
static __always_inline void stage_part(struct bg_batch *b, const struct bg_rec *r, __u8 flags,
				       __u32 arg, __u32 part, const __u64 *d, __u64 now)
{
	struct bg_rec x = *r;

	x.type = BG_REC_DETAIL | flags;
	x.depth = (arg & 0x0f) | (part << 4);
	x.ts = d[0];
	x.val = d[1];
	x.dur = (__u32)d[2];
	x.pid = d[2] >> 32;
	stage(b, &x, now);
}

/*
 * A string at ptr: kernel, user, or kernel then user memory (BG_DK_*),
 * BG_DETAIL_STR bytes at most and one more to tell a longer one. In as
 * many parts as it needs.
 */
static __always_inline void stage_str(struct bg_batch *b, const struct bg_rec *r,
				      const struct bg_detail_op *op, __u64 ptr, __u64 now)
{
	struct bg_dscratch *sc;
	__u32 zero = 0, arg = op->arg;
	long n = -1;
	__u8 flags = 0;

	sc = bpf_map_lookup_elem(&bg_dscratch, &zero);
	if (!sc)
		return;
	if (op->kind != BG_DK_STR_USER)
		n = bpf_probe_read_kernel_str(sc->s, BG_DETAIL_STR + 2, (const void *)ptr);
	if (n < 0 && op->kind != BG_DK_STR_KERNEL)
		n = bpf_probe_read_user_str(sc->s, BG_DETAIL_STR + 2, (const void *)ptr);
	if (n < 0) {
		__builtin_memset(sc->s, 0, BG_DETAIL_PART);
		stage_part(b, r, BG_RF_D_FAULT, arg, 0, (const __u64 *)sc->s, now);
		return;
	}
	/* n counts the NUL: 66 is a string of 65 bytes or more */
	if (n > BG_DETAIL_STR + 1)
		flags = BG_RF_D_TRUNC;
	for (__u32 k = 0; k < BG_DETAIL_STR_PARTS; k++) {
		if (k && k * BG_DETAIL_PART >= n)
			break;
		stage_part(b, r, flags, arg, k, (const __u64 *)(sc->s + k * BG_DETAIL_PART), now);
	}
}

/* One member of size bytes at p: kernel memory, then user memory. */
static __always_inline int read_field(__u64 *v, __u8 size, const void *p)
{
	switch (size) {
	case 1:
		return bpf_probe_read_kernel(v, 1, p) && bpf_probe_read_user(v, 1, p);
	case 2:
		return bpf_probe_read_kernel(v, 2, p) && bpf_probe_read_user(v, 2, p);
	case 4:
		return bpf_probe_read_kernel(v, 4, p) && bpf_probe_read_user(v, 4, p);
	default:
		return bpf_probe_read_kernel(v, 8, p) && bpf_probe_read_user(v, 8, p);
	}
}

/* Up to BG_DETAIL_FIELDS members of the struct at ptr, one u64 each, in two parts. */
static __always_inline void stage_fields(struct bg_batch *b, const struct bg_rec *r,
					 const struct bg_detail_op *op, __u64 ptr, __u64 now)
{
	__u64 v[6] = {};
	__u8 flags = BG_RF_D_FIELDS;

	for (__u32 j = 0; j < BG_DETAIL_FIELDS; j++) {
		if (j >= op->nfields)
			break;
		if (read_field(&v[j], op->size[j], (const void *)(ptr + op->off[j]))) {
			flags |= BG_RF_D_FAULT;
			break;
		}
	}
	stage_part(b, r, flags, op->arg, 0, v, now);
	if (!(flags & BG_RF_D_FAULT) && op->nfields > BG_ARGS_PER_REC)
		stage_part(b, r, flags, op->arg, 1, &v[3], now);
}

/*
 * What function idx's bg_detail plan reads through the argument registers
 * of the entry staged last in this CPU's batch (its n records, ENTRY then
 * ARGS), staged after it. The caller holds the batch (writing) and made
 * room for BG_DETAIL_OPS * BG_DETAIL_PARTS records.
 * A function of its own, global: the verifier checks it once, not on every
 * path of each program that records arguments (inline, its loops took
 * 7.3's kprobe programs past the verifier's million instructions). The
 * copies of the fentry programs keep it global with the template's BTF
 * records (bpfobj__prog_src()).
 */
__noinline int bg_stage_detail(__u32 idx, __u32 n, __u64 now)
{
	__u32 zero = 0, at;
	struct bg_batch *b = bpf_map_lookup_elem(&bg_batch, &zero);
	struct bg_detail_plan *p = bpf_map_lookup_elem(&bg_detail, &idx);
	const struct bg_rec *r0, *r1, *r2;

	/* Unused without --args-detail: as bg_fold_leaf(). */
	if (!bg_detail_on || !b || !p || n < 2 || n > 3)
		return 0;
	at = b->n - n;
	r0 = &b->rec[at & (BG_BATCH - 1)];
	r1 = &b->rec[(at + 1) & (BG_BATCH - 1)];
	r2 = &b->rec[(at + 2) & (BG_BATCH - 1)];
	for (__u32 i = 0; i < BG_DETAIL_OPS; i++) {
		const struct bg_detail_op *op = &p->op[i];
		__u32 arg = op->arg;
		__u64 ptr;

		if (i >= p->nops)
			break;
		if (arg >= BG_ARGS_REGS || (n < 3 && arg >= BG_ARGS_PER_REC))
			continue;
		ptr = entry_reg(r1, r2, arg);
		if (!ptr)
			continue;
		if (op->kind == BG_DK_FIELDS)
			stage_fields(b, r0, op, ptr, now);
		else
			stage_str(b, r0, op, ptr, now);
	}
	return 0;
}

/*
 * put_entry_args() for a function with a bg_detail plan: what the plan
 * reads through the entry's argument registers follows its ARGS records,
 * in the same piece. A busy batch (a preempted writer) leaves the details
 * out, counted.
 */
static __always_inline void put_entry_detail(const struct task_state *st, struct bg_rec *r,
					     int n, __u32 idx, __u64 now)
{
	struct bg_batch *b = batch_get();

	if (!b) {
		stat_inc(BG_ST_DETAIL_LOST, 1);
		put_entry_args(st, r, n, now);
		return;
	}
	b->writing = 1;
	if (b->n > BG_BATCH - 3 - BG_DETAIL_OPS * BG_DETAIL_PARTS)
		flush(b, BPF_RB_NO_WAKEUP);
	stage(b, &r[0], now);
	stage(b, &r[1], now);
	if (n == 3)
		stage(b, &r[2], now);
	bg_stage_detail(idx, n, now);
	if (st->switching || b->n >= BG_BATCH || now - b->first_ts >= BG_BATCH_AGE_NS)
		flush(b, BPF_RB_NO_WAKEUP);
	b->writing = 0;
}

static __always_inline void emit_comm(const struct task_state *st)
{
	struct bg_rec r;

	__builtin_memset(&r, 0, sizeof(r));
	bpf_get_current_comm(&r.ts, BG_COMM_LEN);
	r.pid = st->tid;
	r.dur = bpf_get_current_pid_tgid() >> 32;
	r.cpu = bpf_get_smp_processor_id();
	r.type = BG_REC_COMM;
	put(&r, bpf_ktime_get_ns(), false, BPF_RB_NO_WAKEUP, false, false);
}

#endif
