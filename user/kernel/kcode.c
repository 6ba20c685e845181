// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel code decoded (ktext.h's kcode__*): fentry sites, direct calls,
 * indirect calls and the registers they go through, data references.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "bpfgraph.h"
#include "ksyms.h"
#include "ktext.h"

static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/*
 * With IBT, the kernel "seals" at boot the endbr64 of every function whose
 * address is never taken (apply_seal_endbr(): only direct calls reach
 * it): the four bytes become a NOP unique to such sites
 * (gen_endbr_poison()), osp nopl (%rax) until 6.12 and nopl -42(%rax)
 * in later kernels. The fentry site follows either.
 */
static const uint8_t endbr_poison_old[] = { 0x66, 0x0f, 0x1f, 0x00 };
static const uint8_t endbr_poison[] = { 0x0f, 0x1f, 0x40, 0xd6 };

int kcode__endbr(const uint8_t code[4])
{
	if (!memcmp(code, endbr64, 4))
		return 1;
	return !memcmp(code, endbr_poison, 4) || !memcmp(code, endbr_poison_old, 4) ? 2 : 0;
}

static bool is_endbr(const uint8_t *code)
{
	return kcode__endbr(code) != 0;
}

/*
 * Where ftrace and BPF put the code a patched fentry site enters:
 * - ftrace's own callers, ftrace_caller and ftrace_regs_caller, and the
 *   per-ops copies it makes of them, "ftrace_trampoline [__builtin__ftrace]"
 *   (arch_ftrace_update_trampoline());
 * - BPF trampolines, "bpf_trampoline_<key> [bpf]" (bpf_image_ksym_add()),
 *   which ftrace's direct calls enter by a call, and since 6.19 (x86
 *   DYNAMIC_FTRACE_WITH_JMP, ftrace_call_replace()) by a jmp;
 * - __fentry__ itself in an unpatched image (a vmlinux file).
 * Each is entered at its start.
 */
static bool tramp_name(const struct ksym *s)
{
	if (!s->module)
		return !strcmp(s->name, "ftrace_caller") ||
		       !strcmp(s->name, "ftrace_regs_caller") || !strcmp(s->name, "__fentry__");
	if (!strcmp(s->module, "bpf"))
		return !strncmp(s->name, "bpf_trampoline_", 15);
	return !strcmp(s->module, "__builtin__ftrace") && !strcmp(s->name, "ftrace_trampoline");
}

bool kcode__is_tramp(const struct ksyms *ks, uint64_t t)
{
	const struct ksym *s = ks ? ksyms__find_addr(ks, t) : NULL;
	size_t i;

	if (!s || s->addr != t)
		return false;
	/* Any of the names at t (ksyms__find_addr() gives the first). */
	for (i = (size_t)(s - ksyms__at(ks, 0)); (s = ksyms__at(ks, i)) && s->addr == t; i++)
		if (tramp_name(s))
			return true;
	return false;
}

/*
 * Addresses a full read named trampolines, for the file read. Every site
 * one ftrace_ops hooks calls the same trampoline, so while another tracer
 * (or bpfgraph's own net) hooks what is being planned, each function
 * would cost a read of kallsyms whole (200,000 lines the kernel formats:
 * a tenth of a second or more under emulation): one read per trampoline
 * instead. A positive answer stays true: a site enters only a trampoline,
 * so an address once named one is one for any site that still calls it.
 */
#define TRAMPS_SEEN 64

static struct {
	pthread_mutex_t lock;
	char path[256]; /* the file the addresses are from */
	uint64_t addr[TRAMPS_SEEN];
	unsigned int n; /* addresses stored; the oldest replaced beyond TRAMPS_SEEN */
	struct kcode_tramp_stats st;
} tramps_seen = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct kcode_tramp_stats kcode__tramp_stats(void)
{
	struct kcode_tramp_stats st;

	pthread_mutex_lock(&tramps_seen.lock);
	st = tramps_seen.st;
	pthread_mutex_unlock(&tramps_seen.lock);
	return st;
}

