// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "globset.h"
#include "plan.h"
#include "plan_int.h"


/*
 * Functions on the programs' own execution path: the trampoline and the
 * helpers our programs call (ring buffer, task storage, time, irq_work
 * wake-ups). The locks those helpers take (_raw_spin_lock_irqsave...)
 * are not here: a call made inside one of our program runs is skipped
 * whole by the busy guard (task_state.busy in bpf/state.bpf.h), so their
 * programs never nest. The kernel refuses a few more by itself
 * (btf_id_deny in kernel/bpf/verifier.c).
 *
 * Not "bpf_*": the BPF hooks of other subsystems (bpf_skops_write_hdr_opt
 * on every TCP transmit, bpf_sk_storage_*, the bpf(2) syscall's own
 * functions for -G __sys_bpf) are shown by function_graph and are not on
 * our path; only the helpers our programs call and the trampoline's and
 * dispatcher's own functions are.
 */
static const char *const deny_globs[] = {
	"__bpf_*", "*_bpf_prog_*", "bpf_trampoline_*", "bpf_dispatcher_*",
	"bpf_get_*", "bpf_ktime_*", "bpf_probe_read*", "bpf_send_signal*",
	/*
	 * The map helpers our programs call; not "bpf_map_*", which also names
	 * the bpf(2) syscall's own (bpf_map_area_alloc, bpf_map_put ...)
	 */
	"bpf_map_lookup_elem", "bpf_map_update_elem", "bpf_map_delete_elem",
	"bpf_map_lookup_percpu_elem", "bpf_map_push_elem", "bpf_map_pop_elem",
	"bpf_map_peek_elem",
	"bpf_this_cpu_ptr", "bpf_per_cpu_ptr", "bpf_prog_start_time", "update_prog_stats",
	"rcu_read_lock*", "rcu_read_unlock*",
	"*ringbuf*", "irq_work_*", "arch_irq_work_raise", "*_irq_work_*",
	"bpf_local_storage_*", "*task_storage*", "htab_*", "__htab_*",
	/* the hash map's lookups, out of line on 7.x (bg_switch's under every task switch) */
	"lookup_elem_raw", "lookup_nulls_elem_raw",
	"ktime_get_mono_fast_ns", "ktime_get*fast_ns", "native_sched_clock",
	"sched_clock*", "local_clock*",
	"__x86_indirect_thunk_*", "__x86_return_thunk", "__fentry__",
	"ftrace_*", "__ftrace_*", "trace_hardirqs_*", "lockdep_*", "lock_acquire",
	"lock_release", "lock_is_held_type",
	/*
	 * lockdep's own (kernel/locking/lockdep.c); not "__lock_*", which
	 * also names ordinary functions function_graph shows:
	 * __lock_task_sighand, __lock_sock, __lock_timer, __lock_buffer
	 */
	"__lock_acquire*", "__lock_release", "__lock_is_held", "__lock_set_class",
	"__lock_downgrade", "__lock_contended", "__lock_acquired", "__lock_pin_lock",
	"__lock_repin_lock", "__lock_unpin_lock",
	"default_idle*", "arch_cpu_idle*", "native_safe_halt", "do_idle",
	"cpuidle_*", "__cpuidle_*", "kasan_*", "__kasan_*", "kcsan_*", "__sanitizer_*",
	"__stack_chk_fail", "__cfi_*", "__pfx_*",
	/* position-independent aliases of early boot code (7.x): __pi___x86_indirect_thunk_* */
	"__pi_*",
	/*
	 * kprobes' own path (indirect call sites, functions without BTF); the
	 * aggregate handlers run where two probes share an address (another
	 * bpfgraph's, still being released)
	 */
	"*kprobe*", "*kretprobe*", "opt_pre_handler", "optimized_callback", "trace_call_bpf",
	"aggr_pre_handler", "aggr_post_handler",
	"*rethook*", "perf_trace_buf_*", "kprobe_perf_func", "kretprobe_perf_func",
	/*
	 * kprobe.multi's: fprobe, on ftrace ops or (6.14+) on the function
	 * graph tracer, which finds the function's address with is_endbr()
	 * on every hooked call (seen traced inside every call on 7.3)
	 */
	"*fprobe*", "*fgraph*", "function_graph_enter*", "prepare_ftrace_return",
	"return_to_handler", "arch_ftrace_*", "is_endbr", "__is_endbr",
	NULL,
};

