// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpfobj.h"
#include "functab.h"
#include "globset.h"
#include "graph.skel.h"
#include "graph_ldx.skel.h"
#include "ksyms.h"
#include "links.h"

struct bpfobj {
	struct graph_bpf *skel;
	bool ldx; /* skel is on graph_ldx.bpf.o's bytes (bpfobj_config.ldx) */
	struct bg_ckc_slot *ckc; /* bg_ckc mapped (bpfobj__ckc), or NULL */
	struct bpfobj_vars vars; /* set by bpfobj__load */
	struct bpfobj *probes; /* bpfobj__probes' second instance, if one was made */
};

/*
 * graph_ldx.bpf.o is graph.bpf.c built with BG_LDX, which changes code
 * only: its variables must lie as graph.skel.h says (skel_open()).
 */
_Static_assert(sizeof(struct graph_bpf__bss) == sizeof(struct graph_ldx_bpf__bss), "bss");
_Static_assert(sizeof(struct graph_bpf__rodata) == sizeof(struct graph_ldx_bpf__rodata),
	       "rodata");

/* struct bpfobj_vars' types are the .bss's (bpf/state.bpf.h). */
#define SAME_SIZE(field, type) \
	_Static_assert(sizeof(((struct graph_bpf__bss *)0)->field) == sizeof(type), #field)
SAME_SIZE(bg_enabled, uint32_t);
SAME_SIZE(bg_stopped, uint32_t);
SAME_SIZE(bg_gen, uint32_t);
SAME_SIZE(bg_active, int64_t);
SAME_SIZE(bg_wide_on, uint32_t);
SAME_SIZE(bg_wide_probe_tgid, uint32_t);
SAME_SIZE(bg_wide_probed, uint32_t);
SAME_SIZE(bg_wide_ended, uint64_t);
SAME_SIZE(bg_rcu_sites, uint32_t);
SAME_SIZE(bg_cpu_in_on, uint32_t);
SAME_SIZE(bg_in_epoch, int64_t[2]);
SAME_SIZE(bg_epoch, uint32_t);
SAME_SIZE(bg_merging, uint32_t);
SAME_SIZE(bg_net_armed, uint32_t);
SAME_SIZE(bg_net_wait_exec, uint32_t);
SAME_SIZE(bg_net_calls, uint32_t);
SAME_SIZE(bg_net_exec_ns, uint64_t);
SAME_SIZE(bg_pausing, uint32_t);
SAME_SIZE(bg_cont_ns, uint64_t);
SAME_SIZE(bg_pause_win_tid, uint32_t);
SAME_SIZE(bg_pause_win_ns, uint64_t);
SAME_SIZE(bg_pause_end_ns, uint64_t);
SAME_SIZE(bg_net_sig_ns, uint64_t[2]);
SAME_SIZE(bg_net_ret, struct bg_net_ret[BG_NET_RETS]);
SAME_SIZE(bg_net_nret, uint32_t);

static struct bpf_program *prog_of(const struct graph_bpf *s, enum bpfobj_prog p)
{
	switch (p) {
	case BGP_ENTRY: return s->progs.bg_entry;
	case BGP_ENTRY_GRAPH: return s->progs.bg_entry_graph;
	case BGP_EXIT: return s->progs.bg_exit;
	case BGP_TENTRY: return s->progs.bg_tentry;
	case BGP_KENTRY: return s->progs.bg_kentry;
	case BGP_KEXIT: return s->progs.bg_kexit;
	case BGP_MENTRY: return s->progs.bg_mentry;
	case BGP_MEXIT: return s->progs.bg_mexit;
	case BGP_MSESSION: return s->progs.bg_msession;
	case BGP_WIDE: return s->progs.bg_wide;
	case BGP_ICALL: return s->progs.bg_icall;
	case BGP_SWITCH: return s->progs.bg_switch;
	case BGP_FORK: return s->progs.bg_fork;
	case BGP_TASK_EXIT: return s->progs.bg_task_exit;
	case BGP_NET_ENTER: return s->progs.bg_net_enter;
	case BGP_NET_LEAVE: return s->progs.bg_net_leave;
	case BGP_NET_EXEC: return s->progs.bg_net_exec;
	case BGP_PAUSE_IN: return s->progs.bg_pause_in;
	case BGP_PAUSE_OUT: return s->progs.bg_pause_out;
	case BGP_NR: break;
	}
	return NULL;
}

static struct bpf_map *map_of(const struct graph_bpf *s, enum bpfobj_map m)
{
	switch (m) {
	case BGM_EVENTS: return s->maps.bg_events;
	case BGM_STATS: return s->maps.bg_stats;
	case BGM_BATCH: return s->maps.bg_batch;
	case BGM_PIDS: return s->maps.bg_pids;
	case BGM_DETAIL: return s->maps.bg_detail;
	case BGM_FRANGES: return s->maps.bg_franges;
	case BGM_WRANGES: return s->maps.bg_wranges;
	case BGM_TARGETS: return s->maps.bg_targets;
	case BGM_NR: break;
	}
	return NULL;
}

/*
 * The return hooks' addresses (bg_hooked_ret): a tail-called function's
 * caller is read as one of them, and the entry program takes the caller
 * of the frame below instead.
 */
static void fill_hooked_ret(struct graph_bpf__rodata *ro, const struct ksyms *ks)
{
	static const char *const names[] = { "return_to_handler", "arch_rethook_trampoline" };

	for (int i = 0; i < 2 && ks; i++) {
		const struct ksym *s = ksyms__find_name(ks, names[i], NULL);

		ro->bg_hooked_ret[i] = s ? s->addr : 0;
	}
}

/* bg_graph_lo: the -G functions' addresses, if there are at most BG_GRAPH_IPS. */
static void fill_graph_ips(struct graph_bpf__rodata *ro, const struct functab *t)
{
	uint32_t n = 0;

	for (size_t i = 0; t && i < t->n; i++) {
		if (!(t->f[i].flags & BG_FN_GRAPH))
			continue;
		if (n == BG_GRAPH_IPS || !t->f[i].addr) {
			n = 0;
			break;
		}
		ro->bg_graph_lo[n++] = t->f[i].addr;
	}
	ro->bg_graph_n = n;
}

struct range {
	uint64_t lo, hi;
};

static int by_lo(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Only padding between lo and hi? Function padding is in no symbol of the
 * table (ksyms.h): no symbol holds lo, and the next one starts at hi or
 * later.
 */
static bool only_padding(const struct ksyms *ks, uint64_t lo, uint64_t hi)
{
	const struct ksym *s;

	if (lo >= hi)
		return true;
	if (ksyms__find_addr(ks, lo))
		return false;
	s = ksyms__from_addr(ks, lo);
	return !s || s->addr >= hi;
}

/*
 * Kernel functions whose calls are our own work (bg_called_by_us() in the
 * BPF side): the trampoline's helpers around every program run and
 * traced function, the tracepoint runners of bg_switch (bpf_trace_run2
 * calls rcu_read_lock() around it on a task switch inside a graph), and
 * the kprobe.multi handlers' get_entry_ip(), which reads the word before a
 * hooked function's fentry site with get_kernel_nofault() where the site
 * starts a page (6.12: copy_from_kernel_nofault() was drawn at the entry
 * and the return of try_to_unlazy(), whose fentry call is its first
 * instruction at a page's start; perf's call chain showed the caller).
 * Neighbours with only padding between them make one range.
 */
static void fill_self_ranges(struct graph_bpf__rodata *ro, const struct ksyms *ks)
{
	static const char *const globs[] = {
		"__bpf_prog_enter*", "__bpf_prog_exit*", "__bpf_tramp_enter", "__bpf_tramp_exit",
		"bpf_trace_run[0-9]*", "__bpf_trace_run", "get_entry_ip", "kprobe_multi_link_handler",
		"kprobe_multi_link_exit_handler", NULL,
	};
	const struct ksym *lo = ksyms__find_name(ks, "_stext", NULL);
	const struct ksym *hi = ksyms__find_name(ks, "_etext", NULL);
	struct globset *g = globset__new(globs);
	struct range r[64];
	size_t n = 0, m = 0;

	if (lo && hi && !lo->module && !hi->module && lo->addr < hi->addr) {
		ro->bg_ktext_lo = lo->addr;
		ro->bg_ktext_hi = hi->addr;
	}
	/* Every kernel symbol against the list: compiled once (globset.h). */
	for (size_t i = 0; g && i < ksyms__count(ks) && n < sizeof(r) / sizeof(r[0]); i++) {
		const struct ksym *s = ksyms__at(ks, i);

		if (s->module || (s->type != 't' && s->type != 'T') || !globset__match(g, s->name))
			continue;
		r[n].lo = s->addr;
		r[n++].hi = s->addr + (s->size ? s->size : 1);
	}
	globset__free(g);
	qsort(r, n, sizeof(r[0]), by_lo);
	for (size_t i = 0; i < n; i++) {
		if (m && only_padding(ks, r[m - 1].hi, r[i].lo)) {
			if (r[i].hi > r[m - 1].hi)
				r[m - 1].hi = r[i].hi;
			continue;
		}
		r[m++] = r[i];
	}
	/* More than fit (no kernel seen has): the first ones. Sorted, the rest never matches. */
	for (size_t i = 0; i < BG_SELF_RANGES; i++) {
		ro->bg_self_lo[i] = UINT64_MAX;
		ro->bg_self_hi[i] = 0;
	}
	for (size_t i = 0; i < m && i < BG_SELF_RANGES; i++) {
		ro->bg_self_lo[i] = r[i].lo;
		ro->bg_self_hi[i] = r[i].hi;
		if (r[i].hi > ro->bg_self_end)
			ro->bg_self_end = r[i].hi;
	}
}

static void fill_rodata(struct graph_bpf__rodata *ro, const struct bpfobj_config *c)
{
	ro->bg_max_depth = c->max_depth;
	ro->bg_discover_irqs = c->discover_irqs;
	ro->bg_fold = c->fold;
	ro->bg_emit_call = c->emit_call;
	/* Deeper chains of lazy frames where the net may be bounded (bpf/pair.bpf.h). */
	if (c->wide_ranges)
		ro->bg_unwind = BG_UNWIND_DEEP;
	ro->bg_thresh_ns = c->thresh_ns;
	ro->bg_self_tgid = getpid();
	ro->bg_filter_pid = c->filter_pid;
	ro->bg_filter_cpu = c->cpumask != NULL;
	if (c->cpumask)
		memcpy((void *)ro->bg_cpumask, c->cpumask, sizeof(ro->bg_cpumask));
	ro->bg_filter_comm = c->comm && c->comm[0];
	if (ro->bg_filter_comm)
		strncpy((char *)ro->bg_comm, c->comm, sizeof(ro->bg_comm) - 1);
	ro->bg_noirqs = c->noirqs;
	ro->bg_args = c->args;
	ro->bg_detail_on = c->args && c->detail;
	ro->bg_nosleep = c->nosleep;
	/* bg_pause_tgid and bg_wide_once: bpfobj__set_pause(). */
	if (c->ks) {
		fill_self_ranges(ro, c->ks);
		fill_hooked_ret(ro, c->ks);
	}
	fill_graph_ips(ro, c->funcs);
}

/*
 * The kprobe.multi programs only where they are used: older kernels may
 * refuse their load. bg_mentry also hooks __rcu_read_lock/unlock once the
 * wide net is narrowed (entry only). The per-function and per-site
 * kprobes wait until needed where the plan is on kprobe.multi links and
 * the net stands in for per-site probes (bpfobj__probes()). The fentry
 * templates are the attacher's to choose (attach__all).
 */
static void choose_progs(struct graph_bpf *s, const struct bpfobj_config *c)
{
	bpf_program__set_autoload(s->progs.bg_mentry, c->kmulti && (!c->ksession || c->wide));
	bpf_program__set_autoload(s->progs.bg_mexit, c->kmulti && !c->ksession);
	bpf_program__set_autoload(s->progs.bg_msession, c->kmulti && c->ksession);
	bpf_program__set_autoload(s->progs.bg_wide, c->wide);
	bpf_program__set_autoload(s->progs.bg_fork, c->inherit);
	bpf_program__set_autoload(s->progs.bg_task_exit, c->inherit);
	/* The ftrace net's: loaded only once it is taken (hooks.c). */
	bpf_program__set_autoload(s->progs.bg_net_enter, false);
	bpf_program__set_autoload(s->progs.bg_net_leave, false);
	bpf_program__set_autoload(s->progs.bg_net_exec, false);
	/* The stop's delivery: with a command to stop (bpfobj__set_pause()). */
	bpf_program__set_autoload(s->progs.bg_pause_in, false);
	bpf_program__set_autoload(s->progs.bg_pause_out, false);
	if (c->wide)
		bpf_program__set_expected_attach_type(s->progs.bg_wide,
						      (enum bpf_attach_type)BG_ATTACH_KPROBE_SESSION);
	if (!c->probes) {
		bpf_program__set_autoload(s->progs.bg_kentry, false);
		bpf_program__set_autoload(s->progs.bg_kexit, false);
		bpf_program__set_autoload(s->progs.bg_icall, false);
	}
	if (c->kmulti && c->ksession)
		bpf_program__set_expected_attach_type(s->progs.bg_msession,
						      (enum bpf_attach_type)BG_ATTACH_KPROBE_SESSION);
}

/* graph.skel.h's skeleton, on graph_ldx.bpf.o's bytes with ldx. NULL, errno set. */
static struct graph_bpf *skel_open(bool ldx)
{
	struct graph_bpf *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	err = graph_bpf__create_skeleton(s);
	if (!err && ldx)
		s->skeleton->data = (void *)graph_ldx_bpf__elf_bytes(&s->skeleton->data_sz);
	if (!err)
		err = bpf_object__open_skeleton(s->skeleton, NULL);
	if (err) {
		graph_bpf__destroy(s);
		errno = -err;
		return NULL;
	}
	return s;
}

struct bpfobj *bpfobj__open(const struct bpfobj_config *c)
{
	struct bpfobj *o = calloc(1, sizeof(*o));
	int err;

	if (o)
		o->ldx = c->ldx;
	if (!o || !(o->skel = skel_open(c->ldx))) {
		err = errno;
		fprintf(stderr, "bpfgraph: failed to open the BPF object: %s\n", strerror(err));
		free(o);
		errno = err;
		return NULL;
	}
	fill_rodata(o->skel->rodata, c);
	choose_progs(o->skel, c);
	err = bpf_map__set_max_entries(o->skel->maps.bg_events, c->ring_size);
	if (!err)
		err = bpf_map__set_max_entries(o->skel->maps.bg_franges,
					       c->nfuncs + c->live_funcs);
	if (!err && c->max_pids)
		err = bpf_map__set_max_entries(o->skel->maps.bg_pids, c->max_pids);
	if (!err)
		err = bpf_map__set_max_entries(o->skel->maps.bg_wranges,
					       c->wide_ranges ? c->wide_ranges : 1);
	/* bg_detail: a plan per planned function at most */
	if (!err)
		err = bpf_map__set_max_entries(o->skel->maps.bg_detail,
					       c->detail ? c->nfuncs + 1 : 1);
	if (err) {
		fprintf(stderr, "bpfgraph: cannot size the BPF maps: %s\n", strerror(-err));
		bpfobj__destroy(o);
		errno = -err;
		return NULL;
	}
	return o;
}

void bpfobj__set_pause(struct bpfobj *o, pid_t tgid, bool wide_once)
{
	o->skel->rodata->bg_pause_tgid = tgid > 0 ? (uint32_t)tgid : 0;
	o->skel->rodata->bg_wide_once = wide_once;
	bpf_program__set_autoload(o->skel->progs.bg_pause_in, tgid > 0);
	bpf_program__set_autoload(o->skel->progs.bg_pause_out, tgid > 0);
}

static void set_vars(struct bpfobj *o)
{
	struct graph_bpf__bss *b = o->skel->bss;

	o->vars = (struct bpfobj_vars){
		.enabled = &b->bg_enabled, .stopped = &b->bg_stopped, .gen = &b->bg_gen,
		.active = (volatile int64_t *)&b->bg_active, .wide_on = &b->bg_wide_on,
		.in_epoch = (volatile int64_t *)b->bg_in_epoch, .epoch = &b->bg_epoch,
		.merging = &b->bg_merging,
		.wide_probe_tgid = &b->bg_wide_probe_tgid, .wide_probed = &b->bg_wide_probed,
		.wide_ended = (volatile uint64_t *)&b->bg_wide_ended,
		.rcu_sites = &b->bg_rcu_sites,
		.stop_req = &b->bg_stop_req,
		.net_armed = &b->bg_net_armed,
		.net_wait_exec = &b->bg_net_wait_exec,
		.net_calls = &b->bg_net_calls,
		.net_exec_ns = (volatile uint64_t *)&b->bg_net_exec_ns,
		.pausing = &b->bg_pausing, .cont_ns = (volatile uint64_t *)&b->bg_cont_ns,
		.pause_win_tid = &b->bg_pause_win_tid,
		.pause_win_ns = (volatile uint64_t *)&b->bg_pause_win_ns,
		.pause_end_ns = (volatile uint64_t *)&b->bg_pause_end_ns,
		.net_sig_ns = (volatile uint64_t *)b->bg_net_sig_ns,
		.net_ret = (volatile struct bg_net_ret *)b->bg_net_ret, .net_nret = &b->bg_net_nret,
		.cpu_in_on = &b->bg_cpu_in_on,
	};
}

int bpfobj__load(struct bpfobj *o)
{
	int err = graph_bpf__load(o->skel);

	if (!err)
		set_vars(o);
	return err;
}

/*
 * Each program's size and the verifier's walk, and where the load's time
 * went: the kernel stamps a program's load (CLOCK_BOOTTIME) before it
 * verifies it, so the gap to the next program's stamp is its verifying
 * and JIT, and what came before the first one the object's BTF, maps and
 * relocations.
 */
void bpfobj__print_verified(const struct bpfobj *o, FILE *f, uint64_t t0_ns, uint64_t t1_ns)
{
	struct bpf_program *prog;
	uint64_t prev = t0_ns;
	const char *prev_name = NULL;

	if (!o || !o->skel)
		return;
	bpf_object__for_each_program(prog, o->skel->obj) {
		struct bpf_prog_info pi = {};
		__u32 len = sizeof(pi);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &pi, &len))
			continue;
		if (pi.load_time >= prev)
			fprintf(f, "bpfgraph: %s%s: %.3f s\n", prev_name ? "verifying " : "",
				prev_name ? prev_name : "before the first program (BTF, maps, relocations)",
				(double)(pi.load_time - prev) / 1e9);
		prev = pi.load_time;
		prev_name = bpf_program__name(prog);
		fprintf(f, "bpfgraph: program %s: %u instructions, %u walked by the "
			"verifier\n", bpf_program__name(prog), pi.xlated_prog_len / 8,
			pi.verified_insns);
	}
	if (prev_name && t1_ns >= prev)
		fprintf(f, "bpfgraph: verifying %s: %.3f s\n", prev_name,
			(double)(t1_ns - prev) / 1e9);
}

