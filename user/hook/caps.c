// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "attach.h"
#include "caps.h"
#include "kbtf.h"
#include "kprobe.h"
#include "ksyms.h"
#include "ktext.h"

/* Functions sampled for IBT: how many kernel text symbols are read. */
#define IBT_SAMPLE 256

/*
 * IBT from the text itself: endbr64 where a function starts, and sealed
 * (turned into a NOP) where its address is never taken. A sample of
 * kernel functions tells both.
 */
static enum caps_ibt probe_ibt(const struct ksyms *ks, struct ktext *kt)
{
	bool endbr = false, sealed = false, read = false;
	size_t seen = 0;

	for (size_t i = 0; ks && kt && i < ksyms__count(ks) && seen < IBT_SAMPLE; i++) {
		const struct ksym *s = ksyms__at(ks, i);
		uint8_t code[4];

		if (s->module || (s->type != 't' && s->type != 'T') ||
		    !strncmp(s->name, "__pfx_", 6) || !strncmp(s->name, "__cfi_", 6))
			continue;
		seen++;
		if (ktext__read(kt, s->addr, code, sizeof(code)))
			continue;
		read = true;
		switch (kcode__endbr(code)) {
		case 1: endbr = true; break;
		case 2: sealed = true; break;
		default: break;
		}
	}
	if (!read)
		return CAPS_IBT_UNKNOWN;
	return sealed ? CAPS_IBT_SEALED : endbr ? CAPS_IBT_ENDBR : CAPS_IBT_NONE;
}

static void probe_clocksource(struct caps *c)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	c->clocksource[0] = 0;
	if (f) {
		if (!fgets(c->clocksource, sizeof(c->clocksource), f))
			c->clocksource[0] = 0;
		fclose(f);
	}
	c->clocksource[strcspn(c->clocksource, "\n")] = 0;
}

/*
 * A kprobe program that calls bpf_rdonly_cast() on its stack pointer and
 * loads through the result, as stack_word() in bpf/guard.bpf.h does: 1 if
 * the kernel takes it, 0 if it has no such kfunc or refuses it there. The
 * kfunc by kbtf's index of functions; the type (a scan of all of BTF)
 * only where the kfunc is.
 */
static int probe_rdonly_cast(struct kbtf *kb)
{
	struct kbtf_func fn;
	int ty, fd;

	if (!kb)
		return -ENOENT;
	if (kbtf__func(kb, "bpf_rdonly_cast", NULL, &fn))
		return 0;
	ty = btf__find_by_name_kind(kbtf__btf(kb, NULL), "rb_node", BTF_KIND_STRUCT);
	if (ty < 0)
		return 0;
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = ty },
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL,
		  .imm = (int32_t)fn.btf_id },
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "bg_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0)
		return errno == EINVAL || errno == EACCES ? 0 : -errno;
	close(fd);
	return 1;
}

void caps__probe(struct caps *c, const struct ksyms *ks, struct ktext *kt, struct kbtf *kb,
		 bool ibt)
{
	*c = (struct caps){ .btf = kb != NULL, .text = kt != NULL, .ibt = CAPS_IBT_UNPROBED };
	c->kprobe_multi.have = kprobes__multi_supported();
	c->kprobe_session.have = c->kprobe_multi.have > 0 ? kprobes__session_supported() : 0;
	c->tracing_multi.have = attach__multi_supported();
	c->fprobe_fgraph = ks && ksyms__find_name(ks, "fprobe_fgraph_entry", NULL);
	c->rdonly_cast.have = probe_rdonly_cast(kb);
	if (ibt)
		c->ibt = probe_ibt(ks, kt);
	probe_clocksource(c);
}

static const char *yes_no(const struct cap *k)
{
	static char why[64];

	if (k->have >= 0)
		return k->have ? "yes" : "no";
	snprintf(why, sizeof(why), "unknown (%s)", strerror(-k->have));
	return why;
}

void caps__print(const struct caps *c, FILE *f, const char *prefix)
{
	static const char *const ibt[] = {
		[CAPS_IBT_UNPROBED] = "not probed",
		[CAPS_IBT_UNKNOWN] = "unknown (kernel text not readable)",
		[CAPS_IBT_NONE] = "no (functions start at their fentry site)",
		[CAPS_IBT_ENDBR] = "yes, endbr64 before the fentry site",
		[CAPS_IBT_SEALED] = ("yes, endbr64 before the fentry site, sealed where "
				     "the address is never taken"),
	};

	fprintf(f, "%skernel: kprobe.multi links: %s\n", prefix, yes_no(&c->kprobe_multi));
	fprintf(f, "%skernel: kprobe.session links: %s\n", prefix, yes_no(&c->kprobe_session));
	fprintf(f, "%skernel: tracing_multi links (fentry.multi): %s\n", prefix,
		yes_no(&c->tracing_multi));
	fprintf(f, "%skernel: fprobe on the function graph tracer: %s\n", prefix,
		c->kprobe_multi.have <= 0 ? "no fprobe" :
		c->fprobe_fgraph	    ? "yes (a shadow stack frame per hooked call)" :
					      "no (on ftrace ops, returns by rethook)");
	fprintf(f, "%skernel: plain stack loads in kprobe programs (bpf_rdonly_cast): %s\n",
		prefix, yes_no(&c->rdonly_cast));
	fprintf(f, "%skernel: IBT: %s\n", prefix, ibt[c->ibt]);
	fprintf(f, "%skernel: BTF: %s; kernel text: %s\n", prefix,
		c->btf ? "yes" : "no (no fentry, no argument types)",
		c->text ? "readable" : "not readable (no callees found, no call-site probes)");
	fprintf(f, "%skernel: clocksource: %s%s%s\n", prefix,
		c->clocksource[0] ? c->clocksource : "unknown",
		c->clock_read ? ", read by " : " (its read function unknown here)",
		c->clock_read ? c->clock_read : "");
}
