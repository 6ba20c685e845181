/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Live kernel text and what it calls. The text comes from /proc/kcore, an
 * ELF core file whose PT_LOAD segments map kernel virtual addresses, so it
 * shows the code as patched at boot (alternatives, static calls, retpoline
 * thunks); a vmlinux ELF works too (tests). Calls are found by decoding
 * with capstone, not by pattern matching bytes.
 */
#ifndef BG_KTEXT_H
#define BG_KTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ktext;

/*
 * path NULL: /proc/kcore. NULL + errno on failure. Threads may share it:
 * its reads are serialized (see struct ktext).
 */
struct ktext *ktext__open(const char *path);
void ktext__close(struct ktext *kt);
/* Reads len bytes at kernel address addr: 0 or -errno (-ERANGE: unmapped). */
int ktext__read(struct ktext *kt, uint64_t addr, void *buf, size_t len);
/*
 * Bytes from addr that a kprobe of ours is about to replace (an int3, or a
 * jump where the kernel optimizes it): kept as they are now, and every read
 * from then on shows them so, not the probe. Code decoded while the trace
 * runs (a function found late, expanded at its first call) is then the
 * code the kernel was built with. 0 or -errno.
 */
#define KTEXT_KEEP 8 /* an optimized kprobe's jmp rel32 is 5 */
int ktext__keep(struct ktext *kt, uint64_t addr);
/*
 * The descriptor of the first ELF note called name (/proc/kcore has
 * "VMCOREINFO": the kernel's KEY=VALUE lines for crash dump tools), NUL
 * terminated in buf: its length, or -errno (-ENOENT: no such note).
 */
int ktext__note(struct ktext *kt, const char *name, char *buf, size_t cap);

/*
 * A caller's read-ahead over kernel text, for scans in address order
 * (every function's first bytes): each read of /proc/kcore costs a
 * system call and the kernel's walk of its regions (docs/performance.md,
 * "Costs behind the code"), so a window of KTEXT_WINDOW bytes is read at
 * once. What it returns may be as
 * old as the window: not for code that is being patched (ktext__read is).
 * Zero-initialised; one per thread.
 */
struct ktext_window {
	uint64_t lo, hi; /* [lo, hi) is in buf */
	uint8_t *buf;
};

#define KTEXT_WINDOW (64 * 1024)

int ktext__read_ahead(struct ktext *kt, struct ktext_window *w, uint64_t addr, void *buf,
		      size_t len);
void ktext__window_free(struct ktext_window *w);

struct ksyms;

struct kcode_info {
	int fentry_site; /* 1: starts with a fentry site (nop5, or hooked: see below) */
	uint8_t site_op; /* 0xe8 call, 0xe9 jmp: the site is hooked; 0: a NOP */
	uint64_t site_target; /* with site_op: the trampoline it enters */
	/*
	 * An int3 where the site would be: being rewritten (text_poke_bp()
	 * puts an int3 first while ftrace hooks or unhooks it), or a kprobe.
	 */
	int site_int3;
	/* A call or jmp there to what ks does not name a trampoline: its target. */
	uint64_t site_other;
	size_t ncalls; /* direct call/jmp targets outside the function */
	/* Calls and jumps through a register or memory (a retpoline thunk's are direct). */
	size_t nindirect;
};

/*
 * Decodes code (len bytes, loaded at addr) and stores the targets of direct
 * calls and of jumps that leave [addr, addr+len) into targets (up to max).
 * A fentry site is a 5-byte NOP, or a call or jmp to a trampoline, which
 * ks tells (kcode__is_tramp(); ks NULL: any call, no jmp); its call or
 * jmp is not reported. 0 or -errno.
 */
int kcode__scan(const uint8_t *code, size_t len, uint64_t addr, const struct ksyms *ks,
		uint64_t *targets, size_t max, struct kcode_info *info);
/*
 * kcode__scan's fentry site only (info->fentry_site, site_*), without
 * decoding the rest: a table lookup, where a decoder costs a hundred
 * times more (the wide net checks every function of the kernel).
 */
void kcode__site(const uint8_t *code, size_t len, uint64_t addr, const struct ksyms *ks,
		 struct kcode_info *info);
