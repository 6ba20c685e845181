// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * reader: what the user-space side costs per record, on the host.
 *
 *   make -f tests/bench/Makefile OUTPUT=build && build/bench/reader
 *   build/bench/reader [-n RECORDS] [-r REPEATS] [-o DIR] [-m MODE] [-s SHAPE]
 *
 * Synthetic records, shaped like a live trace, are handed to session.c's
 * ring buffer callback (session__sample) in samples of BG_BATCH, as the
 * programs' per-CPU batches arrive: discover__feed() and
 * discover__expand(), then the render sink (graph__feed(), graph__drain()
 * after each poll's worth, graph__flush() at the end) into the writer of
 * each mode, writing to /dev/null; "record" hands them to the record file
 * writer instead (discovery kept, no graph), as bpfgraph record does. Two shapes: getpid (4
 * functions, depth 0-2, 8 records a call) and a deeper, wider graph (30
 * functions, depth up to 8). Prints the best of REPEATS runs in process
 * CPU ns per record. -o DIR also writes each mode's output to
 * DIR/SHAPE-MODE.out, to check that a change left the bytes alone; -m
 * and -s run one mode or shape only (for perf record).
 *
 * Not included: libbpf's ring buffer itself, and kallsyms look-ups in
 * discover__feed() (every return address here lies in its traced parent,
 * as it does once the traced set has stopped growing).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpfgraph.h"
#include "discover.h"
#include "functab.h"
#include "graph.h"
#include "out_text.h"
#include "record.h"
#include "render.h"
#include "session.h"

#define PID 4242
#define CPU 1
#define NR_CPU_IDS 2
/* Records a poll hands over between two drains. */
#define BATCH 4096
#define FUNC_SIZE 0x400
/* About an hour and a half after boot: abstime shows all its digits. */
#define TS_START 5432123456789ULL

struct fn_spec {
	const char *name;
	const char *module;
	uint8_t ret_kind;
	uint8_t ret_size;
};

/* getpid under the bench: 4 functions, 2 entries, 2 leaves, 2 exits. */
static const struct fn_spec getpid_fns[] = {
	{ "__do_sys_getpid", NULL, BG_RET_SIGNED, 4 },
	{ "__task_pid_nr_ns", NULL, BG_RET_SIGNED, 4 },
	{ "__rcu_read_lock", NULL, BG_RET_VOID, 0 },
	{ "__rcu_read_unlock", NULL, BG_RET_VOID, 0 },
};

struct shape {
	const char *name;
	struct functab ft;
	struct bg_rec *recs;
	size_t n, cap;
	size_t nraw; /* records before -f folded leaves (ns/rec counts these) */
	uint64_t ts;
	uint64_t rng;
};

static int push(struct shape *s, const struct bg_rec *r)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct bg_rec *v = realloc(s->recs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->recs = v;
		s->cap = cap;
	}
	s->recs[s->n++] = *r;
	return 0;
}

static int add_func(struct shape *s, const struct fn_spec *f)
{
	int i = functab__add(&s->ft, f->name, f->module, 0xffffffff81000000ULL +
			     (uint64_t)s->ft.n * 0x1000, FUNC_SIZE);

	if (i < 0)
		return i;
	s->ft.f[i].ret_kind = f->ret_kind;
	s->ft.f[i].ret_size = f->ret_size;
	/* Steady state: discovery has looked at every function already. */
	s->ft.f[i].flags |= BG_FN_EXPANDED;
	return i;
}

static uint32_t rnd(struct shape *s, uint32_t n)
{
	/* xorshift64: the same graph on every run and every host. */
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (uint32_t)(s->rng % n);
}

static int entry(struct shape *s, uint32_t func, uint32_t depth, uint32_t parent)
{
	struct bg_rec r = { .type = BG_REC_ENTRY, .pid = PID, .cpu = CPU, .func = func,
			    .depth = (uint8_t)depth, .ts = s->ts };

	/* A return address inside the traced parent: a direct call. */
	if (depth)
		r.val = s->ft.f[parent].addr + 0x20 + func;
	s->ts += 180 + rnd(s, 200);
	return push(s, &r);
}

static int exit_(struct shape *s, uint32_t func, uint32_t depth, uint64_t t0, uint64_t ret)
{
	struct bg_rec r = { .type = BG_REC_EXIT, .pid = PID, .cpu = CPU, .func = func,
			    .depth = (uint8_t)depth, .val = ret };

	s->ts += 150 + rnd(s, 400);
	r.ts = s->ts;
	r.dur = (uint32_t)(s->ts - t0);
	s->ts += 100;
	return push(s, &r);
}