/* Whether t is known a trampoline of path's; a new path empties the cache. */
static bool tramp_seen(const char *path, uint64_t t)
{
	bool hit = false;

	pthread_mutex_lock(&tramps_seen.lock);
	if (strcmp(tramps_seen.path, path)) {
		snprintf(tramps_seen.path, sizeof(tramps_seen.path), "%s", path);
		tramps_seen.n = 0;
	}
	for (unsigned int i = 0; i < tramps_seen.n && i < TRAMPS_SEEN && !hit; i++)
		hit = tramps_seen.addr[i] == t;
	if (hit)
		tramps_seen.st.remembered++;
	else
		tramps_seen.st.reads++;
	pthread_mutex_unlock(&tramps_seen.lock);
	return hit;
}

static void tramp_saw(const char *path, uint64_t t)
{
	pthread_mutex_lock(&tramps_seen.lock);
	if (!strcmp(tramps_seen.path, path))
		tramps_seen.addr[tramps_seen.n++ % TRAMPS_SEEN] = t;
	pthread_mutex_unlock(&tramps_seen.lock);
}

bool kcode__is_tramp_now(const char *path, uint64_t t)
{
	const char *file = path ? path : "/proc/kallsyms";
	char line[512], name[256], mod[128];
	unsigned long long a;
	bool found = false;
	char type;
	FILE *f;

	if (tramp_seen(file, t))
		return true;
	f = fopen(file, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		struct ksym s = { .name = name };

		mod[0] = 0;
		if (sscanf(line, "%llx %c %255s [%127[^]]]", &a, &type, name, mod) < 3 || a != t)
			continue;
		s.addr = a;
		s.module = mod[0] ? mod : NULL;
		found = tramp_name(&s);
	}
	fclose(f);
	if (found)
		tramp_saw(file, t);
	return found;
}

/*
 * The fentry site (after an optional endbr64, sealed or not) into info:
 * its offset, or -1. A 5-byte NOP, or what the kernel patched in while
 * something hooks the function: a call, or since 6.19 a jmp, to one of
 * its trampolines. Without ks (symbols unknown) any call is taken, as
 * the site's own in an unpatched image, and no jmp: a function may well
 * begin with a tail jump.
 */
static int fentry_site(const uint8_t *code, size_t len, uint64_t addr,
		       const struct ksyms *ks, struct kcode_info *info)
{
	size_t off = 0;
	int32_t rel;

	if (len >= 4 && is_endbr(code))
		off = 4;
	if (len < off + 5)
		return -1;
	if (!memcmp(code + off, nop5, 5))
		return (int)off;
	info->site_int3 = code[off] == 0xcc;
	if (code[off] != 0xe8 && code[off] != 0xe9)
		return -1;
	memcpy(&rel, code + off + 1, 4);
	info->site_op = code[off];
	info->site_target = addr + off + 5 + (uint64_t)(int64_t)rel;
	if (ks ? kcode__is_tramp(ks, info->site_target) : code[off] == 0xe8)
		return (int)off;
	info->site_other = info->site_target;
	info->site_op = 0;
	info->site_target = 0;
	return -1;
}

static int is_branch(unsigned int id)
{
	return id == X86_INS_CALL || id == X86_INS_JMP;
}

/* The target of a direct call or jmp (rel32/rel8), else false. */
static bool direct_target(const cs_insn *in, uint64_t *t)
{
	if (!is_branch(in->id) || in->detail->x86.op_count != 1 ||
	    in->detail->x86.operands[0].type != X86_OP_IMM)
		return false;
	*t = (uint64_t)in->detail->x86.operands[0].imm;
	return true;
}

/* An x86-64 decoder with details and one instruction buffer: 0 or -errno. */
static int decoder_open(csh *h, cs_insn **insn)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, h) != CS_ERR_OK)
		return -EINVAL;
	cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	*insn = cs_malloc(*h);
	if (!*insn) {
		cs_close(h);
		return -ENOMEM;
	}
	return 0;
}

static void decoder_close(csh *h, cs_insn *insn)
{
	cs_free(insn, 1);
	cs_close(h);
}

void kcode__site(const uint8_t *code, size_t len, uint64_t addr, const struct ksyms *ks,
		 struct kcode_info *info)
{
	memset(info, 0, sizeof(*info));
	info->fentry_site = fentry_site(code, len, addr, ks, info) >= 0;
}

