// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a trace did, on stderr at its end; the counts a record file ends with. */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "attach.h"
#include "cli.h"
#include "discover.h"
#include "kprobe.h"
#include "ktext.h"
#include "live.h"
#include "output.h"
#include "plan.h"
#include "record.h"
#include "run.h"

/* "; by CPU: CPU 0: n, CPU 3: m" for the CPUs whose count is not 0, at most 8. */
static void print_by_cpu(const uint64_t *v, int ncpu)
{
	int shown = 0, more = 0;

	for (int c = 0; v && c < ncpu; c++) {
		if (!v[c])
			continue;
		if (shown == 8) {
			more++;
			continue;
		}
		fprintf(stderr, "%s CPU %d: %llu", shown++ ? "," : "; by CPU:", c,
			(unsigned long long)v[c]);
	}
	if (more)
		fprintf(stderr, " and %d more CPUs", more);
}

/* Lost records, with the CPUs they were lost on (their graphs may be wrong). */
static void print_drops(const struct session_stats *st)
{
	fprintf(stderr, "bpfgraph: %llu records were lost (ring buffer full)",
		(unsigned long long)st->drops);
	print_by_cpu(st->drops_cpu, st->ncpu_stats);
	fprintf(stderr, "; graphs on those CPUs may be cut or misnested. A larger -b, "
		"'bpfgraph record' (cheaper to keep up with than text) or fewer "
		"functions keep a trace whole\n");
}

/* -v: the ring buffer's reading thread (user/session/fetch.h). */
static void print_reading(const struct fetch_stats *fs)
{
	fprintf(stderr, "bpfgraph: the ring buffer's reading thread: %.2f s of CPU; at most "
		"%.1f MiB waited in memory for the formatting%s; its reads at most %.2f s "
		"apart (until %.6f), the longest %.2f s (%.1f MiB in %.2f s of CPU)\n",
		fs->cpu.all / 1e9, fs->peak_bytes / 1048576.0,
		fs->full_waits ? " (the limit: the ring was left to fill meanwhile)" : "",
		fs->max_gap_ns / 1e9, fs->max_gap_end_ns / 1e9, fs->max_consume_ns / 1e9,
		fs->max_consume_bytes / 1048576.0, fs->max_consume_cpu_ns / 1e9);
}

/* Exits left out: no call of theirs was open in their task (begun before the trace). */
static void print_unmatched(const struct session_stats *st)
{
	fprintf(stderr, "bpfgraph: %llu exits matched no call open in their task and were "
		"left out", (unsigned long long)st->unmatched_exits);
	print_by_cpu(st->unmatched_cpu, st->ncpu_stats);
	fprintf(stderr, "\n");
}

/* -v: which paths the programs took where the kernel decides. */
static void print_hook_paths(const struct session *s)
{
	/*
	 * Which trampoline layouts the kernel has: told apart per call,
	 * counted once each (tramp_caller()).
	 */
	if (s->st.tramp_call || s->st.tramp_jmp)
		fprintf(stderr, "bpfgraph: trampoline frames seen: %s%s%s\n",
			s->st.tramp_call ? "entered by a call from the fentry site" : "",
			s->st.tramp_call && s->st.tramp_jmp ? "; " : "",
			s->st.tramp_jmp ? "entered by a jmp (the caller's return address "
					  "one slot lower)" : "");
	/* Runs that fell back to the kernel's search: merges, or a cache too full. */
	if (s->st.ckc_miss)
		fprintf(stderr, "bpfgraph: %llu runs of the plan's kprobe.session program asked "
			"the kernel for their link cookie (not in the cache)\n",
			(unsigned long long)s->st.ckc_miss);
	/* Returns of functions whose code range bg_franges lacked: see session_frame(). */
	if (s->st.sexit_search)
		fprintf(stderr, "bpfgraph: %llu kprobe.session returns asked the kernel for their "
			"link cookie (no code range for their function)\n",
			(unsigned long long)s->st.sexit_search);
}

/* How fentry sites calling trampolines made since the start were told (-v). */
static void print_tramp_reads(void)
{
	struct kcode_tramp_stats ts = kcode__tramp_stats();

	if (ts.reads || ts.remembered)
		fprintf(stderr, "bpfgraph: fentry sites calling code unknown at the start: "
			"/proc/kallsyms read whole %lu times to name it, %lu times known a "
			"trampoline already\n", ts.reads, ts.remembered);
}

