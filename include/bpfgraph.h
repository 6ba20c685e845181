/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the BPF programs and user space share: the record that crosses the
 * ring buffer, the cookie layout of the per-function links, and limits.
 * Fixed-width fields only: this header is compiled by clang -target bpf and
 * by the host compiler, and both must agree on every offset.
 */
#ifndef BPFGRAPH_H
#define BPFGRAPH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Deepest recorded nesting per task; ftrace's return stack holds 50. */
#define BG_MAX_DEPTH 64
#define BG_DEPTH_MASK (BG_MAX_DEPTH - 1)

#define BG_COMM_LEN 16
#define BG_MAX_CPUS 4096

/*
 * Records are staged per CPU and cross the ring buffer up to BG_BATCH at a
 * time: one ring buffer sample holds 1..BG_BATCH records, back to back.
 * A power of two. 256 (8 KiB a CPU): a failed open's ~370 records cross
 * in two or three samples; with 16 each of some 25 crossings ran the
 * hooks of the ring buffer's lock functions (bpf/records.bpf.h).
 */
#define BG_BATCH 256

/* Record types (bg_rec.type). */
#define BG_REC_ENTRY 1 /* a traced function was entered */
#define BG_REC_EXIT 2 /* ... and returned; dur and val (return value) valid */
#define BG_REC_SWITCH 3 /* a task inside the graph was switched out or in */
/*
 * pid's comm: 16 bytes in place of ts and val; dur is pid's process id
 * (tgid), so that report -p can pick a process's threads (0 in files
 * written before it was kept).
 */
#define BG_REC_COMM 4
/*
 * An indirect call site in traced function func was passed, inside a
 * graph, with a target not seen before: val is the target address. Only
 * for the tracer's discovery; never shown, never recorded.
 */
#define BG_REC_TARGET 5
/*
 * A traced function at depth > 0 was entered from an untraced caller: its
 * return address (val) is outside the function recorded one level up
 * (func: that parent's index; depth: the entry's). The header of a
 * struct bg_stack sample, never inside a batch: the kernel stack it
 * carries names every untraced function between the two at once, not one
 * per call. Made once per return address; for discovery only, like
 * BG_REC_TARGET.
 */
#define BG_REC_STACK 6

/*
 * The argument registers of the ENTRY record right before it, made only
 * with funcgraph-args (bg_args): three registers per record, in ts, val
 * and dur|pid (the low half in dur), so that the ENTRY keeps its 32 bytes
 * and calls without arguments asked pay nothing. depth is the part: 0
 * holds registers 0-2, 1 registers 3-5 (BG_ARGS_REGS); func and cpu are
 * the entry's. Part 1 is left out when the function has at most three
 * (fentry: BG_CK_NREGS). Never alone: an ENTRY and its ARGS go into the
 * ring buffer in one piece (put_entry_args()).
 */
#define BG_REC_ARGS 7
#define BG_ARGS_REGS 6
#define BG_ARGS_PER_REC 3

/*
 * What --args-detail read at entry through a pointer argument: a string
 * (up to BG_DETAIL_STR bytes) or up to BG_DETAIL_FIELDS scalar members of
 * the struct it points to, per the function's bg_detail plan. Follows the
 * entry's BG_REC_ARGS records, staged with them in one piece; made only
 * with --args-detail. 24 bytes of data per record in ts, val and dur|pid
 * as in BG_REC_ARGS (a string's bytes in order, fields as one u64 each);
 * depth: the register index of the argument (low nibble) and the part
 * (high nibble, 0..BG_DETAIL_PARTS-1). Flags above the type nibble say
 * what it is (BG_RF_D_*).
 */
#define BG_REC_DETAIL 8
#define BG_DETAIL_OPS 3 /* pointer arguments read per function at most */
#define BG_DETAIL_STR 64 /* string bytes kept; a longer one is truncated */
#define BG_DETAIL_FIELDS 4 /* struct members read per argument at most */
#define BG_DETAIL_PART 24 /* data bytes per record */
#define BG_DETAIL_PARTS 3 /* records per argument at most: 72 bytes */
#define BG_DETAIL_STR_PARTS 3 /* 64 bytes and the one that tells truncation */
#define BG_DETAIL_FIELD_PARTS 2 /* 4 u64 */
#define BG_RF_D_FIELDS 0x10 /* fields, not a string */
#define BG_RF_D_TRUNC 0x20 /* the string went on past BG_DETAIL_STR bytes */
#define BG_RF_D_FAULT 0x40 /* the read failed (no data follows this part) */
#define BG_DETAIL_ARG(d) ((d) & 0x0f)
#define BG_DETAIL_PART_OF(d) ((d) >> 4)

