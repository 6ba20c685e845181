// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpfgraph.h"
#include "functab.h"
#include "kprobe.h"
#include "links.h"

struct kprobes {
	struct bpf_program *prog[2]; /* entry, exit */
	struct linkvec links;
	struct kprobe_stats st;
	int verbose;
	FILE *err;
};

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

int kprobes__attach(struct kprobes *k, uint32_t idx, const struct bg_func *f)
{
	uint64_t ck = idx | ((f->flags & BG_FN_GRAPH) ? BG_CK_GRAPH : 0) |
		      ((f->flags & BG_FN_NOTRACE) ? BG_CK_NOTRACE : 0) |
		      ((f->flags & BG_FN_IRQ) ? BG_CK_IRQ : 0);
	struct bpf_link *l[2] = {};
	double t0 = links__now();
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
	if (!err && !(err = linkvec__push(&k->links, l[0])) && !(err = linkvec__push(&k->links, l[1]))) {
		k->st.attached++;
		k->st.attach_s += links__now() - t0;
		return 0;
	}
	if (err && k->links.n && k->links.v[k->links.n - 1] == l[0])
		k->links.n--; /* l[1] could not be kept: drop both */
	bpf_link__destroy(l[0]);
	bpf_link__destroy(l[1]);
	k->st.failed++;
	k->st.attach_s += links__now() - t0;
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
	if (!k)
		return;
	k->st.detach_s += linkvec__destroy_all(&k->links);
}

void kprobes__free(struct kprobes *k)
{
	if (!k)
		return;
	kprobes__detach(k);
	linkvec__free(&k->links);
	free(k);
}
