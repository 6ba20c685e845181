// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach_int.h"
#include "bpfobj.h"
#include "links.h"
#include "stop.h"

/*
 * tracing_multi (fentry.multi/fexit.multi links, attach types 59 and 60
 * in 7.x's enum bpf_attach_type; libbpf 1.1.2 knows neither): one program
 * per direction for every function, loaded with attach_btf_id 0 (a BTF id
 * there is refused with EINVAL), linked with link_create.tracing_multi =
 * { ids: __u32 BTF ids, cookies: __u64, cnt }. The kernel still builds a
 * trampoline per function, for its prototype, but updates ftrace for the
 * whole batch at once. A link is refused as a whole: EINVAL when one
 * function is variadic, takes or returns a struct by value (BG_FN_BYVAL)
 * or is named twice, ENOENT when one cannot be hooked, EBUSY when the
 * program is on one of them already (docs/kernels.md).
 */
#define BG_ATTACH_FENTRY_MULTI 59
#define BG_ATTACH_FEXIT_MULTI 60

/* union bpf_attr's link_create as 7.x has it (Debian 12's header predates it). */
struct tmulti_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t ids, cookies;
	uint32_t cnt;
	uint8_t pad[92];
};

static int tmulti_link(int prog_fd, uint32_t type, const uint32_t *ids, const uint64_t *cookies,
		       size_t n)
{
	struct tmulti_attr attr;
	double t0 = links__now();
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (uint32_t)prog_fd;
	attr.attach_type = type;
	attr.ids = (uint64_t)(uintptr_t)ids;
	attr.cookies = (uint64_t)(uintptr_t)cookies;
	attr.cnt = (uint32_t)n;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	err = -errno;
	attach_cost.link_s += links__now() - t0;
	attach_cost.links++;
	return fd < 0 ? err : fd;
}

