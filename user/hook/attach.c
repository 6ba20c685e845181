// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "attach_int.h"
#include "bpfobj.h"
#include "clock.h"
#include "dce.h"
#include "hooks.h"
#include "links.h"
#include "bpfgraph.h"
#include "stop.h"

struct attach_cost attach_cost;
/* attach_cost's loads: from the loading threads too (loadahead.c). */
static pthread_mutex_t cost_lock = PTHREAD_MUTEX_INITIALIZER;

/* fd of the kernel BTF object of a module (for attach_btf_obj_fd). */
static int module_btf_fd(const char *module)
{
	__u32 id = 0;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char name[64] = {};
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.name = (__u64)(uintptr_t)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(name, module))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/* attach_load_copy(), and nli line-info records li on the object's BTF (btf_fd). */
static int load_copy(const struct prog_src *prog, enum bpf_attach_type type, const char *name,
		     uint32_t btf_id, int btf_obj_fd, const struct bpf_line_info *li, uint32_t nli,
		     int btf_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type, .attach_btf_id = btf_id,
		    .attach_btf_obj_fd = btf_obj_fd);
	int fd;

	if (prog->nfi) {
		opts.prog_btf_fd = prog->btf_fd;
		opts.func_info = prog->fi;
		opts.func_info_cnt = prog->nfi;
		opts.func_info_rec_size = sizeof(prog->fi[0]);
	}
	if (nli) {
		opts.prog_btf_fd = btf_fd;
		opts.line_info = li;
		opts.line_info_cnt = nli;
		opts.line_info_rec_size = sizeof(*li);
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, name, "GPL", prog->insns, prog->cnt, &opts);
	return fd < 0 ? -errno : fd;
}

int attach_load_copy(const struct prog_src *prog, enum bpf_attach_type type, const char *name,
		     uint32_t btf_id, int btf_obj_fd)
{
	return load_copy(prog, type, name, btf_id, btf_obj_fd, NULL, 0, -1);
}

int attach_load_clone(const struct clone_src *src, const struct bg_func *f, int btf_obj_fd)
{
	double t0 = links__now();
	int fd = attach_load_copy(src->prog, src->type, src->name, f->btf_id, btf_obj_fd);
	bool full = false;
	double t1;

	/* Without its dead code a copy verifies as the probe did; should it not, the whole one. */
	if (fd < 0 && fd != -EINTR && src->prog->full) {
		fd = attach_load_copy(src->prog->full, src->type, src->name, f->btf_id, btf_obj_fd);
		full = fd >= 0;
	}
	t1 = links__now();
	struct bpf_prog_info pi = {};
	uint32_t len = sizeof(pi);

	/* For -v's attach cost: the verifier's walk is most of a clone's load. */
	if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &pi, &len))
		pi.verified_insns = 0;
	pthread_mutex_lock(&cost_lock);
	attach_cost.load_s += t1 - t0;
	attach_cost.loads++;
	attach_cost.walked += pi.verified_insns;
	attach_cost.dce_full += full;
	pthread_mutex_unlock(&cost_lock);
	return fd;
}

static int link_one(int prog_fd, enum bpf_attach_type type, uint64_t cookie)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .tracing.cookie = cookie);
	double t0 = links__now();
	int fd = bpf_link_create(prog_fd, 0, type, &opts);
	int err = -errno;

	attach_cost.link_s += links__now() - t0;
	attach_cost.links++;
	return fd < 0 ? err : fd;
}

int attach_btf_obj_fd(struct modcache *mc, const char *module)
{
	if (!module)
		return 0;
	if (mc->module && !strcmp(mc->module, module))
		return mc->fd;
	if (mc->fd > 0)
		close(mc->fd);
	free(mc->module);
	mc->module = strdup(module);
	mc->fd = module_btf_fd(module);
	return mc->fd;
}

void attach_modcache_free(struct modcache *mc)
{
	if (mc->fd > 0)
		close(mc->fd);
	free(mc->module);
	mc->fd = 0;
	mc->module = NULL;
}

