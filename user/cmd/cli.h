/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Command-line parsing: argv in, a filled struct bg_opts out. Pure: no
 * kernel access, no exit(), re-entrant (tests parse many command lines in
 * one process). The help text is generated from the same table the
 * parser uses; man/bpfgraph.1 and tools/bpfgraph.bash-completion are kept
 * in line with it by tests/unit/test_docs.c.
 */
#ifndef BG_CLI_H
#define BG_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpfgraph.h"
#include "options.h"

#ifndef BG_VERSION
#define BG_VERSION "0.0.0-unknown"
#endif

/* main()'s exit statuses: main() returns one of these, never a -errno. */
/* Defaults and limits of the numeric options. */
#define BG_DEF_CALLEE_DEPTH 3
#define BG_MAX_CALLEE_DEPTH 16
#define BG_DEF_MAX_FUNCS 2000
#define BG_MAX_MAX_FUNCS 1000000
/* --first-calls: at most this many of a COMMAND's calls by function_graph */
#define BG_MAX_FIRST_CALLS 32
/* --wide-wait: how long the wide net waits for a first call without a command, ms */
#define BG_DEF_WIDE_WAIT_MS 5000
#define BG_MAX_PIDS 1024 /* bg_pids map size; --inherit: BG_INHERIT_PIDS */
/* --inherit: tasks traced at once (64 bytes each in the kernel, preallocated) */
#define BG_INHERIT_PIDS 32768
#define BG_DEF_BUFFER_SIZE (8U << 20)
/*
 * What the wide net's return hooks may take from the kernel's memory
 * (--wide-mem): where fprobe preallocates them per hooked function and
 * CPU (user/hook/wide.h), the net hooks returns only as far as this
 * allows. Enough for the whole net on 3 CPUs (24 MiB on Debian's 6.12,
 * 42 on 4); with what a trace takes besides, 60 MiB on 16 CPUs, under
 * 64 (docs/performance.md, "Memory on many CPUs").
 */
#define BG_DEF_WIDE_MEM (32ULL << 20)
#define BG_MAX_WIDE_MEM (64ULL << 30)
#define BG_MIN_BUFFER_SIZE (64U << 10)
#define BG_MAX_BUFFER_SIZE (1U << 30)
#define BG_MAX_THRESH_US 3600000000ULL /* one hour */
#define BG_MAX_DURATION_S 31536000ULL /* one year */
#define BG_DEF_DIALECT BG_DIALECT_6_5

#define BG_CPUSET_WORDS (BG_MAX_CPUS / 64) /* layout of bg_cpumask[] */

enum bg_cmd {
	BG_CMD_TRACE = 0, /* bpfgraph [OPTIONS] -G FUNC ... */
	BG_CMD_DIFF, /* bpfgraph diff ... */
	BG_CMD_RECORD, /* bpfgraph record ... */
	BG_CMD_REPORT, /* bpfgraph report ... */
};

/* Repeatable glob options. The strings point into argv (not copied). */
struct bg_globs {
	char **v;
	size_t n;
};

struct bg_opts {
	enum bg_cmd cmd;

	/* Selection */
	struct bg_globs graph; /* -G: entry functions */
	struct bg_globs allow; /* -a: added functions */
	struct bg_globs notrace; /* -x: never traced, nor their subtrees */
	uint32_t callee_depth; /* static callee discovery; 0 = -G only */
	uint32_t max_funcs; /* refuse bigger plans */