struct bpf_program *bpfobj__prog(const struct bpfobj *o, enum bpfobj_prog p)
{
	return o && o->skel ? prog_of(o->skel, p) : NULL;
}

int bpfobj__prog_fd(const struct bpfobj *o, enum bpfobj_prog p)
{
	struct bpf_program *prog = bpfobj__prog(o, p);

	return prog ? bpf_program__fd(prog) : -1;
}

uint32_t bpfobj__func_starts(const struct bpf_insn *insns, size_t cnt, uint32_t *at,
			     uint32_t max)
{
	uint32_t n = 1, k;

	at[0] = 0;
	for (size_t i = 0; i < cnt; i++) {
		long t = (long)i + insns[i].imm + 1;

		if (insns[i].code != (BPF_JMP | BPF_CALL) || insns[i].src_reg != BPF_PSEUDO_CALL)
			continue;
		if (t <= 0 || (size_t)t >= cnt)
			return 0;
		for (k = 0; k < n && at[k] < (uint32_t)t; k++)
			;
		if (k < n && at[k] == (uint32_t)t)
			continue;
		if (n == max)
			return 0;
		memmove(&at[k + 1], &at[k], (n - k) * sizeof(*at));
		at[k] = (uint32_t)t;
		n++;
	}
	return n;
}

