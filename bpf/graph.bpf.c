// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel side of bpfgraph: fourteen programs, of which user space loads
 * those its hooks need. All but the tracepoints' are shims around the run guard,
 * guarded() (guard.bpf.h):
 * - bg_entry, bg_entry_graph (fentry) and bg_exit (fexit): templates cloned
 *   by user space once per traced function, told apart by the link cookie
 *   (function index + flags); bg_entry_graph for the -G functions;
 * - bg_tentry: the entry template loaded once for all functions as
 *   fentry.multi, bg_exit's code as its exit;
 * - bg_kentry and bg_kexit: kprobe and kretprobe, for functions fentry
 *   cannot attach to and for call sites;
 * - bg_mentry and bg_mexit: the same pair on kprobe.multi links;
 * - bg_msession and bg_wide: kprobe.session, for the plan and the wide net;
 * - bg_icall: kprobes before indirect calls in traced functions;
 * - bg_switch: sched_switch, for a task switched out inside a graph;
 * - bg_fork and bg_task_exit: sched_process_fork and sched_process_exit,
 *   for --inherit's set of traced tasks.
 * They keep per-task state in task local storage and only decide whether to
 * emit a fixed-size record; everything else happens in user space.
 *
 * Semantics follow function_graph with set_graph_function:
 * - outside a graph (-G) function nothing is recorded;
 * - depth counts recorded frames only, the graph function is depth 0;
 * - -x (notrace) functions and everything they call are hidden and not
 *   counted; so is everything at or below --max-depth;
 * - tracing_thresh: entries are never written, exits only when the call
 *   took at least the threshold.
 *
 * The logic is in the headers, in pipeline order: the globals, task state
 * and maps (state.bpf.h), the task filters (filter.bpf.h), the record
 * batching (records.bpf.h), the kernel-stack walk for untraced callers
 * (callers.bpf.h), the pairing of entries and exits (pair.bpf.h), the
 * indirect-call targets (icall.bpf.h) and the run guard (guard.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bpfgraph.h"
#include "state.bpf.h"
#include "filter.bpf.h"
#include "records.bpf.h"
#include "callers.bpf.h"
#include "pair.bpf.h"
#include "icall.bpf.h"
#include "guard.bpf.h"

char LICENSE[] SEC("license") = "GPL";

SEC("fentry")
int BPF_PROG(bg_entry)
{
	guarded(ctx, BG_RUN_ENTRY, false);
	return 0;
}

/* bg_entry for -G functions (BG_CK_GRAPH): it starts graphs. */
SEC("fentry")
int BPF_PROG(bg_entry_graph)
{
	guarded(ctx, BG_RUN_ENTRY, true);
	return 0;
}

/*
 * The tracing_multi tier (fentry.multi, attach type BPF_TRACE_FENTRY_MULTI):
 * one program for every function of the plan, its instructions loaded
 * again by user space with that attach type (user/hook/attach.c). Each
 * function still gets a trampoline of its own, built for its prototype,
 * so ctx is laid out as for bg_entry; the cookie's BG_CK_GRAPH says which
 * functions may start a graph. Its exit twin is bg_exit's code.
 */
SEC("fentry")
int BPF_PROG(bg_tentry)
{
	guarded(ctx, BG_RUN_TENTRY, false);
	return 0;
}

SEC("fexit")
int BPF_PROG(bg_exit)
{
	guarded(ctx, BG_RUN_EXIT, false);
	return 0;
}

/*
 * Functions fentry cannot attach to (no BTF: compiler clones such as
 * name.part.0; variadic; refused by the kernel) are kprobed instead:
 * kprobe on the first instruction and kretprobe, or, with
 * BG_CK_CALLSITE, kprobes on a call to the function in a traced function
 * and on the instruction after it (bg_kexit as a plain kprobe: the
 * return value is in rax there too).
 */
SEC("kprobe")
int bg_kentry(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_KENTRY, false);
	return 0;
}

SEC("kretprobe")
int bg_kexit(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_KEXIT, false);
	return 0;
}

/*
 * The same two for the kprobe.multi tier (kernels with CONFIG_FPROBE):
 * one link each for a whole batch of functions, by address, the cookie
 * per address. The return link is made first, so that on kernels where
 * the newest ftrace callback runs first the entry program reads the
 * caller's return address before the return hook replaces it.
 */
SEC("kprobe.multi")
int bg_mentry(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_MENTRY, false);
	return 0;
}

SEC("kretprobe.multi")
int bg_mexit(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_MEXIT, false);
	return 0;
}

