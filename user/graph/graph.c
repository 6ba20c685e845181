// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Graph builder. Emulates the reading side of the kernel's function_graph
 * printer (kernel/trace/trace_functions_graph.c): the "trace" file merges
 * the per-CPU buffers by timestamp (ties go to the lowest CPU), and every
 * piece of pairing state is per CPU: the leaf check peeks at the next
 * record of the same CPU, enter_funcs[depth] decides "}" vs "} / * f * /",
 * last_pid decides the context-switch banner.
 *
 * Records wait in per-CPU FIFOs until graph__drain() or graph__flush()
 * releases them; memory follows what is queued, queues that ran empty give
 * their buffer back.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

#define NO_FUNC UINT32_MAX
/*
 * Queue-only record type: records lost on this CPU, val = count (0 =
 * unknown). Type 0 is no valid BG_REC_*, so graph__feed() never queues it.
 */
#define Q_LOST 0
#define Q_MIN_CAP 64
/* An empty queue keeps its buffer up to this size, frees a larger one. */
#define Q_KEEP_CAP 1024
/* Pids with a known comm; the table is wiped when full (comm_make_room). */
#define COMM_MAX_PIDS (1u << 18)
#define COMM_MIN_BITS 8

struct cpuq {
	struct bg_rec *buf; /* ring of cap records, cap a power of two */
	size_t cap, head, n;
	uint32_t cpu;
	uint32_t last_pid; /* pid of the last line printed, if printed */
	bool printed;
	bool lost_open; /* tail is a Q_LOST still waiting for the next record */
	uint64_t last_ts; /* ts of the last record fed */
	/* graph__comm(last_pid), valid while comm_gen is the graph's */
	const char *comm;
	uint64_t comm_gen;
	uint32_t enter_funcs[BG_MAX_DEPTH];
};

struct comm_slot {
	uint32_t pid;
	bool used;
	char comm[BG_COMM_LEN + 1];
};

struct graph {
	struct graph_opts o;
	struct cpuq **cpu; /* by cpu number; NULL until the cpu is seen */
	uint32_t ncpu; /* length of cpu[] */
	uint32_t *active; /* numbers of the cpus seen, in order of appearance */
	uint32_t nactive;
	size_t queued;
	struct comm_slot *comms;
	unsigned int comm_bits; /* comms has 1 << comm_bits slots */
	size_t comm_n;
	uint64_t comm_gen; /* bumped by every comm_set(): cached comm pointers go stale */
};

/* --- per-CPU queues ------------------------------------------------------ */

static struct bg_rec *q_at(const struct cpuq *q, size_t i)
{
	return &q->buf[(q->head + i) & (q->cap - 1)];
}

static int q_grow(struct cpuq *q)
{
	size_t cap = q->cap ? q->cap * 2 : Q_MIN_CAP;
	struct bg_rec *buf = malloc(cap * sizeof(*buf));

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < q->n; i++)
		buf[i] = *q_at(q, i);
	free(q->buf);
	q->buf = buf;
	q->cap = cap;
	q->head = 0;
	return 0;
}

static inline int q_push(struct graph *g, struct cpuq *q, const struct bg_rec *r)
{
	int err;

	if (q->n == q->cap) {
		err = q_grow(q);
		if (err)
			return err;
	}
	*q_at(q, q->n) = *r;
	q->n++;
	g->queued++;
	return 0;
}

static void q_pop(struct graph *g, struct cpuq *q, size_t k)
{
	q->head = (q->head + k) & (q->cap - 1);
	q->n -= k;
	g->queued -= k;
	if (q->n)
		return;
	q->head = 0;
	/* A burst must not pin its peak memory for the rest of a long trace. */
	if (q->cap > Q_KEEP_CAP) {
		free(q->buf);
		q->buf = NULL;
		q->cap = 0;
	}
}