/*
 * A call that returned with nothing recorded in between, in one record:
 * its EXIT found the ENTRY last in the CPU's batch and rewrote it (only
 * where bg_fold allows: nothing shows or records the return address, the
 * kprobe tiers). ts
 * is the entry's, val the return value, dur as in EXIT; the entry's
 * BG_RF_IRQ and the exit's BG_RF_DUR_US and BG_RF_NOEXIT. Most calls
 * in a graph are leaves: a quarter fewer records to stage, cross and pair.
 */
#define BG_REC_LEAF 9

/* How a plan's operation reads (struct bg_detail_op.kind). */
#define BG_DK_STR_KERNEL 1 /* a kernel string */
#define BG_DK_STR_USER 2 /* a user string (BTF type tag __user) */
#define BG_DK_STR_ANY 3 /* kernel, and user when that fails (no type tags) */
#define BG_DK_FIELDS 4 /* members: size[i] bytes at off[i] */

struct bg_detail_op {
	__u8 arg; /* register index */
	__u8 kind; /* BG_DK_* */
	__u8 nfields;
	__u8 pad;
	__u8 size[BG_DETAIL_FIELDS]; /* 1, 2, 4 or 8 */
	__u16 off[BG_DETAIL_FIELDS]; /* byte offset in the struct */
};

/* Value of the bg_detail map, keyed by function index (the cookie's). */
struct bg_detail_plan {
	__u32 nops;
	__u32 pad;
	struct bg_detail_op op[BG_DETAIL_OPS];
};

/* Flags share the type byte: type in the low nibble, flags above. */
#define BG_REC_TYPE_MASK 0x0f
#define BG_RF_DUR_US 0x10 /* dur is in microseconds (it did not fit in ns) */
#define BG_RF_SWITCH_IN 0x20 /* BG_REC_SWITCH: task is switched back in */
/*
 * EXIT: the return value was not recorded (function_graph's events on
 * kernels before 6.5 have none: the ftrace net, trace-cmd files).
 */
#define BG_RF_NOVAL 0x20
/*
 * ENTRY: made inside interrupt work, below an interrupt entry point
 * (BG_CK_IRQ, funcgraph-irqs): live discovery leaves it alone unless
 * asked (--discover-irqs).
 */
#define BG_RF_IRQ 0x40
/*
 * EXIT: made for a frame whose own exit was missed (a probe run skipped
 * for recursion or kprobe reentry), when the frame below it returned: the
 * duration runs to that return and there is no return value. Keeps the
 * nesting of everything after it right.
 */
#define BG_RF_NOEXIT 0x80 /* also: a BG_CK_LAZY frame closed at the next event */

/*
 * One record: 32 bytes for every type, pinned below.
 * - ts: bpf_ktime_get_ns() of the event (entry time for ENTRY, return
 *   time for EXIT).
 * - val: EXIT: the raw return register; ENTRY: the return address into
 *   the caller (what the traced function will return to), 0 if unknown.
 * - dur: EXIT: duration in ns (in us with BG_RF_DUR_US: durations of
 *   4.29 s and more, where function_graph prints no sub-us digits anyway).
 * - pid: the thread id (kernel pid).
 * - func: index into the plan's function table (the link cookie).
 * - cpu, depth: CPU the record was made on, recorded nesting depth
 *   (0 = the set_graph_function frame).
 */
struct bg_rec {
	__u64 ts;
	__u64 val;
	__u32 dur;
	__u32 pid;
	__u32 func;
	__u16 cpu;
	__u8 type;
	__u8 depth;
};

/*
 * The ftrace net's first call ends at a return of a -G function, which
 * the kretprobe that stops the command sees (bg_net_leave): each such
 * return of the command's, for the exit function_graph recorded without
 * its value (before 6.5, or CONFIG_FUNCTION_GRAPH_RETVAL off: the
 * reader puts it there). The first BG_NET_RETS are kept.
 */
#define BG_NET_RETS 64
struct bg_net_ret {
	__u64 ns; /* bpf_ktime_get_ns() at the return */
	__u64 val; /* the return register */
	__u32 tid;
	__u32 pad;
};

/*
 * A CPU's records not yet in the ring buffer (bg_batch, a per-CPU array of
 * one): read by user space at the end, once nothing writes to it.
 */
struct bg_batch {
	__u32 n; /* records held */
	__u32 writing; /* a program is writing to it now */
	__u64 first_ts; /* when the first of them was staged */
	struct bg_rec rec[BG_BATCH];
};

