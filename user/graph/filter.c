// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live filters on records (filter.h). A task's state mirrors the BPF
 * side's task_state as far as the filters need it: whether its graph was
 * chosen, and the depth of the hidden (-x) call it is inside of.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "globset.h"

bool filter__active(const struct filter_opts *f)
{
	return f->max_depth || f->thresh_ns || f->nr_pids || f->cpus ||
	       (f->comm && *f->comm) || f->n_notrace;
}

bool filter__pid_ok(const struct filter_opts *f, uint32_t pid, uint32_t tgid)
{
	if (!f->nr_pids)
		return true;
	for (size_t i = 0; i < f->nr_pids; i++)
		if (f->pids[i] == pid || (tgid && f->pids[i] == tgid))
			return true;
	return false;
}

bool filter__cpu_ok(const struct filter_opts *f, uint32_t cpu)
{
	if (!f->cpus)
		return true;
	return cpu < BG_MAX_CPUS && (f->cpus[cpu / 64] & (1ULL << (cpu % 64)));
}

enum { GRAPH_NONE, GRAPH_KEPT, GRAPH_DROPPED };

struct task {
	uint32_t tid; /* 0: a free slot (the idle task has its own) */
	uint32_t tgid; /* 0: not known */
	int32_t hide; /* depth of the -x call the task is inside of; -1: none */
	uint8_t graph; /* GRAPH_* */
	char comm[BG_COMM_LEN + 1];
};

/* A CPU's records not yet let through, in arrival order. */
struct cpuq {
	struct bg_rec *v;
	size_t head, n, cap; /* records v[head..n) */
	bool keep_last; /* the last timed record let through was kept (ARGS go with it) */
};

struct recfilter {
	struct filter_opts f;
	const struct functab *funcs;
	struct rec_sink next;
	struct globset *notrace;
	uint8_t *hidden; /* by function index: 0 unknown, 1 hidden by -x, 2 not */
	size_t nhidden;
	struct task idle; /* pid 0 */
	struct task *tasks; /* open addressing on tid, 2^bits slots */
	size_t ntasks;
	unsigned int task_bits;
	struct cpuq *q[BG_MAX_CPUS];
	uint32_t ncpu; /* q[0..ncpu) may be set */
};

/* --- tasks -------------------------------------------------------------- */

static struct task *task_slot(struct task *v, unsigned int bits, uint32_t tid)
{
	size_t mask = ((size_t)1 << bits) - 1;
	size_t i = (tid * 2654435761u) & mask;

	while (v[i].tid && v[i].tid != tid)
		i = (i + 1) & mask;
	return &v[i];
}

static int tasks_grow(struct recfilter *rf)
{
	unsigned int bits = rf->tasks ? rf->task_bits + 1 : 8;
	size_t oldn = rf->tasks ? (size_t)1 << rf->task_bits : 0;
	struct task *v = calloc((size_t)1 << bits, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < oldn; i++)
		if (rf->tasks[i].tid)
			*task_slot(v, bits, rf->tasks[i].tid) = rf->tasks[i];
	free(rf->tasks);
	rf->tasks = v;
	rf->task_bits = bits;
	return 0;
}

/* The state of tid, made on first sight; NULL without memory. */
static struct task *task_get(struct recfilter *rf, uint32_t tid)
{
	struct task *t;

	if (!tid)
		return &rf->idle;
	if ((rf->ntasks + 1) * 2 > (size_t)1 << rf->task_bits && tasks_grow(rf))
		return NULL;
	t = task_slot(rf->tasks, rf->task_bits, tid);
	if (!t->tid) {
		t->tid = tid;
		t->hide = -1;
		rf->ntasks++;
	}
	return t;
}

/* --- the filters -------------------------------------------------------- */

static bool func_hidden(struct recfilter *rf, uint32_t func)
{
	if (!rf->notrace || func >= rf->funcs->n)
		return false;
	if (func >= rf->nhidden) {
		size_t n = rf->funcs->n;
		uint8_t *v = realloc(rf->hidden, n);

		if (!v) /* decided again next time */
			return globset__match(rf->notrace, rf->funcs->f[func].name);
		memset(v + rf->nhidden, 0, n - rf->nhidden);
		rf->hidden = v;
		rf->nhidden = n;
	}
	if (!rf->hidden[func])
		rf->hidden[func] = globset__match(rf->notrace, rf->funcs->f[func].name) ? 1 : 2;
	return rf->hidden[func] == 1;
}