size_t bpfobj__drop_funcs(const struct bpf_insn *insns, size_t cnt, const uint32_t *at,
			  uint32_t n, const bool *drop, struct bpf_insn *out, uint32_t *new_at)
{
	size_t o = 0;

	/* Where each function goes: the kept ones close up in their order. */
	for (uint32_t k = 0; k < n; k++) {
		size_t end = k + 1 < n ? at[k + 1] : cnt;

		new_at[k] = (uint32_t)o;
		if (!drop[k] || !k)
			o += end - at[k];
	}
	for (size_t i = 0; i < cnt; i++)
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    insns[i].src_reg == BPF_PSEUDO_FUNC)
			return 0;
	o = 0;
	for (uint32_t k = 0; k < n; k++) {
		size_t end = k + 1 < n ? at[k + 1] : cnt;

		if (drop[k] && k)
			continue;
		for (size_t i = at[k]; i < end; i++, o++) {
			long t = (long)i + insns[i].imm + 1;
			uint32_t f = 0;

			out[o] = insns[i];
			if (insns[i].code != (BPF_JMP | BPF_CALL) ||
			    insns[i].src_reg != BPF_PSEUDO_CALL)
				continue;
			while (f + 1 < n && (long)at[f + 1] <= t)
				f++;
			if (drop[f] && f)
				out[o] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
							    .dst_reg = BPF_REG_0 };
			else
				out[o].imm = (int32_t)((long)new_at[f] + (t - (long)at[f]) -
						       (long)o - 1);
		}
	}
	return o;
}

