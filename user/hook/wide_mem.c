// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which functions of the wide net keep their return hooks where the
 * kernel sets memory aside for them per function and CPU (wide_opts.ret_pools,
 * --wide-mem; docs/kernels.md, "The wide net").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "bpfgraph.h"
#include "functab.h"
#include "globset.h"
#include "ksyms.h"
#include "plan.h"
#include "wide_int.h"

/*
 * fprobe's return hooks for a link over n functions on ncpus possible
 * CPUs, where it keeps them in a rethook (6.10-6.13): an objpool of
 * 2 x n x ncpus nodes, each CPU's ring an array of pointers with room for
 * all of them (rounded up to a power of two), vmalloc'd, and the nodes
 * (struct fprobe_rethook_node and a session's 8 bytes of data).
 * UINT64_MAX: more nodes than an objpool takes (OBJPOOL_NR_OBJECT_MAX),
 * the kernel refuses the link.
 */
#define WIDE_NODE_BYTES 80
#define WIDE_POOL_MAX_NODES (1ULL << 24)

uint64_t wide__pool_bytes(size_t n, unsigned int ncpus)
{
	uint64_t nodes = 2ULL * n * ncpus, cap = 1;

	if (!n)
		return 0;
	if (nodes > WIDE_POOL_MAX_NODES)
		return UINT64_MAX;
	while (cap < nodes)
		cap <<= 1;
	return ncpus * (16 + 8 * cap) + nodes * WIDE_NODE_BYTES;
}

bool wide__may_bound(unsigned int ncpus, uint64_t budget)
{
	return budget && ncpus && wide__pool_bytes(BG_WRANGES_MAX, ncpus) > budget;
}

/* The pools of the two return-hooked links, ncold and nhot functions. */
static bool pools_fit(const struct wide *w, size_t ncold, size_t nhot, uint64_t *bytes)
{
	uint64_t c = wide__pool_bytes(ncold, w->o.ncpus), h = wide__pool_bytes(nhot, w->o.ncpus);

	if (c == UINT64_MAX || h == UINT64_MAX)
		return false;
	*bytes = c + h;
	return !w->o.mem_budget || *bytes <= w->o.mem_budget;
}

