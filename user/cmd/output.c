// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where a trace's records go: see output.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "kbtf.h"
#include "ksyms.h"
#include "output.h"
#include "render.h"

struct output {
	FILE *f;
	const char *name; /* of f, for messages */
	struct render *render;
	struct record_writer *rec;
	struct rec_sink print, file; /* either may be unused (ctx NULL) */
	struct record_meta meta;
	struct args_src args;
	/*
	 * The first failed write of the rendered trace (-EPIPE: the reader
	 * went away, -ENOSPC...): the next record fed returns it, which
	 * ends the session.
	 */
	int werr;
};

/*
 * Called for every record fed: ferror() would take the stream's lock
 * (bpfgraph has threads), which cost the reader about as much as
 * formatting the lines' durations (perf in the guest). Only this thread
 * writes the stream.
 */
static void check_written(struct output *out)
{
	if (!out->werr && out->f && ferror_unlocked(out->f))
		out->werr = errno ? -errno : -EIO;
}

static int out_feed(void *ctx, const struct bg_rec *r)
{
	struct output *out = ctx;
	int err = 0;

	if (out->werr)
		return out->werr;
	if (out->file.ctx)
		err = out->file.feed(out->file.ctx, r);
	if (!err && out->print.ctx) {
		/* The graph builder may write as records come (a leaf's line). */
		errno = 0;
		err = out->print.feed(out->print.ctx, r);
		check_written(out);
	}
	return err;
}

static void out_drain(void *ctx, uint64_t upto)
{
	struct output *out = ctx;

	if (out->file.ctx)
		out->file.drain(out->file.ctx, upto);
	if (out->print.ctx && !out->werr) {
		errno = 0;
		out->print.drain(out->print.ctx, upto);
		/*
		 * Standard output, once per poll: a pipe's reader (grep, less)
		 * sees lines as they come, and one that went away (head) is
		 * found now rather than a stdio buffer later.
		 */
		if (out->f == stdout)
			fflush(out->f);
		check_written(out);
	}
}

static void out_flush(void *ctx)
{
	struct output *out = ctx;

	if (out->file.ctx)
		out->file.flush(out->file.ctx);
	if (out->print.ctx && !out->werr) {
		errno = 0;
		out->print.flush(out->print.ctx);
		check_written(out);
	}
}

static int open_render(struct output *out, const struct bg_opts *o, const struct tracer_sinks *ts,
		       const struct functab *funcs)
{
	const char *path = ts->record ? NULL : o->output;
	struct render_opts ro = {
		.funcs = funcs, .format = o->format, .flags = o->flags, .dialect = o->dialect,
		.nr_cpu_ids = (uint32_t)libbpf_num_possible_cpus(), .header = !o->no_header,
		.folded_count = o->folded_count, .args = &out->args,
		.hist = (const char *const *)o->hist.v, .nr_hist = o->hist.n,
	};

	out->f = path ? fopen(path, "we") : stdout;
	out->name = path ? path : "standard output";
	if (!out->f) {
		fprintf(stderr, "bpfgraph: cannot open '%s': %s\n", path, strerror(errno));
		return -errno;
	}
	/*
	 * A file is read afterwards: large writes (a system call costs much
	 * under emulation). stdout is flushed once per poll (out_drain).
	 */
	if (path)
		setvbuf(out->f, NULL, _IOFBF, 1 << 20);
	ro.out = out->f;
	out->render = render__new(&ro);
	if (!out->render)
		return -ENOMEM;
	out->print = render__sink(out->render);
	return 0;
}