static uint64_t ret_of(struct shape *s, uint32_t func)
{
	const struct bg_func *f = &s->ft.f[func];

	switch (f->ret_kind) {
	case BG_RET_SIGNED:
		/* Mostly small values, now and then an error code. */
		return rnd(s, 8) ? rnd(s, 100) : (uint64_t)-2;
	case BG_RET_PTR:
		return 0xffff888004a1c000ULL + rnd(s, 1 << 16) * 64;
	case BG_RET_BOOL:
		return rnd(s, 2);
	default:
		return rnd(s, 1 << 20);
	}
}

/* One call of getpid: 8 records. */
static int gen_getpid(struct shape *s)
{
	uint64_t t0 = s->ts, t1, t2;
	int err;

	err = entry(s, 0, 0, 0);
	t1 = s->ts;
	err = err ?: entry(s, 1, 1, 0);
	t2 = s->ts;
	err = err ?: entry(s, 2, 2, 1);
	err = err ?: exit_(s, 2, 2, t2, 0);
	t2 = s->ts;
	err = err ?: entry(s, 3, 2, 1);
	err = err ?: exit_(s, 3, 2, t2, 0);
	err = err ?: exit_(s, 1, 1, t1, PID);
	err = err ?: exit_(s, 0, 0, t0, PID);
	s->ts += 20000; /* the workload between two calls */
	return err;
}

/* A call of func at depth and, below depth 8, a few random callees. */
static int gen_call(struct shape *s, uint32_t func, uint32_t depth, uint32_t parent)
{
	uint32_t kids = depth < 8 ? rnd(s, depth < 2 ? 5 : 3) : 0;
	uint64_t t0 = s->ts;
	int err = entry(s, func, depth, parent);

	for (uint32_t i = 0; !err && i < kids; i++)
		err = gen_call(s, 1 + rnd(s, (uint32_t)s->ft.n - 1), depth + 1, func);
	return err ?: exit_(s, func, depth, t0, ret_of(s, func));
}

static int make_getpid(struct shape *s, size_t nrec)
{
	int err = 0;

	s->name = "getpid";
	s->ts = TS_START;
	for (size_t i = 0; !err && i < sizeof(getpid_fns) / sizeof(getpid_fns[0]); i++)
		err = add_func(s, &getpid_fns[i]) < 0 ? -ENOMEM : 0;
	while (!err && s->n < nrec)
		err = gen_getpid(s);
	return err;
}

static int make_deep(struct shape *s, size_t nrec)
{
	static const uint8_t kinds[] = { BG_RET_SIGNED, BG_RET_VOID, BG_RET_PTR,
					 BG_RET_UNSIGNED, BG_RET_BOOL, BG_RET_UNKNOWN };
	char name[64], mod[16];
	int err = 0;

	s->name = "deep";
	s->ts = TS_START;
	s->rng = 0x9e3779b97f4a7c15ULL;
	for (int i = 0; !err && i < 30; i++) {
		struct fn_spec f = { name, NULL, kinds[i % 6], i % 3 ? 4 : 8 };

		snprintf(name, sizeof(name), "deep_func_%02d_%s", i, i % 2 ? "x" : "longer_name");
		if (i % 7 == 6) {
			snprintf(mod, sizeof(mod), "mod%d", i % 3);
			f.module = mod;
		}
		err = add_func(s, &f) < 0 ? -ENOMEM : 0;
	}
	while (!err && s->n < nrec) {
		err = gen_call(s, 0, 0, 0);
		s->ts += 20000;
	}
	return err;
}

/*
 * -f: the stream the BPF side sends with bg_fold set: each EXIT right
 * after its ENTRY folded into one BG_REC_LEAF (bpf/records.bpf.h).
 */
static void fold_leaves(struct shape *s)
{
	size_t m = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct bg_rec *e = m ? &s->recs[m - 1] : NULL;
		const struct bg_rec *x = &s->recs[i];

		if (e && bg_rec_type(x) == BG_REC_EXIT && bg_rec_type(e) == BG_REC_ENTRY &&
		    e->pid == x->pid && e->func == x->func && e->depth == x->depth) {
			e->type = BG_REC_LEAF | (x->type & BG_RF_DUR_US);
			e->val = x->val;
			e->dur = x->dur;
			continue;
		}
		s->recs[m++] = *x;
	}
	s->n = m;
}

