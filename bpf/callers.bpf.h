/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Included by graph.bpf.c only: untraced callers named from the kernel
 * stack (BG_REC_STACK) for live discovery.
 */
#ifndef BG_CALLERS_BPF_H
#define BG_CALLERS_BPF_H

/*
 * Untraced callers, all at once. Live discovery learns of an untraced
 * function between two traced ones from the return address of the inner
 * one (user/session/discover.c); a chain of untraced functions (the receive path
 * under a softirq, reached through pointers) then took one traced call
 * per level. When an entry's return address is outside its recorded
 * parent, the kernel stack from there up to the parent names them all
 * (BG_REC_STACK). Once per return address (bg_stacked): a caller that
 * cannot be attached (no fentry site) would otherwise cost a stack walk
 * on every call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* sized by user space: one per function index */
	__type(key, __u32);
	__type(value, struct bg_frange);
} bg_franges SEC(".maps");

/*
 * The code range of each function of the wide net's entry-only part
 * (BG_CK_NETONLY), by position in the net's table: a call whose return
 * address lies in a lazy frame's function is that function's callee and
 * nests in it (close_lazy()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* sized by user space: BG_WRANGES_MAX when used */
	__type(key, __u32);
	__type(value, struct bg_frange);
} bg_wranges SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2048); /* tcp_sendmsg's trace needed ~100 */
	__type(key, __u64);
	__type(value, __u8);
} bg_stacked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bg_stack);
} bg_stackbuf SEC(".maps");

/*
 * The call of function func at depth d (> 0) returns to caller: if that
 * is not inside the parent, send the kernel stack to user space, which
 * names what lies between (see struct bg_stack). No loop here: the
 * verifier would walk it in every clone (3x the load time).
 */
static __always_inline void walk_callers(void *ctx, struct task_state *st, __u32 d,
					 __u64 caller, __u64 now, __u8 flags)
{
	__u32 zero = 0, parent = st->func[(d - 1) & BG_DEPTH_MASK];
	struct bg_frange *pr = bpf_map_lookup_elem(&bg_franges, &parent);
	struct bg_stack *sb;
	__u8 one = 1;
	long n;

#ifdef BG_ABLATE_CALLERS
	return; /* a measurement build (tests/bench/ablate.sh): no caller check */
#endif

	if (!pr || !pr->hi || (caller > pr->lo && caller <= pr->hi))
		return;
	/*
	 * Looked up first: an update takes the bucket's lock (irqsave),
	 * whose function is hooked in most plans, on every such call.
	 */
	if (bpf_map_lookup_elem(&bg_stacked, &caller) ||
	    bpf_map_update_elem(&bg_stacked, &caller, &one, BPF_NOEXIST))
		return; /* walked before (or the set is full) */
	sb = bpf_map_lookup_elem(&bg_stackbuf, &zero);
	if (!sb)
		return;
	n = bpf_get_stack(ctx, sb->ip, sizeof(sb->ip), 0);
	if (n <= 0)
		return;
	fill(&sb->hdr, st, BG_REC_STACK | flags, now, caller, (__u64)n, parent, d);
	/* After the entry, still in this CPU's batch: one CPU's records in order. */
	flush_cpu();
	if (bpf_ringbuf_output(&bg_events, sb, sizeof(*sb), BPF_RB_NO_WAKEUP))
		stat_inc(BG_ST_DROPS, 1);
}

#endif