int kcode__scan(const uint8_t *code, size_t len, uint64_t addr, const struct ksyms *ks,
		uint64_t *targets, size_t max, struct kcode_info *info)
{
	const uint8_t *p = code;
	uint64_t pc = addr;
	size_t left = len;
	int site, err;
	csh h;
	cs_insn *insn;
	uint64_t t;

	memset(info, 0, sizeof(*info));
	site = fentry_site(code, len, addr, ks, info);
	info->fentry_site = site >= 0;
	err = decoder_open(&h, &insn);
	if (err)
		return err;
	while (left) {
		if (!cs_disasm_iter(h, &p, &left, &pc, insn)) {
			/* Data or padding in the text: skip a byte and resync. */
			p++, left--, pc++;
			continue;
		}
		if (!direct_target(insn, &t)) {
			if (is_branch(insn->id))
				info->nindirect++;
			continue;
		}
		if (site >= 0 && insn->address == addr + (uint64_t)site)
			continue;
		if (t >= addr && t < addr + len)
			continue;
		if (info->ncalls < max)
			targets[info->ncalls] = t;
		info->ncalls++;
	}
	decoder_close(&h, insn);
	return 0;
}

/* The 64-bit register a (sub-)register belongs to, as BG_REG_*. */
static uint8_t bg_reg_of(csh h, unsigned int r)
{
	static const char *const names[BG_REG_NR][5] = {
		{ "rax", "eax", "ax", "al", "ah" }, { "rcx", "ecx", "cx", "cl", "ch" },
		{ "rdx", "edx", "dx", "dl", "dh" }, { "rbx", "ebx", "bx", "bl", "bh" },
		{ "rsp", "esp", "sp", "spl" }, { "rbp", "ebp", "bp", "bpl" },
		{ "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
		{ "r8", "r8d", "r8w", "r8b" }, { "r9", "r9d", "r9w", "r9b" },
		{ "r10", "r10d", "r10w", "r10b" }, { "r11", "r11d", "r11w", "r11b" },
		{ "r12", "r12d", "r12w", "r12b" }, { "r13", "r13d", "r13w", "r13b" },
		{ "r14", "r14d", "r14w", "r14b" }, { "r15", "r15d", "r15w", "r15b" },
	};
	const char *n = cs_reg_name(h, r);

	for (int i = 0; n && i < BG_REG_NR; i++)
		for (int k = 0; k < 5 && names[i][k]; k++)
			if (!strcmp(n, names[i][k]))
				return (uint8_t)i;
	return BG_REG_NONE;
}

void kcode__thunks(const struct ksyms *ks, uint64_t *thunks)
{
	static const char *const prefixes[] = {
		"__x86_indirect_thunk_", "__x86_indirect_call_thunk_",
		"__x86_indirect_jump_thunk_",
	};
	static const char *const regs[BG_REG_NR] = {
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	char name[64];

	for (int r = 0; r < BG_REG_NR; r++) {
		thunks[r] = 0;
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]) && !thunks[r]; i++) {
			const struct ksym *s;

			snprintf(name, sizeof(name), "%s%s", prefixes[i], regs[r]);
			s = ksyms__find_name(ks, name, NULL);
			if (s)
				thunks[r] = s->addr;
		}
	}
}

/* The BG_REG_* whose retpoline thunk is at t, or BG_REG_NONE. */
static uint8_t thunk_reg(const uint64_t *thunks, uint64_t t)
{
	for (int r = 0; thunks && r < BG_REG_NR; r++)
		if (thunks[r] && thunks[r] == t)
			return (uint8_t)r;
	return BG_REG_NONE;
}

/* Control leaves or enters here: no place to read a register from. */
static int changes_flow(csh h, const cs_insn *in)
{
	return cs_insn_group(h, in, CS_GRP_JUMP) || cs_insn_group(h, in, CS_GRP_CALL) ||
	       cs_insn_group(h, in, CS_GRP_RET) || cs_insn_group(h, in, CS_GRP_INT) ||
	       cs_insn_group(h, in, CS_GRP_IRET) || in->id == X86_INS_UD2 ||
	       in->id == X86_INS_INT3 || in->id == X86_INS_NOP;
}