static void print_summary(const struct plan *p, const struct run *r, int verbosity)
{
	const struct kprobe_stats *ks = live__kprobe_stats(r->live);
	const struct attach_stats *as = attach__stats(r->a);
	const struct session *s = &r->s;
	unsigned int attached = as->attached, failed = as->failed;
	double attach_s = as->attach_s;
	const char *how = tier__kprobes_how(r->tier);
	char kp[96] = "";

	/* Not failures, but not trampolines either: -v names them. */
	if (!tier__trampolines(r->tier) && ks) {
		attached = ks->attached;
		failed += ks->failed;
		attach_s += ks->attach_s;
		if (how && ks->merges)
			snprintf(kp, sizeof(kp), " (by %s, %u links, %u merges; %u attached at "
				 "the end, %u of them replaced)", how, ks->links, ks->merges, ks->live,
				 ks->replaced);
		else if (how)
			snprintf(kp, sizeof(kp), " (by %s, %u links, %u merges)", how,
				 ks->links, ks->merges);
		else
			snprintf(kp, sizeof(kp), " (by kprobe: --kprobes)");
	} else if (as->handed_over && as->no_fds) {
		snprintf(kp, sizeof(kp), " (+%u handed to kprobes, %u for want of fds)",
			 as->handed_over, as->no_fds);
	} else if (as->handed_over) {
		snprintf(kp, sizeof(kp), " (+%u by kprobe: fentry refused)", as->handed_over);
	}
	fprintf(stderr,
		"bpfgraph: %u functions attached, %zu skipped, %u failed%s; %llu records, "
		"%llu dropped, %llu recursion misses, %llu nested in the tracer, "
		"%llu unmatched exits, %llu unmatched entries, %llu too deep; "
		"attach %.2f s, detach %.2f s\n",
		attached, p->nskipped, failed, kp,
		(unsigned long long)s->st.records, (unsigned long long)s->st.drops,
		(unsigned long long)as->recursion_misses, (unsigned long long)s->st.nested,
		(unsigned long long)s->st.unmatched_exits, (unsigned long long)s->st.unwound,
		(unsigned long long)s->st.deep, attach_s, r->detach_s);
	if (verbosity) {
		double cpu = r->cpu_traced[0] + r->cpu_traced[1];

		fprintf(stderr, "bpfgraph: own CPU from ready to the last record: %.3f s (user "
			"%.3f s, system %.3f s), %.0f ns per record; the reading thread's since it "
			"started: %.6f s, reading and writing records %.6f s of it (system %.3f s, "
			"%llu page faults; %.0f ns per record)\n", cpu, r->cpu_traced[0], r->cpu_traced[1],
			s->st.records ? cpu * 1e9 / (double)s->st.records : 0.0, r->reader_cpu,
			s->read_cpu_ns / 1e9, s->read_sys_ns / 1e9,
			(unsigned long long)s->read_minflt,
			s->st.records ? (double)s->read_cpu_ns / (double)s->st.records : 0.0);
		print_reading(&s->fetch_st);
	}
	if (r->releaser > 0)
		fprintf(stderr, "bpfgraph: the hooks are still being released by process %d "
			"(they record nothing meanwhile); --wait-detach waits for that\n",
			(int)r->releaser);
	if (s->st.drops)
		print_drops(&s->st);
	if (s->fetch_st.lost)
		fprintf(stderr, "bpfgraph: %llu samples of records read from the ring buffer were "
			"lost: no memory to hold them until they were formatted\n",
			(unsigned long long)s->fetch_st.lost);
	if (s->st.unmatched_exits)
		print_unmatched(&s->st);
	if (s->st.targets_full)
		fprintf(stderr, "bpfgraph: %llu indirect call targets were not followed: "
			"more distinct targets than the probes can remember; narrow the "
			"trace (-x, --callee-depth)\n",
			(unsigned long long)s->st.targets_full);
	if (verbosity) {
		print_hook_paths(s);
		print_tramp_reads();
	}
	if (s->st.active_neg)
		fprintf(stderr, "bpfgraph: internal error: the count of tasks inside a graph "
			"went below zero %llu times; records may be missing: please report it\n",
			(unsigned long long)s->st.active_neg);
}

void run__cpu(double cpu[2])
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru)) {
		cpu[0] = cpu[1] = 0;
		return;
	}
	cpu[0] = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	cpu[1] = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* The counts a record file ends with. */
void summary__trailer(struct record_trailer *t, const struct run *r)
{
	const struct session_stats *st = &r->s.st;

	*t = (struct record_trailer){
		.records = st->records, .drops = st->drops,
		.recursion_misses = attach__stats(r->a)->recursion_misses, .nested = st->nested,
		.unmatched_exits = st->unmatched_exits, .unmatched_entries = st->unwound,
		.deep = st->deep, .nostate = st->nostate,
		.end_ns = output__clock_ns(CLOCK_MONOTONIC), .held = st->held,
	};
}

int summary__print(const struct plan *p, const struct run *r, int verbosity)
{
	const struct kprobe_stats *ks = live__kprobe_stats(r->live);
	unsigned int no_fds = attach__stats(r->a)->no_fds + (ks ? ks->no_fds : 0);
	struct rlimit lim = { 0, 0 };

	print_summary(p, r, verbosity);
	if (r->s.st.paused + r->s.st.paused_net)
		fprintf(stderr, "bpfgraph: %llu calls of -G functions the command made while "
			"bpfgraph stopped it (its SIGSTOP's delivery and the way back from it) "
			"are not shown\n", (unsigned long long)(r->s.st.paused + r->s.st.paused_net));
	if (r->s.st.detail_lost)
		fprintf(stderr, "bpfgraph: %llu calls were recorded without their --args-detail "
			"reads (their CPU's batch was in use by a preempted program)\n",
			(unsigned long long)r->s.st.detail_lost);
	if (r->s.st.pids_full)
		fprintf(stderr, "bpfgraph: --inherit: %llu tasks created by traced ones were not "
			"traced: more than %u were traced at once\n",
			(unsigned long long)r->s.st.pids_full, BG_INHERIT_PIDS);
	if (r->s.st.unmapped)
		fprintf(stderr, "bpfgraph: %llu records of the wide net named no function it "
			"listed: dropped\n", (unsigned long long)r->s.st.unmapped);
	live__print(r->live, r->s.discover ? discover__stats(r->s.discover) : NULL,
		    !r->handed_off);
	if (!no_fds)
		return 0;
	getrlimit(RLIMIT_NOFILE, &lim);
	fprintf(stderr, "bpfgraph: %u hooks failed for want of file descriptors (the limit is "
		"%llu): their functions are missing from the trace; raise the limit (ulimit -n, "
		"fs.nr_open) or trace fewer functions\n", no_fds,
		(unsigned long long)lim.rlim_cur);
	return -EMFILE;
}