/*
 * What a function's first four bytes are under IBT: 0 not an endbr64,
 * 1 endbr64, 2 an endbr64 the kernel sealed at boot (a NOP unique to
 * sealed sites: the function's address is never taken).
 */
int kcode__endbr(const uint8_t code[4]);
/* Whether t is the start of code that ftrace or BPF patch fentry sites to enter. */
bool kcode__is_tramp(const struct ksyms *ks, uint64_t t);
/*
 * The same from /proc/kallsyms as it is now (path: NULL for it): a BPF
 * trampoline gets a new image, under a new address, each time its programs
 * change, so another tracer's hooks that came or went since ks was read
 * are not in ks. A full read: for the sites ks cannot tell. Addresses it
 * named a trampoline are remembered (per file): once per trampoline.
 */
bool kcode__is_tramp_now(const char *path, uint64_t t);
/* What kcode__is_tramp_now() did in this process (-v). */
struct kcode_tramp_stats {
	unsigned long reads; /* files read whole */
	unsigned long remembered; /* answered without a read */
};
struct kcode_tramp_stats kcode__tramp_stats(void);

/*
 * Where to read the target of an indirect call or jump. A kprobe on the
 * call itself is not safe (6.1 emulates a probed call with a fixed 5-byte
 * length and returns into the middle of a prefixed one), so the probe
 * goes on the instruction just before it, which is single-stepped:
 * - KSITE_REG: reg (BG_REG_*) already holds the target there;
 * - KSITE_LOAD: that instruction loads the target, from disp(reg).
 */
enum kcode_site_mode { KSITE_REG, KSITE_LOAD };

struct kcode_isite {
	uint32_t off; /* offset of the call or jmp in the function */
	uint32_t probe_off; /* offset of the instruction to probe */
	uint8_t mode; /* enum kcode_site_mode */
	uint8_t reg; /* BG_REG_* (KSITE_LOAD: the base register) */
	uint8_t tail; /* a jmp: the target returns to our caller */
	uint8_t usable; /* 0: no safe place to read the target from */
	int32_t disp; /* KSITE_LOAD */
};

/* The retpoline thunks' addresses by BG_REG_* (0: none): a call to one is indirect. */
void kcode__thunks(const struct ksyms *ks, uint64_t *thunks);

/*
 * Finds the indirect calls and jumps in code (len bytes at addr): call or
 * jmp through a register or memory, and direct calls or jumps to a
 * retpoline thunk, whose addresses thunks[BG_REG_*] gives (0: unknown),
 * and for each where its target can be read (see above). Stores up to max
 * sites; returns how many there are (unusable ones included) or -errno. A
 * jmp may be a switch table rather than a tail call: the target then
 * lies inside the function, which whoever reads it can tell.
 */
int kcode__indirect(const uint8_t *code, size_t len, uint64_t addr,
		    const uint64_t *thunks, struct kcode_isite *sites, size_t max);

/*
 * Direct calls and jumps in code (len bytes at addr) to any of want[0..nwant):
 * where a function fentry cannot attach to is called from (icall.h puts
 * kprobes on the call and on the instruction after it). Stores up to max
 * sites; returns how many there are or -errno.
 */
struct kcode_csite {
	uint32_t off; /* offset of the call in the function */
	uint32_t which; /* index into want */
	uint8_t size; /* instruction length */
	uint8_t tail; /* a jmp: returns to the caller's caller */
	uint8_t plain; /* a bare 5-byte call or jmp rel32: safe to kprobe */
	uint8_t join; /* the instruction after it is also a jump's target in the code */
};

int kcode__calls_to(const uint8_t *code, size_t len, uint64_t addr, const uint64_t *want,
		    size_t nwant, struct kcode_csite *sites, size_t max);

/* Lowest address the kernel's own image and data can lie at (x86-64). */
#define KCODE_KERNEL_MIN 0xffff800000000000ULL

/*
 * The kernel addresses code (len bytes at addr) names as data: RIP-relative
 * and absolute memory operands and immediates, outside the code itself and
 * other than branch targets, each once. Stores up to max; returns how many
 * there are or -errno.
 */
int kcode__data_refs(const uint8_t *code, size_t len, uint64_t addr, uint64_t *refs,
		     size_t max);

#endif