/*
 * The global functions the object's read-only data leave unused: each
 * returns 0 at once where its switch is off (bpf/records.bpf.h), but a
 * copy would still carry its instructions for the verifier to find dead
 * and remove (6.1: 694 of an entry copy's 2 824 instructions, 229 of an
 * exit copy's 1 708; the clones' loads 4% shorter). From 6.8 the kernel
 * itself leaves a global function no live path calls unverified and drops
 * it, so the loaded template gives fewer records than the copy has
 * functions, and the copy goes as it is.
 */
static bool func_unused(const struct bpfobj *o, const char *name)
{
	const struct graph_bpf__rodata *ro = o->skel->rodata;

	if (!strcmp(name, "bg_emit"))
		return !ro->bg_emit_call;
	/* Trampolines fold inline, where they fold (progs__open()). */
	if (!strcmp(name, "bg_fold_leaf"))
		return !ro->bg_fold || !ro->bg_emit_call;
	if (!strcmp(name, "bg_stage_detail"))
		return !ro->bg_detail_on;
	return false;
}

/* Drops from s the functions func_unused() names; at[] and kfi[] follow. */
static void drop_unused(const struct bpfobj *o, struct prog_src *s, uint32_t *at, uint32_t n,
			struct bpf_func_info *kfi)
{
	const struct btf *btf = bpf_object__btf(o->skel->obj);
	bool drop[BPFOBJ_FUNCS_MAX] = { false }, any = false;
	uint32_t new_at[BPFOBJ_FUNCS_MAX], m = 0;
	struct bpf_insn *own;
	size_t cnt;

