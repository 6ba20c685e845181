// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "bpfgraph.h"
#include "functab.h"
#include "icall.h"
#include "ksyms.h"
#include "ktext.h"

#define ICALL_MAX_CODE (64 * 1024)
#define ICALL_MAX_SITES 256

struct icall {
	struct bpf_program *prog;
	struct ktext *kt;
	uint64_t thunks[BG_REG_NR];
	struct bpf_link **links;
	size_t nlinks, cap;
	uint8_t *code;
	struct icall_stats st;
	int verbose;
	FILE *err;
};

static const char *const reg_names[BG_REG_NR] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Retpoline thunks: a direct call to one is an indirect call. */
static void find_thunks(struct icall *ic, const struct ksyms *ks)
{
	static const char *const prefixes[] = {
		"__x86_indirect_thunk_", "__x86_indirect_call_thunk_",
		"__x86_indirect_jump_thunk_",
	};
	char name[64];

	for (int r = 0; r < BG_REG_NR; r++) {
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
			const struct ksym *s;

			snprintf(name, sizeof(name), "%s%s", prefixes[i], reg_names[r]);
			s = ksyms__find_name(ks, name, NULL);
			if (s && !ic->thunks[r])
				ic->thunks[r] = s->addr;
		}
	}
}

struct icall *icall__new(struct bpf_program *prog, const struct ksyms *ks, struct ktext *kt,
			 int verbose, FILE *err)
{
	struct icall *ic = calloc(1, sizeof(*ic));

	if (!ic)
		return NULL;
	ic->code = malloc(ICALL_MAX_CODE);
	if (!ic->code) {
		free(ic);
		errno = ENOMEM;
		return NULL;
	}
	ic->prog = prog;
	ic->kt = kt;
	ic->verbose = verbose;
	ic->err = err;
	find_thunks(ic, ks);
	return ic;
}

static int keep_link(struct icall *ic, struct bpf_link *l)
{
	if (ic->nlinks == ic->cap) {
		size_t cap = ic->cap ? ic->cap * 2 : 256;
		struct bpf_link **n = realloc(ic->links, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ic->links = n;
		ic->cap = cap;
	}
	ic->links[ic->nlinks++] = l;
	return 0;
}

int icall__probe(struct icall *ic, uint32_t idx, const struct bg_func *f)
{
	struct kcode_isite sites[ICALL_MAX_SITES];
	size_t len = f->size ? f->size : 16;
	double t0 = now_s();
	int n, placed = 0, err;

	if (!ic->kt)
		return -ENOENT;
	if (idx >= BG_IC_MAX_FUNCS)
		return -E2BIG;
	if (len > ICALL_MAX_CODE)
		len = ICALL_MAX_CODE;
	err = ktext__read(ic->kt, f->addr, ic->code, len);
	if (err) {
		if (ic->verbose > 1)
			fprintf(ic->err, "bpfgraph: cannot read the text of %s: %s\n", f->name,
				strerror(-err));
		return err;
	}
	n = kcode__indirect(ic->code, len, f->addr, ic->thunks, sites, ICALL_MAX_SITES);
	if (ic->verbose > 2)
		fprintf(ic->err, "bpfgraph: %s: %d indirect call sites in %zu bytes\n", f->name, n,
			len);
	if (n < 0)
		return n;
	ic->st.funcs++;
	ic->st.sites += n;
	for (int i = 0; i < n && i < ICALL_MAX_SITES; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, ko);
		struct bpf_link *l;

		if (!sites[i].usable) {
			ic->st.unusable++;
			if (ic->verbose > 1)
				fprintf(ic->err, "bpfgraph: indirect %s at %s+0x%x: no safe place "
					"to read its target\n", sites[i].tail ? "jump" : "call",
					f->name, sites[i].off);
			continue;
		}
		/* No name: the offset is the absolute address (one symbol of
		 * several with that name would be ambiguous). */
		ko.offset = f->addr + sites[i].probe_off;
		ko.bpf_cookie = idx | (uint64_t)sites[i].reg << BG_IC_REG_SHIFT |
				(sites[i].mode == KSITE_LOAD ? BG_IC_LOAD : 0) |
				(uint64_t)(uint32_t)sites[i].disp << BG_IC_DISP_SHIFT;
		l = bpf_program__attach_kprobe_opts(ic->prog, NULL, &ko);
		if (!l) {
			ic->st.failed++;
			if (ic->verbose)
				fprintf(ic->err, "bpfgraph: cannot probe the indirect call at "
					"%s+0x%x (at +0x%x): %s\n", f->name, sites[i].off,
					sites[i].probe_off, strerror(errno));
			continue;
		}
		if (ic->verbose > 1)
			fprintf(ic->err, "bpfgraph: indirect %s at %s+0x%x: target read at +0x%x "
				"from %s%s%s\n", sites[i].tail ? "jump" : "call", f->name,
				sites[i].off, sites[i].probe_off,
				sites[i].mode == KSITE_LOAD ? "memory at " : "",
				reg_names[sites[i].reg], sites[i].mode == KSITE_LOAD ? "+disp" : "");
		err = keep_link(ic, l);
		if (err) {
			bpf_link__destroy(l);
			return err;
		}
		placed++;
	}
	ic->st.probes += placed;
	ic->st.attach_s += now_s() - t0;
	return placed;
}

const struct icall_stats *icall__stats(const struct icall *ic)
{
	return &ic->st;
}

void icall__detach(struct icall *ic)
{
	double t0;

	if (!ic)
		return;
	t0 = now_s();
	for (size_t i = 0; i < ic->nlinks; i++)
		bpf_link__destroy(ic->links[i]);
	ic->nlinks = 0;
	ic->st.detach_s += now_s() - t0;
}

void icall__free(struct icall *ic)
{
	if (!ic)
		return;
	icall__detach(ic);
	free(ic->links);
	free(ic->code);
	free(ic);
}
