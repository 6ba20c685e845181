// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Chrome Trace Event writer. Records carry the thread id only, so each
 * thread is its own process track (pid = tid): Perfetto then names the
 * track after the task. Events are written as calls end, so children come
 * before their parent; the viewers sort by ts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfgraph.h"
#include "calls.h"
#include "options.h"
#include "out_chrome.h"
#include "out_json.h"
#include "out_text.h"

struct task {
	uint32_t pid;
	char comm[BG_COMM_LEN + 1];
};

struct out_chrome {
	struct out_chrome_opts o;
	struct calls *calls;
	bool first;
	uint64_t last_ts; /* unfinished calls last until here */
	struct task *tasks; /* sorted by pid */
	size_t ntasks, cap;
	struct args_fmt *af; /* with BG_O_ARGS or BG_O_RETADDR */
};

static void put_call(void *ctx, const struct call *c);

struct out_chrome *out_chrome__new(const struct out_chrome_opts *opts)
{
	struct out_chrome *w;

	if (!opts || !opts->out) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->o = *opts;
	w->first = true;
	w->calls = calls__new(&(struct calls_opts){ .on_call = put_call, .ctx = w });
	if (w->calls && (opts->flags & (BG_O_ARGS | BG_O_RETADDR))) {
		w->af = args_fmt__new(opts->args, opts->funcs);
		if (!w->af) {
			calls__free(w->calls);
			w->calls = NULL;
		}
	}
	if (!w->calls) {
		free(w);
		return NULL;
	}
	return w;
}

void out_chrome__free(struct out_chrome *w)
{
	if (!w)
		return;
	calls__free(w->calls);
	args_fmt__free(w->af);
	free(w->tasks);
	free(w);
}

void out_chrome__begin(struct out_chrome *w)
{
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", w->o.out);
}

static void sep(struct out_chrome *w)
{
	fputs(w->first ? "\n" : ",\n", w->o.out);
	w->first = false;
}

/* The last comm seen for pid; tasks stay few, a sorted array will do. */
static void note_task(struct out_chrome *w, uint32_t pid, const char *comm)
{
	size_t lo = 0, hi = w->ntasks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->tasks[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == w->ntasks || w->tasks[lo].pid != pid) {
		if (w->ntasks == w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 16;
			struct task *t = realloc(w->tasks, cap * sizeof(*t));

			if (!t)
				return;
			w->tasks = t;
			w->cap = cap;
		}
		memmove(w->tasks + lo + 1, w->tasks + lo, (w->ntasks - lo) * sizeof(*w->tasks));
		w->ntasks++;
		w->tasks[lo].pid = pid;
	}
	snprintf(w->tasks[lo].comm, sizeof(w->tasks[lo].comm), "%s", comm ? comm : "<...>");
}

static void put_args(struct out_chrome *w, const struct call *c, const struct bg_func *fn)
{
	FILE *f = w->o.out;
	char txt[32];

	fprintf(f, ",\"args\":{\"cpu\":%u,\"depth\":%u", c->cpu, c->depth);
	if (!c->noret && out_text__fmt_retval(txt, sizeof(txt), c->ret, fn, w->o.hex))
		fprintf(f, ",\"retval\":\"%s\"", txt);
	if (c->orphan)
		fputs(",\"orphan\":true", f);
	if (c->unfinished)
		fputs(",\"unfinished\":true", f);
	if (w->af) {
		char a[2048];
		int n = args_fmt__json(w->af, c->func, c->caller, c->args, c->nargs, c->detail,
				       w->o.dialect, w->o.flags, a, sizeof(a));

		if (n > 0 && (size_t)n < sizeof(a))
			fprintf(f, ",%s", a);
	}
	fputs("}}", f);
}

static void put_call(void *ctx, const struct call *c)
{
	struct out_chrome *w = ctx;
	const struct bg_func *fn = w->o.funcs && c->func < w->o.funcs->n ?
					   &w->o.funcs->f[c->func] : NULL;
	uint64_t dur = c->unfinished ? (w->last_ts > c->ts ? w->last_ts - c->ts : 0) : c->dur;
	FILE *f = w->o.out;
	char name[32];

	note_task(w, c->pid, c->comm);
	sep(w);
	fputs("{\"name\":", f);
	if (fn && fn->display) {
		out_json__put_str(f, fn->display);
	} else {
		snprintf(name, sizeof(name), "func#%u", c->func);
		out_json__put_str(f, name);
	}
	fputs(",\"cat\":\"function\",\"ph\":\"X\",\"ts\":", f);
	out_json__put_us(f, c->ts);
	fputs(",\"dur\":", f);
	out_json__put_us(f, dur);
	fprintf(f, ",\"pid\":%u,\"tid\":%u", c->pid, c->pid);
	put_args(w, c, fn);
}

void out_chrome__emit(void *ctx, const struct gev *ev)
{
	struct out_chrome *w = ctx;
	uint64_t end = ev->type == GEV_LEAF ? ev->ts + ev->dur : ev->ts;

	if (end > w->last_ts)
		w->last_ts = end;
	calls__feed(w->calls, ev);
	if (ev->type != GEV_LOST)
		return;
	sep(w);
	fputs("{\"name\":\"lost events\",\"cat\":\"bpfgraph\",\"ph\":\"i\",\"s\":\"g\",\"ts\":",
	      w->o.out);
	out_json__put_us(w->o.out, ev->ts);
	fprintf(w->o.out, ",\"pid\":0,\"tid\":0,\"args\":{\"cpu\":%u,\"count\":%" PRIu64 "}}",
		ev->cpu, ev->count);
}

static void put_names(struct out_chrome *w)
{
	static const char *const kinds[] = { "process_name", "thread_name" };
	FILE *f = w->o.out;

	for (size_t i = 0; i < w->ntasks; i++) {
		for (int k = 0; k < 2; k++) {
			sep(w);
			fprintf(f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
				"\"args\":{\"name\":", kinds[k], w->tasks[i].pid, w->tasks[i].pid);
			out_json__put_str(f, w->tasks[i].comm);
			fputs("}}", f);
		}
	}
}

void out_chrome__end(struct out_chrome *w)
{
	calls__flush(w->calls);
	put_names(w);
	fputs("\n]}\n", w->o.out);
}
