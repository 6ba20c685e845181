/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Included by graph.bpf.c only: what user space configures (read-only
 * globals, set between open and load), the globals both sides change, the
 * per-task state, and the maps every program uses.
 */
#ifndef BG_STATE_BPF_H
#define BG_STATE_BPF_H

/* Configured between open and load. */
const volatile __u32 bg_max_depth = 0; /* 0: BG_MAX_DEPTH */
const volatile __u64 bg_thresh_ns = 0;
const volatile __u32 bg_self_tgid = 0; /* never trace the tracer */
const volatile __u8 bg_filter_pid = 0;
const volatile __u8 bg_filter_cpu = 0;
const volatile __u8 bg_filter_comm = 0;
const volatile __u8 bg_noirqs = 0;
const volatile char bg_comm[BG_COMM_LEN] = {};
const volatile __u64 bg_cpumask[BG_MAX_CPUS / 64] = {};
/*
 * The command bpfgraph started (0: none, or --no-pause): stopped when a
 * new indirect target is found in it, until user space has attached it.
 */
const volatile __u32 bg_pause_tgid = 0;
/*
 * --wide=first: the command's first graph to end turns the wide net off
 * (bg_wide_on) and stops the command (bg_pause_tgid) until user space has
 * linked what the net met, however long user space takes to read that far.
 */
const volatile __u8 bg_wide_once = 0;
/* funcgraph-args: each ENTRY is followed by its argument registers (BG_REC_ARGS). */
const volatile __u8 bg_args = 0;
/*
 * --args-detail: an ENTRY with a bg_detail plan gets its BG_REC_DETAIL
 * records after the BG_REC_ARGS ones. Off, the verifier drops that path.
 */
const volatile __u8 bg_detail_on = 0;
/* Report indirect targets met inside interrupt work too (see BG_RF_IRQ). */
const volatile __u8 bg_discover_irqs = 0;
/*
 * A leaf's exit folds it into its entry (BG_REC_LEAF), which loses the
 * return address: set when no output shows it (funcgraph-retaddr) and no
 * record file keeps the records as they came. On trampolines only the
 * hot exits fold (user/cmd/progs.c says why).
 */
const volatile __u8 bg_fold = 0;
/*
 * emit() calls bg_emit(), a global function the verifier checks once per
 * program, instead of inlining the batching at each of its call sites,
 * which made up more than half of what it walked in the kprobe programs;
 * but for the plan's kprobe.session entries and exits (emit_as()'s hot).
 * The closing of lazy frames goes out of line with it (bg_close_lazy()).
 * Off on the trampoline tiers, as bg_fold: their per-function copies are
 * loaded without BTF function records, where a global function turns
 * static and is walked at every call all the same.
 */
const volatile __u8 bg_emit_call = 0;
/*
 * Where a return hook sends a hooked function's return: fgraph's
 * return_to_handler (fprobe's exit handler on 6.14 and later, and
 * function_graph) and rethook's arch_rethook_trampoline (fprobe before
 * 6.14); 0: not in this kernel. See on_entry().
 */
const volatile __u64 bg_hooked_ret[2] = {};
/*
 * [start, end) of the trampoline's helpers, by start; see BG_SELF_RANGES.
 * Slots past the last range start at ~0 (in_self_range() searches them).
 */
const volatile __u64 bg_self_lo[BG_SELF_RANGES] = {};
const volatile __u64 bg_self_hi[BG_SELF_RANGES] = {};
const volatile __u64 bg_self_end = 0; /* the highest end among them */
/* The -G functions' starts (see BG_GRAPH_IPS); bg_graph_n 0: not known. */
const volatile __u64 bg_graph_lo[BG_GRAPH_IPS] = {};
const volatile __u32 bg_graph_n = 0;
/* [_stext, _etext): no BPF trampoline image lies there (see bg_called_by_us()). */
const volatile __u64 bg_ktext_lo = 0;
const volatile __u64 bg_ktext_hi = 0;

/* Always 0; read from .bss, so the verifier takes it as any value (hide_own_call). */
volatile __u64 bg_opaque_zero = 0;

/*
 * Set by user space once every program is attached, so that no task
 * starts a graph while half of its functions still lack their links.
 */