static int add_active(struct graph *g, uint32_t cpu)
{
	uint32_t *a = realloc(g->active, (g->nactive + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	g->active = a;
	g->active[g->nactive++] = cpu;
	return 0;
}

static int grow_cpus(struct graph *g, uint32_t cpu)
{
	uint32_t n = g->ncpu ? g->ncpu : 8;
	struct cpuq **c;

	while (n <= cpu)
		n *= 2;
	if (n > BG_MAX_CPUS)
		n = BG_MAX_CPUS;
	c = realloc(g->cpu, n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + g->ncpu, 0, (n - g->ncpu) * sizeof(*c));
	g->cpu = c;
	g->ncpu = n;
	return 0;
}

/* The queue of cpu, created on first use; NULL with errno set. */
static struct cpuq *cpu_get(struct graph *g, uint32_t cpu)
{
	struct cpuq *q;
	int err;

	if (cpu >= BG_MAX_CPUS) {
		errno = EINVAL;
		return NULL;
	}
	if (cpu < g->ncpu && g->cpu[cpu])
		return g->cpu[cpu];
	if (cpu >= g->ncpu) {
		err = grow_cpus(g, cpu);
		if (err)
			goto fail;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		err = -ENOMEM;
		goto fail;
	}
	err = add_active(g, cpu);
	if (err) {
		free(q);
		goto fail;
	}
	q->cpu = cpu;
	memset(q->enter_funcs, 0xff, sizeof(q->enter_funcs)); /* NO_FUNC */
	g->cpu[cpu] = q;
	return q;
fail:
	errno = -err;
	return NULL;
}

/* --- comm table ---------------------------------------------------------- */

static size_t comm_find(const struct graph *g, uint32_t pid)
{
	size_t mask = ((size_t)1 << g->comm_bits) - 1;
	size_t i = (uint32_t)(pid * 0x9e3779b1u) >> (32 - g->comm_bits);

	while (g->comms[i].used && g->comms[i].pid != pid)
		i = (i + 1) & mask;
	return i;
}

static int comm_resize(struct graph *g, unsigned int bits)
{
	struct comm_slot *old = g->comms;
	size_t old_n = old ? (size_t)1 << g->comm_bits : 0;

	g->comms = calloc((size_t)1 << bits, sizeof(*g->comms));
	if (!g->comms) {
		g->comms = old;
		return -ENOMEM;
	}
	g->comm_bits = bits;
	for (size_t i = 0; i < old_n; i++)
		if (old[i].used)
			g->comms[comm_find(g, old[i].pid)] = old[i];
	free(old);
	return 0;
}

/* Room for one more pid: grow, or forget everyone once the cap is hit. */
static int comm_make_room(struct graph *g)
{
	if (g->comms && (g->comm_n + 1) * 2 <= ((size_t)1 << g->comm_bits))
		return 0;
	if (g->comm_n < COMM_MAX_PIDS)
		return comm_resize(g, g->comms ? g->comm_bits + 1 : COMM_MIN_BITS);
	/*
	 * Bounded like the kernel's saved_cmdlines: a forgotten pid prints
	 * "<...>", as ftrace prints pids it evicted.
	 */
	memset(g->comms, 0, sizeof(*g->comms) << g->comm_bits);
	g->comm_n = 0;
	return 0;
}

static int comm_set(struct graph *g, uint32_t pid, const char *comm)
{
	struct comm_slot *s = NULL;
	int err;

	g->comm_gen++;
	if (g->comms) {
		s = &g->comms[comm_find(g, pid)];
		if (!s->used)
			s = NULL;
	}
	if (!s) {
		err = comm_make_room(g);
		if (err)
			return err;
		s = &g->comms[comm_find(g, pid)];
		s->used = true;
		s->pid = pid;
		g->comm_n++;
	}
	memcpy(s->comm, comm, BG_COMM_LEN);
	s->comm[BG_COMM_LEN] = '\0';
	return 0;
}

const char *graph__comm(const struct graph *g, uint32_t pid)
{
	size_t i;

	if (!pid)
		return "<idle>";
	if (!g || !g->comms)
		return "<...>";
	i = comm_find(g, pid);
	return g->comms[i].used ? g->comms[i].comm : "<...>";
}

/* --- feeding ------------------------------------------------------------- */

/*
 * Records held back beyond GRAPH_MAX_QUEUED (128 MiB of them) are released
 * oldest first as if drained. A live session drains every 100 ms and never
 * gets near; a damaged or hostile recording without drain marks would
 * otherwise keep all of its records in memory.
 */
#define GRAPH_MAX_QUEUED (4u << 20)

static void release_excess(struct graph *g);

/* A record that rides behind its ENTRY: argument registers or details. */
static bool is_args(const struct bg_rec *r)
{
	return bg_rec_type(r) == BG_REC_ARGS || bg_rec_type(r) == BG_REC_DETAIL;
}

/*
 * Argument registers: queued right behind their ENTRY (or the ENTRY's
 * first ARGS part), which release_entry() takes them with. Their ts holds
 * a register, so they set no time of the queue. Without their ENTRY
 * queued (released early by release_excess()) they are dropped.
 */
static int feed_args(struct graph *g, const struct bg_rec *rec)
{
	struct cpuq *q = rec->cpu < g->ncpu ? g->cpu[rec->cpu] : NULL;
	const struct bg_rec *t;

	if (!q || !q->n || q->lost_open ||
	    (bg_rec_type(rec) == BG_REC_ARGS && rec->depth * BG_ARGS_PER_REC >= BG_ARGS_REGS))
		return 0;
	t = q_at(q, q->n - 1);
	if (t->func != rec->func ||
	    (bg_rec_type(t) != BG_REC_ENTRY && !is_args(t)))
		return 0;
	return q_push(g, q, rec);
}

/*
 * The records that are no line of their own, out of graph__feed()'s way:
 * noinline, so that the path of a line saves no registers for them.
 */
static __attribute__((noinline)) int feed_other(struct graph *g, const struct bg_rec *rec)
{
	switch (bg_rec_type(rec)) {
	case BG_REC_COMM:
		/* The comm bytes overlay ts and val (bpfgraph.h). */
		return comm_set(g, rec->pid, (const char *)rec + offsetof(struct bg_rec, ts));
	case BG_REC_SWITCH:
		/* function_graph shows switches only through the pid banner. */
		return 0;
	case BG_REC_ARGS:
	case BG_REC_DETAIL:
		return feed_args(g, rec);
	default:
		return -EINVAL;
	}
}

/* A line's record when its queue is new or full, follows a loss, or too much is held. */
static __attribute__((noinline)) int feed_line_slow(struct graph *g, const struct bg_rec *rec)
{
	struct cpuq *q;
	int err;

	/* cpu < ncpu <= BG_MAX_CPUS: cpu_get()'s checks hold. */
	q = rec->cpu < g->ncpu ? g->cpu[rec->cpu] : NULL;
	if (!q)
		q = cpu_get(g, rec->cpu);
	if (!q)
		return -errno;
	err = q_push(g, q, rec);
	if (err)
		return err;
	if (q->lost_open) {
		/* The loss is reported right before this record, at its time. */
		q_at(q, q->n - 2)->ts = rec->ts;
		q->lost_open = false;
	}
	q->last_ts = rec->ts;
	if (g->queued > GRAPH_MAX_QUEUED)
		release_excess(g);
	return 0;
}

int graph__feed(struct graph *g, const struct bg_rec *rec)
{
	unsigned int type = bg_rec_type(rec);
	struct cpuq *q;

	if (type != BG_REC_ENTRY && type != BG_REC_EXIT && type != BG_REC_LEAF)
		return feed_other(g, rec);
	q = rec->cpu < g->ncpu ? g->cpu[rec->cpu] : NULL;
	if (!q || q->n == q->cap || q->lost_open || g->queued >= GRAPH_MAX_QUEUED)
		return feed_line_slow(g, rec);
	*q_at(q, q->n) = *rec;
	q->n++;
	g->queued++;
	q->last_ts = rec->ts;
	return 0;
}

int graph__lost(struct graph *g, uint32_t cpu, uint64_t count)
{
	struct bg_rec m = { .type = Q_LOST, .cpu = (uint16_t)cpu, .val = count };
	struct cpuq *q;
	struct bg_rec *tail;
	int err;

	q = cpu_get(g, cpu);
	if (!q)
		return -errno;
	if (q->lost_open) {
		tail = q_at(q, q->n - 1);
		/* An unknown count stays unknown. */
		tail->val = (tail->val && count) ? tail->val + count : 0;
		return 0;
	}
	m.ts = q->last_ts;
	err = q_push(g, q, &m);
	if (err)
		return err;
	q->lost_open = true;
	return 0;
}

size_t graph__queued(const struct graph *g)
{
	return g->queued;
}

/* --- releasing ----------------------------------------------------------- */

static void emit(struct graph *g, struct gev *ev)
{
	if (g->o.sink.emit)
		g->o.sink.emit(g->o.sink.ctx, ev);
}

/* graph__comm(pid) for a line of q. */
static const char *line_comm(const struct graph *g, struct cpuq *q, uint32_t pid)
{
	if (q->comm && q->last_pid == pid && q->comm_gen == g->comm_gen)
		return q->comm;
	return graph__comm(g, pid);
}

/* A line of cpu q, after the banner if the pid changed (verif_pid()). */
static void emit_line(struct graph *g, struct cpuq *q, struct gev *ev)
{
	ev->cpu = q->cpu;
	ev->comm = line_comm(g, q, ev->pid);
	if (q->printed && q->last_pid != ev->pid) {
		struct gev b = {
			.type = GEV_BANNER,
			.cpu = q->cpu,
			.pid = ev->pid,
			.prev_pid = q->last_pid,
			.ts = ev->ts,
			.comm = ev->comm,
			.prev_comm = graph__comm(g, q->last_pid),
		};

		emit(g, &b);
	}
	q->printed = true;
	q->last_pid = ev->pid;
	q->comm = ev->comm;
	q->comm_gen = g->comm_gen;
	emit(g, ev);
}

static bool is_leaf(const struct bg_rec *ent, const struct bg_rec *next)
{
	/* get_return_for_leaf(): depth is not compared. */
	return bg_rec_type(next) == BG_REC_EXIT && next->pid == ent->pid &&
	       next->func == ent->func;
}

/* The BG_REC_ARGS and BG_REC_DETAIL records right behind q's head. */
static size_t args_behind(const struct cpuq *q)
{
	size_t k = 0;

	while (1 + k < q->n && is_args(q_at(q, 1 + k)))
		k++;
	return k;
}

/* The registers of the k ARGS records behind q's head into ev. */
static void take_args(const struct cpuq *q, size_t k, struct gev *ev)
{
	if (k)
		memset(ev->args, 0, sizeof(ev->args));
	for (size_t i = 0; i < k; i++) {
		const struct bg_rec *a = q_at(q, 1 + i);
		unsigned int at = a->depth * BG_ARGS_PER_REC;

		if (bg_rec_type(a) == BG_REC_DETAIL) {
			detail_vals__add(&ev->detail, a);
			continue;
		}
		for (unsigned int j = 0; j < BG_ARGS_PER_REC && at + j < BG_ARGS_REGS; j++)
			ev->args[at + j] = bg_rec_arg(a, j);
		if (at + BG_ARGS_PER_REC > ev->nargs)
			ev->nargs = at + BG_ARGS_PER_REC;
	}
}

/*
 * ev cleared for record r's line but for the argument arrays, which are
 * read up to nargs and detail.n only (take_args() clears args when it
 * fills some): clearing all 384 bytes cost a fifth of a line's release.
 */
static void gev_start(struct gev *ev, enum gev_type type, const struct bg_rec *r)
{
	memset(ev, 0, offsetof(struct gev, args));
	ev->nargs = 0;
	ev->detail.n = 0;
	memset(&ev->args_text, 0, sizeof(*ev) - offsetof(struct gev, args_text));
	ev->type = type;
	ev->pid = r->pid;
	ev->func = r->func;
	ev->depth = r->depth;
	ev->ts = r->ts;
}

/*
 * What an EXIT, or a leaf folded into one record (BG_REC_LEAF, whose
 * flags never hold BG_RF_NOVAL), tells of the return into ev.
 */
static void take_return(struct gev *ev, const struct bg_rec *x)
{
	ev->dur = bg_rec_dur_ns(x);
	ev->ret = x->val;
	ev->noret = !!(x->type & (BG_RF_NOEXIT | BG_RF_NOVAL));
}

static void release_entry(struct graph *g, struct cpuq *q)
{
	struct bg_rec e = *q_at(q, 0);
	struct gev ev;
	uint32_t *slot = e.depth < BG_MAX_DEPTH ? &q->enter_funcs[e.depth] : NULL;
	size_t k = args_behind(q);

	gev_start(&ev, GEV_ENTER, &e);
	ev.caller = e.val;
	take_args(q, k, &ev);
	if (q->n >= 2 + k && is_leaf(&e, q_at(q, 1 + k))) {
		ev.type = GEV_LEAF;
		take_return(&ev, q_at(q, 1 + k));
		if (slot)
			*slot = NO_FUNC;
		q_pop(g, q, 2 + k);
	} else {
		ev.type = GEV_ENTER;
		if (slot)
			*slot = e.func;
		q_pop(g, q, 1 + k);
	}
	emit_line(g, q, &ev);
}

/* A leaf folded by the BPF side (BG_REC_LEAF): the line release_entry() makes of a pair. */
static void release_leaf(struct graph *g, struct cpuq *q)
{
	struct bg_rec l = *q_at(q, 0);
	struct gev ev;

	gev_start(&ev, GEV_LEAF, &l);
	take_return(&ev, &l);
	if (l.depth < BG_MAX_DEPTH)
		q->enter_funcs[l.depth] = NO_FUNC;
	q_pop(g, q, 1);
	emit_line(g, q, &ev);
}

static void release_exit(struct graph *g, struct cpuq *q)
{
	struct bg_rec x = *q_at(q, 0);
	struct gev ev;

	gev_start(&ev, GEV_EXIT, &x);
	take_return(&ev, &x);

	/* Beyond the array the kernel assumes a match (FTRACE_RETFUNC_DEPTH). */
	if (x.depth < BG_MAX_DEPTH) {
		ev.tail = q->enter_funcs[x.depth] != x.func;
		q->enter_funcs[x.depth] = NO_FUNC;
	}
	q_pop(g, q, 1);
	emit_line(g, q, &ev);
}

static void release_lost(struct graph *g, struct cpuq *q)
{
	struct gev ev = {
		.type = GEV_LOST,
		.cpu = q->cpu,
		.ts = q_at(q, 0)->ts,
		.count = q_at(q, 0)->val,
	};

	if (q->n == 1)
		q->lost_open = false;
	q_pop(g, q, 1);
	emit(g, &ev);
}

/* The head of q cannot be released before the record after it is known. */
static bool q_waits(const struct cpuq *q)
{
	unsigned int type = bg_rec_type(q_at(q, 0));

	if (type == Q_LOST)
		return q->lost_open;
	return type == BG_REC_ENTRY && q->n < 2 + args_behind(q);
}

static bool before(const struct cpuq *a, const struct bg_rec *ah, const struct cpuq *b,
		   const struct bg_rec *bh)
{
	return ah->ts < bh->ts || (ah->ts == bh->ts && a->cpu < b->cpu);
}

/*
 * A head that waits (q_waits) and is older than upto by this much is let
 * go without its look-ahead: its CPU's next record may come any time, or
 * never (the task went on elsewhere and nothing ran here since), and
 * what comes after it on the other CPUs waits for it meanwhile.
 */
#define WAIT_MAX_NS (200 * 1000 * 1000ULL)

/* q's head waits for the record after it, and may still. */
static bool holds(const struct cpuq *q, uint64_t upto)
{
	return q_waits(q) && q_at(q, 0)->ts + WAIT_MAX_NS >= upto;
}

/*
 * The queue whose head comes next in the merged stream, or NULL. *next:
 * the queue after it (NULL if none), whose head bounds how far the best
 * one may run on alone. A head that holds (a waiting entry) keeps its
 * place in the order: nothing later than it is released before it.
 */
static struct cpuq *pick(const struct graph *g, uint64_t upto, bool all, struct cpuq **next)
{
	const struct bg_rec *h, *bh = NULL, *nh = NULL;
	struct cpuq *best = NULL;

	*next = NULL;
	for (uint32_t i = 0; i < g->nactive; i++) {
		struct cpuq *q = g->cpu[g->active[i]];

		if (!q->n)
			continue;
		h = q_at(q, 0);
		if (!all && h->ts >= upto)
			continue;
		if (!best || before(q, h, best, bh)) {
			*next = best;
			nh = bh;
			best = q;
			bh = h;
		} else if (!*next || before(q, h, *next, nh)) {
			*next = q;
			nh = h;
		}
	}
	return best && !all && holds(best, upto) ? NULL : best;
}

/* Emits what q's oldest record stands for. */
static void release_head(struct graph *g, struct cpuq *q)
{
	switch (bg_rec_type(q_at(q, 0))) {
	case BG_REC_ENTRY:
		release_entry(g, q);
		break;
	case BG_REC_EXIT:
		release_exit(g, q);
		break;
	case BG_REC_LEAF:
		release_leaf(g, q);
		break;
	case BG_REC_ARGS:
	case BG_REC_DETAIL:
		q_pop(g, q, 1); /* never left alone at the head; be safe */
		break;
	default:
		release_lost(g, q);
		break;
	}
}

/* q's head may go before next's (and the other queues', which come later). */
static bool still_first(const struct cpuq *q, const struct cpuq *next, uint64_t upto, bool all)
{
	const struct bg_rec *h;

	if (!q->n)
		return false;
	h = q_at(q, 0);
	if (!all && (h->ts >= upto || holds(q, upto)))
		return false;
	return !next || !next->n || before(q, h, next, q_at(next, 0));
}

/*
 * Merging per record would scan every CPU's queue per line: the best queue
 * runs on alone for as long as its head stays ahead of the runner-up's
 * (with one CPU busy, the whole batch). Releasing a record of q changes no
 * other queue.
 */
static void release(struct graph *g, uint64_t upto, bool all)
{
	struct cpuq *q, *next;

	while ((q = pick(g, upto, all, &next))) {
		do
			release_head(g, q);
		while (still_first(q, next, upto, all));
	}
}

void graph__drain(struct graph *g, uint64_t upto)
{
	release(g, upto, false);
}

static void release_excess(struct graph *g)
{
	struct cpuq *q, *next;

	while (g->queued > GRAPH_MAX_QUEUED / 2 && (q = pick(g, 0, true, &next)))
		release_head(g, q);
}

void graph__flush(struct graph *g)
{
	release(g, 0, true);
}

/* --- life cycle ---------------------------------------------------------- */

struct graph *graph__new(const struct graph_opts *opts)
{
	struct graph *g;

	if (!opts) {
		errno = EINVAL;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->o = *opts;
	return g;
}

void graph__free(struct graph *g)
{
	if (!g)
		return;
	for (uint32_t i = 0; i < g->nactive; i++) {
		free(g->cpu[g->active[i]]->buf);
		free(g->cpu[g->active[i]]);
	}
	free(g->cpu);
	free(g->active);
	free(g->comms);
	free(g);
}

static int sink_feed(void *g, const struct bg_rec *r)
{
	return graph__feed(g, r);
}

static void sink_drain(void *g, uint64_t upto)
{
	graph__drain(g, upto);
}

static void sink_flush(void *g)
{
	graph__flush(g);
}

struct rec_sink graph__sink(struct graph *g)
{
	return (struct rec_sink){ sink_feed, sink_drain, sink_flush, g };
}