static inline unsigned int bg_rec_type(const struct bg_rec *r)
{
	return r->type & BG_REC_TYPE_MASK;
}

/* Register j (0..2) of a BG_REC_ARGS record. */
static inline __u64 bg_rec_arg(const struct bg_rec *r, unsigned int j)
{
	return j == 0 ? r->ts : j == 1 ? r->val : ((__u64)r->pid << 32 | r->dur);
}

static inline __u64 bg_rec_dur_ns(const struct bg_rec *r)
{
	return (r->type & BG_RF_DUR_US) ? (__u64)r->dur * 1000 : r->dur;
}

#ifdef __cplusplus
static_assert(sizeof(struct bg_rec) == 32, "bg_rec must stay 32 bytes");
#else
_Static_assert(sizeof(struct bg_rec) == 32, "bg_rec must stay 32 bytes");
#endif

/*
 * Link cookie: low 32 bits index the plan's function table, the high bits
 * carry per-function flags so the programs need no map lookup to know
 * what kind of function they run for.
 */
#define BG_CK_GRAPH (1ULL << 32) /* a -G entry function */
#define BG_CK_NOTRACE (1ULL << 33) /* a -x function: hide it and its subtree */
/* A kprobe on a call site (entry) or just after it (exit), not on the callee. */
#define BG_CK_CALLSITE (1ULL << 34)
#define BG_CK_IRQ (1ULL << 35) /* an interrupt entry point (irq_enter_rcu...) */
/* BG_CK_CALLSITE on a tail jump: the callee returns for its caller. */
#define BG_CK_TAIL (1ULL << 36)
/*
 * BG_CK_CALLSITE whose return cannot be probed (the kernel refuses a
 * kprobe on a jump label or a BUG's ud2 right after the call): the frame
 * is closed at the task's next event (BG_RF_NOEXIT), its duration an
 * upper bound. Only for callees that call nothing traced. Also a function
 * hooked at its entry only (BG_CK_KEEP).
 */
#define BG_CK_LAZY (1ULL << 37)
/*
 * The link that stays of the wide net once it is narrowed (wide__narrow()
 * in user/hook/wide.h, with BG_CK_LAZY): it records whatever generation bg_gen
 * names (BG_CK_GEN).
 */
#define BG_CK_KEEP (1ULL << 38)
/*
 * A function the wide net hooks too, linked while the net still records
 * (no command to stop: user/live/live.c): its entries are ignored while
 * bg_wide_on is set, so that each call is recorded by one hook, and the
 * hook that took its entry takes its return.
 */
#define BG_CK_NET (1ULL << 39)
/*
 * A call-site probe of __rcu_read_lock/unlock placed once the wide net is
 * narrowed (user/live/rcusites.c): it records from when bg_rcu_sites is
 * set, and the keep link (BG_CK_KEEP) stops recording then, so that each
 * call is recorded by one hook while the one takes over from the other.
 * (Bits 40-55 hold BG_CK_NREGS and BG_CK_GEN.)
 */
#define BG_CK_SITES (1ULL << 57)
/*
 * The wide net's entry-only part (wide_opts.mem_budget in
 * user/hook/wide.h): functions whose return hooks would cost more kernel
 * memory than allowed. Run by the kprobe.multi entry program, with
 * BG_CK_LAZY; records only while the net does (bg_wide_on), whatever the
 * generation.
 */
#define BG_CK_NETONLY (1ULL << 56)
/*
 * Room in bg_wranges: the code range of each function of the net's
 * entry-only part, by its position in the net's table (positions past it
 * have none: their calls close at the task's next event).
 */
#define BG_WRANGES_MAX 65536
/* Frames an exit closes as returns missed where the wide net has an entry-only part (bg_unwind). */
#define BG_UNWIND_DEEP 12
#define BG_CK_INDEX(ck) ((__u32)(ck))
/*
 * The cookie cache (bg_ckc): on a kprobe.multi or kprobe.session link,
 * bpf_get_attach_cookie() is a binary search among the link's addresses,
 * an indirect call per step (14% of a traced command's time in a
 * profile: docs/performance.md, "Where the steady state goes"). The plan's
 * session program looks the cookie up by the function's address in this
 * open-addressed table first, which user space fills for the functions
 * one link of that program was made for (user/hook/ckc.h, kept by
 * user/hook/kprobe.c; a merge's new link takes them over, see BG_CK_GEN). A slot's address is set once, before its cookie; a
 * cookie of 0 is no entry (the search then runs). BG_CKC_PROBES slots are
 * looked at from the address's hash on.
 */