	/* Filters */
	uint32_t max_depth; /* max_graph_depth; 0 = unlimited, <= BG_MAX_DEPTH */
	uint64_t thresh_ns; /* tracing_thresh; 0 = off */
	uint32_t *pids; /* -p, sorted, no duplicates */
	size_t nr_pids;
	uint64_t cpus[BG_CPUSET_WORDS]; /* -C: bit n = CPU n */
	uint32_t nr_cpus; /* bits set in cpus; 0 = every CPU */
	char comm[BG_COMM_LEN]; /* -n; "" = any task */
	uint64_t duration_ms; /* -d; 0 = until interrupted */
	char **command; /* after "--": NULL-terminated (argv's NULL) */
	int command_argc; /* 0 = no command */
	bool inherit; /* --inherit: also the tasks -p's or COMMAND's create */
	bool no_pause; /* --no-pause: COMMAND runs on during live discovery */
	bool no_callsites; /* --no-callsite-probes */
	enum bg_locks locks; /* --locks */
	bool no_opt_hold; /* --no-optimizer-hold: the kprobe optimizer's setting untouched */
	bool discover_irqs; /* --discover-irqs */
	bool no_discovery; /* --no-discovery: the static plan only */
	enum bg_hook hook; /* --hook (--kprobes: BG_HOOK_KPROBE) */
	enum bg_wide wide; /* --wide */
	uint64_t wide_mem; /* --wide-mem: bytes for the net's return hooks; 0: no limit */
	uint32_t first_calls; /* --first-calls: a COMMAND's calls the ftrace net records */
	uint64_t wide_wait_ms; /* --wide-wait: the wide net's wait for a first call; 0: no bound */

	/* Output */
	uint32_t flags; /* BG_O_*, for out_text_opts.flags */
	uint32_t flags_set; /* BG_O_* the user set (on or off) explicitly */
	enum bg_dialect dialect; /* --compat */
	bool no_header; /* --no-header: trace_pipe style */
	const char *output; /* -o; NULL = stdout (also for "-o -") */
	bool dialect_set; /* --compat was given */
	enum bg_format format; /* --format */
	bool folded_count; /* --folded-weight=count */
	struct bg_globs hist; /* --hist: functions whose durations get a histogram */
	const char *input; /* report -i; "-" = stdin */
	bool strict; /* report --strict: a damaged line of text fails the read */
	bool tee; /* record --tee: print the trace too */

	/* Other */
	uint32_t buffer_size; /* -b, bytes, power of two */
	bool buffer_size_set; /* -b given: else the plan may ask for more */
	int verbosity; /* number of -v */
	bool dry_run;
	const char *plan_file; /* --plan-file: the plan as --dry-run prints it */
	bool wait_detach; /* --wait-detach: release the hooks in the foreground */

	/*
	 * Subcommands: argv from the subcommand word on, so that
	 * sub_argv[0] is "diff"/"record"/"report" and getopt_long() can run
	 * on it as is (record may well call cli__parse(&o2, sub_argc,
	 * sub_argv, err) to reuse the trace options).
	 */
	char **sub_argv;
	int sub_argc;
};

/*
 * Parses argv into o (which is reset first). Returns 0 to go on, 1 when
 * --help or --version was printed on stdout (exit 0), -EINVAL on a usage
 * error (a "bpfgraph: ..." line and a --help hint are already written to
 * err), -ENOMEM (message written too). o need not be initialised. Unless
 * 0 is returned, o holds nothing to free; cli__free() is safe either way.
 */
int cli__parse(struct bg_opts *o, int argc, char **argv, FILE *err);
/*
 * The same for the options of a subcommand: argv[0] is its word, options
 * that do not apply to cmd are usage errors, and cmd's own rules are
 * checked (record: -o required; report: -i required, no -G).
 */
int cli__parse_cmd(struct bg_opts *o, enum bg_cmd cmd, int argc, char **argv, FILE *err);
void cli__free(struct bg_opts *o);
/* The --help text. */
void cli__usage(FILE *f);
/* cli__parse()'s result as main()'s exit status (BG_EXIT_*). */
int cli__exit_status(int parse_ret);

/* Number of tracefs option names -O accepts, and each one's name/flag. */
size_t cli__nr_trace_opts(void);
const char *cli__trace_opt_name(size_t i);
uint32_t cli__trace_opt_flag(size_t i);

/* "auto", "kprobe-multi", "fentry-multi", "fentry" or "kprobe". */
const char *cli__hook_name(enum bg_hook h);

static inline bool cli__cpu_isset(const struct bg_opts *o, unsigned int cpu)
{
	if (!o->nr_cpus)
		return true;
	if (cpu >= BG_MAX_CPUS)
		return false;
	return o->cpus[cpu / 64] & (1ULL << (cpu % 64));
}

#endif