/*
 * With funcgraph-irqs, function_graph shows the interrupt work that lands
 * inside a traced call, nested under the interrupted frame. The IDT entry
 * stubs are noinstr; these are the first traceable functions they call.
 */
static const char *const irq_globs[] = {
	"irq_enter_rcu", "irq_exit_rcu", "__sysvec_*", "__common_interrupt", NULL,
};

/*
 * Functions no trampoline may hook, that function_graph shows: the
 * trampoline itself calls them around every program run (newer kernels
 * refuse them, btf_id_deny; on 6.1 a trampoline on __rcu_read_lock
 * recursed until the guest locked up). Traced at their call sites
 * (PW_CALLSITE), or by a kprobe on them when named with -a, whose program
 * hides the calls a BPF trampoline makes around our programs
 * (bg_self_ranges).
 */
static const char *const kprobe_only[] = {
	"__rcu_read_lock", "__rcu_read_unlock", "migrate_disable", "migrate_enable",
	"preempt_count_add", "preempt_count_sub", NULL,
};

/*
 * The read function of each clocksource. Every bpf_ktime_get_ns() of our
 * programs calls the current one (tk_clock_read(), through a pointer): with
 * a trampoline on it, each record paid a nested trampoline pass and two
 * program runs (77% of the runs nested in our own, tcp_sendmsg on hpet).
 * It joins kprobe_only: shown where a traced function calls it through a
 * pointer (a lazy frame opened by the indirect call site's probe).
 */
static const struct {
	const char *clocksource, *read;
} clock_reads[] = {
	{ "tsc", "read_tsc" },
	{ "tsc-early", "read_tsc" },
	{ "hpet", "read_hpet" },
	{ "kvm-clock", "kvm_clock_get_cycles" },
	{ "acpi_pm", "acpi_pm_read" },
	{ "hyperv_clocksource_tsc_page", "read_hv_clock_tsc_cs" },
	{ "xen", "xen_clocksource_get_cycles" },
	{ "jiffies", "jiffies_read" },
	{ NULL, NULL },
};

static const char *clock_read; /* of the current clocksource, or NULL */

/*
 * Lock primitives every subsystem calls: leaves but where a lock is
 * contended (or a reschedule is due on unlock). A hook on one of them
 * runs for every task's every lock taken, traced or not (about half of
 * the hooked calls an unrelated pipe loop made, docs/performance.md,
 * "Which hooks an unrelated task pays for"). Reached as callees, they
 * are shown where traced functions call them instead (PW_CALLSITE), as
 * kprobe_only's are; named with -G or -a, or with --locks=hooked, they are
 * hooked like any other function.
 */
static const char *const shared_leaves[] = {
	"_raw_spin_lock", "_raw_spin_lock_irq", "_raw_spin_lock_irqsave", "_raw_spin_lock_bh",
	"_raw_spin_trylock", "_raw_spin_unlock", "_raw_spin_unlock_irq",
	"_raw_spin_unlock_irqrestore", "_raw_spin_unlock_bh", "_raw_read_lock",
	"_raw_read_unlock", "_raw_write_lock", "_raw_write_unlock", "mutex_unlock", NULL,
};

bool plan__shared_leaf(const char *name)
{
	for (int i = 0; shared_leaves[i]; i++)
		if (!strcmp(shared_leaves[i], name))
			return true;
	return false;
}

const char *plan__set_clocksource(const char *clocksource)
{
	clock_read = NULL;
	for (int i = 0; clocksource && clock_reads[i].clocksource; i++)
		if (!strcmp(clock_reads[i].clocksource, clocksource))
			clock_read = clock_reads[i].read;
	return clock_read;
}

/* kprobe_only's names, then the clocksource's read function; NULL after. */
static const char *kprobe_only_name(int i)
{
	int n = (int)(sizeof(kprobe_only) / sizeof(kprobe_only[0])) - 1;

	if (i < n)
		return kprobe_only[i];
	return i == n ? clock_read : NULL;
}

static int is_kprobe_only(const char *name)
{
	for (int i = 0; kprobe_only_name(i); i++)
		if (!strcmp(kprobe_only_name(i), name))
			return 1;
	return 0;
}

/* The deny list, compiled once (the wide net's lister thread and the planner both ask). */
static struct globset *deny_set;
static pthread_once_t deny_once = PTHREAD_ONCE_INIT;

