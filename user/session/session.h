/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A live tracing session: starts the optional command once everything is
 * attached, polls the ring buffer into the graph builder, stops on a
 * signal, the end of the command or the duration, and drains what is
 * left.
 */
#ifndef BG_SESSION_H
#define BG_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "fetch.h"
#include "sink.h"

struct bg_rec;
struct discover;
struct graph;
struct fetch;
struct ksym;

struct session_stats {
	uint64_t records;
	uint64_t drops;
	uint64_t deep;
	uint64_t unmatched_exits;
	uint64_t unwound;
	uint64_t nostate;
	uint64_t nested; /* calls skipped inside our own program runs */
	uint64_t targets_full; /* indirect targets not reported: dedup map full */
	uint64_t pids_full; /* --inherit: new tasks not traced: the traced set full */
	uint64_t active_neg; /* the in-graph task count missed a transition (a bug) */
	uint64_t tramp_call, tramp_jmp; /* trampoline frames seen of each layout */
	uint64_t ckc_miss; /* plan session runs whose cookie the cache lacked (BG_ST_CKC_MISS) */
	uint64_t sexit_search; /* session returns named by the cookie search (BG_ST_SEXIT_SEARCH) */
	uint64_t paused; /* -G calls made while the command was stopped by us (BG_ST_PAUSED) */
	uint64_t paused_net; /* ... that function_graph recorded (the ftrace net) */
	uint64_t unmapped; /* wide net records of no known function (dropped) */
	uint64_t detail_lost; /* --args-detail reads left out (batch busy) */
	uint64_t held; /* graphs not begun while the wide net's finds were linked */
	/* drops and unmatched exits per possible CPU (ncpu_stats), or NULL: none */
	uint64_t *drops_cpu, *unmatched_cpu;
	int ncpu_stats;
	int cmd_status; /* wait status of COMMAND, -1 if none */
};

struct session {
	int ringbuf_fd;
	int batch_fd; /* bg_batch per-CPU array: records left at the end */
	/* bg_enabled in the BPF programs' data: cleared when tracing stops */
	volatile uint32_t *enabled;
	/* bg_stopped: set by session__finish, every program then returns at once */
	volatile uint32_t *stopped;
	/* bg_active: tasks inside a graph (session__finish waits a little for 0) */
	volatile const int64_t *active;
	/* bg_stop_req: the command stops when its graph under way ends */
	volatile uint32_t *stop_req;
	/* bg_pausing: set before each SIGSTOP to the command, cleared before its SIGCONT */
	volatile uint32_t *pausing;
	volatile uint64_t *cont_ns; /* bg_cont_ns: when the last SIGCONT was sent */
	/* The ring buffer's reading thread: from session__run to session__finish. */
	struct fetch *fetch;
	unsigned int batch; /* records taken in this poll or consume call */
/*
 * ... at most (then -EAGAIN). Each poll formats what it read before it
 * looks at a stop request again: 2 x 16384 records are well under a second
 * of formatting even under emulation, so that -d and Ctrl-C are not kept
 * waiting behind a backlog.
 */
#define SESSION_BATCH_MAX 16384
	int stats_fd; /* bg_stats per-CPU array */
	struct rec_sink sink;
	/*
	 * Optional: untraced functions found between traced ones are passed
	 * to on_caller after each poll (outside the ring buffer callback, so
	 * it may attach programs).
	 */
	struct discover *discover;
	void (*on_caller)(void *ctx, const struct ksym *caller);
	void (*on_expand)(void *ctx, uint32_t func);
	/* An indirect call from traced func reached target (BG_REC_TARGET). */
	void (*on_target)(void *ctx, uint64_t target, uint32_t func);
	/*
	 * Optional: what was found so far was handed to the callbacks above:
	 * a burst of growth ended (the paused command still stopped), or,
	 * when nothing is paused, after each poll that found something.
	 */
	void (*on_settled)(void *ctx);
	/*
	 * Optional: the function table index of a function under the wide
	 * net (BG_FUNC_WIDE | position, user/hook/wide.h), or -errno (the record
	 * is dropped).
	 */
	int (*map_func)(void *ctx, uint32_t func);
	/* Optional: called after each poll with the graphs ended so far. */
	void (*on_poll)(void *ctx, uint64_t graphs_done);
	/*
	 * Optional: at the end, once the programs record nothing more and
	 * before what is left in the ring buffer is read (hooks that slow the
	 * whole machine down, the reader too, may start to go).
	 */
	void (*on_stopped)(void *ctx);
	void *caller_ctx;
	uint64_t graphs_done; /* exits at depth 0 read */
	/* Found functions wait in their queues (the wide net is on). */
	bool hold_growth;
	const struct ksym *pending[64];
	unsigned int npending;
	uint32_t expand[64];
	unsigned int nexpand;
	/* BG_REC_TARGET records waiting for on_target (each comes once). */
	struct bg_rec *targets;
	size_t ntargets, targets_cap;
	uint64_t duration_ms; /* 0: until a signal or the command ends */
	uint64_t stop_ns; /* CLOCK_MONOTONIC when session__run stopped tracing */
	uint64_t stop_req_ns; /* when it was asked to (stop.h), 0: the trace ended by itself */
	uint64_t end_due_ns; /* with duration_ms: when -d's end was due */
	/*
	 * The part of each step of the poll under way that came after the
	 * request: reading records, the caller's on_poll, formatting them,
	 * attaching what was found.
	 */
#define SESSION_STOP_STEPS 4
	uint64_t stop_step_ns[SESSION_STOP_STEPS];
	/*
	 * The reading thread's CPU in reading records and writing them out
	 * (session__run's polls, session__finish), not in waiting for them
	 * or attaching what they showed.
	 */
	uint64_t read_cpu_ns;
	uint64_t read_sys_ns; /* the kernel's part of it (getrusage()'s split) */
	uint64_t read_minflt; /* the page faults it took */
	/* What the reading thread did, from session__finish on. */
	struct fetch_stats fetch_st;
	bool polling; /* in session__run's loop */
	uint64_t stop_records; /* st.records then */
	pid_t child; /* started by session__spawn (or _early, then adopted), released by session__go */
	/*
	 * Stop the child (SIGSTOP) while what was found is attached, then
	 * let it go on (SIGCONT): its next calls are then complete.
	 */
	bool pause_child;
	bool discover_irqs; /* also discover from records made in interrupt work */
	bool paused;
	bool stop_asked; /* *stop_req was set, the command may stop by itself */
	int go_fd; /* write end of the child's start pipe */
	struct session_stats st;
};