	for (uint32_t k = 1; k < n && btf; k++) {
		const struct btf_type *t = btf__type_by_id(btf, kfi[k].type_id);

		drop[k] = t && func_unused(o, btf__name_by_offset(btf, t->name_off));
		any |= drop[k];
	}
	own = any ? malloc(s->cnt * sizeof(*own)) : NULL;
	if (!own)
		return;
	cnt = bpfobj__drop_funcs(s->insns, s->cnt, at, n, drop, own, new_at);
	if (!cnt) {
		free(own);
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		if (drop[k])
			continue;
		at[m] = new_at[k];
		kfi[m++] = kfi[k];
	}
	s->dropped = (uint32_t)(s->cnt - cnt);
	s->insns = s->own = own;
	s->cnt = cnt;
	/* Records for the functions left (passed with --args-detail only). */
	s->nfi = m;
}

int bpfobj__prog_src(const struct bpfobj *o, enum bpfobj_prog p, struct prog_src *s)
{
	struct bpf_program *prog = bpfobj__prog(o, p);
	struct bpf_func_info kfi[BPFOBJ_FUNCS_MAX];
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), at[BPFOBJ_FUNCS_MAX], n;

	memset(s, 0, sizeof(*s));
	s->btf_fd = -1;
	if (!prog || bpf_program__fd(prog) < 0)
		return -ENOENT;
	s->insns = bpf_program__insns(prog);
	s->cnt = bpf_program__insn_cnt(prog);
	n = bpfobj__func_starts(s->insns, s->cnt, at, BPFOBJ_FUNCS_MAX);
	if (n < 2)
		return 0;
	/* The kernel keeps the records' types in function order. */
	info.nr_func_info = n;
	info.func_info_rec_size = sizeof(kfi[0]);
	info.func_info = (uint64_t)(uintptr_t)kfi;
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) ||
	    info.nr_func_info != n || info.func_info_rec_size != sizeof(kfi[0]))
		return 0;
	s->nfi = n;
	drop_unused(o, s, at, n, kfi);
	/*
	 * The verifier checks a global function even where no path calls it:
	 * without --args-detail (bg_stage_detail() unused) a copy goes
	 * without the records, and its walk skips the calls left as dead code
	 * (6.1: 7.6 s against 13.7 s to load and link a plan of 62 functions,
	 * before the unused functions were dropped).
	 */
	if (!o->skel->rodata->bg_detail_on) {
		s->nfi = 0;
		return 0;
	}
	for (uint32_t k = 0; k < s->nfi; k++)
		s->fi[k] = (struct bpf_func_info){ .insn_off = at[k], .type_id = kfi[k].type_id };
	s->btf_fd = btf__fd(bpf_object__btf(o->skel->obj));
	if (s->btf_fd < 0)
		s->nfi = 0;
	return 0;
}