static void deny_compile(void)
{
	deny_set = globset__new(deny_globs);
}

int plan__hook_only(const char *name)
{
	return is_kprobe_only(name);
}

bool plan__calls(const struct plan *p, const char *name)
{
	for (size_t i = 0; i < p->ncands; i++)
		if (p->cands[i].why == PW_CALLEE && !p->cands[i].sym->module &&
		    !strcmp(p->cands[i].sym->name, name))
			return true;
	return false;
}

const char *plan__denied(const char *name)
{
	/* The BPF LSM's hook stubs: called by the LSM layer, not by us. */
	if (!strncmp(name, "bpf_lsm_", 8))
		return NULL;
	if (clock_read && !strcmp(name, clock_read))
		return "every timestamp of ours calls it; traced where traced functions call it, "
		       "or -a NAME by kprobe";
	if (is_kprobe_only(name))
		return "trampolines call it themselves; traced at its call sites, or -a NAME "
		       "by kprobe";
	pthread_once(&deny_once, deny_compile);
	if (deny_set)
		return globset__match(deny_set, name);
	/* No memory for the compiled set: pattern by pattern. */
	for (int i = 0; deny_globs[i]; i++)
		if (!fnmatch(deny_globs[i], name, 0))
			return deny_globs[i];
	return NULL;
}

static size_t hash_ptr(const void *p, size_t cap)
{
	uint64_t x = (uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

int symset__add(struct symset *s, const struct ksym *k)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		struct symset ns = { .cap = s->cap ? s->cap * 2 : 1024 };

		ns.slot = calloc(ns.cap, sizeof(*ns.slot));
		if (!ns.slot)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->slot[i])
				symset__add(&ns, s->slot[i]);
		free(s->slot);
		*s = ns;
	}
	for (i = hash_ptr(k, s->cap); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == k)
			return 0;
	s->slot[i] = k;
	s->n++;
	return 1;
}

static int any_glob(char **globs, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!fnmatch(globs[i], name, 0))
			return 1;
	return 0;
}

/*
 * Is t, what a call or jmp at a fentry site enters, inside vmlinux's text
 * (_stext to _etext)? No trampoline image is ever placed there: it is the
 * function's own tail call, and /proc/kallsyms is not read again for it.
 */
static bool in_kernel_text(const struct plan_opts *o, uint64_t t)
{
	const struct ksym *lo = o->ks ? ksyms__find_name(o->ks, "_stext", NULL) : NULL;
	const struct ksym *hi = o->ks ? ksyms__find_name(o->ks, "_etext", NULL) : NULL;

	return lo && hi && t >= lo->addr && t < hi->addr;
}

int plan_read_code(const struct plan_opts *o, const struct ksym *s, uint8_t *buf, size_t *len)
{
	size_t n = s->size ? s->size : 16;

	if (n > MAX_CODE)
		n = MAX_CODE;
	*len = n;
	return ktext__read(o->kt, s->addr, buf, n);
}

/*
 * Why fentry cannot attach to s (PS_NONE: it can). The kernel attaches a
 * trampoline to the BTF FUNC's name, looked up in kallsyms
 * (bpf_check_attach_target): where the name is not unique, the trampoline
 * may land on another function than s, and where BTF holds that name with
 * several prototypes, the one used may not be s's. A fexit trampoline
 * built for the wrong prototype calls the function without its stack
 * arguments (UDP's 8-argument compute_score scored every socket -1 and
 * its datagrams were dropped): such functions are attached by address,
 * with a kprobe, or not at all.
 */
static enum plan_skip fentry_blocker(const struct plan_opts *o, const struct ksym *s,
				     struct kbtf_func *bf)
{
	int err;

	if (ksyms__name_count(o->ks, s->name, s->module) > 1)
		return PS_DUPLICATE;
	err = kbtf__func(o->kb, s->name, s->module, bf);
	if (err == -ENOTUNIQ)
		return PS_BTF_AMBIGUOUS;
	if (err)
		return PS_NO_BTF;
	if (!s->module && is_kprobe_only(s->name))
		return PS_DENIED;
	return PS_NONE;
}