/*
 * Fork COMMAND stopped before exec; it runs once session__go() is called.
 * nofile: the RLIMIT_NOFILE it gets (the tracer's own was raised), or NULL.
 */
int session__spawn(struct session *s, char **argv, const struct rlimit *nofile);
/*
 * The same before the session exists (struct spawned), handed to it with
 * session__adopt(), or let go with session__drop() (its go-ahead pipe
 * closed: it exits without running; reaped).
 */
struct spawned {
	pid_t pid; /* 0: none */
	int go_fd;
};
int session__spawn_early(struct spawned *c, char **argv, const struct rlimit *nofile);
void session__adopt(struct session *s, struct spawned *c);
void session__drop(struct spawned *c);
/*
 * Can COMMAND be run, as execvp() would look it up (PATH when it has no
 * '/')? 0, or -ENOENT / -EACCES: checked before anything is attached, so
 * that a typo does not cost a whole attach and detach.
 */
int session__check_command(const char *cmd);
/*
 * The reading thread and what else the trace needs (session__run does it
 * when not done): before session__go, so that its work (a ring's worth of
 * memory faulted in, under the wide net all the slower) is not runnable
 * beside the command's first call, which would switch to it when it
 * blocks where, untraced, the CPU went idle. 0 or -errno.
 */
int session__start(struct session *s);
/* Let the command run. */
int session__go(struct session *s);
/*
 * Poll until done; 0 or -errno. No graph starts after that; those under
 * way go on until session__finish.
 */
int session__run(struct session *s);
/*
 * After session__run: lets the graphs under way end (briefly: see
 * FINISH_WAIT_MS), stops every program (bg_stopped), takes what is left in
 * the ring buffer and the per-CPU batches, and flushes the sink. The hooks
 * may stay attached afterwards: they record nothing more.
 */
void session__finish(struct session *s);
/*
 * The ring buffer callback (ctx: the session): feeds every record of one
 * sample; -EAGAIN once this poll's batch is full.
 */
int session__sample(void *ctx, void *data, size_t len);
/*
 * One record from another source than the ring buffer (the ftrace net),
 * with a function table index, in time order per CPU among those fed:
 * taken as the ring buffer's are. 0 or -errno.
 */
int session__take(struct session *s, const struct bg_rec *r);
/* Reads the BPF counters into st (drops_cpu: free with session__free_stats). */
void session__read_stats(struct session *s);
void session__free_stats(struct session *s);
/* Kill and reap a command that was never released (error paths). */
void session__abort(struct session *s);

/*
 * Stops (SIGSTOP) or continues (SIGCONT) the command bpfgraph started, if
 * any; continuing also ends a stop a probe made (bg_pause_tgid).
 */
void session__pause(struct session *s, bool on);
/*
 * Hooks what the records taken so far found (untraced callers, functions
 * to expand), all of it, now: for a pause that ends with the command
 * going on, whose next call would otherwise run before a later poll
 * hooks them.
 */
void session__grow_now(struct session *s);
/* Every thread of the command bpfgraph started is stopped or gone (true without one). */
bool session__child_stopped(const struct session *s);
/*
 * Stops the command (SIGSTOP) even where session__pause() would leave it
 * asleep: a sleep outside any traced call ends early and runs again once
 * it continues, which the trace does not show.
 */
void session__stop_child(struct session *s);
/* The command bpfgraph started has exited (not reaped yet). */
bool session__child_exited(const struct session *s);

#endif