volatile __u32 bg_enabled = 0;
/*
 * Set by user space when tracing ends, before the hooks are released
 * (which may go on in the background for seconds or minutes): every
 * program then returns at once, so those hooks record nothing and call
 * nothing another tracer could see. others.c reads it, by name, in the
 * .bss of another bpfgraph's programs.
 */
volatile __u32 bg_stopped = 0;
/* The kprobe.multi link generation whose entry programs record (BG_CK_GEN). */
volatile __u32 bg_gen = 0;
/*
 * Set by user space to stop the command (bg_pause_tgid) while one of its
 * tasks is inside a graph: the first of its graphs to end does, and clears
 * it. A stop sent mid-call would end any sleep later in that call.
 */
volatile __u32 bg_stop_req = 0;
/*
 * The ftrace net (bg_net_enter/bg_net_leave): while set, the command's
 * calls of -G functions are counted, and the last of them to return stops
 * it; cleared then.
 */
volatile __u32 bg_net_armed = 0;
volatile __s32 bg_net_open = 0;
/* Its returns of -G functions, the first BG_NET_RETS (struct bg_net_ret). */
volatile struct bg_net_ret bg_net_ret[BG_NET_RETS];
volatile __u32 bg_net_nret = 0;
/*
 * The command's exec (bg_net_exec): calls exec makes itself of a -G
 * function (the loader's mappings, the argument pages' faults) do not end
 * the net's first call, the first one to end after it does. Waited for
 * while bg_net_wait_exec is set (user space, with the tracepoint
 * attached); bg_net_exec_ns: when the command's exec was done (the
 * clock of the net's records), 0 until then.
 */
volatile __u32 bg_net_wait_exec = 0;
volatile __u64 bg_net_exec_ns = 0;
/*
 * How many of the command's calls after its exec the net records
 * (--first-calls, set by user space before it arms the net), and how
 * many have ended: the last of them stops the command.
 */
volatile __u32 bg_net_calls = 0; /* 0: one */
volatile __u32 bg_net_ended = 0;
/*
 * A stop of the command (bg_pause_tgid) is under way: set by user space
 * before its SIGSTOP and by the programs before theirs, cleared by user
 * space before its SIGCONT. A thread of the command that enters the
 * kernel's signal delivery (arch_do_signal_or_restart: bg_pause_in)
 * meanwhile stops there, and what it runs until that returns
 * (do_signal_stop, the parent's notification, the scheduler; the same on
 * the way back after SIGCONT) is bpfgraph's doing, not the command's: no
 * graph begins in it (task_state.in_pause, BG_ST_PAUSED). The ftrace net
 * leaves out function_graph's graphs begun there by the times below
 * (user/live/live_ftnet.c): the thread and when its stop's delivery
 * began (bg_pause_win_ns) and ended (bg_pause_end_ns, 0: not yet), and
 * when bg_net_leave's own bpf_send_signal() ran (bg_net_sig_ns).
 * bg_cont_ns: when user space last sent SIGCONT; a mark still set
 * BG_PAUSE_TAIL_NS after it lost its kretprobe run (the kernel keeps
 * max(10, 2 x CPUs) of them under way) and goes.
 */
volatile __u32 bg_pausing = 0;
volatile __u64 bg_cont_ns = 0;
volatile __u32 bg_pause_win_tid = 0;
volatile __u64 bg_pause_win_ns = 0;
volatile __u64 bg_pause_end_ns = 0;
volatile __u64 bg_net_sig_ns[2] = {};
/*
 * The wide net (bg_wide) records entries: set while it is the only hook of
 * the functions it covers, cleared before they get links of their own.
 */
volatile __u32 bg_wide_on = 0;
/* The call-site probes (BG_CK_SITES), not the keep link, record the rcu pair. */
volatile __u32 bg_rcu_sites = 0;
/*
 * When the first graph ended (bpf_ktime_get_ns()), where no command can
 * be stopped (system-wide, -p, --no-pause): the net goes on recording, so
 * that the graphs that begin meanwhile are complete, until user space has
 * linked what it met (BG_CK_NET) and clears bg_wide_on, or for at most
 * BG_WIDE_GRACE_NS. Nothing waits for a quiet moment: under a steady load
 * there is none. 0: not yet.
 */
