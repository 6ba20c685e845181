/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ftrace net: the kernel's own function_graph tracer, in tracefs's
 * top instance, records the first traced call (a command's; with -p or
 * system-wide, where the kernel has no kprobe.session to build the wide
 * net of, the traced tasks') while nothing of bpfgraph is hooked
 * (Debian's 6.1 has no fprobe). Its records (per CPU,
 * trace_pipe_raw, ftpage.h) come as the graph builder's; what the first
 * call met is then hooked by bpfgraph, and function_graph is switched
 * off again. Taken only where nobody else uses the top instance
 * (current_tracer nop, no event enabled, no function filter), and every
 * setting it changes is put back as it was.
 */
#ifndef BG_FTNET_H
#define BG_FTNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bg_rec;

struct ftnet_opts {
	/* set_graph_function: the entry functions (kernel names) */
	char *const *graph;
	size_t ngraph;
	pid_t pid; /* set_ftrace_pid, with its children (function-fork) */
	/*
	 * Without a command (pid 0): -p's ids, each a process (every thread it
	 * has now) or a thread, set_ftrace_pid without children, as the BPF
	 * side's filter takes them (a thread's id or its process's).
	 */
	const uint32_t *pids;
	size_t npids;
	/*
	 * Neither (system-wide): bpfgraph's own process, left out by
	 * set_ftrace_notrace_pid with the threads it starts later.
	 */
	pid_t self;
	bool irqs; /* funcgraph-irqs: interrupt work inside a graph */
	unsigned int max_depth; /* max_graph_depth; 0: none */
	/*
	 * A command's calls it records (--first-calls; 0: one): the last of
	 * them to end stops the command (live_ftnet.c). Not with -p or
	 * system-wide, where the first graph's end closes it.
	 */
	unsigned int calls;
	/* Where tracefs is mounted; NULL: /sys/kernel/tracing, then debugfs's. */
	const char *root;
};

struct ftnet;

/*
 * Whether the top instance can be taken now (tracefs reachable and
 * writable, no tracer, event, filter or pid of anyone's, a mono clock):
 * 0, or -errno and a reason in why. Only reads (root: NULL as in ftnet_opts).
 */
int ftnet__usable(const char *root, char *why, size_t cap);
/*
 * Takes the top instance and sets it up (function_graph not yet on).
 * NULL and a reason in why when it cannot be used (not mounted, in use,
 * no function_graph, a write refused); errno set.
 */
struct ftnet *ftnet__new(const struct ftnet_opts *o, char *why, size_t cap);
/* function_graph on, its buffers opened: 0 or -errno (ftnet__free puts all back). */
int ftnet__start(struct ftnet *n);
/* Where ftnet__read() hands what it read. */
struct ftnet_sink {
	/*
	 * Each event as a record: ENTRY and EXIT with func 0, ts on
	 * CLOCK_MONOTONIC (trace_clock mono, the BPF side's clock), cpu, pid
	 * (a thread's), depth; with the function's address and the event's
	 * common_flags (FTP_FLAG_*). Non-zero ends the read with it.
	 */
	int (*take)(void *ctx, struct bg_rec *r, uint64_t addr, uint32_t flags);
	/* Events of cpu the kernel dropped (full buffers) before what comes next; NULL: none. */
	void (*lost)(void *ctx, uint32_t cpu, uint64_t count);
	void *ctx;
};

/*
 * What its per-CPU buffers hold now, oldest first, at most max_pages
 * pages of each CPU (0: until each is empty; a command that goes on
 * calling may keep one from ever being empty): records taken, or -errno
 * (take's own, or a read's).
 */
long ftnet__read(struct ftnet *n, uint32_t max_pages, const struct ftnet_sink *sink);
/* Events the kernel lost (full buffers) so far. */
uint64_t ftnet__lost(const struct ftnet *n);
/* function_graph off (what it recorded stays readable): 0 or -errno. */
int ftnet__stop(struct ftnet *n);
/* Off, the settings put back, the buffers' files closed. NULL is fine. */
void ftnet__free(struct ftnet *n);
/* The process (thread group) of thread tid, from /proc; 0 once it is gone. */
uint32_t ftnet__tgid(uint32_t tid);

#endif
