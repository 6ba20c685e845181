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
 * once per BG_BATCH records.
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
 * Stages r (made at now) in this CPU's batch and flushes it when full,
 * when out (a graph ended, the task is on its way out of the CPU, a target
 * for discovery) or when its oldest record waited long enough.
 */
static __always_inline void put(const struct bg_rec *r, __u64 now, bool out, __u64 flags)
{
	struct bg_batch *b = batch_get();

	if (!b) {
		if (bpf_ringbuf_output(&bg_events, (void *)r, sizeof(*r), flags))
			stat_inc(BG_ST_DROPS, 1);
		return;
	}
	b->writing = 1;
	stage(b, r, now);
	if (out || b->n >= BG_BATCH || now - b->first_ts >= BG_BATCH_AGE_NS)
		flush(b, flags);
	b->writing = 0;
}

static __always_inline void fill(struct bg_rec *r, const struct task_state *st, __u8 type,
				 __u64 ts, __u64 val, __u64 dur, __u32 func, __u32 depth)
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
	r->pid = st->tid;
	r->func = func;
	r->cpu = bpf_get_smp_processor_id();
	r->type = type;
	r->depth = depth;
}

/*
 * Records never wake the reader, which polls (user/session/session.c): a wake-up
 * is an irq_work self-interrupt that lands inside the traced call, and
 * with interrupt work traced its own records asked for the next one: the
 * CPU ended up in irq_work interrupts only (seen system-wide). Only what
 * live discovery must act on at once (a new indirect target) wakes it.
 */
static __always_inline void emit(const struct task_state *st, __u8 type, __u64 ts, __u64 val,
				 __u64 dur, __u32 func, __u32 depth)
{
	bool target = (type & BG_REC_TYPE_MASK) == BG_REC_TARGET;
	struct bg_rec r;

	fill(&r, st, type, ts, val, dur, func, depth);
	/* The graph function returned: let the reader have its graph. */
	put(&r, ts, ((type & BG_REC_TYPE_MASK) == BG_REC_EXIT && !depth) || st->switching || target,
	    target ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
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

static __always_inline void emit_comm(const struct task_state *st)
{
	struct bg_rec r;

	__builtin_memset(&r, 0, sizeof(r));
	bpf_get_current_comm(&r.ts, BG_COMM_LEN);
	r.pid = st->tid;
	r.cpu = bpf_get_smp_processor_id();
	r.type = BG_REC_COMM;
	put(&r, bpf_ktime_get_ns(), false, BPF_RB_NO_WAKEUP);
}

#endif