/* --- the measured path ---------------------------------------------------- */

enum mode { M_DISCOVER, M_GRAPH, M_TEXT, M_TEXT_PROC, M_JSON, M_RECORD, M_NR };

static const char *const mode_names[M_NR] = {
	[M_DISCOVER] = "discover",
	[M_GRAPH] = "graph",
	[M_TEXT] = "text",
	[M_TEXT_PROC] = "text-proc-abstime",
	[M_JSON] = "json",
	[M_RECORD] = "record",
};

static const char *const mode_help[M_NR] = {
	[M_DISCOVER] = "discover__feed/expand only",
	[M_GRAPH] = "+ graph builder, null sink",
	[M_TEXT] = "+ text writer, default options",
	[M_TEXT_PROC] = "+ funcgraph-proc, funcgraph-abstime",
	[M_JSON] = "+ JSON lines writer",
	[M_RECORD] = "discovery + record file writer, no graph",
};

/* Discovery alone: records go nowhere after it. */
static int no_feed(void *ctx, const struct bg_rec *r)
{
	(void)ctx;
	(void)r;
	return 0;
}

/* A session without a ring buffer: samples are handed to its callback. */
struct run {
	struct session s;
};

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Not inlined: valgrind --tool=callgrind --toggle-collect=feed_all counts
 * the instructions of the measured path alone, a figure that does not
 * move with the host's load (and what emulation time follows).
 */
static __attribute__((noinline)) int feed_all(struct run *rn, const struct shape *s)
{
	struct rec_sink *sink = &rn->s.sink;

	/*
	 * A poll takes BATCH records in samples of BG_BATCH (the programs'
	 * per-CPU batches); the session then drains what is older than its
	 * clock less a margin.
	 */
	for (size_t i = 0; i < s->n; i += BATCH) {
		size_t end = i + BATCH < s->n ? i + BATCH : s->n;

		rn->s.batch = 0;
		for (size_t k = i; k < end; k += BG_BATCH) {
			size_t n = end - k < BG_BATCH ? end - k : BG_BATCH;
			int err = session__sample(&rn->s, (void *)&s->recs[k],
						  n * sizeof(struct bg_rec));

			if (err)
				return err;
		}
		/* What the session's poll loop does with discovery's finds. */
		rn->s.npending = rn->s.nexpand = 0;
		if (sink->drain)
			sink->drain(sink->ctx, s->recs[end - 1].ts - 2000);
	}
	if (sink->flush)
		sink->flush(sink->ctx);
	return 0;
}

static struct rec_sink null_graph(struct shape *s, struct graph **g)
{
	*g = graph__new(&(struct graph_opts){ .funcs = &s->ft });
	return *g ? graph__sink(*g) : (struct rec_sink){ 0 };
}

/* One run of mode over shape; CPU ns spent, or 0 on failure. */
static uint64_t run_once(struct shape *s, enum mode m, FILE *out, const char *path)
{
	struct render_opts ro = { .out = out, .funcs = &s->ft, .flags = BG_O_DEFAULTS,
				  .dialect = BG_DIALECT_6_5, .nr_cpu_ids = NR_CPU_IDS,
				  .header = true };
	struct run rn = { .s = { .ringbuf_fd = -1, .batch_fd = -1, .stats_fd = -1 } };
	struct graph *g = NULL;
	struct render *r = NULL;
	struct record_writer *rec = NULL;
	struct bg_rec comm = { .type = BG_REC_COMM, .pid = PID, .cpu = CPU };
	uint64_t t0, t1;
	int err = 0;

	memcpy(&comm.ts, "getpid_loop", 12);
	rn.s.discover = discover__new(&s->ft, NULL);
	if (!rn.s.discover)
		return 0;
	if (m == M_TEXT_PROC)
		ro.flags |= BG_O_PROC | BG_O_ABSTIME;
	if (m == M_JSON)
		ro.format = BG_FMT_JSON;
	t0 = cpu_ns();
	if (m == M_RECORD) {
		rec = record__create(path,
				     &(struct record_meta){ .flags = BG_O_DEFAULTS,
							    .dialect = BG_DIALECT_6_5,
							    .nr_cpu_ids = NR_CPU_IDS, .header = true },
				     &s->ft, stderr);
		if (rec)
			rn.s.sink = record__sink(rec);
	} else if (m == M_GRAPH) {
		rn.s.sink = null_graph(s, &g);
	} else if (m != M_DISCOVER) {
		r = render__new(&ro);
		if (r)
			rn.s.sink = render__sink(r);
	} else {
		rn.s.sink = (struct rec_sink){ .feed = no_feed };
	}
	if (!rn.s.sink.feed) {
		err = -ENOMEM;
		goto out;
	}
	err = rn.s.sink.feed(rn.s.sink.ctx, &comm);
	err = err ?: feed_all(&rn, s);
	if (!err && r)
		err = render__finish(r);
	if (rec) {
		int cerr = record__close(rec);

		err = err ?: cerr;
	}
out:
	render__free(r);
	graph__free(g);
	t1 = cpu_ns();
	discover__free(rn.s.discover);
	free(rn.s.targets);
	if (err) {
		fprintf(stderr, "reader: %s %s: %s\n", s->name, mode_names[m], strerror(-err));
		return 0;
	}
	return t1 - t0 ? t1 - t0 : 1;
}