/*
 * A kprobe.session program's run (loaded as such by user space: libbpf 1.1
 * does not know the section). It runs at the entry and, when the entry
 * returned 0, at the return of the same call: only calls that opened a
 * frame (inside a graph) ask for their return, so unrelated work pays one
 * entry hook per call, and no exit comes without its entry. Which of the
 * two runs now shows in the registers: at the entry the ip is just past
 * the fentry site, at the return it is the return address into the caller
 * (a call of the function to itself returns further in than
 * BG_FENTRY_SITE_END). bpf_session_is_return() would say it too, but its
 * signature differs between kernels (6.12: no argument; 7.x: the context).
 */
static __always_inline int session_run(struct pt_regs *regs, enum bg_run entry, bool cached)
{
	if (PT_REGS_IP(regs) - bpf_get_func_ip(regs) >= BG_FENTRY_SITE_END) {
		guarded_ck(regs, BG_RUN_SEXIT, false, false, cached);
		return 0;
	}
	return guarded_ck(regs, entry, false, cached, cached) ? 0 : 1;
}

/* The plan on the kprobe.multi tier where the kernel has kprobe.session links (6.10+). */
SEC("kprobe.multi")
int bg_msession(struct pt_regs *regs)
{
	/* Its links are the plan's alone: their cookies are in bg_ckc. */
	return session_run(regs, BG_RUN_MENTRY, true);
}

/*
 * The wide net: one kprobe.session link over every traceable function
 * that has no link of its own (user/hook/wide.h), so that the first traced
 * call is complete before anything was learned about it. A program of its
 * own, not bg_msession choosing by cookie: sharing one cost a loaded
 * machine more while the net was open (stop_bounds 'dur' on 6.12).
 */
SEC("kprobe.multi")
int bg_wide(struct pt_regs *regs)
{
	return session_run(regs, BG_RUN_WENTRY, false);
}

/*
 * On every context switch. A task inside a graph leaves this CPU's batch
 * behind (see struct bg_batch): flush it now, before the task can go on
 * elsewhere or sleep for long. The ring buffer's lock taken meanwhile is a
 * traced call of this task: busy hides it.
 *
 * nosleep-time (bg_nosleep): function_graph's sched_switch probe moves the
 * start of every open call of a task switched back in by the time it was
 * out, so durations leave sleep out. Same here, on the task's state.
 */
const volatile __u8 bg_nosleep = 0;

SEC("tp_btf/sched_switch")
int BPF_PROG(bg_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now, away;
	struct task_state *st;
	struct bg_cpu_in *in;
	bool prev_in;
	__u32 busy;

	/* No task inside a graph: none leaves or comes back inside one. */
	if (bg_stopped || !bg_active)
		return 0;
	st = bpf_task_storage_get(&bg_tasks, prev, 0, 0);
	prev_in = st && (st->depth || st->skip);
	if (prev_in) {
		busy = st->busy;
		st->busy = 1;
		flush_cpu();
		st->busy = busy;
		/*
		 * function_graph with a pid filter (set_ftrace_pid, perf ftrace
		 * -p, trace-cmd -P) decides at this tracepoint whether the CPU
		 * traces on: for next. When next is not traced, the calls prev
		 * makes on its way out (enter_lazy_tlb, the FPU state's save)
		 * are not shown: nor here, with -p or a COMMAND.
		 */
		st->switching = bg_filter_pid && !pid_listed(next) ? BG_SWITCH_HIDE : BG_SWITCH_OUT;
		if (bg_nosleep && st->depth)
			st->out_at = bpf_ktime_get_ns();
	}
	st = bpf_task_storage_get(&bg_tasks, next, 0, 0);
	/*
	 * Until the switch prev still runs here (its way out), then next: the
	 * CPU may hold a task inside a graph if either is (see bg_cpu_in).
	 */
	in = cpu_in_slot();
	if (in) {
		in->task = (__u64)next;
		in->in = prev_in || (st && (st->depth || st->skip));
	}
	if (!st)
		return 0;
	st->switching = 0;
	if (!bg_nosleep || !st->out_at)
		return 0;
	now = bpf_ktime_get_ns();
	away = now - st->out_at;
	st->out_at = 0;
	for (__u32 i = 0; i < BG_MAX_DEPTH; i++) {
		if (i >= st->depth)
			break;
		st->calltime[i] += away;
	}
	return 0;
}

/*
 * --inherit: the traced set (bg_pids) follows the tasks the traced ones
 * create, and lets go of those that exit. The fork tracepoint fires in the
 * parent, after the child is made and before it is woken: the child's
 * first call is traced. Loaded only with --inherit.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(bg_fork, struct task_struct *parent, struct task_struct *child)
{
	if (!bg_stopped)
		inherit_task(parent, child);
	return 0;
}

/*
 * Only the exiting task is read: the first argument on every kernel. Its
 * thread group is dead once signal->live is 0, which do_exit() counts
 * down before this tracepoint (the inherit VM scenario checks that the
 * set is empty once all its tasks have exited).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(bg_task_exit, struct task_struct *t)
{
	if (!bg_stopped)
		forget_task(t);
	return 0;
}

/*
 * The kprobe before an indirect call in a traced function (icall.bpf.h).
 * Guarded like the others: the ring buffer's lock and the map's are
 * traced functions too, and their programs must not run inside this one.
 */
