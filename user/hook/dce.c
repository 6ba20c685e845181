// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "bpfobj.h"
#include "dce.h"

#define LD_IMM64 (BPF_LD | BPF_IMM | BPF_DW)

static bool is_pseudo_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
}

size_t dce__linfo(const struct bpf_insn *insns, size_t cnt, struct bpf_line_info *li)
{
	size_t n = 0;

	for (size_t i = 0; i < cnt; i++) {
		li[n++] = (struct bpf_line_info){ .insn_off = (uint32_t)i,
						  .line_col = (uint32_t)(i + 1) << 10 };
		if (insns[i].code == LD_IMM64)
			i++;
	}
	return n;
}

static int prog_linfo(int prog_fd, uint32_t n, struct bpf_line_info *li)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	info.nr_line_info = n;
	info.line_info_rec_size = sizeof(*li);
	info.line_info = (uint64_t)(uintptr_t)li;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	return info.nr_line_info == n && info.line_info_rec_size == sizeof(*li) ? 0 : -EINVAL;
}

int dce__live(int prog_fd, size_t cnt, bool *live)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), n, last = 0;
	struct bpf_line_info *li;
	int err;

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	n = info.nr_line_info;
	if (!n || n > cnt || info.line_info_rec_size != sizeof(*li))
		return -EINVAL;
	li = calloc(n, sizeof(*li));
	if (!li)
		return -ENOMEM;
	err = prog_linfo(prog_fd, n, li);
	memset(live, 0, cnt * sizeof(*live));
	/* The kernel keeps the records of the instructions it kept, in order. */
	for (uint32_t k = 0; !err && k < n; k++) {
		uint32_t line = li[k].line_col >> 10;

		if (line <= last || line > cnt)
			err = -EINVAL;
		else
			live[line - 1] = true;
		last = line;
	}
	free(li);
	return err ? err : (int)n;
}

/* Where instruction i goes on: 0 none (exit, jump), else its length. */
static size_t falls_through(const struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	if (in->code == LD_IMM64)
		return 2;
	if (cls == BPF_JMP && (op == BPF_EXIT || op == BPF_JA))
		return 0;
	return 1;
}

static bool is_cond_jump(const struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT &&
	       op != BPF_JA;
}

/*
 * Whether control reaching instruction t runs live code. A jump the
 * verifier walked can still be absent from live[]: one never taken is
 * made `ja +0`, one always taken whose next instructions are all dead
 * becomes `ja +0` once they are removed, and the kernel then removes
 * every `ja +0` with its record. Either way control goes on to the next
 * instruction the kernel kept, which is where such a jump's place maps to
 * (newidx). A jump absent from live[] that was never walked is only ever
 * a target of a branch never taken: keeping that branch is harmless.
 */
static bool live_at(const struct bpf_insn *insns, size_t cnt, const bool *live, long t)
{
	if (t < 0 || (size_t)t >= cnt)
		return false;
	if (live[t])
		return true;
	if (!is_cond_jump(&insns[t]) && insns[t].code != (BPF_JMP | BPF_JA))
		return false;
	while ((size_t)++t < cnt)
		if (live[t])
			return true;
	return false;
}

/*
 * keep[] from live[]: a 64-bit load's second half goes with its first, a
 * conditional jump never taken is left out, one whose next instruction is
 * dead becomes `ja` (to_ja). False when live[] does not fit the code.
 */
static bool plan_keep(const struct bpf_insn *insns, size_t cnt, const bool *live, bool *keep,
		      bool *to_ja)
{
	for (size_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];
		size_t step = falls_through(in);
		long t = (long)i + in->off + 1;

		keep[i] = live[i];
		to_ja[i] = false;
		if (in->code == LD_IMM64 && i + 1 < cnt)
			keep[i + 1] = live[i], to_ja[i + 1] = false;
		if (!live[i]) {
			i += in->code == LD_IMM64;
			continue;
		}
		if (in->code == LD_IMM64 && in->src_reg == BPF_PSEUDO_FUNC)
			return false; /* a callback's address: not followed */
		if (in->code == (BPF_JMP32 | BPF_JA))
			return false; /* a long jump (imm): not in these programs */
		if (in->code == (BPF_JMP | BPF_JA) && !live_at(insns, cnt, live, t))
			return false;
		if (is_pseudo_call(in) && !live_at(insns, cnt, live, (long)i + in->imm + 1))
			return false;
		if (is_cond_jump(in)) {
			bool taken = live_at(insns, cnt, live, t);
			bool next = live_at(insns, cnt, live, (long)i + 1);

			if (!taken && !next)
				return false;
			keep[i] = taken;
			to_ja[i] = !next;
			continue;
		}
		if (step && !live_at(insns, cnt, live, (long)(i + step)))
			return false;
		i += in->code == LD_IMM64;
	}
	return true;
}