/* Which program of src function i gets in direction k (0: entry, 1: exit). */
static int src_of(const struct bg_func *f, int k)
{
	/* -G functions get the entry program that starts graphs. */
	return k == 0 && (f->flags & BG_FN_GRAPH) ? 2 : k;
}

int attach_load_func(struct attach *a, uint32_t i, const struct clone_src src[3],
		     struct modcache *mc, int pfd[2])
{
	const struct bg_func *f = &a->funcs->f[i];
	int objfd = attach_btf_obj_fd(mc, f->module);

	pfd[0] = pfd[1] = -1;
	if (objfd < 0)
		return objfd;
	/* Function 0's programs are the templates themselves (link_func). */
	for (int k = 0; k < 2 && i != 0; k++) {
		pfd[k] = attach_load_clone(&src[src_of(f, k)], f, objfd);
		if (pfd[k] < 0) {
			int err = pfd[k];

			if (k)
				close(pfd[0]);
			pfd[0] = pfd[1] = -1;
			return err;
		}
	}
	return 0;
}

static int link_func(struct attach *a, uint32_t i, const struct clone_src src[3], int pfd[2])
{
	const struct bg_func *f = &a->funcs->f[i];
	int err = 0;

	/*
	 * fexit first: once the entry program runs, the trampoline already
	 * calls the function itself and has the frame layout the entry
	 * program reads the return address from (BG_CK_NREGS).
	 */
	for (int k = 1; k >= 0; k--) {
		int t = src_of(f, k);
		struct bpf_program *tmpl = t == 2 ? bpfobj__prog(a->obj, BGP_ENTRY_GRAPH) :
				   t == 1 ? bpfobj__prog(a->obj, BGP_EXIT) : bpfobj__prog(a->obj, BGP_ENTRY);
		int p = i == 0 ? bpf_program__fd(tmpl) : pfd[k];
		int lfd = link_one(p, src[t].type, cookie_of(f, i));

		if (lfd < 0) {
			err = lfd;
			break;
		}
		a->links[2 * i + k] = lfd;
	}
	for (int k = 0; k < 2 && i != 0; k++)
		if (pfd[k] >= 0)
			close(pfd[k]);
	return err;
}

static int attach_func(struct attach *a, uint32_t i, const struct clone_src src[3],
		       struct modcache *mc)
{
	int pfd[2], err = attach_load_func(a, i, src, mc, pfd);

	return err ? err : link_func(a, i, src, pfd);
}

void attach__progress(const struct attach *a, uint32_t done, double t0, double *last)
{
	if (!a->progress || !links__progress_due(t0, last, false))
		return;
	fprintf(a->err, "\rbpfgraph: attaching %u/%zu functions...", done, a->funcs->n);
	fflush(a->err);
}

void attach__explain_load_error(FILE *err, int errnum)
{
	if (errnum == -EACCES && geteuid() == 0) {
		/* With privileges, EACCES is the verifier's: a bug of ours on this kernel. */
		fprintf(err, "bpfgraph: the kernel's verifier rejected bpfgraph's programs (%s): "
			"a bug for this kernel; -vv shows the verifier's log, please report it\n",
			strerror(-errnum));
	} else if (errnum == -EPERM || errnum == -EACCES) {
		if (geteuid() != 0)
			fprintf(err, "bpfgraph: not allowed to load BPF programs: run as root "
				"(or with CAP_BPF, CAP_PERFMON and CAP_SYS_RESOURCE)\n");
		else
			fprintf(err, "bpfgraph: this kernel refuses fentry/fexit programs (EPERM on load "
				"with full privileges: lockdown, a BPF LSM policy or a sandbox); "
				"trace in a VM instead: 'make demo' runs the QEMU bench\n");
	} else if (errnum == -524 /* ENOTSUPP */ || errnum == -EOPNOTSUPP || errnum == -EINVAL) {
		fprintf(err, "bpfgraph: the kernel cannot load fentry programs (%s): it needs BTF, "
			"the BPF JIT and DYNAMIC_FTRACE_WITH_DIRECT_CALLS (5.19+ for cookies)\n",
			strerror(-errnum));
	} else if (errnum == -ENOENT || errnum == -ESRCH) {
		fprintf(err, "bpfgraph: failed to load the BPF programs: the kernel lacks a symbol "
			"or BTF type they use (%s; -v shows libbpf's log)\n", strerror(-errnum));
	} else {
		fprintf(err, "bpfgraph: failed to load the BPF programs: %s\n", strerror(-errnum));
	}
}

