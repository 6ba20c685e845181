// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The BPF side's per-CPU counters, summed (and kept per CPU where the summary names CPUs). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfgraph.h"
#include "session.h"

static void keep_per_cpu(struct session_stats *st, uint64_t **dst, const uint64_t *vals, int ncpu)
{
	if (*dst || !(*dst = malloc(ncpu * sizeof(**dst))))
		return;
	memcpy(*dst, vals, ncpu * sizeof(**dst));
	st->ncpu_stats = ncpu;
}

void session__read_stats(struct session *s)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	if (ncpu <= 0 || s->stats_fd < 0)
		return;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return;
	for (__u32 k = 0; k < BG_ST_NR; k++) {
		uint64_t sum = 0;

		if (bpf_map_lookup_elem(s->stats_fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			sum += vals[c];
		/* Where records were lost tells which CPUs' graphs to doubt. */
		if (k == BG_ST_DROPS && sum)
			keep_per_cpu(&s->st, &s->st.drops_cpu, vals, ncpu);
		else if (k == BG_ST_UNMATCHED_EXIT && sum)
			keep_per_cpu(&s->st, &s->st.unmatched_cpu, vals, ncpu);
		switch (k) {
		case BG_ST_DROPS: s->st.drops = sum; break;
		case BG_ST_DEEP: s->st.deep = sum; break;
		case BG_ST_NOSTATE: s->st.nostate = sum; break;
		case BG_ST_UNMATCHED_EXIT: s->st.unmatched_exits = sum; break;
		case BG_ST_UNWOUND: s->st.unwound = sum; break;
		/* Also entries without an exit: after BG_ST_UNWOUND in k. */
		case BG_ST_HIDDEN_LOST: s->st.unwound += sum; break;
		case BG_ST_NESTED: s->st.nested = sum; break;
		case BG_ST_TARGETS_FULL: s->st.targets_full = sum; break;
		case BG_ST_ACTIVE_NEG: s->st.active_neg = sum; break;
		case BG_ST_TRAMP_CALL: s->st.tramp_call = sum; break;
		case BG_ST_TRAMP_JMP: s->st.tramp_jmp = sum; break;
		case BG_ST_DETAIL_LOST: s->st.detail_lost = sum; break;
		case BG_ST_HELD: s->st.held = sum; break;
		case BG_ST_PIDS_FULL: s->st.pids_full = sum; break;
		case BG_ST_CKC_MISS: s->st.ckc_miss = sum; break;
		case BG_ST_SEXIT_SEARCH: s->st.sexit_search = sum; break;
		case BG_ST_PAUSED: s->st.paused = sum; break;
		}
	}
	free(vals);
}

void session__free_stats(struct session *s)
{
	free(s->st.drops_cpu);
	free(s->st.unmatched_cpu);
	s->st.drops_cpu = s->st.unmatched_cpu = NULL;
	s->st.ncpu_stats = 0;
}