uint64_t output__clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* What report needs to print the records as they would have been here. */
static void fill_meta(struct record_meta *m, const struct bg_opts *o, const char *cmdline)
{
	static struct utsname u;
	static char host[256];
	uint64_t mono = output__clock_ns(CLOCK_MONOTONIC);

	*m = (struct record_meta){
		.flags = o->flags, .dialect = o->dialect, .max_depth = o->max_depth,
		.nr_cpu_ids = (uint32_t)libbpf_num_possible_cpus(),
		.ncpus_online = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN),
		.header = !o->no_header, .thresh_ns = o->thresh_ns,
		.clock_offset_ns = (int64_t)(output__clock_ns(CLOCK_REALTIME) - mono),
		.start_ns = mono, .cmdline = (char *)cmdline,
	};
	if (!uname(&u))
		m->release = u.release;
	if (!gethostname(host, sizeof(host) - 1))
		m->hostname = host;
}

static int ksyms_sym(void *ctx, uint64_t addr, struct args_sym *out)
{
	const struct ksym *s = ctx ? ksyms__find_addr(ctx, addr) : NULL;

	if (!s)
		return -ENOENT;
	*out = (struct args_sym){ s->name, s->module, s->addr, s->size };
	return 0;
}

static const struct btf *kbtf_module(void *ctx, const char *module)
{
	return ctx ? kbtf__btf(ctx, module) : NULL;
}

struct args_src output__kernel_args(struct kbtf *kb, const struct ksyms *ks)
{
	return (struct args_src){ .btf = kb ? kbtf__btf(kb, NULL) : NULL,
				  .module_btf = kbtf_module, .module_ctx = kb,
				  .sym = ksyms_sym, .sym_ctx = (void *)ks };
}

struct output *output__open(const struct bg_opts *o, const struct tracer_sinks *ts,
			    const struct functab *funcs, const struct args_src *args)
{
	struct output *out = calloc(1, sizeof(*out));
	int err = 0;

	if (!out)
		return NULL;
	if (args)
		out->args = *args;

	if (ts->print)
		err = open_render(out, o, ts, funcs);
	if (!err && ts->record) {
		fill_meta(&out->meta, o, ts->cmdline);
		out->rec = record__create(ts->record, &out->meta, funcs, stderr);
		if (!out->rec)
			err = -errno;
		else
			out->file = record__sink(out->rec);
		if (out->rec && args)
			err = record__set_args(out->rec, &out->args);
	}
	/*
	 * Before COMMAND runs and writes to the same stdout; and a file that
	 * cannot take the header (a full file system) is told now, before
	 * anything is attached.
	 */
	errno = 0;
	if (!err && out->f && fflush(out->f))
		check_written(out);
	err = err ?: out->werr;
	if (err) {
		/* Says what failed to be written (output__close). */
		output__close(out, NULL, NULL);
		errno = -err;
		return NULL;
	}
	return out;
}

struct rec_sink output__sink(struct output *out)
{
	return (struct rec_sink){ out_feed, out_drain, out_flush, out };
}

static int close_record(struct output *out, const struct record_trailer *t, const char *path)
{
	int err = 0;

	if (t) {
		err = record__write_trailer(out->rec, t);
		fprintf(stderr, "bpfgraph: %llu records written to '%s' (%llu bytes)\n",
			(unsigned long long)t->records, path,
			(unsigned long long)record__bytes(out->rec));
	}
	return record__close(out->rec) ?: err;
}

int output__close(struct output *out, const struct record_trailer *t, const char *path)
{
	int err = 0;

	if (!out)
		return 0;
	errno = 0;
	if (out->render && t && !out->werr && render__finish(out->render))
		err = errno ? -errno : -EIO;
	render__free(out->render);
	errno = 0;
	if (out->f && out->f != stdout && fclose(out->f) && !err)
		err = -errno;
	else if (out->f == stdout && fflush(stdout) && !err)
		err = -errno;
	err = out->werr ?: err;
	/* A reader that went away (| head) is no error to tell about. */
	if (err && err != -EPIPE && out->name)
		fprintf(stderr, "bpfgraph: cannot write the trace to %s%s%s: %s\n",
			out->f == stdout ? "" : "'", out->name, out->f == stdout ? "" : "'",
			strerror(-err));
	if (out->rec)
		err = close_record(out, t, path) ?: err;
	free(out);
	return err;
}