static enum plan_skip classify(const struct plan_opts *o, const struct ksym *s,
			       enum plan_why why, const char **deny, struct kbtf_func *bf,
			       int *kprobe, enum plan_skip *kprobe_why, uint8_t *code)
{
	struct kcode_info ci;
	size_t len;
	enum plan_skip btf;

	*deny = plan__denied(s->name);
	/*
	 * kprobe_only functions are called by every RCU reader in the
	 * kernel: a kprobe on them slows the whole machine down
	 * (docs/performance.md, "Costs behind the code"), so only on
	 * request (-a); by default they are
	 * probed where traced functions call them (PW_CALLSITE).
	 */
	if (*deny && !((why == PW_ALLOW || why == PW_CALLSITE) && o->kprobes &&
		       is_kprobe_only(s->name)))
		return PS_DENIED;
	memset(bf, 0, sizeof(*bf));
	btf = fentry_blocker(o, s, bf);
	if (o->kt && !plan_read_code(o, s, code, &len)) {
		kcode__scan(code, len < 16 ? len : 16, s->addr, o->ks, NULL, 0, &ci);
		/*
		 * Another tracer's hooks coming or going, or a bpfgraph
		 * releasing its own in the background: an int3 at the site
		 * while ftrace rewrites it, or a call to a trampoline made since
		 * the symbols were read (a trampoline gets a new image whenever
		 * its programs change), or to one already freed and gone from
		 * kallsyms by the time it is looked up there. Look again, for
		 * up to 200 ms (an int3) or three times (a call or jmp out of the
		 * kernel's text: each look reads kallsyms whole). An int3 that
		 * stays is a kprobe on a function without a site; a call into
		 * kernel text is not a site.
		 */
		for (int i = 0, other = 0; !ci.fentry_site && i < 20; i++) {
			bool out = ci.site_other && !in_kernel_text(o, ci.site_other);

			if (out && kcode__is_tramp_now(NULL, ci.site_other)) {
				ci.fentry_site = 1;
				break;
			}
			if (!ci.site_int3 && (!out || ++other >= 3))
				break;
			nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
			if (plan_read_code(o, s, code, &len))
				break;
			kcode__scan(code, len < 16 ? len : 16, s->addr, o->ks, NULL, 0, &ci);
		}
		if (!ci.fentry_site)
			return PS_NOT_TRACEABLE;
	} else if (btf != PS_NONE) {
		return btf; /* kprobes need a known fentry site */
	}
	/*
	 * A kprobe on the function's address needs neither BTF nor a name.
	 * Traced at its call sites: by kprobes, no trampoline of its own.
	 */
	if (o->kprobes_only || why == PW_CALLSITE || (btf != PS_NONE && o->kprobes)) {
		*kprobe = 1;
		*kprobe_why = btf;
		return PS_NONE;
	}
	return btf;
}

/* What a hook of f needs: its BTF and the flags the candidate's why gives. */
static void fill_func(struct bg_func *f, const struct plan_cand *c, const struct kbtf_func *bf)
{
	f->btf_id = bf->btf_id;
	f->ret_kind = bf->ret_kind;
	f->ret_size = bf->ret_size;
	f->nr_regs = bf->nr_regs;
	f->ret_type = bf->ret_type[0] ? strdup(bf->ret_type) : NULL;
	if (c->why == PW_ENTRY)
		f->flags |= BG_FN_GRAPH;
	if (c->kprobe)
		f->flags |= BG_FN_KPROBE;
	if (c->why == PW_IRQ)
		f->flags |= BG_FN_IRQ;
	if (bf->byval)
		f->flags |= BG_FN_BYVAL;
	if (c->why == PW_CALLSITE)
		f->flags |= BG_FN_CALLSITE | BG_FN_EXPANDED;
	if (c->notrace)
		f->flags |= BG_FN_NOTRACE;
}

static int add_func(struct plan *p, const struct plan_cand *c, const struct kbtf_func *bf)
{
	int idx = functab__add(&p->funcs, c->sym->name, c->sym->module, c->sym->addr,
			       c->sym->size);

	if (idx >= 0)
		fill_func(&p->funcs.f[idx], c, bf);
	return idx;
}