volatile __u64 bg_wide_ended = 0;
/*
 * The net's self-test (live__attach_wide): its entries in this process
 * are counted, bg_wide_on or not. 0: no test under way.
 */
volatile __u32 bg_wide_probe_tgid = 0;
volatile __u32 bg_wide_probed = 0;

/*
 * Tasks inside a graph now (depth or skip open). While none is, a program
 * is done after one load (most runs: a traced function called by work
 * outside any graph), without a task storage lookup. Counted in one place,
 * guarded(), from the task's state before and after the run. A task that
 * dies inside a graph stays counted: programs then only do the lookup.
 */
__s64 bg_active = 0;
/*
 * The tasks of bg_active by the parity of the epoch (bg_epoch) they
 * entered their graph in. A merge of link pairs begins an epoch once the
 * new pair takes every call; the old pairs are closed when no task of the
 * epoch before is left inside its graph (kprobes__retire()).
 */
volatile __u32 bg_epoch = 0;
volatile __s64 bg_in_epoch[2] = {};
/*
 * A merge's links are attached beside the ones they replace, from just
 * before the new one is made until the old ones are closed: a call may
 * run the plan's session program twice (session_dup()).
 */
volatile __u32 bg_merging = 0;

/*
 * Per CPU: may the task running here be inside a graph (in)? Never 0
 * while it is: bg_switch sets it when either task of a switch is (until
 * the switch itself the old task still runs here, calling traced
 * functions on its way out), and a run that finds the task's state
 * inside a graph sets it. Only a run of the task the last switch brought
 * in (task) clears it, when its state is outside any graph. With a task
 * inside a graph somewhere (bg_active), the runs of every other CPU
 * (unrelated work, bpfgraph's own reader) are then done after this load,
 * not after the link cookie and a task storage lookup.
 * Trusted only while bg_switch is attached (bg_cpu_in_on, set by user
 * space once it is, before any graph can start): a switch it does not
 * see leaves a wrong CPU's slot.
 */
volatile __u32 bg_cpu_in_on = 0;

struct bg_cpu_in {
	__u64 task; /* the task the last switch seen here brought in */
	__u32 in;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bg_cpu_in);
} bg_cpu_in SEC(".maps");

/* This CPU's bg_cpu_in slot; NULL never happens (a one-entry array). */
static __always_inline struct bg_cpu_in *cpu_in_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&bg_cpu_in, &zero);
}

/* The task here is inside a graph (now_in) or not: said in its slot c. */
static __always_inline void cpu_in_set(struct bg_cpu_in *c, bool now_in)
{
	if (now_in)
		c->in = 1;
	else if (c->in && c->task == bpf_get_current_task())
		c->in = 0;
}

