// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "bpfgraph.h"
#include "functab.h"
#include "kprobe.h"

struct kprobes {
	struct bpf_program *prog[2]; /* entry, exit */
	struct bpf_link **links;
	size_t nlinks, cap;
	struct kprobe_stats st;
	int verbose;
	FILE *err;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct kprobes *kprobes__new(struct bpf_program *entry, struct bpf_program *exit, int verbose,
			     FILE *err)
{
	struct kprobes *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->prog[0] = entry;
	k->prog[1] = exit;
	k->verbose = verbose;
	k->err = err;
	return k;
}

static int keep(struct kprobes *k, struct bpf_link *l)
{
	if (k->nlinks == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 64;
		struct bpf_link **n = realloc(k->links, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		k->links = n;
		k->cap = cap;
	}
	k->links[k->nlinks++] = l;
	return 0;
}

int kprobes__attach(struct kprobes *k, uint32_t idx, const struct bg_func *f)
{
	uint64_t ck = idx | ((f->flags & BG_FN_GRAPH) ? BG_CK_GRAPH : 0) |
		      ((f->flags & BG_FN_NOTRACE) ? BG_CK_NOTRACE : 0);
	struct bpf_link *l[2] = {};
	double t0 = now_s();
	int err = 0;

	/* The return probe first, as with fexit: no entry without its exit. */
	for (int i = 1; i >= 0; i--) {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .retprobe = i == 1, .bpf_cookie = ck);

		/* By address: clones and same-named statics have no unique name. */
		ko.offset = f->addr;
		l[i] = bpf_program__attach_kprobe_opts(k->prog[i], NULL, &ko);
		if (!l[i]) {
			err = -errno;
			break;
		}
	}
	if (!err && !(err = keep(k, l[0])) && !(err = keep(k, l[1]))) {
		k->st.attached++;
		k->st.attach_s += now_s() - t0;
		return 0;
	}
	if (err && k->nlinks && k->links[k->nlinks - 1] == l[0])
		k->nlinks--; /* l[1] could not be kept: drop both */
	bpf_link__destroy(l[0]);
	bpf_link__destroy(l[1]);
	k->st.failed++;
	k->st.attach_s += now_s() - t0;
	if (k->verbose)
		fprintf(k->err, "bpfgraph: cannot kprobe '%s': %s\n", f->name, strerror(-err));
	return err;
}

const struct kprobe_stats *kprobes__stats(const struct kprobes *k)
{
	return &k->st;
}

void kprobes__detach(struct kprobes *k)
{
	double t0;

	if (!k)
		return;
	t0 = now_s();
	for (size_t i = 0; i < k->nlinks; i++)
		bpf_link__destroy(k->links[i]);
	k->nlinks = 0;
	k->st.detach_s += now_s() - t0;
}

void kprobes__free(struct kprobes *k)
{
	if (!k)
		return;
	kprobes__detach(k);
	free(k->links);
	free(k);
}