static int push_mlink(struct attach *a, int fd)
{
	if (a->nmlinks == a->mlinks_cap) {
		size_t cap = a->mlinks_cap ? a->mlinks_cap * 2 : 16;
		int *v = realloc(a->mlinks, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->mlinks = v;
		a->mlinks_cap = cap;
	}
	a->mlinks[a->nmlinks++] = fd;
	return 0;
}

static int grow_mon(struct attach *a, size_t need)
{
	uint8_t *v;

	if (need <= a->mon_cap)
		return 0;
	v = realloc(a->mon, need);
	if (!v)
		return -ENOMEM;
	memset(v + a->mon_cap, 0, need - a->mon_cap);
	a->mon = v;
	a->mon_cap = need;
	return 0;
}

/*
 * One link pair for functions idx[0..n): 0 or -errno (then nothing of it
 * is left). fexit first, as for the clones (attach_func()).
 */
static int tmulti_pair(struct attach *a, unsigned int lane, const uint32_t *idx, size_t n)
{
	uint32_t *ids = calloc(n, sizeof(*ids));
	uint64_t *cks = calloc(n, sizeof(*cks));
	int fd[2] = { -1, -1 }, err = 0;

	if (!ids || !cks) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		ids[i] = a->funcs->f[idx[i]].btf_id;
		cks[i] = cookie_of(&a->funcs->f[idx[i]], idx[i]);
	}
	fd[1] = tmulti_link(a->mprog[lane][1], BG_ATTACH_FEXIT_MULTI, ids, cks, n);
	if (fd[1] >= 0)
		fd[0] = tmulti_link(a->mprog[lane][0], BG_ATTACH_FENTRY_MULTI, ids, cks, n);
	err = fd[1] < 0 ? fd[1] : fd[0] < 0 ? fd[0] : 0;
	if (!err && ((err = push_mlink(a, fd[1])) || (err = push_mlink(a, fd[0])))) {
		if (a->nmlinks && a->mlinks[a->nmlinks - 1] == fd[1])
			a->nmlinks--;
	}
	if (err) {
		for (int k = 0; k < 2; k++)
			if (fd[k] >= 0)
				close(fd[k]);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		a->mon[idx[i]] = 1;
	a->st.attached += (uint32_t)n;
out:
	free(ids);
	free(cks);
	return err;
}

/*
 * A batch the kernel refuses as a whole is split in halves until the
 * refused functions stand alone; they go to refused() (a kprobe may
 * take them). Returns how many were refused.
 */
static unsigned int tmulti_split(struct attach *a, unsigned int lane, const uint32_t *idx,
				 size_t n, void (*refused)(void *ctx, uint32_t idx), void *ctx)
{
	int err;

	if (!n)
		return 0;
	err = tmulti_pair(a, lane, idx, n);
	if (!err)
		return 0;
	if (n > 1 && err != -EMFILE && err != -ENFILE && err != -ENOMEM)
		return tmulti_split(a, lane, idx, n / 2, refused, ctx) +
		       tmulti_split(a, lane, idx + n / 2, n - n / 2, refused, ctx);
	for (size_t i = 0; i < n; i++) {
		a->st.failed++;
		if (err == -EMFILE || err == -ENFILE)
			a->st.no_fds++;
		if (a->verbose)
			fprintf(a->err, "bpfgraph: fentry.multi refused '%s': %s\n",
				a->funcs->f[idx[i]].display, strerror(-err));
		if (refused)
			refused(ctx, idx[i]);
	}
	return (unsigned int)n;
}

/*
 * Module functions would need their module's BTF object per link, and the
 * kernel refuses BG_FN_BYVAL ones: left to kprobes, without a try.
 */
bool tmulti__takes(const struct bg_func *f)
{
	return !(f->flags & (BG_FN_KPROBE | BG_FN_BYVAL)) && f->btf_id && !f->module;
}

unsigned int attach__flush(struct attach *a, void (*refused)(void *ctx, uint32_t idx), void *ctx)
{
	unsigned int n;

	if (!a->multi || !a->nqueue)
		return 0;
	if (grow_mon(a, a->funcs->n)) {
		n = (unsigned int)a->nqueue;
		a->st.failed += n;
		for (size_t i = 0; refused && i < a->nqueue; i++)
			refused(ctx, a->queue[i]);
		a->nqueue = 0;
		return n;
	}
	/* Each lane's functions to the front of the queue in turn: one batch per lane. */
	n = 0;
	for (unsigned int lane = 0; lane < a->nlanes; lane++) {
		size_t k = 0;

		for (size_t i = 0; i < a->nqueue; i++) {
			uint32_t v = a->queue[i];

			if (v % a->nlanes == lane) {
				a->queue[i] = a->queue[k];
				a->queue[k++] = v;
			}
		}
		n += tmulti_split(a, lane, a->queue, k, refused, ctx);
		memmove(a->queue, a->queue + k, (a->nqueue - k) * sizeof(*a->queue));
		a->nqueue -= k;
	}
	a->nqueue = 0;
	return n;
}

int tmulti__queue(struct attach *a, uint32_t idx)
{
	if (a->nqueue == a->queue_cap) {
		size_t cap = a->queue_cap ? a->queue_cap * 2 : 256;
		uint32_t *v = realloc(a->queue, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->queue = v;
		a->queue_cap = cap;
	}
	a->queue[a->nqueue++] = idx;
	return 0;
}


int attach__multi_supported(void)
{
	/* r0 = 0; exit */
	static const struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = (enum bpf_attach_type)BG_ATTACH_FENTRY_MULTI);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "bg_probe", "GPL", prog, 2, &opts);
	int err = -errno, lfd;

	/* Before tracing_multi (7.x) the attach type is unknown: EINVAL. */
	if (fd < 0)
		return err == -EINVAL ? 0 : err;
	/* Loaded: the link request for no function must be the one refused. */
	lfd = tmulti_link(fd, BG_ATTACH_FENTRY_MULTI, NULL, NULL, 0);
	close(fd);
	if (lfd >= 0) {
		close(lfd);
		return 1;
	}
	return lfd == -EINVAL ? 1 : 0;
}

/*
 * How many lanes: BPFGRAPH_MULTI_LANES (1 to BG_TMULTI_LANES_MAX) for the
 * bench, else BG_TMULTI_LANES. Each lane costs two program loads (the
 * verifier's walk of the template) and a link pair per batch. With one,
 * a kernel that preempts kernel code (7.3) lost up to half of a busy
 * loop's calls: a task switched out inside the program (bpfgraph's own
 * reader, say) held every hook of that CPU (docs/kernels.md).
 */
#define BG_TMULTI_LANES 8
#define TMULTI_LOAD_THREADS 8

static unsigned int tmulti_lanes(void)
{
	const char *s = getenv("BPFGRAPH_MULTI_LANES");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return BG_TMULTI_LANES;
	v = strtoul(s, &end, 10);
	return *end || !v ? BG_TMULTI_LANES : v > BG_TMULTI_LANES_MAX ? BG_TMULTI_LANES_MAX :
									   (unsigned int)v;
}