/* -p, -C, -n: does a graph task t starts on rec's CPU show? */
static bool graph_chosen(const struct recfilter *rf, const struct task *t,
			 const struct bg_rec *rec)
{
	const char *comm = rf->f.comm;

	return filter__pid_ok(&rf->f, rec->pid, t->tgid) && filter__cpu_ok(&rf->f, rec->cpu) &&
	       (!comm || !*comm || !strcmp(comm, t->comm));
}

static uint64_t dur_ns(const struct bg_rec *rec)
{
	return rec->type & BG_RF_DUR_US ? (uint64_t)rec->dur * 1000 : rec->dur;
}

/* As on_entry() decides; true: the record shows. */
static bool entry_kept(struct recfilter *rf, struct task *t, const struct bg_rec *rec)
{
	if (!rec->depth || t->graph == GRAPH_NONE) {
		t->graph = graph_chosen(rf, t, rec) ? GRAPH_KEPT : GRAPH_DROPPED;
		if (!rec->depth)
			t->hide = -1;
	}
	if (t->graph == GRAPH_DROPPED)
		return false;
	if (t->hide >= 0) {
		if (rec->depth > t->hide)
			return false;
		t->hide = -1; /* the hidden call's exit was lost */
	}
	if (func_hidden(rf, rec->func)) {
		t->hide = rec->depth;
		return false;
	}
	if (rf->f.max_depth && rec->depth >= rf->f.max_depth)
		return false;
	return !rf->f.thresh_ns; /* tracing_thresh writes no entries */
}

/* As on_exit() and pop_frame() decide. */
static bool exit_kept(struct recfilter *rf, struct task *t, const struct bg_rec *rec)
{
	bool keep;

	if (t->graph == GRAPH_NONE) /* a graph whose entries were not recorded (-t) */
		t->graph = graph_chosen(rf, t, rec) ? GRAPH_KEPT : GRAPH_DROPPED;
	keep = t->graph == GRAPH_KEPT;
	if (t->hide >= 0) {
		if (rec->depth >= t->hide)
			keep = false;
		if (rec->depth <= t->hide)
			t->hide = -1;
	}
	if (rf->f.max_depth && rec->depth >= rf->f.max_depth)
		keep = false;
	if (rf->f.thresh_ns && dur_ns(rec) < rf->f.thresh_ns)
		keep = false;
	if (!rec->depth) {
		t->graph = GRAPH_NONE;
		t->hide = -1;
	}
	return keep;
}

static int decide(struct recfilter *rf, const struct bg_rec *rec, bool *keep)
{
	struct task *t = task_get(rf, rec->pid);

	if (!t)
		return -ENOMEM;
	switch (bg_rec_type(rec)) {
	case BG_REC_ENTRY:
		*keep = entry_kept(rf, t, rec);
		break;
	case BG_REC_EXIT:
		*keep = exit_kept(rf, t, rec);
		break;
	case BG_REC_COMM:
		/* The comm bytes overlay ts and val; dur is the process id. */
		memcpy(t->comm, (const char *)rec + offsetof(struct bg_rec, ts), BG_COMM_LEN);
		t->comm[BG_COMM_LEN] = '\0';
		if (rec->dur)
			t->tgid = rec->dur;
		*keep = false; /* went on as it came */
		break;
	default: /* BG_REC_SWITCH: a task inside a graph */
		*keep = t->graph != GRAPH_DROPPED;
		break;
	}
	return 0;
}

/* --- time order --------------------------------------------------------- */

static bool timed(const struct bg_rec *rec)
{
	unsigned int type = bg_rec_type(rec);

	return type == BG_REC_ENTRY || type == BG_REC_EXIT || type == BG_REC_SWITCH;
}