static int writes_reg(csh h, const cs_insn *in, uint8_t reg)
{
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;

	if (cs_regs_access(h, in, rr, &nr, rw, &nw))
		return 1; /* cannot tell: assume it does */
	for (int i = 0; i < nw; i++)
		if (bg_reg_of(h, rw[i]) == reg)
			return 1;
	return 0;
}

/*
 * Where the target of the call or jmp in (through reg) can be read: on
 * prev, the instruction before it. Unusable when prev changes the flow,
 * or writes reg other than by a plain 64-bit load.
 */
static void place_probe(csh h, const cs_insn *prev, uint64_t addr, uint8_t reg,
			struct kcode_isite *s)
{
	const cs_x86 *x;

	if (!prev || reg == BG_REG_NONE || reg == BG_REG_SP || changes_flow(h, prev))
		return;
	s->probe_off = (uint32_t)(prev->address - addr);
	if (!writes_reg(h, prev, reg)) {
		s->mode = KSITE_REG;
		s->reg = reg;
		s->usable = 1;
		return;
	}
	x = &prev->detail->x86;
	if (prev->id != X86_INS_MOV || x->op_count != 2 || x->operands[0].type != X86_OP_REG ||
	    x->operands[0].size != 8 || x->operands[1].type != X86_OP_MEM)
		return;
	if (x->operands[1].mem.index != X86_REG_INVALID ||
	    x->operands[1].mem.segment != X86_REG_INVALID)
		return;
	s->reg = bg_reg_of(h, x->operands[1].mem.base);
	if (s->reg == BG_REG_NONE || s->reg == BG_REG_SP)
		return; /* rip-relative or stack: not worth it */
	s->mode = KSITE_LOAD;
	s->disp = (int32_t)x->operands[1].mem.disp;
	s->usable = 1;
}

int kcode__indirect(const uint8_t *code, size_t len, uint64_t addr,
		    const uint64_t *thunks, struct kcode_isite *sites, size_t max)
{
	const uint8_t *p = code;
	uint64_t pc = addr;
	size_t left = len, n = 0;
	csh h;
	cs_insn *in[2], *cur, *prev = NULL;
	int k = 0, err = decoder_open(&h, &in[0]);

	if (err)
		return err;
	/* Two buffers: the instruction before an indirect call is looked at too. */
	in[1] = cs_malloc(h);
	if (!in[1]) {
		decoder_close(&h, in[0]);
		return -ENOMEM;
	}
	while (left) {
		const cs_x86_op *op;
		struct kcode_isite s;
		uint8_t reg;

		cur = in[k];
		if (!cs_disasm_iter(h, &p, &left, &pc, cur)) {
			p++, left--, pc++;
			prev = NULL;
			continue;
		}
		if (!is_branch(cur->id) || cur->detail->x86.op_count != 1)
			goto next;
		op = &cur->detail->x86.operands[0];
		if (op->type == X86_OP_REG)
			reg = bg_reg_of(h, op->reg);
		else if (op->type == X86_OP_MEM)
			reg = BG_REG_NONE;
		else if (op->type == X86_OP_IMM &&
			 (reg = thunk_reg(thunks, (uint64_t)op->imm)) != BG_REG_NONE)
			;
		else
			goto next; /* a direct call: kcode__scan's business */
		s = (struct kcode_isite){ .off = (uint32_t)(cur->address - addr),
					  .tail = cur->id == X86_INS_JMP };
		place_probe(h, prev, addr, reg, &s);
		if (n < max)
			sites[n] = s;
		n++;
next:
		prev = cur;
		k ^= 1;
	}
	cs_free(in[1], 1);
	decoder_close(&h, in[0]);
	return n > INT32_MAX ? -E2BIG : (int)n;
}

