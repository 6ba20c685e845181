/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF object (bpf/graph.bpf.c), owned here: opened and filled with
 * the trace's read-only data in one step, loaded once, then handed out as
 * program and map handles and the globals user space shares with the
 * programs while tracing. This is the one file that includes the
 * generated skeleton.
 */
#ifndef BG_BPFOBJ_H
#define BG_BPFOBJ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <bpf/bpf.h>

#include "bpfgraph.h"

struct bpf_program;
struct bpf_map;
struct ksyms;
struct functab;

/* The programs, by what they hook (bpf/graph.bpf.c). */
enum bpfobj_prog {
	BGP_ENTRY, /* fentry template: a function inside a graph */
	BGP_ENTRY_GRAPH, /* fentry template: a -G function, which may start one */
	BGP_EXIT, /* fexit template; also loaded as fexit.multi */
	BGP_TENTRY, /* fentry.multi (tracing_multi) */
	BGP_KENTRY, /* kprobe, per function or per call site */
	BGP_KEXIT, /* kretprobe */
	BGP_MENTRY, /* kprobe.multi */
	BGP_MEXIT, /* kretprobe.multi */
	BGP_MSESSION, /* kprobe.session: the plan */
	BGP_WIDE, /* kprobe.session: the wide net */
	BGP_ICALL, /* kprobes on indirect call sites */
	BGP_SWITCH, /* tp_btf/sched_switch */
	BGP_FORK, /* tp_btf/sched_process_fork: --inherit */
	BGP_TASK_EXIT, /* tp_btf/sched_process_exit: --inherit */
	BGP_NET_ENTER, /* kprobe: the ftrace net's -G functions */
	BGP_NET_LEAVE, /* kretprobe: ... the stop at the first call's end */
	BGP_NET_EXEC, /* tp_btf/sched_process_exec: ... not before the command's exec is done */
	BGP_PAUSE_IN, /* kprobe on arch_do_signal_or_restart: bpfgraph's stop delivered */
	BGP_PAUSE_OUT, /* its kretprobe */
	BGP_NR,
};

/* The maps user space reads or fills. */
enum bpfobj_map {
	BGM_EVENTS, /* the ring buffer */
	BGM_STATS, /* per-CPU counters (BG_ST_*) */
	BGM_BATCH, /* per-CPU record batches, read once at the end */
	BGM_PIDS, /* the traced tasks */
	BGM_DETAIL, /* --args-detail read plans, by function index */
	BGM_FRANGES, /* each function's address range, by index */
	BGM_WRANGES, /* the wide net's entry-only functions' ranges, by net position */
	BGM_TARGETS, /* indirect call targets already followed */
	BGM_NR,
};

/*
 * The globals the programs and user space share while tracing, in the
 * object's .bss (bpf/state.bpf.h says what each means).
 */
struct bpfobj_vars {
	volatile uint32_t *enabled, *stopped, *gen;
	volatile int64_t *active;
	volatile int64_t *in_epoch; /* bg_in_epoch[2] */
	volatile uint32_t *epoch; /* bg_epoch */
	volatile uint32_t *merging; /* bg_merging */
	volatile uint32_t *wide_on, *wide_probe_tgid, *wide_probed;
	volatile uint64_t *wide_ended;
	volatile uint32_t *rcu_sites; /* BG_CK_SITES */
	volatile uint32_t *stop_req; /* bg_stop_req */
	volatile uint32_t *net_armed; /* bg_net_armed */
	volatile uint32_t *net_wait_exec; /* bg_net_wait_exec */
	volatile uint32_t *net_calls; /* bg_net_calls: --first-calls */
	volatile uint64_t *net_exec_ns; /* bg_net_exec_ns */
	/* bg_pausing, bg_pause_win_tid, bg_cont_ns, bg_pause_win_ns, bg_pause_end_ns, bg_net_sig_ns[2] */
	volatile uint32_t *pausing, *pause_win_tid;
	volatile uint64_t *cont_ns, *pause_win_ns, *pause_end_ns, *net_sig_ns;
	/* bg_net_ret[BG_NET_RETS], bg_net_nret: the net's returns of -G functions */
	volatile struct bg_net_ret *net_ret;
	volatile uint32_t *net_nret;
	volatile uint32_t *cpu_in_on; /* bg_cpu_in_on: the sched_switch program is attached */
};

/* The object's read-only data and map sizes: fixed once it is loaded. */
struct bpfobj_config {
	uint32_t max_depth; /* 0: BG_MAX_DEPTH */
	uint64_t thresh_ns;
	bool discover_irqs, noirqs, args, detail, nosleep;
	/*
	 * Leaves in one record (BG_REC_LEAF): no output shows the return
	 * address, no record file is written, no trampoline tier.
	 */
	bool fold;
	/* records made by a function of their own (bg_emit_call): not on trampolines */
	bool emit_call;
	bool filter_pid; /* only tasks in BGM_PIDS (and their threads) */
	/* BGM_PIDS follows the tasks its tasks create (BGP_FORK, BGP_TASK_EXIT loaded) */
	bool inherit;
	uint32_t max_pids; /* BGM_PIDS's size */
	const uint64_t *cpumask; /* only these CPUs; NULL: all */
	const char *comm; /* only tasks of this name; NULL or "": any */
	uint32_t ring_size; /* bytes */
	uint32_t nfuncs; /* the plan's functions (sizes BGM_FRANGES, BGM_DETAIL) */
	uint32_t live_funcs; /* room for functions found while tracing */
	uint32_t wide_ranges; /* BGM_WRANGES's size: BG_WRANGES_MAX or 0 (unused) */
	/*
	 * Which programs are loaded: kprobe.multi (the tier, or what
	 * fentry-multi cannot take), by kprobe.session links; the wide net;
	 * the per-function and per-site kprobes.
	 */
	bool kmulti, ksession, wide, probes;
	/*
	 * The object built with BG_LDX (graph_ldx.bpf.o): its kprobe programs
	 * read the stack with plain loads (caps.h: rdonly_cast).
	 */
	bool ldx;
	/* Kernel symbols fill the self-call ranges and return hooks' addresses. */
	const struct ksyms *ks;
	/* The plan: its -G functions' addresses let the entry programs test the ip. */
	const struct functab *funcs;
};