#define BG_CKC_BITS 13
#define BG_CKC_SLOTS (1U << BG_CKC_BITS)
#define BG_CKC_PROBES 4
#define BG_CKC_MUL 0x9e3779b97f4a7c15ULL
/* bits (1-31) of addr's hash (user/hook/ckc.h's tables); BG_CKC_HASH: bg_ckc's */
#define BG_CKC_HASH_N(addr, bits) ((__u32)(((addr) * BG_CKC_MUL) >> (64 - (bits))))
#define BG_CKC_HASH(addr) BG_CKC_HASH_N(addr, BG_CKC_BITS)
struct bg_ckc_slot {
	__u64 addr;
	__u64 ck;
};
/*
 * The index of a function under the wide net (user/hook/wide.h), which has no
 * function table index yet: its position in the net's table with this
 * bit; user space maps it to a table index when its records arrive.
 */
#define BG_FUNC_WIDE 0x80000000U
/*
 * How long the net records on after the first graph where no command can
 * be stopped, if user space has not taken over by then (bg_wide_ended):
 * a reader starved by a load cannot keep every kernel call paying it.
 */
#define BG_WIDE_GRACE_NS (2 * 1000 * 1000 * 1000ULL)
/*
 * kprobe.multi links: the generation of the link pair. Functions found
 * while tracing are attached in batches, one link pair each; every pair is
 * one more ftrace ops that each call of a hooked function walks (92 pairs
 * made a traced call 5x longer than 2 did), so the pairs are replaced now
 * and then by one pair for everything. While both are attached, only the
 * generation in bg_gen records entries, and an exit pairs with an entry of
 * its own generation. kprobe.session links (one program, the return run
 * only for the run whose entry asked for it) record in either generation:
 * a call's second run finds the frame its first one opened (session_dup()
 * in bpf/guard.bpf.h), so the cookie table can name the new link's
 * cookies at once.
 */
#define BG_CK_GEN_SHIFT 48
#define BG_CK_GEN(ck) ((__u32)((ck) >> BG_CK_GEN_SHIFT) & 0xff)

/*
 * Values of the bg_targets map (indirect call targets met): seen (reported
 * once), or a function no trampoline may hook with its functab index: the
 * indirect call site's probe opens a BG_CK_LAZY frame for it.
 */
#define BG_TARGET_SEEN 0
#define BG_TARGET_WRAPPED(idx) ((__u32)(idx) + 1)
#define BG_TARGET_INDEX(v) ((__u32)(v) - 1)
/*
 * Argument registers the trampoline saves below its frame (BTF: one per
 * parameter, two for a 9-16 byte struct by value). With fexit attached
 * the x86-64 trampoline frame is [args][return value][rbp][ip in the
 * traced function][traced function's return address], ctx pointing at
 * the first argument: the return address into the caller sits at
 * ctx + (nr_regs + 3) * 8.
 */
/*
 * Kernels since 6.19 may enter the trampoline by a jmp: no return into
 * the traced function, the caller's return address one slot lower. The
 * fentry site's return is at most this far past the function's start
 * (5-byte call, after a 4-byte endbr64 with IBT), which tells the two
 * apart (tramp_caller()).
 */
#define BG_FENTRY_SITE_END 16
#define BG_CK_NREGS_SHIFT 40
#define BG_CK_NREGS(ck) ((__u32)((ck) >> BG_CK_NREGS_SHIFT) & 0xff)
/* The cookie's one-bit flags stay out of its two 8-bit fields. */
#define BG_CK_FIELDS ((0xffULL << BG_CK_NREGS_SHIFT) | (0xffULL << BG_CK_GEN_SHIFT))
_Static_assert(((BG_CK_GRAPH | BG_CK_NOTRACE | BG_CK_CALLSITE | BG_CK_IRQ | BG_CK_TAIL |
		 BG_CK_LAZY | BG_CK_KEEP | BG_CK_NET | BG_CK_SITES | BG_CK_NETONLY) &
		BG_CK_FIELDS) == 0,
	       "a cookie flag overlaps BG_CK_NREGS or BG_CK_GEN");

/*
 * Indirect call sites (kprobes on the instruction before the call, see
 * user/kernel/ktext.h): the cookie holds the caller's function index, the
 * register holding the target (or the base it is loaded from) and the
 * load's displacement. Registers in x86 encoding order.
 */