SEC("kprobe")
int bg_icall(struct pt_regs *regs)
{
	guarded(regs, BG_RUN_ICALL, false);
	return 0;
}

/*
 * The ftrace net (user/hook/ftnet.h): function_graph records the
 * command's first traced call, nothing of ours is hooked, and the command
 * must stop at that call's end, not later (its next calls would be
 * function_graph's, without return values) nor earlier (a stop ends a
 * sleep in the call). A kprobe and a kretprobe on the -G functions, made
 * after function_graph started, count the command's calls under way; the
 * last to return stops it. ftrace calls its newest callback first, so
 * they run outside the graph, unless a kprobe on ftrace (all share one
 * callback) was there before function_graph: then the handlers are drawn
 * inside it, and user space leaves them out (kprobes' dispatch).
 */
SEC("kprobe")
int bg_net_enter(struct pt_regs *regs)
{
	if (bg_net_armed && (bpf_get_current_pid_tgid() >> 32) == bg_pause_tgid)
		__sync_fetch_and_add(&bg_net_open, 1);
	return 0;
}

SEC("kretprobe")
int bg_net_leave(struct pt_regs *regs)
{
	/*
	 * A call under way before the probes were made has no entry counted
	 * (the command's read of bpfgraph's go-ahead, a vfs_read): its return
	 * is not the first call's end.
	 */
	__u64 id = bpf_get_current_pid_tgid();
	__u32 i;

	if (!bg_net_armed || (id >> 32) != bg_pause_tgid || bg_net_open <= 0)
		return 0;
	/*
	 * Not atomic (no fetch-and-add before -mcpu=v3): threads of the
	 * command returning at the same instant may share a slot.
	 */
	i = bg_net_nret;
	if (i < BG_NET_RETS) {
		bg_net_nret = i + 1;
		bg_net_ret[i].val = PT_REGS_RC(regs);
		bg_net_ret[i].tid = (__u32)id;
		bg_net_ret[i].ns = bpf_ktime_get_ns();
	}
	/* Two threads returning at once may both see 0: a second SIGSTOP does nothing. */
	__sync_fetch_and_add(&bg_net_open, -1);
	/*
	 * A call exec made, before the command's own code ran: not the first.
	 * Not atomic either: two threads ending calls at once count one.
	 */
	if (bg_net_open <= 0 && (!bg_net_wait_exec || bg_net_exec_ns) &&
	    ++bg_net_ended >= bg_net_calls) {
		bg_net_armed = 0;
		bg_pausing = 1;
		/* function_graph draws the signal's sending here as a graph of its own. */
		bg_net_sig_ns[0] = bpf_ktime_get_ns();
		bpf_send_signal(19 /* SIGSTOP */);
		bg_net_sig_ns[1] = bpf_ktime_get_ns();
	}
	return 0;
}

/*
 * The delivery of bpfgraph's SIGSTOP to a thread of the command, and its
 * way back after SIGCONT (see bg_pausing): a kprobe and a kretprobe on
 * arch_do_signal_or_restart, which every delivery of a signal on x86 runs
 * (get_signal() is called from nowhere else), made before the command
 * can first be stopped. A graph open when it is entered (a -G function
 * above it) is left as it is.
 */
SEC("kprobe")
int bg_pause_in(struct pt_regs *regs)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_state *st;

	if (!bg_pausing || (id >> 32) != bg_pause_tgid)
		return 0;
	st = bpf_task_storage_get(&bg_tasks, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st || st->depth || st->skip)
		return 0;
	if (!st->tid)
		st->tid = (__u32)id;
	st->in_pause = 1;
	bg_pause_win_tid = (__u32)id;
	bg_pause_end_ns = 0;
	bg_pause_win_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("kretprobe")
int bg_pause_out(struct pt_regs *regs)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_state *st;

	if ((id >> 32) != bg_pause_tgid)
		return 0;
	st = bpf_task_storage_get(&bg_tasks, bpf_get_current_task_btf(), 0, 0);
	if (!st || !st->in_pause)
		return 0;
	st->in_pause = 0;
	if ((__u32)id == bg_pause_win_tid)
		bg_pause_end_ns = bpf_ktime_get_ns();
	return 0;
}

/*
 * The command's exec is done (its new image loaded, before its first
 * instruction): from now on a -G call's end is the first call's.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(bg_net_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	if ((bpf_get_current_pid_tgid() >> 32) == bg_pause_tgid && !bg_net_exec_ns)
		bg_net_exec_ns = bpf_ktime_get_ns();
	return 0;
}