/* Where mode m's output goes: DIR/SHAPE-MODE.out, or /dev/null. */
static const char *out_path(char *buf, size_t size, const char *dir, const struct shape *s,
			    enum mode m)
{
	if (!dir)
		return "/dev/null";
	snprintf(buf, size, "%s/%s-%s.out", dir, s->name, mode_names[m]);
	return buf;
}

static int bench(struct shape *s, int reps, const char *dir, const char *only)
{
	for (enum mode m = 0; m < M_NR; m++) {
		uint64_t best = UINT64_MAX;

		if (only && strcmp(only, mode_names[m]))
			continue;
		/* A record file keeps the records as they came: never folded. */
		if (m == M_RECORD && s->n != s->nraw)
			continue;

		for (int i = 0; i < reps; i++) {
			char buf[4096];
			const char *path = out_path(buf, sizeof(buf), i ? NULL : dir, s, m);
			/* The record writer opens its file itself. */
			FILE *out = m == M_RECORD ? NULL : fopen(path, "we");
			uint64_t ns;

			if (!out && m != M_RECORD) {
				int err = -errno;

				perror("reader: cannot open output");
				return err;
			}
			ns = run_once(s, m, out, path);
			if (out)
				fclose(out);
			if (!ns)
				return -EIO;
			if (ns < best)
				best = ns;
		}
		printf("%-8s %-18s %8.1f  (%s)\n", s->name, mode_names[m],
		       (double)best / (double)s->nraw, mode_help[m]);
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: reader [-n RECORDS] [-r REPEATS] [-o DIR] [-m MODE] [-s SHAPE] [-f]\n"
		"  -f  leaves folded into one record, as bpfgraph's programs send them\n"
		"      when no output shows return addresses (ns/rec per unfolded record)\n");
}

int main(int argc, char **argv)
{
	struct shape shapes[2] = { { .rng = 0x2545f4914f6cdd1dULL } };
	size_t nrec = 1000000;
	const char *dir = NULL, *mode = NULL, *shape = NULL;
	int reps = 5, opt, err = 0;
	bool fold = false;

	while ((opt = getopt(argc, argv, "n:r:o:m:s:fh")) != -1) {
		switch (opt) {
		case 'n':
			nrec = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'o':
			dir = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 's':
			shape = optarg;
			break;
		case 'f':
			fold = true;
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!nrec || reps < 1 || optind != argc) {
		usage();
		return 2;
	}
	if (make_getpid(&shapes[0], nrec) || make_deep(&shapes[1], nrec)) {
		fprintf(stderr, "reader: out of memory\n");
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		shapes[i].nraw = shapes[i].n;
		if (fold)
			fold_leaves(&shapes[i]);
	}
	printf("%-8s %-18s %8s  best of %d, %zu records%s, process CPU\n", "shape", "mode",
	       "ns/rec", reps, nrec, fold ? " (leaves folded)" : "");
	for (int i = 0; i < 2 && !err; i++)
		if (!shape || !strcmp(shape, shapes[i].name))
			err = bench(&shapes[i], reps, dir, mode);
	for (int i = 0; i < 2; i++) {
		free(shapes[i].recs);
		functab__free(&shapes[i].ft);
	}
	return err ? 1 : 0;
}
