// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace's BPF object: what the options and the plan make of its
 * read-only data and maps (bpfobj.h owns the object itself).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "args.h"
#include "bpfobj.h"
#include "cli.h"
#include "detail.h"
#include "kbtf.h"
#include "live.h"
#include "plan.h"
#include "run.h"
#include "wide.h"

/*
 * The ring buffer: -b, else 8M, or 64M for a broad plan: beyond
 * BROAD_ENTRIES entry functions every call of them, from anywhere, starts
 * a graph, and a live text trace in 8M lost most of its records where a
 * recording in 64M lost none (docs/performance.md, "Stopping").
 */
#define BROAD_ENTRIES 16
#define BROAD_BUFFER_SIZE (64U << 20)

static uint32_t ring_size(const struct bg_opts *o, const struct plan *p)
{
	size_t entries = 0;

	if (o->buffer_size_set)
		return o->buffer_size;
	for (size_t i = 0; i < p->funcs.n; i++)
		entries += !!(p->funcs.f[i].flags & BG_FN_GRAPH);
	return entries > BROAD_ENTRIES && o->buffer_size < BROAD_BUFFER_SIZE ?
		       BROAD_BUFFER_SIZE : o->buffer_size;
}

bool progs__wide_bounded(const struct bg_opts *o, const struct caps *c)
{
	int ncpus = libbpf_num_possible_cpus();

	return !c->fprobe_fgraph && ncpus > 0 && wide__may_bound((unsigned int)ncpus, o->wide_mem);
}

/* Room for the ranges of the wide net's entry-only part where it may have one. */
static uint32_t wide_ranges(const struct bg_opts *o, const struct kernel *k)
{
	return k->tier.wide && progs__wide_bounded(o, &k->caps) ? BG_WRANGES_MAX : 0;
}

struct bpfobj *progs__open(const struct bg_opts *o, const struct kernel *k,
			   const struct plan *p, bool raw)
{
	const struct tier *t = &k->tier;
	bool kmulti = tier__kmulti(t);
	struct bpfobj_config c = {
		.max_depth = o->max_depth, .thresh_ns = o->thresh_ns,
		.discover_irqs = o->discover_irqs, .noirqs = !(o->flags & BG_O_IRQS),
		.args = !!(o->flags & BG_O_ARGS), .detail = !!(o->flags & BG_O_DETAIL),
		.nosleep = !(o->flags & BG_O_SLEEP_TIME),
		/*
		 * On trampolines only a function's own exit folds, inline
		 * (bg_exit's hot path): their per-function copies are loaded
		 * without BTF function records (bpfobj__prog_src()), where the
		 * fold's global function would be verified at every exit (6.1
		 * linked a function in 110 ms instead of 36), so they leave it
		 * out (func_unused() in user/hook/bpfobj.c).
		 */
		.fold = !raw && !(o->flags & BG_O_RETADDR),
		.emit_call = !tier__trampolines(t),
		.filter_pid = o->nr_pids > 0 || o->command_argc > 0,
		.inherit = o->inherit, .max_pids = o->inherit ? BG_INHERIT_PIDS : BG_MAX_PIDS,
		.cpumask = o->nr_cpus > 0 ? o->cpus : NULL, .comm = o->comm,
		.ring_size = ring_size(o, p),
		.nfuncs = (uint32_t)p->funcs.n, .live_funcs = LIVE_FRANGES,
		.wide_ranges = wide_ranges(o, k),
		.kmulti = kmulti, .ksession = kmulti && t->ksession, .wide = t->wide,
		/*
		 * Per-function kprobes and per-site probes (indirect calls, RCU
		 * call sites): with the whole plan on kprobe.multi links and the
		 * wide net instead of per-site probes, nothing attaches them
		 * unless the kernel refuses the net (bpfobj__probes()).
		 */
		.probes = !(t->wide && kmulti),
		.ldx = k->caps.rdonly_cast.have > 0,
		.ks = k->ks, .funcs = &p->funcs,
	};

	return bpfobj__open(&c);
}

/*
 * --args-detail: the read plan of each planned function with something to
 * read, found in its prototype as the argument printer finds it (vmlinux
 * first, then its module's BTF). Functions found while tracing get none.
 */
static int fill_detail(struct bpfobj *obj, const struct bg_opts *o, const struct plan *p,
		       struct kbtf *kb)
{
	unsigned int what = (o->flags & BG_O_DETAIL_STR ? DETAIL_STRINGS : 0) |
			    (o->flags & BG_O_DETAIL_FIELDS ? DETAIL_FIELDS : 0);
	const struct btf *vml = kb ? kbtf__btf(kb, NULL) : NULL;
	bool tags = detail__btf_has_user_tags(vml);
	int fd = bpfobj__map_fd(obj, BGM_DETAIL);
	size_t planned = 0;

	if (!(o->flags & BG_O_ARGS) || !what || !vml)
		return 0;
	for (uint32_t i = 0; i < p->funcs.n; i++) {
		const struct bg_func *f = &p->funcs.f[i];
		const struct btf *btf = vml;
		uint32_t id = args__find_func(btf, f->name);
		struct bg_detail_plan dp;

		if (!id && f->module && (btf = kbtf__btf(kb, f->module)))
			id = args__find_func(btf, f->name);
		if (!id || !detail__plan(btf, id, what, tags, &dp))
			continue;
		if (bpf_map_update_elem(fd, &i, &dp, BPF_ANY)) {
			int err = -errno;

			fprintf(stderr, "bpfgraph: failed to pass the read plan of '%s': %s\n",
				f->name, strerror(-err));
			return err;
		}
		planned++;
	}
	if (o->verbosity)
		fprintf(stderr, "bpfgraph: --args-detail: %zu functions read strings or fields "
			"(user pointers: %s)\n", planned,
			tags ? "from BTF type tags" : "kernel read, then user read");
	return 0;
}

int progs__fill(struct bpfobj *obj, const struct bg_opts *o, const struct plan *p,
		struct kbtf *kb, pid_t child)
{
	int err = 0;

	for (size_t i = 0; i < o->nr_pids && !err; i++)
		err = bpfobj__add_pid(obj, o->pids[i]);
	if (!err && child > 0)
		err = bpfobj__add_pid(obj, (uint32_t)child);
	return err ?: fill_detail(obj, o, p, kb);
}