/* Room for one more candidate: 0 or -ENOMEM. */
static int cands_reserve(struct plan *p)
{
	size_t cap;
	struct plan_cand *n;

	if (p->ncands < p->cap)
		return 0;
	cap = p->cap ? p->cap * 2 : 256;
	n = realloc(p->cands, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->cands = n;
	p->cap = cap;
	return 0;
}

static int add_cand(struct plan *p, const struct plan_opts *o, struct symset *seen,
		    struct plan_cand c, uint8_t *code)
{
	struct kbtf_func bf;
	const char *deny = NULL;
	int r = symset__add(seen, c.sym);

	if (r <= 0)
		return r;
	if (cands_reserve(p))
		return -ENOMEM;
	c.notrace = any_glob(o->notrace, o->n_notrace, c.sym->name);
	c.skip = classify(o, c.sym, c.why, &deny, &bf, &c.kprobe, &c.kprobe_why, code);
	if (c.skip == PS_NONE && o->max_funcs > 0 && (int)p->funcs.n >= o->max_funcs) {
		c.skip = PS_LIMIT;
		p->over_limit = true;
	}
	c.deny = deny;
	c.func = -1;
	if (c.skip == PS_NONE) {
		c.func = add_func(p, &c, &bf);
		if (c.func < 0)
			return c.func;
		p->nattach++;
	} else {
		p->nskipped++;
	}
	p->cands[p->ncands++] = c;
	return 1;
}

/* vmlinux's function name, traced at its call sites (PW_CALLSITE): 0 or -errno. */
static int add_callsite(struct plan *p, const struct plan_opts *o, struct symset *seen,
			const char *name, uint8_t *code)
{
	struct plan_cand c = { .sym = ksyms__find_name(o->ks, name, NULL), .why = PW_CALLSITE };
	int err = c.sym ? add_cand(p, o, seen, c, code) : 0;

	return err > 0 ? 0 : err;
}

/* Callees of cands[i], one level below it. */
static int discover(struct plan *p, const struct plan_opts *o, struct symset *seen,
		    size_t i, uint8_t *code, uint64_t *targets, const struct ksym **callees)
{
	struct plan_cand c = p->cands[i];
	/*
	 * function_graph shows what a function without an fentry site calls
	 * in its place, at its depth: looking through it costs no depth.
	 */
	int next = c.depth + (c.skip == PS_NOT_TRACEABLE ? 0 : 1);
	int n, err, ndirect;

	/*
	 * What a table holds is planned for the calls no hook would show, but
	 * many of them never run for the traced task (other scheduling
	 * classes): their callees are found when they do (live discovery).
	 */
	if (c.notrace || c.skip == PS_DENIED || c.why == PW_CALLSITE || c.table ||
	    next > o->callee_depth)
		return 0;
	n = plan_callees_of(o, c.sym, c.skip == PS_NOT_TRACEABLE, code, targets, callees,
			    MAX_TARGETS, &ndirect);
	if (n < 0)
		return n;
	if (c.func >= 0)
		p->funcs.f[c.func].flags |= BG_FN_EXPANDED;
	for (int k = 0; k < n; k++) {
		struct plan_cand nc = { .sym = callees[k], .why = PW_CALLEE, .depth = next,
					.parent = c.sym->name, .table = k >= ndirect };

		err = add_cand(p, o, seen, nc, code + MAX_CODE);
		if (err < 0)
			return err;
	}
	return 0;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[128], i, j;

	if (la >= 127 || lb >= 127)
		return 1000;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0], tmp;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}

static void suggest(const struct plan_opts *o, const char *glob)
{
	const char *best[4] = {};
	size_t bestd[4] = { 4, 4, 4, 4 };

	/*
	 * A name that holds the one asked for comes first: a function
	 * renamed with a prefix (7.x's anon_pipe_write for pipe_write) or
	 * known by a compiler's clone (name.isra.0) is farther in edits than
	 * unrelated short names.
	 */
	bool plain = !strpbrk(glob, "*?[") && strlen(glob) >= 4;

	for (size_t i = 0; i < ksyms__count(o->ks); i++) {
		const struct ksym *s = ksyms__at(o->ks, i);
		size_t d;

		/* The padding before a function (CONFIG_FUNCTION_PADDING_ALIGNMENT) is not one. */
		if (!strncmp(s->name, "__pfx_", 6))
			continue;
		d = plain && strstr(s->name, glob) ? 0 : edit_distance(glob, s->name);

		for (int k = 0; k < 4; k++) {
			if (d >= bestd[k])
				continue;
			if (best[k] && !strcmp(best[k], s->name))
				break;
			memmove(&best[k + 1], &best[k], (3 - k) * sizeof(*best));
			memmove(&bestd[k + 1], &bestd[k], (3 - k) * sizeof(*bestd));
			best[k] = s->name;
			bestd[k] = d;
			break;
		}
	}
	if (!best[0])
		return;
	fprintf(o->err, "bpfgraph: did you mean:");
	for (int k = 0; k < 4 && best[k]; k++)
		fprintf(o->err, " %s", best[k]);
	fprintf(o->err, "\n");
}