static int grow_links(struct attach *a, size_t need)
{
	size_t cap = a->links_cap ? a->links_cap : 64;
	int *n;

	if (need <= a->links_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	n = realloc(a->links, cap * sizeof(int));
	if (!n)
		return -ENOMEM;
	memset(n + a->links_cap, 0xff, (cap - a->links_cap) * sizeof(int));
	a->links = n;
	a->links_cap = cap;
	return 0;
}

/*
 * The function the templates are verified against (the clones get their
 * own targets): not one traced by kprobe, which may have no BTF or a
 * name several functions share. NULL: none.
 */
static const struct bg_func *template_target(const struct attach *a)
{
	for (uint32_t i = 0; i < a->funcs->n; i++)
		if (!(a->funcs->f[i].flags & BG_FN_KPROBE) && a->funcs->f[i].btf_id)
			return &a->funcs->f[i];
	return NULL;
}

/*
 * The entry and exit templates' dead code left out of their copies
 * (dce.h): one more copy of each loaded for the templates' own function.
 * The graph entry's copies are few (-G functions but the first).
 */
static void prune_template(struct attach *a, int k, const struct clone_src *src)
{
	const struct bg_func *f = template_target(a);
	struct prog_src *s = &a->tsrc[k];
	struct bpf_line_info *li = malloc(s->cnt * sizeof(*li));
	struct modcache mc = { NULL, 0 };
	double t0 = links__now();
	int objfd = f ? attach_btf_obj_fd(&mc, f->module) : -ENOENT, fd, err;

	if (objfd < 0)
		fd = objfd;
	else if (!li)
		fd = -ENOMEM;
	else
		fd = load_copy(s, src->type, src->name, f->btf_id, objfd, li,
			       (uint32_t)dce__linfo(s->insns, s->cnt, li), bpfobj__btf_fd(a->obj));
	err = fd < 0 ? fd : dce__rewrite(s, fd);
	if (fd >= 0)
		close(fd);
	free(li);
	attach_modcache_free(&mc);
	attach_cost.dce_s += links__now() - t0;
	attach_cost.dead[k] = a->tsrc[k].dead;
	if (err && a->verbose)
		fprintf(a->err, "bpfgraph: %s's copies go with their dead code: %s\n", src->name,
			strerror(-err));
}

/* The loaded templates, for cloning: entry, exit, graph entry. */
static void template_srcs(struct attach *a, struct clone_src src[3])
{
	static const enum bpfobj_prog p[3] = { BGP_ENTRY, BGP_EXIT, BGP_ENTRY_GRAPH };
	static const char *const name[3] = { "bg_entry", "bg_exit", "bg_entry_graph" };

	for (int k = 0; k < 3; k++) {
		bool fresh = !a->tsrc[k].insns && !bpfobj__prog_src(a->obj, p[k], &a->tsrc[k]);

		src[k] = (struct clone_src){ &a->tsrc[k], k == 1 ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY,
					     name[k] };
		if (!fresh || k == 2)
			continue;
		attach_cost.dropped[k] = a->tsrc[k].dropped;
		if (a->funcs->n > 1)
			prune_template(a, k, &src[k]);
	}
}

/* attach_func() with the counting; a failure leaves no link behind. */
static int count_attach(struct attach *a, uint32_t i, int err)
{
	if (!err) {
		a->st.attached++;
		return 0;
	}
	a->st.failed++;
	if (err == -EMFILE || err == -ENFILE)
		a->st.no_fds++;
	/* Half-attached: drop the other link so depths stay sane. */
	for (int k = 0; k < 2; k++) {
		if (a->links[2 * i + k] >= 0)
			close(a->links[2 * i + k]);
		a->links[2 * i + k] = -1;
	}
	return err;
}

static int attach_counted(struct attach *a, uint32_t i, const struct clone_src src[3],
			  struct modcache *mc)
{
	return count_attach(a, i, attach_func(a, i, src, mc));
}

int attach__load(struct attach *a)
{
	struct bpf_program *tmpl[] = { bpfobj__prog(a->obj, BGP_ENTRY), bpfobj__prog(a->obj, BGP_EXIT),
				       bpfobj__prog(a->obj, BGP_ENTRY_GRAPH) };
	const struct bg_func *f0 = NULL;
	struct cpu_mark c0, c1;
	uint64_t boot0, boot1;
	int err;

	if (a->loaded)
		return 0;
	a->t_load = links__now();
	err = grow_links(a, 2 * a->funcs->n);
	if (err)
		return err;
	f0 = template_target(a);
	for (size_t k = 0; k < sizeof(tmpl) / sizeof(tmpl[0]); k++) {
		/* A kernel without fentry, or a plan without it, loads the rest. */
		if (a->no_fentry || !f0 || (a->multi && tmpl[k] != bpfobj__prog(a->obj, BGP_EXIT)))
			bpf_program__set_autoload(tmpl[k], false);
		else
			bpf_program__set_attach_target(tmpl[k], 0, f0->name);
	}
	/* bg_tentry: verified once against f0 here, loaded again for all (tmulti_load). */
	if (a->multi && f0)
		bpf_program__set_attach_target(bpfobj__prog(a->obj, BGP_TENTRY), 0, f0->name);
	else
		bpf_program__set_autoload(bpfobj__prog(a->obj, BGP_TENTRY), false);
	c0 = cpu_mark();
	boot0 = boot_ns();
	attach_cost.skel_s = links__now();
	err = bpfobj__load(a->obj);
	attach_cost.skel_s = links__now() - attach_cost.skel_s;
	boot1 = boot_ns();
	c1 = cpu_mark();
	a->st.load_s = attach_cost.skel_s;
	if (a->verbose >= 2 && !err) {
		uint64_t all = c1.all - c0.all, sys = c1.sys - c0.sys;

		/* sys is counted in ticks, all exactly: sys may pass all by a tick. */
		fprintf(a->err, "bpfgraph: loading the programs: %.2f s, CPU user %.2f s "
			"(libbpf: BTF, relocations), system %.2f s (the kernel: verifier, JIT, "
			"maps)\n", attach_cost.skel_s, (double)(all > sys ? all - sys : 0) / 1e9,
			(double)sys / 1e9);
		bpfobj__print_verified(a->obj, a->err, boot0, boot1);
	}
	if (err) {
		attach__explain_load_error(a->err, err);
		return err;
	}
	a->templates = !a->no_fentry && f0;
	a->loaded = true;
	a->nplan = a->funcs->n;
	return 0;
}

int attach__all(struct attach *a)
{
	struct clone_src src[3];
	struct modcache mc = { NULL, 0 };
	struct loadahead *la;
	double t0, last = 0;
	uint32_t want = 0, *todo;
	bool loaded = a->loaded;
	int err = attach__load(a);

	if (err)
		return err;
	/* From the load made here: the templates' verifying is part of attaching. */
	t0 = loaded ? links__now() : a->t_load;
	if (a->multi)
		return tmulti__all(a, t0);
	if (a->templates)
		template_srcs(a, src);
	/*
	 * What was added since the load (the ftrace net's finds) is attached
	 * one by one (attach__one()), or here when marked BG_FN_LINK.
	 */
	if (grow_links(a, 2 * (size_t)a->funcs->n))
		return -ENOMEM;
	todo = calloc(a->funcs->n ? a->funcs->n : 1, sizeof(*todo));
	if (!todo)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->funcs->n; i++) {
		if (i >= a->nplan && !(a->funcs->f[i].flags & BG_FN_LINK))
			continue;
		a->funcs->f[i].flags &= ~BG_FN_LINK;
		if (a->funcs->f[i].flags & BG_FN_KPROBE)
			continue; /* kprobe.h: attached by the tracer */
		if (a->funcs->f[i].flags & BG_FN_LATER)
			continue; /* by attach__one(), once the trace records */
		if (!a->templates) {
			a->st.failed++;
			continue;
		}
		todo[want++] = i;
	}
	la = loadahead__start(a, src, todo, want);
	for (uint32_t j = 0; j < want && !stop__signal(); j++) {
		uint32_t i = todo[j];
		int pfd[2];

		if (la) {
			err = loadahead__take(la, j, pfd);
			err = count_attach(a, i, err ? err : link_func(a, i, src, pfd));
		} else {
			err = attach_counted(a, i, src, &mc);
		}
		/* Not an error yet: the tracer tries a kprobe (and says if that fails). */
		if (err && a->verbose)
			fprintf(a->err, "bpfgraph: failed to attach to '%s': %s\n",
				a->funcs->f[i].display, strerror(-err));
		if (!err)
			attach__progress(a, i + 1, t0, &last);
	}
	loadahead__stop(la);
	free(todo);
	if (last > 0)
		fprintf(a->err, "\n");
	attach_modcache_free(&mc);
	a->st.attach_s = links__now() - t0;
	if (stop__signal())
		return -EINTR;
	return !want || a->st.attached ? 0 : -ENOENT;
}