/*
 * Loading the lanes: the kernel verifies programs of a privileged loader
 * side by side, so up to one thread per CPU takes the next program.
 */
struct lane_loads {
	struct prog_src tmpl[2];
	int (*fd)[2];
	unsigned int n; /* programs: 2 per lane */
	unsigned int next; /* the next one a thread takes (atomic) */
};

static void *lane_loader(void *arg)
{
	static const enum bpf_attach_type type[2] = {
		(enum bpf_attach_type)BG_ATTACH_FENTRY_MULTI,
		(enum bpf_attach_type)BG_ATTACH_FEXIT_MULTI,
	};
	static const char *const name[2] = { "bg_tentry", "bg_texit" };
	struct lane_loads *ll = arg;
	unsigned int i;

	while ((i = __atomic_fetch_add(&ll->next, 1, __ATOMIC_RELAXED)) < ll->n)
		ll->fd[i / 2][i % 2] = stop__signal() ? -EINTR :
				       attach_load_copy(&ll->tmpl[i % 2], type[i % 2], name[i % 2], 0, 0);
	return NULL;
}

/* n lane pairs of the templates: 0, or -errno with none left loaded. */
static int tmulti_load_lanes(struct attach *a, unsigned int n)
{
	struct lane_loads ll = { .fd = a->mprog, .n = 2 * n };
	pthread_t t[TMULTI_LOAD_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int nt = 0, want = ll.n < TMULTI_LOAD_THREADS ? ll.n : TMULTI_LOAD_THREADS;
	double t0 = links__now();
	int err = 0;

	if (bpfobj__prog_src(a->obj, BGP_TENTRY, &ll.tmpl[0]) ||
	    bpfobj__prog_src(a->obj, BGP_EXIT, &ll.tmpl[1])) {
		bpfobj__prog_src_free(&ll.tmpl[0]);
		return -ENOENT;
	}
	if (cpus > 0 && (unsigned long)cpus < want)
		want = (unsigned int)cpus;
	while (nt + 1 < want && !pthread_create(&t[nt], NULL, lane_loader, &ll))
		nt++;
	lane_loader(&ll);
	for (unsigned int k = 0; k < nt; k++)
		pthread_join(t[k], NULL);
	bpfobj__prog_src_free(&ll.tmpl[0]);
	bpfobj__prog_src_free(&ll.tmpl[1]);
	attach_cost.load_s += links__now() - t0;
	attach_cost.loads += ll.n;
	for (unsigned int i = 0; i < ll.n; i++)
		if (a->mprog[i / 2][i % 2] < 0 && !err)
			err = a->mprog[i / 2][i % 2];
	if (err) {
		for (unsigned int i = 0; i < ll.n; i++) {
			if (a->mprog[i / 2][i % 2] >= 0)
				close(a->mprog[i / 2][i % 2]);
			a->mprog[i / 2][i % 2] = -1;
		}
		return err;
	}
	a->nlanes = n;
	return 0;
}

/* attach__all() of the tracing_multi tier, after the templates are loaded. */
int tmulti__all(struct attach *a, double t0)
{
	uint32_t want = 0;
	int err;

	a->templates = false; /* attach__one() queues instead of cloning */
	if (!bpfobj__prog(a->obj, BGP_TENTRY) || bpf_program__fd(bpfobj__prog(a->obj, BGP_TENTRY)) < 0)
		return 0; /* nothing for fentry.multi in this plan: kprobes take it */
	err = tmulti_load_lanes(a, tmulti_lanes());
	if (err) {
		fprintf(a->err, "bpfgraph: cannot load the fentry.multi programs: %s\n",
			strerror(-err));
		return err;
	}
	for (uint32_t i = 0; i < a->funcs->n; i++) {
		if (a->funcs->f[i].flags & BG_FN_LATER)
			continue; /* by attach__one(), once the trace records */
		if (!tmulti__takes(&a->funcs->f[i])) {
			a->st.failed += !(a->funcs->f[i].flags & BG_FN_KPROBE);
			continue;
		}
		want++;
		if ((err = tmulti__queue(a, i)))
			return err;
	}
	attach__flush(a, NULL, NULL);
	a->st.attach_s = links__now() - t0;
	if (a->verbose)
		fprintf(a->err, "bpfgraph: fentry.multi: %u of %u functions in %zu link pairs "
			"(%u program pairs), %.3f s\n", a->st.attached, want, a->nmlinks / 2,
			a->nlanes, a->st.attach_s);
	if (stop__signal())
		return -EINTR;
	return !want || a->st.attached ? 0 : -ENOENT;
}
