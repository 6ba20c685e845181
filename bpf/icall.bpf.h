/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Included by graph.bpf.c only: the indirect-call probes' work (bg_icall),
 * new targets reported to user space and frames for those no trampoline
 * may hook.
 */
#ifndef BG_ICALL_BPF_H
#define BG_ICALL_BPF_H

/*
 * Indirect calls out of traced functions (function pointers: VFS and
 * socket ops, LSM hooks): a kprobe just before each call site of a traced
 * function reads the register holding the target, or the pointer the
 * target is about to be loaded from. Each new target met inside a
 * graph is reported once, and user space attaches it, so the calls after
 * this one show the function and what it calls.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u32); /* BG_TARGET_SEEN, or BG_TARGET_WRAPPED(functab index) */
} bg_targets SEC(".maps");

/* Offset of register reg in struct pt_regs, or -1. */
static __always_inline int reg_offset(__u32 reg)
{
	switch (reg) {
	case BG_REG_AX: return __builtin_offsetof(struct pt_regs, ax);
	case BG_REG_CX: return __builtin_offsetof(struct pt_regs, cx);
	case BG_REG_DX: return __builtin_offsetof(struct pt_regs, dx);
	case BG_REG_BX: return __builtin_offsetof(struct pt_regs, bx);
	case BG_REG_BP: return __builtin_offsetof(struct pt_regs, bp);
	case BG_REG_SI: return __builtin_offsetof(struct pt_regs, si);
	case BG_REG_DI: return __builtin_offsetof(struct pt_regs, di);
	case BG_REG_R8: return __builtin_offsetof(struct pt_regs, r8);
	case BG_REG_R9: return __builtin_offsetof(struct pt_regs, r9);
	case BG_REG_R10: return __builtin_offsetof(struct pt_regs, r10);
	case BG_REG_R11: return __builtin_offsetof(struct pt_regs, r11);
	case BG_REG_R12: return __builtin_offsetof(struct pt_regs, r12);
	case BG_REG_R13: return __builtin_offsetof(struct pt_regs, r13);
	case BG_REG_R14: return __builtin_offsetof(struct pt_regs, r14);
	case BG_REG_R15: return __builtin_offsetof(struct pt_regs, r15);
	default: return -1;
	}
}

static __always_inline void on_icall(struct pt_regs *regs, struct task_state *st)
{
	__u64 ck = bpf_get_attach_cookie(regs), target = 0;
	int off = reg_offset(BG_IC_REG(ck));
	__u32 seen = BG_TARGET_SEEN, *v;
	long err;

	if (!st->depth || st->skip)
		return;
	close_lazy(st, 0, 0); /* events in order: a lazy frame before closes first */
	/* The verifier refuses ctx loads at a computed offset: read it. */
	if (off < 0 || bpf_probe_read_kernel(&target, sizeof(target), (char *)regs + off))
		return;
	if ((ck & BG_IC_LOAD) &&
	    bpf_probe_read_kernel(&target, sizeof(target), (char *)target + BG_IC_DISP(ck)))
		return;
	if (!target)
		return;
	v = bpf_map_lookup_elem(&bg_targets, &target);
	if (v && *v != BG_TARGET_SEEN) {
		/*
		 * A function no trampoline may hook, called through a pointer
		 * (the clocksource's read): its frame opens here and closes at
		 * the task's next event, as for a call site without an exit probe.
		 */
		on_entry(NULL, st, BG_TARGET_INDEX(*v) | BG_CK_CALLSITE | BG_CK_LAZY,
			 BG_FRAME_LAZY, NULL, 0, BG_ARGS_NONE, false, false);
		return;
	}
	if (v || (st->irq && !bg_discover_irqs))
		return;
	err = bpf_map_update_elem(&bg_targets, &target, &seen, BPF_NOEXIST);
	if (err) {
		if (err != -17 /* EEXIST: reported by another CPU */)
			stat_inc(BG_ST_TARGETS_FULL, 1);
		return;
	}
	/*
	 * The command stops when this graph ends (pop_frame()): a stop pending
	 * now would end any sleep later in the same call early, which then
	 * restarts (-ERESTART*), one traced call drawn as two.
	 */
	if (bg_pause_tgid && (bpf_get_current_pid_tgid() >> 32) == bg_pause_tgid)
		st->stop_at_end = 1;
	emit(st, BG_REC_TARGET, bpf_ktime_get_ns(), target, 0, BG_IC_FUNC(ck), st->depth);
}

#endif