int attach__one(struct attach *a, uint32_t idx)
{
	struct clone_src src[3];
	struct modcache mc = { NULL, 0 };
	int err;

	if (idx == 0 || idx >= a->funcs->n || (a->funcs->f[idx].flags & BG_FN_KPROBE))
		return -EINVAL;
	if (a->multi)
		return a->nlanes && tmulti__takes(&a->funcs->f[idx]) ? tmulti__queue(a, idx) :
									   -EOPNOTSUPP;
	if (!a->templates)
		return -EOPNOTSUPP; /* nothing to clone: a kprobe will do */
	err = grow_links(a, 2 * (size_t)a->funcs->n);
	if (err)
		return err;
	template_srcs(a, src);
	err = attach_counted(a, idx, src, &mc);
	attach_modcache_free(&mc);
	return err;
}

bool attach__clones(const struct attach *a)
{
	return a && a->loaded && a->templates && !a->multi;
}

bool attach__attached(const struct attach *a, uint32_t idx)
{
	if (a->multi)
		return idx < a->mon_cap && a->mon[idx];
	return 2 * (size_t)idx + 1 < a->links_cap && a->links[2 * idx] >= 0 &&
	       a->links[2 * idx + 1] >= 0;
}

/* A function fentry refused, handed over to kprobe.h: not a failure here. */
void attach__disown(struct attach *a, uint32_t idx)
{
	if (a->st.failed) {
		a->st.failed--;
		a->st.handed_over++;
	}
	a->funcs->f[idx].flags |= BG_FN_KPROBE;
}