size_t dce__apply(const struct bpf_insn *insns, size_t cnt, const bool *live,
		  struct bpf_insn *out, uint32_t *newidx)
{
	bool *keep = malloc(2 * (cnt ? cnt : 1) * sizeof(*keep)), *to_ja;
	size_t n = 0;

	if (!keep)
		return 0;
	to_ja = keep + cnt;
	if (!plan_keep(insns, cnt, live, keep, to_ja)) {
		free(keep);
		return 0;
	}
	for (size_t i = 0; i < cnt; i++) {
		newidx[i] = (uint32_t)n;
		n += keep[i];
	}
	newidx[cnt] = (uint32_t)n;
	for (size_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];
		struct bpf_insn *o = &out[newidx[i]];
		long t = (long)i + in->off + 1, d;

		if (in->code == LD_IMM64 && i + 1 < cnt) {
			if (keep[i])
				o[0] = in[0], o[1] = in[1];
			i++;
			continue;
		}
		if (!keep[i])
			continue;
		*o = *in;
		if (is_pseudo_call(in)) {
			t = (long)i + in->imm + 1;
			o->imm = (int32_t)((long)newidx[t] - (long)newidx[i] - 1);
			continue;
		}
		if (to_ja[i])
			*o = (struct bpf_insn){ .code = BPF_JMP | BPF_JA };
		else if (!is_cond_jump(in) && in->code != (BPF_JMP | BPF_JA))
			continue;
		d = (long)newidx[t] - (long)newidx[i] - 1;
		if (d < INT16_MIN || d > INT16_MAX) {
			n = 0;
			break;
		}
		o->off = (int16_t)d;
	}
	free(keep);
	return n;
}

/*
 * s's function records at their new places (a function whose first
 * instruction was a jump the kernel removed starts at its first kept
 * one), a dead function's left out; false when they do not fit s.
 */
static bool remap_fi(struct prog_src *s, const uint32_t *newidx)
{
	uint32_t m = 0;

	for (uint32_t k = 0; k < s->nfi; k++) {
		uint32_t at = s->fi[k].insn_off;
		uint32_t end = k + 1 < s->nfi ? s->fi[k + 1].insn_off : (uint32_t)s->cnt;

		if (at >= s->cnt || end > s->cnt || end <= at)
			return false;
		if (newidx[at] == newidx[end])
			continue; /* the whole function is dead */
		s->fi[m] = s->fi[k];
		s->fi[m++].insn_off = newidx[at];
	}
	s->nfi = m;
	return true;
}

int dce__rewrite(struct prog_src *s, int probe_fd)
{
	struct bpf_insn *out = malloc(s->cnt * sizeof(*out));
	uint32_t *newidx = malloc((s->cnt + 1) * sizeof(*newidx));
	bool *live = malloc(s->cnt * sizeof(*live));
	struct prog_src *full = malloc(sizeof(*full));
	struct prog_src next = *s;
	int err = out && newidx && live && full ? 0 : -ENOMEM;
	size_t m = 0;

	if (!err && s->full)
		err = -EINVAL; /* rewritten before */
	if (!err)
		err = dce__live(probe_fd, s->cnt, live); /* how many kept, or -errno */
	if (err > 0) {
		m = dce__apply(s->insns, s->cnt, live, out, newidx);
		err = m && remap_fi(&next, newidx) ? 0 : -EINVAL;
	}
	free(newidx);
	free(live);
	if (err) {
		free(out);
		free(full);
		return err;
	}
	*full = *s;
	next.insns = next.own = out;
	next.cnt = m;
	next.dead = (uint32_t)(s->cnt - m);
	next.full = full;
	*s = next;
	return 0;
}