/* Resolve one -G or -a glob; entries that cannot be traced are errors. */
static int add_glob(struct plan *p, const struct plan_opts *o, struct symset *seen,
		    const char *glob, enum plan_why why, uint8_t *code)
{
	size_t first = p->ncands, matched = 0, usable = 0, *pos = NULL;
	/* Compiled: a plain name or "prefix*" costs a compare per kernel symbol, not fnmatch(). */
	const char *one[2] = { glob, NULL };
	struct globset *g = globset__new(one);
	/* Only names with the glob's literal start can match: those, by the name index. */
	size_t lit = globset__literal_len(glob);
	long n = lit ? ksyms__with_prefix(o->ks, glob, lit, &pos) : (long)ksyms__count(o->ks);
	int err = 0;

	if (!g || n < 0) {
		err = !g ? -errno : (int)n;
		goto out;
	}
	/* In address order either way, as the plan lists its candidates. */
	for (long i = 0; i < n && !p->over_limit; i++) {
		const struct ksym *s = ksyms__at(o->ks, pos ? pos[i] : (size_t)i);
		struct plan_cand c = { .sym = s, .why = why, .glob = glob };

		if (!globset__match(g, s->name))
			continue;
		matched++;
		err = add_cand(p, o, seen, c, code);
		if (err < 0)
			goto out;
	}
out:
	globset__free(g);
	free(pos);
	if (err < 0)
		return err;
	for (size_t i = first; i < p->ncands; i++)
		usable += p->cands[i].skip == PS_NONE;
	if (!matched && why == PW_IRQ)
		return 0;
	if (!matched) {
		fprintf(o->err, "bpfgraph: no kernel function matches '%s'\n", glob);
		suggest(o, glob);
		return -ENOENT;
	}
	/* Over --max-funcs: plan__build says so, once. */
	/* A line per name and reason (five copies of a static function
	 * refused for one reason are one line), at most five lines. */
	if (!usable && why == PW_ENTRY && !p->over_limit) {
		size_t lines = 0;

		for (size_t i = first; i < p->ncands && lines < 5; i++) {
			const struct plan_cand *c = &p->cands[i];
			size_t copies = 0, j;

			for (j = first; j < i; j++)
				if (p->cands[j].skip == c->skip &&
				    !strcmp(p->cands[j].sym->name, c->sym->name))
					break;
			if (j < i)
				continue;
			for (j = i; j < p->ncands; j++)
				copies += p->cands[j].skip == c->skip &&
					  !strcmp(p->cands[j].sym->name, c->sym->name);
			if (copies > 1)
				fprintf(o->err, "bpfgraph: cannot trace '%s' (%zu functions of that name): %s\n",
					c->sym->name, copies, plan__skip_text(c->skip));
			else
				fprintf(o->err, "bpfgraph: cannot trace '%s': %s\n", c->sym->name,
					plan__skip_text(c->skip));
			lines++;
		}
		return -EINVAL;
	}
	return 0;
}

int plan__add_live(struct plan *p, const struct plan_opts *o, const struct ksym *s,
		   enum plan_skip *why)
{
	struct plan_cand c = { .sym = s, .why = PW_CALLEE, .parent = "(seen while tracing)" };
	uint8_t *code = malloc(MAX_CODE);
	int err;

	if (!code)
		return -ENOMEM;
	err = add_cand(p, o, p->seen, c, code);
	free(code);
	if (err < 0)
		return err;
	if (err == 0)
		return -EEXIST;
	*why = p->cands[p->ncands - 1].skip;
	return *why == PS_NONE ? p->cands[p->ncands - 1].func : -EPERM;
}

int plan__adopt(struct plan *p, const struct plan_opts *o, const struct ksym *s, int idx,
		enum plan_skip *why)
{
	struct plan_cand c = { .sym = s, .why = PW_CALLEE, .parent = "(the ftrace net)",
			       .func = -1 };
	struct kbtf_func bf;
	const char *deny = NULL;
	uint8_t *code;
	int r = symset__add(p->seen, s);