/* The program behind link fd lfd: its info, 0 or -1. */
static int link_prog_info(int lfd, struct bpf_prog_info *pi)
{
	struct bpf_link_info li = {};
	__u32 len = sizeof(li);
	int pfd, err;

	if (lfd < 0 || bpf_obj_get_info_by_fd(lfd, &li, &len))
		return -1;
	pfd = bpf_prog_get_fd_by_id(li.prog_id);
	if (pfd < 0)
		return -1;
	len = sizeof(*pi);
	memset(pi, 0, sizeof(*pi));
	err = bpf_obj_get_info_by_fd(pfd, pi, &len);
	close(pfd);
	return err ? -1 : 0;
}

void attach__count_misses(struct attach *a)
{
	for (unsigned int k = 0; k < 2 * a->nlanes; k++) {
		struct bpf_prog_info pi = {};
		__u32 len = sizeof(pi);

		if (!bpf_obj_get_info_by_fd(a->mprog[k / 2][k % 2], &pi, &len))
			a->st.recursion_misses += pi.recursion_misses;
	}
	for (size_t i = 0; a->links && i < a->links_cap; i++) {
		struct bpf_prog_info pi;

		if (!link_prog_info(a->links[i], &pi))
			a->st.recursion_misses += pi.recursion_misses;
	}
}

struct fn_runs {
	uint64_t cnt, ns;
	uint32_t idx;
};

static int by_ns_desc(const void *x, const void *y)
{
	const struct fn_runs *a = x, *b = y;

	return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : 0;
}

