// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The baseline's programs: as small as a tracing program gets (bl_entry,
 * bl_exit), and the same with one kind of bpfgraph's work each (-p WORK
 * in ldlink.c), to price that work per program run: a clock read, a task
 * storage lookup, a ring buffer record, and all of those together with
 * the cookie, the thread id and the CPU. lean: what a recorder of
 * function_graph's kind needs at the least, per run.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} bl_tasks SEC(".maps");

/* Nobody reads it: 64 MiB holds what the bench's loops write. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} bl_ring SEC(".maps");

__u64 bl_sink;

/*
 * lean: the process whose calls are recorded (ldlink sets it to its
 * command's), a record of two words a run (the function's address with
 * the kind in bit 0, the clock) in a per-CPU batch, and the batch handed
 * to the ring buffer whole every LEAN_BATCH records: the work function_graph
 * does per call (an address and a time stamp into a per-CPU buffer) and no
 * more. Depth, pairing and return values would be the reader's; this
 * prices the programs of a design that leaves them there.
 */
#define LEAN_BATCH 256
struct lean_buf {
	__u64 n;
	__u64 rec[2 * LEAN_BATCH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lean_buf);
} bl_lean SEC(".maps");

__u32 bl_tgid;

static __always_inline void do_ktime(void)
{
	bl_sink += bpf_ktime_get_ns();
}

static __always_inline void do_storage(void)
{
	__u64 *v = bpf_task_storage_get(&bl_tasks, bpf_get_current_task_btf(), 0,
					BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (v)
		(*v)++;
}

static __always_inline void do_ring(__u64 a, __u64 b)
{
	__u64 *r = bpf_ringbuf_reserve(&bl_ring, 32, 0);

	if (!r)
		return;
	r[0] = a;
	r[1] = b;
	r[2] = 0;
	r[3] = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

static __always_inline void do_all(void *ctx)
{
	__u64 ck = bpf_get_attach_cookie(ctx);
	__u64 *v = bpf_task_storage_get(&bl_tasks, bpf_get_current_task_btf(), 0,
					BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u64 *r;

	if (!v)
		return;
	(*v)++;
	r = bpf_ringbuf_reserve(&bl_ring, 32, 0);
	if (!r)
		return;
	r[0] = bpf_ktime_get_ns();
	r[1] = ck;
	r[2] = *v;
	r[3] = bpf_get_smp_processor_id();
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

#define PAIR(work, body)                                                                           \
	SEC("fentry")                                                                              \
	int BPF_PROG(bl_entry_##work)                                                              \
	{                                                                                          \
		body;                                                                              \
		return 0;                                                                          \
	}                                                                                          \
	SEC("fexit")                                                                               \
	int BPF_PROG(bl_exit_##work)                                                               \
	{                                                                                          \
		body;                                                                              \
		return 0;                                                                          \
	}

SEC("fentry")
int BPF_PROG(bl_entry)
{
	return 0;
}

SEC("fexit")
int BPF_PROG(bl_exit)
{
	return 0;
}

PAIR(ktime, do_ktime())
PAIR(storage, do_storage())
PAIR(ring, do_ring(1, 2))
PAIR(all, do_all(ctx))

static __always_inline void do_lean(void *ctx, __u64 kind)
{
	struct lean_buf *b;
	__u32 zero = 0;
	__u64 i;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != bl_tgid)
		return;
	b = bpf_map_lookup_elem(&bl_lean, &zero);
	if (!b)
		return;
	i = b->n & (LEAN_BATCH - 1);
	b->rec[2 * i] = bpf_get_func_ip(ctx) | kind;
	b->rec[2 * i + 1] = bpf_ktime_get_ns();
	b->n++;
	if (i == LEAN_BATCH - 1)
		bpf_ringbuf_output(&bl_ring, b->rec, sizeof(b->rec), 0);
}

SEC("fentry")
int BPF_PROG(bl_entry_lean)
{
	do_lean(ctx, 0);
	return 0;
}

SEC("fexit")
int BPF_PROG(bl_exit_lean)
{
	do_lean(ctx, 1);
	return 0;
}