void bpfobj__prog_src_free(struct prog_src *s)
{
	if (s->full) {
		bpfobj__prog_src_free(s->full);
		free(s->full);
	}
	free(s->own);
	memset(s, 0, sizeof(*s));
	s->btf_fd = -1;
}

int bpfobj__map_fd(const struct bpfobj *o, enum bpfobj_map m)
{
	struct bpf_map *map = o && o->skel ? map_of(o->skel, m) : NULL;

	return map ? bpf_map__fd(map) : -1;
}

int bpfobj__btf_fd(const struct bpfobj *o)
{
	const struct btf *btf = bpf_object__btf(o->skel->obj);

	return btf ? btf__fd(btf) : -1;
}

const struct bpfobj_vars *bpfobj__vars(const struct bpfobj *o)
{
	return o && o->skel && o->vars.enabled ? &o->vars : NULL;
}

int bpfobj__add_pid(struct bpfobj *o, uint32_t pid)
{
	__u8 one = 1;

	return bpf_map_update_elem(bpfobj__map_fd(o, BGM_PIDS), &pid, &one, BPF_ANY) ? -errno : 0;
}

/* A second instance of the object on o's maps, loading only the per-site probes. */
static struct graph_bpf *open_probes(const struct graph_bpf *s0, bool ldx)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	struct graph_bpf *s = skel_open(ldx);
	int err = 0;

	if (!s)
		goto out;
	bpf_object__for_each_program(prog, s->obj)
		bpf_program__set_autoload(prog, prog == s->progs.bg_kentry ||
							prog == s->progs.bg_kexit ||
							prog == s->progs.bg_icall);
	bpf_object__for_each_map(map, s->obj) {
		const struct bpf_map *m0 = bpf_object__find_map_by_name(s0->obj, bpf_map__name(map));

		err = m0 ? bpf_map__reuse_fd(map, bpf_map__fd(m0)) : -ENOENT;
		if (err)
			goto out;
	}
	err = graph_bpf__load(s);