static void print_runs_line(FILE *err, const char *what, uint64_t cnt, uint64_t ns)
{
	if (cnt)
		fprintf(err, "bpfgraph: runs: %-30s %10llu runs, %9.3f ms, %6.2f us/run\n", what,
			(unsigned long long)cnt, ns / 1e6, ns / 1e3 / cnt);
}

static void print_prog(FILE *err, const char *what, const struct bpf_program *prog)
{
	struct bpf_prog_info pi = {};
	__u32 len = sizeof(pi);
	int fd = bpf_program__fd(prog);

	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &pi, &len))
		print_runs_line(err, what, pi.run_cnt, pi.run_time_ns);
}

void attach__print_runs(struct attach *a, int top)
{
	size_t n = a->links_cap / 2, used = 0;
	struct fn_runs *fr = calloc(n ? n : 1, sizeof(*fr));
	uint64_t cnt[2] = {}, ns[2] = {};

	if (!fr || !a->obj)
		goto out;
	for (size_t i = 0; a->links && i < n; i++) {
		struct fn_runs r = { .idx = (uint32_t)i };

		for (int k = 0; k < 2; k++) {
			struct bpf_prog_info pi;

			if (link_prog_info(a->links[2 * i + k], &pi))
				continue;
			cnt[k] += pi.run_cnt;
			ns[k] += pi.run_time_ns;
			r.cnt += pi.run_cnt;
			r.ns += pi.run_time_ns;
		}
		if (r.cnt)
			fr[used++] = r;
	}
	fprintf(a->err, "bpfgraph: runs: program runs by every task while attached, and "
		"their time (bpf_stats; trampoline and kprobe overhead not included):\n");
	for (unsigned int k = 0; k < 2 * a->nlanes; k++) {
		struct bpf_prog_info pi = {};
		__u32 len = sizeof(pi);

		if (!bpf_obj_get_info_by_fd(a->mprog[k / 2][k % 2], &pi, &len)) {
			cnt[k % 2] += pi.run_cnt;
			ns[k % 2] += pi.run_time_ns;
		}
	}
	print_runs_line(a->err, "fentry (all functions)", cnt[0], ns[0]);
	print_runs_line(a->err, "fexit (all functions)", cnt[1], ns[1]);
	print_prog(a->err, "kprobe entries", bpfobj__prog(a->obj, BGP_KENTRY));
	print_prog(a->err, "kprobe returns", bpfobj__prog(a->obj, BGP_KEXIT));
	print_prog(a->err, "kprobe.multi entries", bpfobj__prog(a->obj, BGP_MENTRY));
	print_prog(a->err, "kprobe.multi returns", bpfobj__prog(a->obj, BGP_MEXIT));
	print_prog(a->err, "kprobe.session (the plan)", bpfobj__prog(a->obj, BGP_MSESSION));
	print_prog(a->err, "kprobe.session (the wide net)", bpfobj__prog(a->obj, BGP_WIDE));
	print_prog(a->err, "indirect call probes", bpfobj__prog(a->obj, BGP_ICALL));
	print_prog(a->err, "sched_switch", bpfobj__prog(a->obj, BGP_SWITCH));
	print_prog(a->err, "sched_process_fork (--inherit)", bpfobj__prog(a->obj, BGP_FORK));
	print_prog(a->err, "sched_process_exit (--inherit)", bpfobj__prog(a->obj, BGP_TASK_EXIT));
	qsort(fr, used, sizeof(*fr), by_ns_desc);
	for (size_t i = 0; i < used && i < (size_t)top; i++)
		print_runs_line(a->err, a->funcs->f[fr[i].idx].name, fr[i].cnt, fr[i].ns);
out:
	free(fr);
}

