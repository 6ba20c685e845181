/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the running kernel offers a tracer, probed (never read from its
 * version): the link types each hook tier needs, how fprobe is built,
 * IBT, the clocksource our timestamps read. One struct, filled once,
 * printed by -v and --dry-run; the tier (tier.h) is chosen from it.
 */
#ifndef BG_CAPS_H
#define BG_CAPS_H

#include <stdbool.h>
#include <stdio.h>

struct kbtf;
struct ksyms;
struct ktext;

/* A probe's answer: yes, no, or it could not be made (why: errno). */
struct cap {
	int have; /* 1 yes, 0 no, -errno: unknown */
};

enum caps_ibt {
	CAPS_IBT_UNPROBED = 0, /* not asked for (caps__probe's ibt) */
	CAPS_IBT_UNKNOWN, /* kernel text not readable */
	CAPS_IBT_NONE, /* functions start with their fentry site */
	CAPS_IBT_ENDBR, /* endbr64 first, kept where the address is taken */
	CAPS_IBT_SEALED, /* ... and sealed (a NOP) where it is never taken */
};

struct caps {
	struct cap kprobe_multi; /* kprobe.multi links (CONFIG_FPROBE, 5.18+) */
	struct cap kprobe_session; /* kprobe.session links (6.10+): the wide net */
	struct cap tracing_multi; /* fentry.multi/fexit.multi links (7.x) */
	/*
	 * Kprobe programs may call bpf_rdonly_cast() (6.2+): they read the
	 * stack with plain loads (graph_ldx.bpf.o, see bpfobj.h).
	 */
	struct cap rdonly_cast;
	/* fprobe built on the function graph tracer (fprobe_fgraph_entry, 6.14+) */
	bool fprobe_fgraph;
	enum caps_ibt ibt;
	bool btf; /* /sys/kernel/btf/vmlinux: fentry and arguments */
	bool text; /* kernel text readable (/proc/kcore): callees, call sites */
	char clocksource[32]; /* current_clocksource; "" unknown */
	/*
	 * Its read function (NULL: unknown), traced by kprobe where traced
	 * code calls it: the planner's to say (plan__set_clocksource), for
	 * caps__print.
	 */
	const char *clock_read;
};

/*
 * Probes everything: a few tiny programs loaded and dropped, sysfs and
 * the symbols read. ks, kt and kb (the kernel's BTF) may be NULL
 * (then what needs them is unknown). IBT, which nothing but caps__print
 * needs, only with ibt: it reads a sample of kernel text.
 */
void caps__probe(struct caps *c, const struct ksyms *ks, struct ktext *kt, struct kbtf *kb,
		 bool ibt);
/* One line per capability, each starting with prefix ("# " for --dry-run). */
void caps__print(const struct caps *c, FILE *f, const char *prefix);

#endif
