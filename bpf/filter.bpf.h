/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Included by graph.bpf.c only: which tasks start a graph (-p, -C, -n,
 * the tracer itself; --inherit's tasks created and exited) and whether a
 * call is interrupt work.
 */
#ifndef BG_FILTER_BPF_H
#define BG_FILTER_BPF_H

/*
 * In hard-irq context? preempt_count lives in a per-CPU variable on x86:
 * __preempt_count until 6.1 and again since 6.15, a field of struct
 * pcpu_hot from 6.2 to 6.14 (6.12 LTS among them). Both are weak ksyms:
 * the one this kernel lacks resolves to NULL and its branch is dead code.
 */
extern const int __preempt_count __ksym __weak;
struct pcpu_hot___bg {
	int preempt_count;
} __attribute__((preserve_access_index));
extern const struct pcpu_hot___bg pcpu_hot __ksym __weak;
#define BG_HARDIRQ_MASK 0x000f0000
#define BG_NMI_MASK 0x00f00000

/*
 * An int3 kprobe runs in the exception's NMI-like context (6.1 x86:
 * irqentry_nmi_enter() adds one NMI and one hard-irq level): count the
 * hard-irq levels beyond the NMI ones, or every kprobed call would look
 * like interrupt work. (A real NMI is never interrupt work to show.)
 */
static __always_inline bool in_hardirq_ctx(void)
{
	const struct pcpu_hot___bg *hot = &pcpu_hot;
	const int *pcp = &__preempt_count;
	int pc;

	/*
	 * Each address loaded once, for the test and the helper both: the
	 * kernel resolves every load of a kernel variable on its own, with a
	 * walk through all of vmlinux's BTF types (about 2 ms of a 6.1 fentry
	 * clone's load under emulation; two loads a use, as the compiler
	 * wrote it, made four of them in an entry copy).
	 */
	barrier_var(pcp);
	barrier_var(hot);
	if (pcp) {
		pc = *(const int *)bpf_this_cpu_ptr(pcp);
	} else if (hot) {
		hot = bpf_this_cpu_ptr(hot);
		pc = hot->preempt_count;
	} else {
		return false;
	}
	return ((pc & BG_HARDIRQ_MASK) >> 16) > ((pc & BG_NMI_MASK) >> 20);
}

/* Is task t one of the -p/COMMAND threads (bg_filter_pid set)? */
static __always_inline bool pid_listed(const struct task_struct *t)
{
	__u32 tid = t->pid, tgid = t->tgid;

	return bpf_map_lookup_elem(&bg_pids, &tid) || bpf_map_lookup_elem(&bg_pids, &tgid);
}

/*
 * --inherit, at each task's creation (fork, vfork, clone, a new thread),
 * before it first runs: a task created by a listed one is listed too.
 * A new process is listed by its pid, which is its tgid: its threads are
 * then listed with it, as those of a -p PID or a COMMAND are. A new
 * thread of a process listed by its tgid is listed already; one created
 * by a thread listed by its own id (-p TID) is listed by its own id.
 */
static __always_inline void inherit_task(const struct task_struct *parent,
					 const struct task_struct *child)
{
	__u32 pid = child->pid;
	__u8 one = 1;

	if (!pid_listed(parent) || pid_listed(child))
		return;
	if (bpf_map_update_elem(&bg_pids, &pid, &one, BPF_ANY))
		stat_inc(BG_ST_PIDS_FULL, 1);
}

/*
 * --inherit, at each task's exit: its id goes, so that the set holds
 * live tasks only (and a reused id is not traced). A process id goes with
 * its last thread: its other threads are listed by it while any lives
 * (signal->live counts them, this one already left out).
 */
static __always_inline void forget_task(const struct task_struct *t)
{
	__u32 pid = t->pid, tgid = t->tgid;

	if (pid != tgid)
		bpf_map_delete_elem(&bg_pids, &pid);
	if (!BPF_CORE_READ(t, signal, live.counter))
		bpf_map_delete_elem(&bg_pids, &tgid);
}

static __always_inline bool comm_matches(void)
{
	char comm[BG_COMM_LEN];

	bpf_get_current_comm(comm, sizeof(comm));
	for (int i = 0; i < BG_COMM_LEN; i++) {
		if (comm[i] != bg_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* Filters, evaluated only when a task enters a graph function. */
static __always_inline bool task_selected(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;

	if (tgid == bg_self_tgid)
		return false;
	if (bg_filter_pid && !bpf_map_lookup_elem(&bg_pids, &tid) &&
	    !bpf_map_lookup_elem(&bg_pids, &tgid))
		return false;
	if (bg_filter_cpu) {
		__u32 cpu = bpf_get_smp_processor_id();

		if (cpu >= BG_MAX_CPUS ||
		    !(bg_cpumask[(cpu / 64) & (BG_MAX_CPUS / 64 - 1)] & (1ULL << (cpu % 64))))
			return false;
	}
	if (bg_filter_comm && !comm_matches())
		return false;
	return true;
}

#endif