static void print_cost(const struct attach *a, double destroy_s)
{
	fprintf(a->err,
		"bpfgraph: attach cost: templates %.3f s; %u clones loaded in %.3f s "
		"(%.0f instructions walked by the verifier a clone; %u and %u instructions "
		"of unused functions and %u and %u of dead code left out of the entry and exit "
		"copies, found in %.3f s; %u copies loaded whole), %u links in %.3f s; "
		"detach: %u closes %.3f s (several at once), skeleton %.3f s\n",
		attach_cost.skel_s, attach_cost.loads, attach_cost.load_s,
		attach_cost.loads ? (double)attach_cost.walked / attach_cost.loads : 0.0,
		attach_cost.dropped[0], attach_cost.dropped[1], attach_cost.dead[0],
		attach_cost.dead[1], attach_cost.dce_s, attach_cost.dce_full,
		attach_cost.links, attach_cost.link_s, attach_cost.closes, attach_cost.close_s,
		destroy_s);
}

struct unlink_progress {
	const struct attach *a;
	double last;
};

static void unlink_progress(size_t done, size_t n, void *ctx)
{
	struct unlink_progress *up = ctx;

	if (!up->a->progress || !links__progress_due(up->a->detach_t0, &up->last, done == n))
		return;
	fprintf(up->a->err, "\rbpfgraph: detaching %zu/%zu programs...", done, n);
}

void attach__unlink(struct attach *a)
{
	struct unlink_progress up = { a, 0 };
	double t;

	if (!a->detach_t0)
		a->detach_t0 = links__now();
	if (bpfobj__vars(a->obj))
		*bpfobj__vars(a->obj)->enabled = 0;
	t = links__now();
	for (size_t i = 0; a->links && i < a->links_cap; i++)
		attach_cost.closes += a->links[i] >= 0;
	if (a->links)
		links__close_all(NULL, a->links, a->links_cap, unlink_progress, &up);
	attach_cost.closes += (uint32_t)a->nmlinks;
	if (a->nmlinks)
		links__close_all(NULL, a->mlinks, a->nmlinks, unlink_progress, &up);
	a->nmlinks = 0;
	for (unsigned int k = 0; k < 2 * a->nlanes; k++) {
		close(a->mprog[k / 2][k % 2]);
		a->mprog[k / 2][k % 2] = -1;
	}
	a->nlanes = 0;
	attach_cost.close_s += links__now() - t;
	if (up.last > 0)
		fprintf(a->err, "\n");
	free(a->links);
	a->links = NULL;
	a->links_cap = 0;
}

void attach__detach(struct attach *a)
{
	double t;

	attach__unlink(a);
	t = links__now();
	for (int k = 0; k < 3; k++)
		bpfobj__prog_src_free(&a->tsrc[k]);
	bpfobj__destroy(a->obj);
	a->obj = NULL;
	a->st.detach_s = links__now() - a->detach_t0;
	a->detach_t0 = 0;
	if (a->verbose)
		print_cost(a, links__now() - t);
}

struct attach *attach__new(const struct attach_opts *o)
{
	struct attach *a = calloc(1, sizeof(*a));

	if (!a) {
		bpfobj__destroy(o->obj);
		return NULL;
	}
	a->obj = o->obj;
	a->funcs = o->funcs;
	a->verbose = o->verbose;
	a->progress = o->progress;
	a->no_fentry = o->no_fentry;
	a->multi = o->multi;
	memset(a->mprog, 0xff, sizeof(a->mprog)); /* -1: none loaded */
	a->err = o->err ? o->err : stderr;
	return a;
}

const struct attach_stats *attach__stats(const struct attach *a)
{
	return &a->st;
}

void attach__free(struct attach *a)
{
	if (!a)
		return;
	if (a->obj)
		attach__detach(a);
	free(a->mlinks);
	free(a->mon);
	free(a->queue);
	free(a);
}

static int tramp_add(void *be, uint32_t idx, struct bg_func *f)
{
	(void)f;
	return attach__one(be, idx);
}

static unsigned int tramp_flush(void *be, void (*refused)(void *ctx, uint32_t idx), void *ctx)
{
	return attach__flush(be, refused, ctx);
}

static bool tramp_hooked(const void *be, uint32_t idx)
{
	return attach__attached(be, idx);
}

static void tramp_disown(void *be, uint32_t idx)
{
	attach__disown(be, idx);
}

const struct hook_ops hook_ops_tramp = {
	.name = "trampolines", .add = tramp_add, .flush = tramp_flush,
	.hooked = tramp_hooked, .disown = tramp_disown,
};