/* Position of addr in the table (sorted by address), or -1. */
static long table_index(const struct wide *w, uint64_t addr)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->sym[mid]->addr == addr)
			return (long)mid;
		if (w->sym[mid]->addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The calls live.c's wide_works() makes to see that the net hooks. */
static const char *const probe_globs[] = { "*sys_getppid", "*sys_getuid", "*sys_getgid", NULL };

/* Code read at most to choose, and callees taken of each. */
#define WIDE_MAX_DECODE 20000
#define MAX_CALLEES 4096

struct chooser {
	struct wide *w;
	size_t ncold, nhot;
	bool cold_full, hot_full; /* no room for one more */
};

/* Room for one more function with its return, hot or cold. */
static bool room_left(const struct chooser *c)
{
	return !c->cold_full || (c->w->hot && !c->hot_full);
}

/* Table entry i gets its return hooked if the pools have room. */
static void choose(struct chooser *c, size_t i)
{
	struct wide *w = c->w;
	bool h = wide_is_hot(w, i);
	uint64_t b;

	if (w->full[i] || (h ? c->hot_full : c->cold_full))
		return;
	if (!pools_fit(w, c->ncold + !h, c->nhot + h, &b)) {
		*(h ? &c->hot_full : &c->cold_full) = true;
		return;
	}
	w->full[i] = 1;
	*(h ? &c->nhot : &c->ncold) += 1;
	w->st.pool_bytes = b;
}

/* Breadth-first order of wide_choose_full(): functions to read, each once. */
struct bfs {
	const struct ksym **q;
	size_t head, tail, cap;
	struct symset seen;
};

/* Queues s unless met before: 0 or -ENOMEM. */
static int bfs_push(struct bfs *b, const struct ksym *s)
{
	int r = symset__add(&b->seen, s);

	if (r <= 0)
		return r;
	if (b->tail == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1024;
		const struct ksym **q = realloc(b->q, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		b->q = q;
		b->cap = cap;
	}
	b->q[b->tail++] = s;
	return 0;
}

/*
 * Which functions keep their return hooks (w->full): all where the pools
 * allow it, else the nearest to the plan by direct calls, breadth first
 * from its functions, as long as the pools have room; what room is left
 * then goes to the others in address order.
 */
int wide_choose_full(struct wide *w, const struct functab *funcs)
{
	/* plan__callees() only reads the symbols. */
	struct plan_opts po = { .ks = (struct ksyms *)w->o.ks, .kt = w->o.kt };
	struct chooser c = { .w = w };
	const struct ksym **callees = NULL;
	struct bfs b = { 0 };
	struct globset *probe;
	size_t nhot = 0;
	uint64_t bytes = UINT64_MAX; /* pools_fit() leaves it so where a pool is refused */
	int err = 0;

	w->full = malloc(w->n + 1);
	if (!w->full)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++)
		nhot += wide_is_hot(w, i);
	if (!w->o.ret_pools || pools_fit(w, w->n - nhot, nhot, &bytes)) {
		memset(w->full, 1, w->n);
		w->st.pool_bytes = w->o.ret_pools ? bytes : 0;
		return 0;
	}
	memset(w->full, 0, w->n);
	/* What the whole net would take, as pools_fit() just modelled it. */
	w->st.ncpus = w->o.ncpus;
	w->st.whole_bytes = bytes;
	probe = globset__new(probe_globs);
	callees = malloc(MAX_CALLEES * sizeof(*callees));
	if (!probe || !callees) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < w->n; i++)
		if (globset__match(probe, w->sym[i]->name))
			choose(&c, i);
	/* The plan's functions first, then what they call, and so on. */
	for (size_t i = 0; i < funcs->n && !err; i++) {
		const struct ksym *s = ksyms__find_addr(w->o.ks, funcs->f[i].addr);

		if (s && s->addr == funcs->f[i].addr)
			err = bfs_push(&b, s);
	}
	while (!err && b.head < b.tail && w->st.decoded < WIDE_MAX_DECODE && room_left(&c)) {
		int n = plan__callees(&po, b.q[b.head++], callees, MAX_CALLEES);

		w->st.decoded++;
		for (int k = 0; k < n && !err; k++) {
			long idx = table_index(w, callees[k]->addr);

			if (idx >= 0)
				choose(&c, (size_t)idx);
			err = bfs_push(&b, callees[k]);
		}
	}
	/* Room left (what the plan reaches is in): the rest in address order. */
	for (size_t i = 0; !err && i < w->n && room_left(&c); i++)
		choose(&c, i);
	w->st.entry_only = w->n - c.ncold - c.nhot;
	/* Not one return hook: the net would be no net (and its test fails). */
	if (!err && !c.ncold && !c.nhot)
		err = -ENOSPC;
out:
	globset__free(probe);
	free(callees);
	free(b.q);
	free(b.seen.slot);
	return err;
}

/*
 * The code ranges of the entry-only part's functions into ranges_fd
 * (bg_wranges, by table position): a call made from inside one of them
 * then nests in its lazy frame. 0 or -errno.
 */
int wide_fill_ranges(const struct wide *w, int ranges_fd)
{
	uint32_t *keys = malloc(BG_WRANGES_MAX * sizeof(*keys));
	struct bg_frange *v = malloc(BG_WRANGES_MAX * sizeof(*v));
	struct bpf_map_info info = { 0 };
	uint32_t n = 0, len = sizeof(info);
	int err = 0;

	if (!keys || !v) {
		err = -ENOMEM;
		goto out;
	}
	/* Sized for them only where they may be needed (progs.c). */
	if (bpf_obj_get_info_by_fd(ranges_fd, &info, &len) || info.max_entries < BG_WRANGES_MAX) {
		err = -ENOSPC;
		goto out;
	}
	for (size_t i = 0; i < w->n && i < BG_WRANGES_MAX; i++) {
		if (w->full[i] || !w->sym[i]->size)
			continue;
		keys[n] = (uint32_t)i;
		v[n].lo = w->sym[i]->addr;
		v[n++].hi = w->sym[i]->addr + w->sym[i]->size;
	}
	if (n && bpf_map_update_batch(ranges_fd, keys, v, &n, NULL))
		err = -errno;
out:
	free(keys);
	free(v);
	return err;
}