static int q_push(struct recfilter *rf, const struct bg_rec *rec)
{
	struct cpuq *q = rf->q[rec->cpu];

	if (!q) {
		q = rf->q[rec->cpu] = calloc(1, sizeof(*q));
		if (!q)
			return -ENOMEM;
		if (rec->cpu >= rf->ncpu)
			rf->ncpu = rec->cpu + 1u;
	}
	if (q->head && q->head * 2 >= q->n) {
		memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct bg_rec *v = realloc(q->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		q->v = v;
		q->cap = cap;
	}
	q->v[q->n++] = *rec;
	return 0;
}

/* q's first timed record, or NULL. */
static const struct bg_rec *q_first(const struct cpuq *q)
{
	for (size_t i = q->head; i < q->n; i++)
		if (timed(&q->v[i]))
			return &q->v[i];
	return NULL;
}

/*
 * Lets q's first record through, and the ARGS and DETAIL records after
 * it, which belong to it.
 */
static int q_release(struct recfilter *rf, struct cpuq *q)
{
	bool keep, was_timed = false;
	int err;

	while (q->head < q->n) {
		const struct bg_rec *rec = &q->v[q->head];
		unsigned int type = bg_rec_type(rec);

		if (type == BG_REC_ARGS || type == BG_REC_DETAIL) {
			keep = q->keep_last;
		} else if (was_timed) {
			break;
		} else {
			err = decide(rf, rec, &keep);
			if (err)
				return err;
			if (timed(rec)) {
				was_timed = true;
				q->keep_last = keep;
			}
		}
		if (keep && (err = rf->next.feed(rf->next.ctx, rec)))
			return err;
		q->head++;
	}
	return 0;
}

/* Everything older than upto (all of it: flush), oldest first across CPUs. */
static int release(struct recfilter *rf, uint64_t upto, bool all)
{
	for (;;) {
		struct cpuq *best = NULL;
		uint64_t best_ts = 0;
		int err;

		for (uint32_t c = 0; c < rf->ncpu; c++) {
			const struct bg_rec *r = rf->q[c] ? q_first(rf->q[c]) : NULL;

			if (r && (all || r->ts < upto) && (!best || r->ts < best_ts)) {
				best = rf->q[c];
				best_ts = r->ts;
			}
		}
		if (!best)
			break;
		err = q_release(rf, best);
		if (err)
			return err;
	}
	/* At the end: what no timed record follows (a COMM, ARGS of a lost entry). */
	for (uint32_t c = 0; all && c < rf->ncpu; c++) {
		int err = rf->q[c] ? q_release(rf, rf->q[c]) : 0;

		if (err)
			return err;
	}
	return 0;
}

/* --- the sink ----------------------------------------------------------- */

static int rf_feed(void *ctx, const struct bg_rec *rec)
{
	struct recfilter *rf = ctx;
	unsigned int type = bg_rec_type(rec);
	bool keep;
	int err;

	/*
	 * A COMM is taken when it comes, by the builder's comm table as
	 * without filters, and here: a task's comm and process id change at
	 * most by an exec, and it comes right before the graph it starts.
	 */
	if (type == BG_REC_COMM) {
		err = decide(rf, rec, &keep);
		return err ? err : rf->next.feed(rf->next.ctx, rec);
	}
	if (!timed(rec) && type != BG_REC_ARGS && type != BG_REC_DETAIL)
		return rf->next.feed(rf->next.ctx, rec);
	if (rec->cpu >= BG_MAX_CPUS)
		return -EINVAL;
	return q_push(rf, rec);
}

static void rf_drain(void *ctx, uint64_t upto)
{
	struct recfilter *rf = ctx;

	/* Out of memory: the records stay held; the flush lets them through. */
	release(rf, upto, false);
	rf->next.drain(rf->next.ctx, upto);
}

static void rf_flush(void *ctx)
{
	struct recfilter *rf = ctx;

	release(rf, 0, true);
	rf->next.flush(rf->next.ctx);
}

struct rec_sink recfilter__sink(struct recfilter *rf)
{
	return (struct rec_sink){ .feed = rf_feed, .drain = rf_drain, .flush = rf_flush,
				  .ctx = rf };
}

static struct globset *notrace_set(const struct filter_opts *f)
{
	const char **v = calloc(f->n_notrace + 1, sizeof(*v));
	struct globset *g;

	if (!v)
		return NULL;
	for (size_t i = 0; i < f->n_notrace; i++)
		v[i] = f->notrace[i];
	g = globset__new(v);
	free(v); /* the set keeps the strings, not the array */
	return g;
}

struct recfilter *recfilter__new(const struct filter_opts *f, const struct functab *funcs,
				 struct rec_sink next)
{
	struct recfilter *rf = calloc(1, sizeof(*rf));

	if (!rf)
		return NULL;
	rf->f = *f;
	rf->funcs = funcs;
	rf->next = next;
	rf->idle.hide = -1;
	if (tasks_grow(rf) || (f->n_notrace && !(rf->notrace = notrace_set(f)))) {
		recfilter__free(rf);
		errno = ENOMEM;
		return NULL;
	}
	return rf;
}

void recfilter__free(struct recfilter *rf)
{
	if (!rf)
		return;
	for (uint32_t c = 0; c < rf->ncpu; c++) {
		if (rf->q[c])
			free(rf->q[c]->v);
		free(rf->q[c]);
	}
	globset__free(rf->notrace);
	free(rf->hidden);
	free(rf->tasks);
	free(rf);
}