struct bpfobj;

/* Opened and configured, not loaded. NULL (errno set; said why) on failure. */
struct bpfobj *bpfobj__open(const struct bpfobj_config *c);
/*
 * Before loading: the command whose first traced call pauses it while
 * what it met is hooked (0: none), and whether the net closes after the
 * first graph.
 */
void bpfobj__set_pause(struct bpfobj *o, pid_t tgid, bool wide_once);
int bpfobj__load(struct bpfobj *o);
/*
 * -vv: each loaded program's size, how many instructions the verifier
 * walked and how long it took, from t0_ns to t1_ns (CLOCK_BOOTTIME
 * around bpfobj__load()).
 */
void bpfobj__print_verified(const struct bpfobj *o, FILE *f, uint64_t t0_ns, uint64_t t1_ns);
struct bpf_program *bpfobj__prog(const struct bpfobj *o, enum bpfobj_prog p);
/* -1 before loading or for a program left out. */
int bpfobj__prog_fd(const struct bpfobj *o, enum bpfobj_prog p);
int bpfobj__map_fd(const struct bpfobj *o, enum bpfobj_map m);
/* The object's BTF in the kernel (its programs' records refer to it), or -1. */
int bpfobj__btf_fd(const struct bpfobj *o);
/*
 * A loaded program's final instructions, for loading copies of it with
 * bpf_prog_load() (the fentry clones, fentry-multi's lanes), and with
 * --args-detail its functions' BTF records: with them a copy's global
 * functions stay global, checked once by the verifier rather than on
 * every path that calls them. nfi 0 (btf_fd -1): none, a program of one
 * function, or records the kernel did not give back as expected; a copy
 * then goes without. The functions the object's read-only data leave
 * unused are dropped from the copy's instructions (bpfobj__drop_funcs()).
 */
#define BPFOBJ_FUNCS_MAX 8
struct prog_src {
	const struct bpf_insn *insns;
	size_t cnt;
	int btf_fd; /* the object's BTF in the kernel */
	uint32_t nfi;
	struct bpf_func_info fi[BPFOBJ_FUNCS_MAX];
	uint32_t dropped; /* instructions left out with the unused functions */
	uint32_t dead; /* instructions left out as dead code (dce.h) */
	struct bpf_insn *own; /* insns when rewritten here, else NULL */
	struct prog_src *full; /* before dce__rewrite(), else NULL; owned */
};
/*
 * 0, or -ENOENT for a program not loaded. The source is good while the
 * object lives; bpfobj__prog_src_free() frees what it holds of its own.
 */
int bpfobj__prog_src(const struct bpfobj *o, enum bpfobj_prog p, struct prog_src *s);
void bpfobj__prog_src_free(struct prog_src *s);
/*
 * Copies insns to out (room for cnt) without the functions drop[] marks
 * (function k spans at[k] up to the next start; the first, the program
 * itself, is never dropped), a call to a dropped function becoming
 * `r0 = 0`, which is what each of them returns where it is unused. Calls
 * between the functions kept are aimed again; jumps stay inside their
 * function. new_at[k] gets function k's new start. Returns the count
 * written, or 0 (nothing written) when a function is referred to other
 * than by a call (a callback's address), which this does not follow.
 */
size_t bpfobj__drop_funcs(const struct bpf_insn *insns, size_t cnt, const uint32_t *at,
			  uint32_t n, const bool *drop, struct bpf_insn *out, uint32_t *new_at);
/*
 * The starts of insns' functions in at[], sorted, and how many: 0 and each
 * bpf-to-bpf call's target (libbpf appends the subprograms a program
 * calls). 0 when there are more than max (>= 1) or a call leads outside.
 */
uint32_t bpfobj__func_starts(const struct bpf_insn *insns, size_t cnt, uint32_t *at,
			     uint32_t max);
/* NULL until loaded. */
const struct bpfobj_vars *bpfobj__vars(const struct bpfobj *o);
/*
 * The programs' cookie cache (bg_ckc: BG_CKC_SLOTS slots) mapped into
 * this process, once loaded; NULL if it cannot be (errno).
 */
struct bg_ckc_slot *bpfobj__ckc(struct bpfobj *o);
/* Adds a task to BGM_PIDS: 0 or -errno. */
int bpfobj__add_pid(struct bpfobj *o, uint32_t pid);
/*
 * The per-site probe programs (BGP_KENTRY, BGP_KEXIT, BGP_ICALL), loaded
 * on their own where open left them out: a second instance of the object
 * on the same maps. o itself when it has them; NULL (said why) on failure.
 * The instance is o's: freed with it.
 */
struct bpfobj *bpfobj__probes(struct bpfobj *o);
/* Programs, maps and links' programs go; NULL is fine. */
void bpfobj__destroy(struct bpfobj *o);

#endif