	*why = PS_NONE;
	if (r <= 0)
		return r < 0 ? r : -EEXIST;
	if (cands_reserve(p) || !(code = malloc(MAX_CODE)))
		return -ENOMEM;
	c.notrace = any_glob(o->notrace, o->n_notrace, s->name);
	c.skip = classify(o, s, c.why, &deny, &bf, &c.kprobe, &c.kprobe_why, code);
	free(code);
	c.deny = deny;
	*why = c.skip;
	if (c.skip == PS_NONE) {
		fill_func(&p->funcs.f[idx], &c, &bf);
		c.func = idx;
		p->nattach++;
	} else {
		p->nskipped++;
	}
	p->cands[p->ncands++] = c;
	return c.skip == PS_NONE ? idx : -EPERM;
}

int plan__add_wide(struct plan *p, const struct plan_opts *o, const struct ksym *s)
{
	struct plan_cand c = { .sym = s, .why = PW_CALLEE, .parent = "(the wide net)",
			       .kprobe = 1, .func = -1 };
	struct kbtf_func bf;
	int r = symset__add(p->seen, s);

	if (r < 0)
		return r;
	if (r == 0) {
		r = functab__find_addr(&p->funcs, s->addr);
		return r >= 0 ? r : -EEXIST;
	}
	if (cands_reserve(p))
		return -ENOMEM;
	/* Return types from BTF where it has the function; nothing else is read. */
	memset(&bf, 0, sizeof(bf));
	if (kbtf__func(o->kb, s->name, s->module, &bf))
		memset(&bf, 0, sizeof(bf));
	c.notrace = any_glob(o->notrace, o->n_notrace, s->name);
	c.func = add_func(p, &c, &bf);
	if (c.func < 0)
		return c.func;
	p->nattach++;
	p->cands[p->ncands++] = c;
	return c.func;
}

int plan__build(struct plan *p, const struct plan_opts *o)
{
	struct symset seen = {};
	uint8_t *code = malloc(2 * MAX_CODE);
	uint64_t *targets = malloc(MAX_TARGETS * sizeof(*targets));
	const struct ksym **callees = malloc(MAX_TARGETS * sizeof(*callees));
	int err = 0, i;

	memset(p, 0, sizeof(*p));
	functab__init(&p->funcs);
	p->kprobes_only = o->kprobes_only;
	p->kprobes_how = o->kprobes_how;
	if (!code || !targets || !callees) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * A plan over --max-funcs is refused: once it is, the rest is not
	 * looked at (reading and decoding a broad glob's code costs tens of
	 * seconds: docs/performance.md, "Costs behind the code").
	 */
	for (i = 0; i < o->n_graph && !err && !p->over_limit; i++)
		err = add_glob(p, o, &seen, o->graph[i], PW_ENTRY, code);
	for (i = 0; i < o->n_allow && !err && !p->over_limit; i++)
		err = add_glob(p, o, &seen, o->allow[i], PW_ALLOW, code);
	for (i = 0; o->irqs && irq_globs[i] && !err; i++)
		err = add_glob(p, o, &seen, irq_globs[i], PW_IRQ, code);
	for (i = 0; o->callsites && o->kprobes && kprobe_only_name(i) && !err; i++)
		err = add_callsite(p, o, &seen, kprobe_only_name(i), code);
	for (i = 0; o->callsites && o->kprobes && !o->hook_locks && shared_leaves[i] && !err; i++)
		err = add_callsite(p, o, &seen, shared_leaves[i], code);
	/* Breadth first: the queue is the candidate list itself. */
	for (size_t k = 0; !err && o->kt && k < p->ncands && !p->over_limit; k++)
		err = discover(p, o, &seen, k, code, targets, callees);
	if (!err && p->over_limit) {
		fprintf(o->err, "bpfgraph: the plan has more functions than --max-funcs=%d "
			"(planning stopped there): narrow it (--callee-depth, -x) or raise "
			"--max-funcs\n", o->max_funcs);
		err = -E2BIG;
	}
out:
	p->seen = malloc(sizeof(*p->seen));
	if (p->seen)
		*p->seen = seen;
	else
		free(seen.slot);
	free(code);
	free(targets);
	free(callees);
	return err;
}

void plan__free(struct plan *p)
{
	if (p->seen)
		free(p->seen->slot);
	free(p->seen);
	functab__free(&p->funcs);
	free(p->cands);
	memset(p, 0, sizeof(*p));
}