#define BG_IC_FUNC(ck) ((__u32)(ck) & 0xffffff)
#define BG_IC_REG_SHIFT 24
#define BG_IC_REG(ck) ((__u32)((ck) >> BG_IC_REG_SHIFT) & 0xf)
#define BG_IC_LOAD (1ULL << 28) /* target = *(u64 *)(reg + disp) */
#define BG_IC_DISP_SHIFT 32
#define BG_IC_DISP(ck) ((__s32)((ck) >> BG_IC_DISP_SHIFT))
#define BG_IC_MAX_FUNCS (1U << 24)
/*
 * bg_franges: [lo, hi] of each traced function (by function index), so
 * that an entry program can tell an untraced caller from the parent.
 * hi == 0: not known. Return addresses r of calls made by the function
 * satisfy lo < r <= hi (a call may be its last instruction).
 */
struct bg_frange {
	__u64 lo;
	__u64 hi;
};

/*
 * A ring buffer sample of its own: a BG_REC_STACK record whose dur is the
 * bytes of ip filled (bpf_get_stack(): return addresses, innermost first,
 * our program's and trampoline's frames below the caller's).
 */
#define BG_STACK_READ 24
struct bg_stack {
	struct bg_rec hdr;
	__u64 ip[BG_STACK_READ];
};

enum bg_reg {
	BG_REG_AX, BG_REG_CX, BG_REG_DX, BG_REG_BX, BG_REG_SP, BG_REG_BP,
	BG_REG_SI, BG_REG_DI, BG_REG_R8, BG_REG_R9, BG_REG_R10, BG_REG_R11,
	BG_REG_R12, BG_REG_R13, BG_REG_R14, BG_REG_R15,
	BG_REG_NR,
	BG_REG_NONE = 0xff,
};

/*
 * Address ranges of the functions a BPF trampoline calls around our
 * programs (__bpf_prog_enter...): a kprobed function they call (rcu read
 * lock, migrate_disable) is hidden rather than shown in the graph.
 */
#define BG_SELF_RANGES 16

/*
 * The -G functions' addresses the programs know, when there are at most
 * this many: a kprobe.multi entry outside any graph then tells from its
 * address alone that it starts none, before the cookie (a binary search
 * among the link's addresses).
 */
#define BG_GRAPH_IPS 8

/* Counters in the bg_stats per-CPU array (index). */
#define BG_ST_DROPS 0 /* records lost: the ring buffer was full */
#define BG_ST_DEEP 1 /* deeper than BG_MAX_DEPTH: not recorded */
#define BG_ST_NOSTATE 2 /* task storage could not be created */
#define BG_ST_UNMATCHED_EXIT 3 /* exit that did not match the task's stack */
#define BG_ST_UNWOUND 4 /* frames popped without their exit */
#define BG_ST_NESTED 5 /* calls inside one of our own program runs */
#define BG_ST_TARGETS_FULL 6 /* indirect targets not reported: set full */
#define BG_ST_ACTIVE_NEG 7 /* bg_active went below 0: a transition missed */
/* trampoline entries that found the caller above a return into the function (call) */
#define BG_ST_TRAMP_CALL 8
/* ... that found it right above the saved rbp (entered by a jmp, 6.19+) */
#define BG_ST_TRAMP_JMP 9
/*
 * hidden calls (skipped: -x, irqs, too deep) whose exit was missed, found
 * when the innermost recorded call returned (see on_exit())
 */
#define BG_ST_HIDDEN_LOST 10
/* --args-detail reads left out: the batch was busy (a preempted writer) */
#define BG_ST_DETAIL_LOST 11
/*
 * calls of -G functions not traced while what the wide net met was being
 * linked: counted by earlier versions, which held new graphs meanwhile
 * where no command could be stopped; read from their recordings
 */
#define BG_ST_HELD 12
/* --inherit: tasks created by traced ones and not traced: bg_pids was full */
#define BG_ST_PIDS_FULL 13
/* plan session runs whose cookie the cache did not have (the search ran) */
#define BG_ST_CKC_MISS 14
/* kprobe.session returns whose function the kernel's cookie search named */
#define BG_ST_SEXIT_SEARCH 15
/*
 * calls of -G functions the command made while bpfgraph stopped it (its
 * own SIGSTOP's delivery and the way back after SIGCONT): not traced
 */
#define BG_ST_PAUSED 16
#define BG_ST_NR 17

/*
 * How long after its SIGCONT a thread of the command may still be on its
 * way back from bpfgraph's stop (state.bpf.h, bg_pausing): past it, a
 * mark whose kretprobe never ran is cleared.
 */
#define BG_PAUSE_TAIL_NS 1000000000ULL

#endif /* BPFGRAPH_H */