out:
	if (!s || err) {
		err = s ? err : -errno;
		fprintf(stderr, "bpfgraph: cannot load the per-site probe programs: %s\n",
			strerror(-err));
		graph_bpf__destroy(s);
		return NULL;
	}
	return s;
}

/*
 * Where the wide net stands in for per-site probes they are left out at
 * start (their verification is start-up time the net makes unneeded); a
 * net the kernel refused needs them after all.
 */
struct bpfobj *bpfobj__probes(struct bpfobj *o)
{
	struct graph_bpf *s;

	if (bpf_program__fd(o->skel->progs.bg_icall) >= 0)
		return o;
	if (o->probes)
		return o->probes;
	s = open_probes(o->skel, o->ldx);
	if (!s)
		return NULL;
	o->probes = calloc(1, sizeof(*o->probes));
	if (!o->probes) {
		graph_bpf__destroy(s);
		return NULL;
	}
	o->probes->skel = s;
	return o->probes;
}

#define CKC_BYTES (BG_CKC_SLOTS * sizeof(struct bg_ckc_slot))

struct bg_ckc_slot *bpfobj__ckc(struct bpfobj *o)
{
	void *p;

	if (o->ckc)
		return o->ckc;
	p = mmap(NULL, CKC_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(o->skel->maps.bg_ckc), 0);
	if (p == MAP_FAILED)
		return NULL;
	o->ckc = p;
	return o->ckc;
}

void bpfobj__destroy(struct bpfobj *o)
{
	if (!o)
		return;
	if (o->ckc)
		munmap(o->ckc, CKC_BYTES);
	bpfobj__destroy(o->probes);
	graph_bpf__destroy(o->skel);
	free(o);
}
