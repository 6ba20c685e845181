// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfgraph.h"
#include "clock.h"
#include "discover.h"
#include "fetch.h"
#include "graph.h"
#include "session.h"
#include "settle.h"
#include "session_int.h"
#include "stop.h"

/* Records can reach the ring buffer a little after their timestamp. */
#define REORDER_NS (50 * 1000 * 1000ULL)
#define POLL_MS 100
/*
 * Records taken per poll or consume call at most. libbpf consumes until
 * the ring is empty: with tracing producing as fast as the reader reads
 * (system-wide, under emulation) a call never returned, and neither
 * -d nor Ctrl-C was ever looked at.
 */
#define BATCH_MAX SESSION_BATCH_MAX

static int queue_target(struct session *s, const struct bg_rec *r)
{
	if (!s->on_target)
		return 0;
	if (s->ntargets == s->targets_cap) {
		size_t cap = s->targets_cap ? s->targets_cap * 2 : 64;
		struct bg_rec *n = realloc(s->targets, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->targets = n;
		s->targets_cap = cap;
	}
	s->targets[s->ntargets++] = *r;
	return 0;
}

/*
 * How read_batch() gets its records: what the reading thread holds now,
 * or after it read the ring once more (the command is stopped: what it
 * left in the ring must be seen), or after waiting up to N ms (> 0).
 */
#define READ_HELD 0
#define READ_NOW (-1)

/* Samples from the reading thread, up to the batch limit: records taken, or -errno. */
static int read_batch(struct session *s, int how)
{
	long n;

	s->batch = 0;
	if (how == READ_NOW) {
		fetch__sync(s->fetch);
	} else if (how > 0 && (n = fetch__wait(s->fetch, how)) < 0) {
		return (int)n;
	}
	n = fetch__take(s->fetch, session__sample, s);
	return n < 0 ? (int)n : (int)s->batch;
}

/* r with a function table index in place of a wide one; 0 or -errno. */
static int map_wide(struct session *s, const struct bg_rec *r, struct bg_rec *out)
{
	int idx = s->map_func ? s->map_func(s->caller_ctx, r->func) : -ENOENT;

	if (idx < 0)
		return idx;
	*out = *r;
	out->func = (uint32_t)idx;
	return 0;
}

/*
 * Discovery's look at a record: only entries name a caller, only entries
 * and leaves a function to expand; exits (half the records) skip both.
 */
static void discover_record(struct session *s, const struct bg_rec *r, unsigned int type)
{
	const struct ksym *c;
	int f;

	if (type == BG_REC_ENTRY &&
	    discover__feed(s->discover, r, &c,
			   s->npending < sizeof(s->pending) / sizeof(s->pending[0])) == 1)
		s->pending[s->npending++] = c;
	/* With the queue full, a function waits for its next call. */
	if (s->nexpand < sizeof(s->expand) / sizeof(s->expand[0]) &&
	    (f = discover__expand(s->discover, r)) >= 0)
		s->expand[s->nexpand++] = (uint32_t)f;
}

/* One record of the trace, from the ring buffer or a leftover batch. */
static int take_record(struct session *s, const struct bg_rec *r)
{
	unsigned int type = bg_rec_type(r);
	struct bg_rec m;

	if (type != BG_REC_COMM && (r->func & BG_FUNC_WIDE)) {
		if (map_wide(s, r, &m)) {
			s->st.unmapped++;
			return 0;
		}
		r = &m;
	}
	if ((type == BG_REC_EXIT || type == BG_REC_LEAF) && !r->depth)
		s->graphs_done++;
	/* Discovery's business only: not a record of the trace. */
	if (type == BG_REC_TARGET)
		return queue_target(s, r);
	s->st.records++;
	/*
	 * Interrupt work lands in a traced call at random; following it
	 * attaches the timer, scheduler and RCU paths one by one (hundreds
	 * of hot functions), so it is shown as far as traced, not grown.
	 */
	if ((type == BG_REC_ENTRY || type == BG_REC_LEAF) && s->discover &&
	    (s->discover_irqs || !(r->type & BG_RF_IRQ)))
		discover_record(s, r, type);
	return s->sink.feed(s->sink.ctx, r);
}

int session__take(struct session *s, const struct bg_rec *r)
{
	int err = take_record(s, r);

	if (!err)
		s->batch++;
	return err;
}

/* Untraced callers named by a kernel stack: attached like the others. */
static void take_stack(struct session *s, const struct bg_stack *k, size_t len)
{
	size_t cap = sizeof(s->pending) / sizeof(s->pending[0]);
	size_t n = k->hdr.dur / sizeof(k->ip[0]);
	struct bg_rec hdr = k->hdr;

	if (len >= sizeof(*k) && (hdr.func & BG_FUNC_WIDE) && map_wide(s, &k->hdr, &hdr))
		return;
	if (!s->discover || len < sizeof(*k) ||
	    (!s->discover_irqs && (k->hdr.type & BG_RF_IRQ)))
		return;
	/* discover__stack() takes at most BG_STACK_READ of them. */
	s->npending += discover__stack(s->discover, &hdr, (const uint64_t *)k->ip, n,
				       s->pending + s->npending, cap - s->npending);
}

/*
 * A ring buffer sample: 1..BG_BATCH records (see struct bg_batch), or a
 * kernel stack (struct bg_stack). libbpf consumes it whatever this
 * returns, so all of its records are taken before -EAGAIN stops libbpf's
 * loop at a full batch.
 */
int session__sample(void *ctx, void *data, size_t len)
{
	struct session *s = ctx;
	/* Samples are 8-byte aligned, and so are the records in them. */
	const struct bg_rec *r = data;
	size_t n = len / sizeof(*r);
	int err;

	/* A kernel stack (struct bg_stack) is a sample of its own. */
	if (n && bg_rec_type(r) == BG_REC_STACK) {
		take_stack(s, (const struct bg_stack *)data, len);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		err = take_record(s, &r[i]);
		if (err)
			return err;
	}
	s->batch += (unsigned int)n;
	/* Past a stop request, the poll under way ends here: finish reads on. */
	return s->batch >= BATCH_MAX || (s->polling && stop__signal()) ? -EAGAIN : 0;
}

/*
 * Attaching takes milliseconds per function (tens under emulation): a few
 * callers and expansions per poll, the rest at the next ones, so records
 * keep being read and a signal is not kept waiting.
 */
#define GROW_PER_POLL 8

static bool growing(const struct session *s)
{
	return s->npending || s->nexpand || s->ntargets;
}

/*
 * Takes up to GROW_PER_POLL of n queued items (each size bytes) at q; none
 * once the trace was asked to stop (each costs an attach: what is left
 * would only hold the stop up, and the trace ends without it anyway).
 */
static unsigned int take(void *q, unsigned int *n, size_t size,
			 void (*fn)(struct session *, const void *), struct session *s)
{
	unsigned int k = *n < GROW_PER_POLL ? *n : GROW_PER_POLL, i;

	/* An empty queue may have no memory yet (targets): no memmove of NULL. */
	if (!k)
		return 0;
	for (i = 0; i < k && !stop__signal(); i++)
		fn(s, (char *)q + i * size);
	k = i;
	memmove(q, (char *)q + k * size, (*n - k) * size);
	*n -= k;
	return k;
}

static void do_caller(struct session *s, const void *item)
{
	if (s->on_caller)
		s->on_caller(s->caller_ctx, *(const struct ksym *const *)item);
}

static void do_expand(struct session *s, const void *item)
{
	if (s->on_expand)
		s->on_expand(s->caller_ctx, *(const uint32_t *)item);
}

static void do_target(struct session *s, const void *item)
{
	const struct bg_rec *r = item;

	if (s->on_target)
		s->on_target(s->caller_ctx, r->val, r->func);
}

static void grow_traced_set(struct session *s)
{
	unsigned int nt = (unsigned int)s->ntargets;

	take(s->pending, &s->npending, sizeof(s->pending[0]), do_caller, s);
	take(s->expand, &s->nexpand, sizeof(s->expand[0]), do_expand, s);
	take(s->targets, &nt, sizeof(s->targets[0]), do_target, s);
	s->ntargets = nt;
}

/*
 * While the child is stopped nothing new comes from it: attach all that
 * was found, read what was left in the buffer, and let it go on.
 */
static void settled(struct session *s)
{
	if (s->on_settled)
		s->on_settled(s->caller_ctx);
}

/*
 * Takes the queues until they are empty, then links what they gave
 * (settled); with read, what the ring holds is read each time they
 * empty, and may queue more. A stop request leaves the rest unlinked:
 * the trace is over.
 */
static void grow_all(struct session *s, bool read)
{
	while (growing(s) && !stop__signal()) {
		grow_traced_set(s);
		if (read && !growing(s))
			read_batch(s, READ_NOW);
	}
	if (!growing(s))
		settled(s);
}

void session__grow_now(struct session *s)
{
	if (growing(s))
		grow_all(s, false);
}

static void grow_paused(struct session *s)
{
	grow_all(s, true);
	session__set_paused(s, false);
}

/* The reader's scheduling, its reading thread, -d's alarm: 0 or -errno. */
int session__start(struct session *s)
{
	if (s->fetch)
		return 0;
	s->st.cmd_status = -1;
	/*
	 * The reader must not preempt what it traces: a normal task woken on
	 * the traced task's CPU (our poll timer) sets need_resched there, and
	 * the traced task switches out at its next cond_resched(), drawing
	 * the scheduler's functions into its graph (function_graph alone
	 * would not). SCHED_BATCH gets the same CPU share without wake-up
	 * preemption. Set here, after the command was forked, and before
	 * the reading thread is made: it inherits it.
	 */
	sched_setscheduler(0, SCHED_BATCH, &(struct sched_param){ 0 });
	/*
	 * khugepaged collapsing this process's memory into huge pages holds
	 * its mmap lock while it copies 2 MiB: on 7.3 under emulation the
	 * reading thread, growing its memory, and the formatting, faulting a
	 * page in, both waited on it for seconds while the ring filled. Set
	 * after the command was forked (children inherit it).
	 */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	s->fetch = fetch__start(s->ringbuf_fd, 0, POLL_MS);
	if (!s->fetch)
		return -errno;
	/*
	 * Without a command the traced tasks run already: the stacks this
	 * process's tasks took are given back now (with one, before it goes:
	 * session__go(); settle.h).
	 */
	if (s->child <= 0)
		settle__stacks();
	stop__catch();
	/*
	 * -d: the end comes as a stop request (SIGALRM), so that attaching
	 * what was found, or a long read, gives up as for Ctrl-C instead of
	 * carrying the trace past its end.
	 */
	s->end_due_ns = s->duration_ms ? mono_ns() + s->duration_ms * 1000000ULL : 0;
	if (s->duration_ms)
		stop__after_ms(s->duration_ms);
	s->polling = true;
	return 0;
}

/* The thread's CPU since from was reading records and writing them out. */
static void read_cpu(struct session *s, const struct cpu_mark *from)
{
	struct cpu_mark now = cpu_mark();

	s->read_cpu_ns += now.all - from->all;
	if (now.sys > from->sys)
		s->read_sys_ns += now.sys - from->sys;
	s->read_minflt += now.minflt - from->minflt;
}

/* After a poll's records are formatted: what it found is hooked, by the pause's rules. */
static void grow(struct session *s)
{
	if (s->hold_growth) {
		/* Kept for later: see session.hold_growth. */
	} else if (s->pause_child && growing(s)) {
		/* A probe that found a target stopped it already. */
		session__set_paused(s, true);
		grow_paused(s);
	} else if (growing(s)) {
		/* Nothing waits here: what this poll found is attached now. */
		grow_traced_set(s);
		settled(s);
		if (s->pause_child && !growing(s))
			session__resume_if_stopped(s);
	} else if (s->pause_child) {
		session__resume_if_stopped(s);
	}
}

/*
 * The loop ended: when, and how much of each step of the last poll (mark)
 * came after the request; no new graph starts; the command is ended.
 */
static void end_run(struct session *s, const uint64_t *mark)
{
	struct cpu_mark c0;

	s->polling = false;
	stop__after_ms(0);
	s->stop_ns = mono_ns();
	s->stop_req_ns = stop__requested_ns();
	for (int i = 0; i < SESSION_STOP_STEPS && s->stop_req_ns; i++) {
		uint64_t from = mark[i] > s->stop_req_ns ? mark[i] : s->stop_req_ns;

		s->stop_step_ns[i] = mark[i + 1] > from ? mark[i + 1] - from : 0;
	}
	s->stop_records = s->st.records;
	/* Graphs under way run on until session__finish; no new one starts. */
	if (s->enabled)
		*s->enabled = 0;
	/* Keep what waits in memory from growing meanwhile (the rest: finish). */
	c0 = cpu_mark();
	for (int i = 0; i < 16 && read_batch(s, READ_HELD) >= BATCH_MAX; i++)
		;
	read_cpu(s, &c0);
	session__set_paused(s, false);
	free(s->targets);
	s->targets = NULL;
	s->ntargets = s->targets_cap = 0;
	session__end_child(s);
}

int session__run(struct session *s)
{
	int err = session__start(s), had_child = s->child > 0;
	/* Where the last poll was when: read, on_poll, formatted, grown. */
	uint64_t mark[SESSION_STOP_STEPS + 1] = { 0 }, lru_at = 0;

	if (err)
		return err;
	for (int full = 0;;) {
		/*
		 * The reading thread reads the ring each poll period (records
		 * come without wake-ups: submit_flags() in the BPF side): wait
		 * for its read, unless the last take stopped at a full batch
		 * and more is waiting.
		 */
		struct cpu_mark c;
		uint64_t taken;
		int n;

		mark[0] = mono_ns();
		n = full ? 0 : read_batch(s, POLL_MS);
		/* From the wake-up: the wait itself takes no CPU. */
		c = cpu_mark();
		if (n >= 0 && !stop__signal())
			n = read_batch(s, READ_HELD);
		full = n >= BATCH_MAX;
		read_cpu(s, &c);
		if (n < 0 && n != -EINTR) {
			err = n;
			break;
		}
		mark[1] = mark[2] = mark[3] = mark[4] = mono_ns();
		/* What is left is read once the programs stop (session__finish). */
		if (stop__signal())
			break;
		/*
		 * Before the formatting, which under a load can take seconds a
		 * poll: the wide net's hand-over (on_poll) waits for no text.
		 */
		if (s->on_poll)
			s->on_poll(s->caller_ctx, s->graphs_done);
		mark[2] = mono_ns();
		c = cpu_mark();
		/* Complete up to the reading thread's latest read taken whole. */
		taken = fetch__taken_ns(s->fetch);
		if (taken > REORDER_NS)
			s->sink.drain(s->sink.ctx, taken - REORDER_NS);
		/* What was formatted and written: records taken up to here since the last one. */
		if (taken != lru_at) {
			settle__lru();
			lru_at = taken;
		}
		mark[3] = mono_ns();
		read_cpu(s, &c);
		grow(s);
		mark[4] = mono_ns();
		if (stop__signal() || (s->end_due_ns && mono_ns() >= s->end_due_ns))
			break;
		if (had_child && session__child_done(s))
			break;
	}
	end_run(s, mark);
	return err;
}

/* Records of CPUs whose batch was not full when the programs went away. */
static void take_leftovers(struct session *s)
{
	int ncpu = libbpf_num_possible_cpus();
	const __u32 zero = 0;
	struct bg_batch *b;

	if (s->batch_fd < 0 || ncpu <= 0)
		return;
	b = calloc(ncpu, sizeof(*b));
	if (!b || bpf_map_lookup_elem(s->batch_fd, &zero, b)) {
		/* Up to BG_BATCH - 1 records per CPU: say so, the trace may end early. */
		fprintf(stderr, "bpfgraph: cannot read the records left in the per-CPU "
			"batches: %s; the trace may lack its last records\n",
			b ? strerror(errno) : "out of memory");
		free(b);
		return;
	}
	for (int c = 0; c < ncpu; c++) {
		__u32 n = b[c].n < BG_BATCH ? b[c].n : BG_BATCH;

		for (__u32 i = 0; i < n; i++)
			if (take_record(s, &b[c].rec[i]))
				break;
	}
	free(b);
}

/*
 * How long session__finish lets the graphs under way end before it stops
 * every program. One that outlives it (a task asleep inside a traced
 * call) is shown unfinished, as when its hooks are released under it.
 */
#define FINISH_WAIT_MS 200
/* A program that read bg_stopped just before it was set is done by then. */
#define STOP_GRACE_NS (20 * 1000 * 1000L)

void session__finish(struct session *s)
{
	uint64_t t_end = mono_ns() + FINISH_WAIT_MS * 1000000ULL;
	struct cpu_mark c0 = cpu_mark();

	while (s->fetch && s->active && *s->active > 0 && mono_ns() < t_end)
		if (read_batch(s, 10) < 0)
			break;
	if (s->stopped) {
		struct timespec grace = { 0, STOP_GRACE_NS };

		*s->stopped = 1;
		nanosleep(&grace, NULL);
		/* Releasing hooks is not reading: left out of read_cpu_ns. */
		read_cpu(s, &c0);
		if (s->on_stopped)
			s->on_stopped(s->caller_ctx);
		c0 = cpu_mark();
	}
	if (s->fetch) {
		bool whole;

		/* Bounded: nothing writes to the ring any more. */
		do {
			whole = fetch__sync(s->fetch);
			while (read_batch(s, READ_HELD) >= BATCH_MAX)
				;
		} while (!whole);
		fetch__stop(s->fetch, &s->fetch_st);
		s->fetch = NULL;
		/* All that thread did was reading. */
		s->read_cpu_ns += s->fetch_st.cpu.all;
		s->read_sys_ns += s->fetch_st.cpu.sys;
		s->read_minflt += s->fetch_st.cpu.minflt;
	}
	take_leftovers(s);
	s->sink.flush(s->sink.ctx);
	read_cpu(s, &c0);
}

/* A per-CPU counter's values, kept once (the first read that has any). */
