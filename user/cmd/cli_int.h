/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the parts of the command-line parser share: the option table's
 * layout, the parse context the setters fill, and the setters themselves.
 * cli.c holds the tables and the parse driver, cli_values.c the value
 * setters, cli_help.c the --help text. Not for use outside user/cli*.c.
 */
#ifndef BG_CLI_INT_H
#define BG_CLI_INT_H

#include "cli.h"

#ifndef __maybe_unused
#define __maybe_unused __attribute__((unused))
#endif

struct cli_ctx {
	struct bg_opts *o;
	FILE *err;
	const char *name; /* how errors name the option: "--max-depth" */
	const char *last_arg; /* optarg of the last option */
};

struct cli_opt;
typedef int (*cli_set_fn)(struct cli_ctx *c, const struct cli_opt *d,
			  char *arg);

enum cli_group { G_SELECT, G_FILTER, G_OUTPUT, G_OTHER, G_NR };

struct cli_opt {
	const char *name; /* long name */
	int key; /* short option, or K_* for long-only options */
	const char *arg; /* argument name in --help; NULL: takes none */
	enum cli_group group;
	cli_set_fn set;
	size_t off; /* numeric and glob options: the bg_opts field */
	uint64_t min, max; /* numeric options: accepted range */
	const char *help; /* '\n' continues on the next help line */
	unsigned int cmds; /* CM_*: where it applies; 0 = tracing (CM_TRACING) */
};

/*
 * The key of --inherit, a long-only option another tool's letter (-c,
 * cli_others.c) stands for: between cli.c's K_* and cli_others.c's.
 */
#define K_INHERIT 400

/* cli_opt.cmds */
#define CM_TRACE (1U << BG_CMD_TRACE)
#define CM_RECORD (1U << BG_CMD_RECORD)
#define CM_REPORT (1U << BG_CMD_REPORT)
#define CM_TRACING (CM_TRACE | CM_RECORD)
#define CM_ALL (CM_TRACING | CM_REPORT)

/* The option table (cli.c): one entry per option, in --help order. */
extern const struct cli_opt cli_opts[];
extern const size_t cli_nr_opts;

/* The names -O accepts (cli.c): each one's BG_O_* flag and --help line. */
struct cli_trace_opt {
	const char *name;
	uint32_t flag;
	const char *help;
};

extern const struct cli_trace_opt cli_trace_opts[];
extern const size_t cli_nr_trace_opts;

/*
 * Other tools' options (cli_others.c): an alias of one of bpfgraph's
 * (alias: its key), or a hint answered as a usage error.
 */
struct cli_other {
	const char *name; /* long name, NULL: a short option only */
	int key; /* its short letter, or a key of its own (>= 512) */
	const char *arg; /* aliases: the argument's name in --help; NULL: none */
	int alias; /* key of the bpfgraph option it means; 0: hint */
	const char *tool; /* aliases: whose spelling it is */
	const char *hint; /* the rest: the usage error */
};

extern const struct cli_other cli_others[];
extern const size_t cli_nr_others;
const struct cli_other *cli_other_by_key(int key);
/* The --help section listing them. */
void cli_others_usage(FILE *f);

/*
 * A usage error: "bpfgraph: <message>" and a --help hint on err. Returns
 * -EINVAL, main()'s cue for BG_EXIT_USAGE.
 */
__attribute__((format(printf, 2, 3))) int cli_usage_err(FILE *err,
							const char *fmt, ...);
/* "bpfgraph: out of memory" on err; returns -ENOMEM. */
int cli_nomem(FILE *err);
/* The table entry of the option getopt_long() returns as key, or NULL. */
const struct cli_opt *cli_opt_by_key(int key);

/*
 * The setters of cli_opt.set: 0, or -errno with the message written.
 * cli_values.c holds the cli_set_*(), cli_help.c --help and --version
 * (they return 1: print nothing more, exit 0).
 */
int cli_set_glob(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_u32(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_thresh(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_pids(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_cpus(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_comm(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_duration(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_wide_wait(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_trace_opts(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_graph_opts(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_compat(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_flag(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_output(struct cli_ctx *c, const struct cli_opt *d, char *arg);
/* A file name (not empty) into the const char * at d->off. */
int cli_set_path(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_verbose(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_bufsize(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_wide_mem(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_format(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_hook(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_kprobes(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_wide(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_locks(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_folded_weight(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_set_args_detail(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_do_help(struct cli_ctx *c, const struct cli_opt *d, char *arg);
int cli_do_version(struct cli_ctx *c, const struct cli_opt *d, char *arg);

#endif
