/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One trace's state, shared by the trace command's steps (tracer.c), the
 * BPF object's set-up (progs.c) and the summary (summary.c).
 */
#ifndef BG_RUN_H
#define BG_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#include "caps.h"
#include "session.h"
#include "tier.h"

struct attach;
struct bg_opts;
struct bpf_link;
struct bpfobj;
struct kbtf;
struct ksyms;
struct ktext;
struct live;
struct output;
struct plan;
struct record_trailer;
struct wide;

/* What the kernel has, read once, and the tier chosen from it. */
struct kernel {
	struct ksyms *ks;
	struct kbtf *kb;
	struct ktext *kt;
	struct kops *ops; /* with kt: what notrace code calls through tables */
	struct caps caps;
	struct tier tier;
	/* The wide net's list, started before planning (NULL with --dry-run); trace() takes it. */
	struct wide *wide_list;
	/* links__now() at start, after loading symbols, BTF and text, after planning */
	double t_start, t_kernel, t_plan;
};

/* What one trace holds from attaching to detaching. */
struct run {
	struct bpfobj *obj; /* owned by a */
	struct attach *a;
	struct live *live;
	struct session s;
	struct output *out; /* NULL until opened */
	struct bpf_link *switch_link;
	struct bpf_link *fork_link, *exit_link; /* --inherit */
	struct bpf_link *pause_link[2]; /* the stop's delivery (bg_pause_in, bg_pause_out) */
	int stats_fd; /* -vv: bpf_stats stays enabled while it is open */
	const struct tier *tier; /* the kernel's (struct kernel) */
	/*
	 * A child process took the hooks over (handoff.h): no link, map or
	 * program of this process may be touched any more.
	 */
	bool handed_off;
	pid_t releaser; /* that child, while still at work when it was left */
	double detach_s; /* from the release's start until it ended or was left */
	double spawn_s; /* of detach_s: making the releasing process */
	/*
	 * This process's CPU time (user, system; s) from "ready" until the
	 * last record was written: what reading, pairing and formatting cost
	 * the machine beside the traced work (-v prints it).
	 */
	double cpu_ready[2], cpu_traced[2];
	/* The main thread's (the reader's) CPU time since it started, then. */
	double reader_cpu;
};

/* This process's user and system CPU time so far, in seconds. */
void run__cpu(double cpu[2]);

/*
 * May the wide net have an entry-only part on this machine: its return
 * hooks' pools over the most functions the ranges map covers would pass
 * --wide-mem (wide_opts.mem_budget), where the kernel sets them aside per
 * function and CPU (fprobe on ftrace ops)?
 */
bool progs__wide_bounded(const struct bg_opts *o, const struct caps *c);
/*
 * progs.c: the BPF object opened and configured for this plan (NULL: said
 * why). raw: the records are kept as they come (a record file).
 */
struct bpfobj *progs__open(const struct bg_opts *o, const struct kernel *k,
			   const struct plan *p, bool raw);
/* --args-detail's read plans and the traced tasks, once the object is loaded. */
int progs__fill(struct bpfobj *obj, const struct bg_opts *o, const struct plan *p,
		struct kbtf *kb, pid_t child);

/* hooks.c: every hook of the trace (trampolines, kprobes, the wide net, sched_switch). */
int run__attach(struct run *r, const struct kernel *k);
/* The probes on the delivery of bpfgraph's SIGSTOP to its command (hooks.c), once. */
void run__attach_pause(struct run *r);
/*
 * Whether the ftrace net (user/hook/ftnet.h) can record this trace's
 * first call: --wide asks for it or leaves it to the default, a COMMAND
 * to pause (or none, -p or system-wide: by default where the kernel has
 * no wide net that draws that call whole, whole_net false), options
 * function_graph can follow, tracefs's top instance free. Else false,
 * and why.
 */
bool run__ftnet_fits(const struct bg_opts *o, bool have_text, bool whole_net, char *why,
		     size_t cap);
/*
 * The ftrace net where the tier took it (tier.ftnet): the BPF
 * object loaded, and every hook run__attach() makes deferred until the
 * first traced call is over. 1 when taken, 0 when not (then
 * run__attach()), or -errno.
 */
int run__attach_ftnet(struct run *r, const struct bg_opts *o, const struct kernel *k,
		      const struct plan *p);
/* Every hook released: by a child process unless wait (handoff.h). */
void run__release(struct run *r, bool wait);

/* summary.c: the counts a record file ends with. */
void summary__trailer(struct record_trailer *t, const struct run *r);
/*
 * The summary, then what live discovery did. -EMFILE when functions were
 * lost for want of file descriptors: the trace is incomplete for a cause
 * the user can remove.
 */
int summary__print(const struct plan *p, const struct run *r, int verbosity);

#endif