struct task_state {
	__u64 calltime[BG_MAX_DEPTH];
	/*
	 * The trampoline frame of a call: fentry and fexit of one invocation
	 * run in the same trampoline frame, so their ctx pointers are equal.
	 * That pairs an exit with its entry even when a program run was
	 * missed (recursion) or the call began before we attached.
	 */
	__u64 frame[BG_MAX_DEPTH];
	/*
	 * The return address recorded with each open frame's entry (after
	 * the return-hook substitution of on_entry()).
	 */
	__u64 caller[BG_MAX_DEPTH];
	__u32 func[BG_MAX_DEPTH];
	__u32 depth; /* recorded frames open */
	__u32 irq; /* 1 + depth of the open interrupt entry frame, 0: none */
	__u32 skip; /* hidden frames open (notrace, max depth, irqs) */
	__u32 tid; /* the task's thread id, for its records */
	/*
	 * One of our program runs for this task is in progress. An interrupt
	 * that lands while a program runs, or a helper that calls a traced
	 * function (the ring buffer's spin lock), nests another program run
	 * in the same task; the trampoline would skip programs already
	 * active (recursion_misses) and leave entries without exits. Such
	 * nested calls are skipped as a whole and counted instead. (Programs
	 * run with migration disabled: a run never spans two CPUs.)
	 */
	__u32 busy;
	/*
	 * Switched out inside a graph, not yet back in: the calls it makes
	 * on its way out after the sched_switch tracepoint (switch_mm...)
	 * must not wait in this CPU's batch (see struct bg_batch).
	 * BG_SWITCH_HIDE: nor be shown (see bg_switch).
	 */
	__u32 switching;
	/* nosleep-time: when the task was switched out inside a graph, 0: not */
	__u64 out_at;
	/*
	 * Frames opened so far, recorded or hidden (skip): each waits for an
	 * exit. A kprobe.session entry asks for its return only when this
	 * moved (the wide net).
	 */
	__u32 opens;
	/*
	 * An indirect target was found in this graph: the command is stopped
	 * when the graph ends (see on_icall()).
	 */
	__u32 stop_at_end;
	/*
	 * The function and stack pointer of the last call a kprobe.session
	 * entry hid (skip): its second run, a merge's other link, hides
	 * nothing more (session_dup()).
	 */
	__u32 hid_fn;
	__u64 hid_sp;
	__u32 epoch; /* bg_epoch when the task entered its graph */
	/*
	 * Where each open trampoline frame's return address lies (its
	 * entry's sp), 0: not known. Written by trampoline entries, and by
	 * the plan's kprobe.session entries while a merge is under way (the
	 * same address, for session_dup(); unwinding stops at their frames all
	 * the same: BG_FRAME_HAS_SP). Another kprobe frame's slot holds what
	 * an earlier frame left.
	 */
	__u64 sp[BG_MAX_DEPTH];
	/* Inside the delivery of bpfgraph's SIGSTOP (see bg_pausing). */
	__u32 in_pause;
};

/* Values of task_state.switching. */
#define BG_SWITCH_OUT 1
#define BG_SWITCH_HIDE 2

/*
 * A kprobe's pairing frame: kretprobes run in no frame of their entry, and
 * such functions are matched by index alone (the frame value is fixed).
 */
#define BG_FRAME_KPROBE 1
/*
 * A function entered by a tail jump from a call site (BG_CK_TAIL): it
 * returns straight to its caller's caller, so its caller's exit is its
 * exit too.
 */
#define BG_FRAME_TAIL 2
/* A call site without an exit probe (BG_CK_LAZY): closed at the next event. */
#define BG_FRAME_LAZY 3
/* A kprobe.multi frame of link generation g (BG_CK_GEN): paired by index and generation. */
#define BG_FRAME_MULTI(g) (0x100 | (__u64)(g))
#define BG_FRAME_IS_MULTI(f) (((f) & ~0xffULL) == 0x100)
/* A trampoline frame (its ctx, a kernel address): task_state.sp is its own. */
#define BG_FRAME_HAS_SP(f) ((f) >= 0x200)

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} bg_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* resized by user space */
} bg_events SEC(".maps");

/* The plan's link cookies by function address (BG_CKC_SLOTS), mapped by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, BG_CKC_SLOTS);
	__type(key, __u32);
	__type(value, struct bg_ckc_slot);
} bg_ckc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BG_ST_NR);
	__type(key, __u32);
	__type(value, __u64);
} bg_stats SEC(".maps");

/*
 * -p and -- COMMAND: thread ids and process ids to trace; --inherit adds
 * the tasks they create and drops the tasks that exit (filter.bpf.h).
 * Preallocated: the fork tracepoint adds without allocating.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024); /* resized by user space */
	__type(key, __u32);
	__type(value, __u8);
} bg_pids SEC(".maps");

/* --args-detail: the read plan per function index (struct bg_detail_plan). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* sized by user space */
	__type(key, __u32);
	__type(value, struct bg_detail_plan);
} bg_detail SEC(".maps");

/*
 * A string is read here before it is split over records: the CPU's batch
 * is held (writing) meanwhile, and only a program holding it reads.
 */
struct bg_dscratch {
	__u8 s[BG_DETAIL_PARTS * BG_DETAIL_PART];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bg_dscratch);
} bg_dscratch SEC(".maps");

static __always_inline void stat_inc(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&bg_stats, &idx);

	if (v)
		*v += n;
}

#endif