/* A kernel address an operand names: RIP-relative, absolute or immediate. */
static bool operand_addr(const cs_insn *in, const cs_x86_op *op, uint64_t *a)
{
	if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP &&
	    op->mem.index == X86_REG_INVALID)
		*a = in->address + in->size + (uint64_t)op->mem.disp;
	else if (op->type == X86_OP_MEM && op->mem.base == X86_REG_INVALID &&
		 op->mem.index == X86_REG_INVALID && op->mem.segment == X86_REG_INVALID)
		*a = (uint64_t)op->mem.disp;
	else if (op->type == X86_OP_IMM)
		*a = (uint64_t)op->imm;
	else
		return false;
	return *a >= KCODE_KERNEL_MIN;
}

int kcode__data_refs(const uint8_t *code, size_t len, uint64_t addr, uint64_t *refs,
		     size_t max)
{
	const uint8_t *p = code;
	uint64_t pc = addr, a;
	size_t left = len, n = 0;
	csh h;
	cs_insn *insn;
	int err = decoder_open(&h, &insn);

	if (err)
		return err;
	while (left) {
		if (!cs_disasm_iter(h, &p, &left, &pc, insn)) {
			p++, left--, pc++;
			continue;
		}
		if (is_branch(insn->id))
			continue;
		for (int i = 0; i < insn->detail->x86.op_count; i++) {
			size_t k;

			if (!operand_addr(insn, &insn->detail->x86.operands[i], &a) ||
			    (a >= addr && a < addr + len))
				continue;
			for (k = 0; k < n && k < max && refs[k] != a; k++)
				;
			if (k < n && k < max)
				continue;
			if (n < max)
				refs[n] = a;
			n++;
		}
	}
	decoder_close(&h, insn);
	return n > INT32_MAX ? -E2BIG : (int)n;
}

/* The target of a direct jmp or jcc, else false. */
static bool jump_target(csh h, const cs_insn *in, uint64_t *t)
{
	if (!cs_insn_group(h, in, CS_GRP_JUMP) || in->detail->x86.op_count != 1 ||
	    in->detail->x86.operands[0].type != X86_OP_IMM)
		return false;
	*t = (uint64_t)in->detail->x86.operands[0].imm;
	return true;
}

/*
 * Marks the sites (n of them) whose next instruction a jump in the code
 * lands on (joins: bytes of it, one bit per offset): an exit probe there
 * would also run on paths that never made the call.
 */
static void mark_joins(struct kcode_csite *sites, size_t n, const uint8_t *joins, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		size_t at = (size_t)sites[i].off + sites[i].size;

		sites[i].join = at < len && (joins[at / 8] >> (at % 8) & 1);
	}
}

int kcode__calls_to(const uint8_t *code, size_t len, uint64_t addr, const uint64_t *want,
		    size_t nwant, struct kcode_csite *sites, size_t max)
{
	const uint8_t *p = code;
	uint64_t pc = addr;
	size_t left = len, n = 0;
	uint8_t *joins = calloc(len / 8 + 1, 1);
	csh h;
	cs_insn *insn;
	int err = joins ? decoder_open(&h, &insn) : -ENOMEM;

	if (err) {
		free(joins);
		return err;
	}
	while (left) {
		uint64_t t;
		size_t w;

		if (!cs_disasm_iter(h, &p, &left, &pc, insn)) {
			p++, left--, pc++;
			continue;
		}
		if (jump_target(h, insn, &t) && t >= addr && t - addr < len)
			joins[(t - addr) / 8] |= (uint8_t)(1u << ((t - addr) % 8));
		if (!direct_target(insn, &t))
			continue;
		for (w = 0; w < nwant && want[w] != t; w++)
			;
		if (w == nwant)
			continue;
		if (n < max) {
			uint32_t off = (uint32_t)(insn->address - addr);

			sites[n] = (struct kcode_csite){
				.off = off, .size = insn->size, .which = (uint32_t)w,
				.tail = insn->id == X86_INS_JMP,
				.plain = insn->size == 5 &&
					 code[off] == (insn->id == X86_INS_CALL ? 0xe8 : 0xe9),
			};
		}
		n++;
	}
	decoder_close(&h, insn);
	mark_joins(sites, n < max ? n : max, joins, len);
	free(joins);
	return n > INT32_MAX ? -E2BIG : (int)n;
}
