// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Command-line parser. One table (cli_opts[]) drives getopt_long(), the
 * dispatch of each option to its setter and the --help text, so that the
 * parser and the help cannot disagree; test_docs.c holds the man page and
 * the completion script to the help text.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "render.h"

#ifndef __maybe_unused
#define __maybe_unused __attribute__((unused))
#endif

/* kernel/pid.h: PID_MAX_LIMIT is 4M on 64-bit, pids stay below it */
#define BG_PID_MAX 4194303ULL

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

/* cli_opt.cmds */
#define CM_TRACE (1U << BG_CMD_TRACE)
#define CM_RECORD (1U << BG_CMD_RECORD)
#define CM_REPORT (1U << BG_CMD_REPORT)
#define CM_TRACING (CM_TRACE | CM_RECORD)
#define CM_ALL (CM_TRACING | CM_REPORT)

/* Keys of long-only options: above any character getopt returns. */
enum {
	K_CALLEE_DEPTH = 256,
	K_MAX_FUNCS,
	K_GRAPH_OPTS,
	K_COMPAT,
	K_NO_HEADER,
	K_DRY_RUN,
	K_FORMAT,
	K_FOLDED_WEIGHT,
	K_TEE,
	K_NO_PAUSE,
	K_NO_CALLSITES,
	K_DISCOVER_IRQS,
	K_NO_DISCOVERY,
	K_KPROBES,
	K_HOOK,
	K_WIDE,
};

static int set_glob(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_u32(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_thresh(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_pids(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_cpus(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_comm(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_duration(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_trace_opts(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_graph_opts(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_compat(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_flag(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_output(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_verbose(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_bufsize(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_format(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_hook(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_kprobes(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_wide(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_folded_weight(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int set_input(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int do_help(struct cli_ctx *c, const struct cli_opt *d, char *arg);
static int do_version(struct cli_ctx *c, const struct cli_opt *d, char *arg);

#define OFF(field) offsetof(struct bg_opts, field)

static const struct cli_opt cli_opts[] = {
	{ "graph-function", 'G', "GLOB", G_SELECT, set_glob, OFF(graph), 0, 0,
	  "trace what runs inside GLOB (repeatable)" },
	{ "callee-depth", K_CALLEE_DEPTH, "N", G_SELECT, set_u32,
	  OFF(callee_depth), 0, BG_MAX_CALLEE_DEPTH,
	  "find callees N calls deep (default 3,\n0 = -G functions only)" },
	{ "allow", 'a', "GLOB", G_SELECT, set_glob, OFF(allow), 0, 0,
	  "trace these functions too (repeatable)" },
	{ "notrace", 'x', "GLOB", G_SELECT, set_glob, OFF(notrace), 0, 0,
	  "never trace these nor what they call\n(repeatable)" },
	{ "no-pause", K_NO_PAUSE, NULL, G_SELECT, set_flag, OFF(no_pause), 0, 0,
	  "let COMMAND run on while functions found\nwhile tracing are attached (default:\n"
	  "stop it meanwhile, so its next calls\nare complete)" },
	{ "no-callsite-probes", K_NO_CALLSITES, NULL, G_SELECT, set_flag,
	  OFF(no_callsites), 0, 0,
	  "do not trace __rcu_read_lock/unlock\n(no trampoline may hook them) by kprobes where\n"
	  "traced functions call them" },
	{ "discover-irqs", K_DISCOVER_IRQS, NULL, G_SELECT, set_flag,
	  OFF(discover_irqs), 0, 0,
	  "follow interrupt work too when finding\nfunctions while tracing (default: show\n"
	  "it as far as traced, attach nothing\nfor it)" },
	{ "no-discovery", K_NO_DISCOVERY, NULL, G_SELECT, set_flag, OFF(no_discovery),
	  0, 0,
	  "trace the planned functions only: no\nprobes on indirect calls, nothing\n"
	  "attached while tracing (cheapest for\nthe rest of the machine; calls through\n"
	  "pointers are missing)" },
	{ "hook", K_HOOK, "HOW", G_SELECT, set_hook, 0, 0, 0,
	  "how functions are hooked: auto (default:\nkprobe-multi where the kernel has it,\n"
	  "else fentry), kprobe-multi (one link\nfor all), fentry (a trampoline per\n"
	  "function) or kprobe (a kprobe and a\nkretprobe per function)" },
	{ "kprobes", K_KPROBES, NULL, G_SELECT, set_kprobes, 0, 0, 0,
	  "the same as --hook=kprobe" },
	{ "wide", K_WIDE, "WHEN", G_SELECT, set_wide, 0, 0, 0,
	  "hook every traceable function with one\nkprobe.session link (kernels that have\n"
	  "it): first (default: until the first\ntraced call returns, which is then\n"
	  "complete), always (every call complete;\nthe whole machine slower) or off" },
	{ "max-funcs", K_MAX_FUNCS, "N", G_SELECT, set_u32, OFF(max_funcs), 1,
	  BG_MAX_MAX_FUNCS, "refuse plans of more than N functions\n(default 2000)" },

	{ "max-depth", 'D', "N", G_FILTER, set_u32, OFF(max_depth), 0,
	  BG_MAX_DEPTH, "show N levels at most (0 = all, max 64)" },
	{ "thresh", 't', "USEC", G_FILTER, set_thresh, 0, 0, BG_MAX_THRESH_US,
	  "only calls that took USEC or longer" },
	{ "pid", 'p', "PID[,PID...]", G_FILTER, set_pids, 0, 1, BG_PID_MAX,
	  "only these threads (repeatable)" },
	{ "cpu", 'C', "LIST", G_FILTER, set_cpus, 0, 0, BG_MAX_CPUS - 1,
	  "only these CPUs, like 0-3,7" },
	{ "comm", 'n', "NAME", G_FILTER, set_comm, 0, 0, 0,
	  "only tasks called NAME (15 chars max)" },
	{ "duration", 'd', "SECONDS", G_FILTER, set_duration, 0, 0, 0,
	  "stop after SECONDS (0.5 is fine)" },

	{ "option", 'O', "[no]NAME[,...]", G_OUTPUT, set_trace_opts, 0, 0, 0,
	  "set function_graph options (below)", CM_ALL },
	{ "graph-opts", K_GRAPH_OPTS, "LIST", G_OUTPUT, set_graph_opts, 0, 0, 0,
	  "perf ftrace's: nosleep-time, noirqs,\n"
	  "verbose, thresh=USEC, depth=N, tail,\nretval, retval-hex", CM_ALL },
	{ "compat", K_COMPAT, "VERSION", G_OUTPUT, set_compat, 0, 0, 0,
	  "print as kernel VERSION does: 6.1,\n6.5 (default) or 6.13", CM_ALL },
	{ "no-header", K_NO_HEADER, NULL, G_OUTPUT, set_flag, OFF(no_header), 0,
	  0, "no \"# tracer\" header (like trace_pipe)", CM_ALL },
	{ "output", 'o', "FILE", G_OUTPUT, set_output, 0, 0, 0,
	  "write the trace to FILE, not stdout\n(record: the recording, required)", CM_ALL },
	{ "format", K_FORMAT, "NAME", G_OUTPUT, set_format, 0, 0, 0,
	  "text (default), json (JSON lines),\nchrome (Perfetto), folded (flame graphs),\n"
	  "svg (interactive flame graph)",
	  CM_ALL },
	{ "folded-weight", K_FOLDED_WEIGHT, "WHAT", G_OUTPUT, set_folded_weight, 0, 0,
	  0, "folded stacks and svg frames weigh self\ntime in ns (time, default) or calls (count)",
	  CM_ALL },
	{ "input", 'i', "FILE", G_OUTPUT, set_input, 0, 0, 0,
	  "report: the recording, or function_graph\ntext, to print", CM_REPORT },
	{ "tee", K_TEE, NULL, G_OUTPUT, set_flag, OFF(tee), 0, 0,
	  "record: print the trace on stdout too", CM_RECORD },

	{ "buffer-size", 'b', "SIZE", G_OTHER, set_bufsize, 0,
	  BG_MIN_BUFFER_SIZE, BG_MAX_BUFFER_SIZE,
	  "ring buffer size: a power of two,\n64K..1G (default 8M)" },
	{ "dry-run", K_DRY_RUN, NULL, G_OTHER, set_flag, OFF(dry_run), 0, 0,
	  "print the plan, attach nothing" },
	{ "verbose", 'v', NULL, G_OTHER, set_verbose, 0, 0, 0,
	  "more messages (-vv: also program runs and their\ntime per hook; -vvv: even more)", CM_ALL },
	{ "help", 'h', NULL, G_OTHER, do_help, 0, 0, 0, "print this help", CM_ALL },
	{ "version", 'V', NULL, G_OTHER, do_version, 0, 0, 0,
	  "print the version", CM_ALL },
};

#define NR_CLI_OPTS (sizeof(cli_opts) / sizeof(cli_opts[0]))

/* The tracefs option names of -O, in the order of the tracefs listing. */
static const struct trace_opt {
	const char *name;
	uint32_t flag;
	const char *help;
} trace_opts[] = {
	{ "funcgraph-cpu", BG_O_CPU, "CPU column" },
	{ "funcgraph-overhead", BG_O_OVERHEAD, "+ ! # * @ $ marks on long calls" },
	{ "funcgraph-proc", BG_O_PROC, "TASK/PID column" },
	{ "funcgraph-duration", BG_O_DURATION, "DURATION column" },
	{ "funcgraph-abstime", BG_O_ABSTIME, "TIME column" },
	{ "funcgraph-irqs", BG_O_IRQS, "show calls made in hard irqs" },
	{ "funcgraph-tail", BG_O_TAIL, "\"} /* func */\" on every close" },
	{ "funcgraph-retval", BG_O_RETVAL, "return values (6.5 and later)" },
	{ "funcgraph-retval-hex", BG_O_RETVAL_HEX, "return values in hex" },
	{ "sleep-time", BG_O_SLEEP_TIME, "durations count time asleep" },
	{ "graph-time", BG_O_GRAPH_TIME, "profiler only: no effect here" },
	{ "context-info", BG_O_CONTEXT_INFO, "column header, TIME/CPU/TASK" },
};

#define NR_TRACE_OPTS (sizeof(trace_opts) / sizeof(trace_opts[0]))

/* perf ftrace --graph-opts words. */
enum go_kind { GO_FLAGS, GO_THRESH, GO_DEPTH, GO_UNSUPPORTED };

static const struct graph_opt {
	const char *name;
	enum go_kind kind;
	uint32_t set, clear;
} graph_opts[] = {
	{ "nosleep-time", GO_FLAGS, 0, BG_O_SLEEP_TIME },
	{ "noirqs", GO_FLAGS, 0, BG_O_IRQS },
	/* perf also turns on latency-format: bpfgraph has no such columns */
	{ "verbose", GO_FLAGS, BG_O_PROC | BG_O_ABSTIME, 0 },
	{ "thresh", GO_THRESH, 0, 0 },
	{ "depth", GO_DEPTH, 0, 0 },
	{ "tail", GO_FLAGS, BG_O_TAIL, 0 },
	{ "retval", GO_FLAGS, BG_O_RETVAL, 0 },
	{ "retval-hex", GO_FLAGS, BG_O_RETVAL | BG_O_RETVAL_HEX, 0 },
	{ "args", GO_UNSUPPORTED, 0, 0 },
	{ "retaddr", GO_UNSUPPORTED, 0, 0 },
};

#define NR_GRAPH_OPTS (sizeof(graph_opts) / sizeof(graph_opts[0]))

static const struct {
	const char *word;
	enum bg_cmd cmd;
} subcmds[] = {
	{ "diff", BG_CMD_DIFF },
	{ "record", BG_CMD_RECORD },
	{ "report", BG_CMD_REPORT },
};

static const char *const group_titles[G_NR] = {
	"Selection", "Filters", "Output", "Other",
};

static const char usage_head[] =
	"Usage: bpfgraph [OPTIONS] -G FUNC [-G FUNC]... [-- COMMAND [ARG]...]\n"
	"       bpfgraph record [OPTIONS] -G FUNC... -o FILE [-- COMMAND [ARG]...]\n"
	"       bpfgraph report -i FILE [OUTPUT OPTIONS]\n"
	"       bpfgraph diff|record|report [ARG]...\n"
	"\n"
	"Trace the kernel functions called below FUNC with BPF fentry/fexit\n"
	"programs and print them the way ftrace's function_graph tracer does.\n";

static const char usage_examples[] =
	"Examples:\n"
	"  bpfgraph -G do_sys_openat2 -- cat /etc/hostname\n"
	"  bpfgraph -G tcp_sendmsg -D 5 -t 10 -d 2.5\n"
	"  bpfgraph -G vfs_read -x 'security_*' -p 1234,1235 -O funcgraph-proc\n"
	"  bpfgraph -G do_sys_openat2 --compat=6.1 -O nofuncgraph-irqs -o out.txt\n"
	"  bpfgraph -G 'ext4_*' --callee-depth=0 --dry-run\n"
	"  bpfgraph record -o t.bgr -G do_sys_openat2 -- cat /etc/hostname\n"
	"  bpfgraph report -i t.bgr --format=chrome -o t.json\n"
	"  bpfgraph report -i trace.txt --format=svg -o t.svg\n";

#define LEFT_W 27 /* width of the "-G, --graph-function=GLOB" column */
#define HELP_COL (2 + LEFT_W + 2)

__attribute__((format(printf, 2, 3))) static int
usage_err(FILE *err, const char *fmt, ...)
{
	va_list ap;

	fputs("bpfgraph: ", err);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputs("\nTry 'bpfgraph --help' for more information.\n", err);
	return -EINVAL;
}

static int nomem(FILE *err)
{
	fputs("bpfgraph: out of memory\n", err);
	return -ENOMEM;
}

/* ---- numbers ---------------------------------------------------------- */

/* Decimal digits only: no sign, no space, no base prefix, no suffix. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	return errno == ERANGE ? -ERANGE : 0;
}

static int range_err(struct cli_ctx *c, const char *s, uint64_t min,
		     uint64_t max)
{
	return usage_err(c->err, "invalid %s '%s': out of range %llu..%llu",
			 c->name, s, (unsigned long long)min,
			 (unsigned long long)max);
}

/* s as a number in min..max, or a usage error naming the option. */
static int number(struct cli_ctx *c, const char *s, uint64_t min,
		  uint64_t max, uint64_t *v)
{
	int err = parse_u64(s, v);

	if (err == -EINVAL)
		return usage_err(c->err, "invalid %s '%s': not a number",
				 c->name, s);
	if (err || *v < min || *v > max)
		return range_err(c, s, min, max);
	return 0;
}

static int set_u32(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	uint64_t v;
	int err = number(c, arg, d->min, d->max, &v);

	if (!err)
		*(uint32_t *)((char *)c->o + d->off) = (uint32_t)v;
	return err;
}

static int set_thresh(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	uint64_t us;
	int err = number(c, arg, d->min, d->max, &us);

	if (!err)
		c->o->thresh_ns = us * 1000;
	return err;
}

/* "SECONDS[.FRACTION]", at most millisecond precision, more than 0. */
static int set_duration(struct cli_ctx *c,
			const struct cli_opt *d __maybe_unused, char *arg)
{
	char ipart[24];
	const char *dot = strchr(arg, '.');
	size_t i, ilen = dot ? (size_t)(dot - arg) : strlen(arg);
	uint64_t s, ms = 0;
	int err;

	if (ilen == 0 || ilen >= sizeof(ipart) || (dot && !dot[1]))
		goto bad;
	memcpy(ipart, arg, ilen);
	ipart[ilen] = '\0';
	err = parse_u64(ipart, &s);
	if (err == -EINVAL)
		goto bad;
	for (i = 1; dot && dot[i]; i++) {
		if (dot[i] < '0' || dot[i] > '9')
			goto bad;
		if (i > 3)
			return usage_err(c->err, "invalid %s '%s': at most 3 decimals (milliseconds)",
					 c->name, arg);
		ms = ms * 10 + (uint64_t)(dot[i] - '0');
	}
	for (i = dot ? i : 1; i <= 3; i++)
		ms *= 10;
	if (err || s > BG_MAX_DURATION_S || (s == 0 && ms == 0) ||
	    s * 1000 + ms > BG_MAX_DURATION_S * 1000)
		return usage_err(c->err, "invalid %s '%s': out of range 0.001..%llu",
				 c->name, arg, BG_MAX_DURATION_S);
	c->o->duration_ms = s * 1000 + ms;
	return 0;
bad:
	return usage_err(c->err, "invalid %s '%s': expected seconds, like 2 or 0.5",
			 c->name, arg);
}

/* "SIZE[K|M|G]": powers of two from 64K to 1G. */
static int set_bufsize(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	char num[24];
	size_t len = strlen(arg);
	unsigned int shift = 0;
	uint64_t v;
	int err;

	if (len && strchr("kKmMgG", arg[len - 1])) {
		shift = strchr("kK", arg[len - 1]) ? 10 :
			strchr("mM", arg[len - 1]) ? 20 : 30;
		len--;
	}
	if (len == 0 || len >= sizeof(num))
		return usage_err(c->err, "invalid %s '%s': expected a size like 8M",
				 c->name, arg);
	memcpy(num, arg, len);
	num[len] = '\0';
	err = parse_u64(num, &v);
	if (err == -EINVAL)
		return usage_err(c->err, "invalid %s '%s': expected a size like 8M",
				 c->name, arg);
	if (err || v > (d->max >> shift) || (v << shift) < d->min)
		return usage_err(c->err, "invalid %s '%s': out of range 64K..1G",
				 c->name, arg);
	v <<= shift;
	if (v & (v - 1))
		return usage_err(c->err, "invalid %s '%s': not a power of two",
				 c->name, arg);
	c->o->buffer_size = (uint32_t)v;
	return 0;
}

static int set_format(struct cli_ctx *c,
		      const struct cli_opt *d __maybe_unused, char *arg)
{
	int f = render__parse_format(arg);

	if (f < 0)
		return usage_err(c->err, "invalid %s '%s': expected text, json, chrome, folded or svg",
				 c->name, arg);
	c->o->format = (enum bg_format)f;
	return 0;
}

static const char *const hook_names[] = {
	[BG_HOOK_AUTO] = "auto", [BG_HOOK_KMULTI] = "kprobe-multi",
	[BG_HOOK_FENTRY] = "fentry", [BG_HOOK_KPROBE] = "kprobe",
};

const char *cli__hook_name(enum bg_hook h)
{
	return (unsigned int)h < sizeof(hook_names) / sizeof(hook_names[0]) ? hook_names[h] : "?";
}

/* Index of arg in names[0..n), or -1: the values of an enum-like option. */
static int name_index(const char *const *names, size_t n, const char *arg)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && !strcmp(arg, names[i]))
			return (int)i;
	return -1;
}

static int set_hook(struct cli_ctx *c, const struct cli_opt *d __maybe_unused, char *arg)
{
	int i = name_index(hook_names, sizeof(hook_names) / sizeof(hook_names[0]), arg);

	if (i >= 0) {
		c->o->hook = (enum bg_hook)i;
		return 0;
	}
	return usage_err(c->err, "invalid %s '%s': expected auto, kprobe-multi, fentry or kprobe",
			 c->name, arg);
}

static const char *const wide_names[] = {
	[BG_WIDE_FIRST] = "first", [BG_WIDE_ALWAYS] = "always", [BG_WIDE_OFF] = "off",
};

static int set_wide(struct cli_ctx *c, const struct cli_opt *d __maybe_unused, char *arg)
{
	int i = name_index(wide_names, sizeof(wide_names) / sizeof(wide_names[0]), arg);

	if (i >= 0) {
		c->o->wide = (enum bg_wide)i;
		return 0;
	}
	return usage_err(c->err, "invalid %s '%s': expected first, always or off", c->name, arg);
}

static int set_kprobes(struct cli_ctx *c, const struct cli_opt *d __maybe_unused,
		       char *arg __maybe_unused)
{
	c->o->hook = BG_HOOK_KPROBE;
	return 0;
}

static int set_folded_weight(struct cli_ctx *c,
			     const struct cli_opt *d __maybe_unused, char *arg)
{
	if (strcmp(arg, "time") && strcmp(arg, "count"))
		return usage_err(c->err, "invalid %s '%s': expected time or count", c->name,
				 arg);
	c->o->folded_count = !strcmp(arg, "count");
	return 0;
}

static int set_input(struct cli_ctx *c,
		     const struct cli_opt *d __maybe_unused, char *arg)
{
	if (!*arg)
		return usage_err(c->err, "invalid %s '': empty file name", c->name);
	c->o->input = arg;
	return 0;
}

/* ---- lists ------------------------------------------------------------ */

typedef int (*item_fn)(struct cli_ctx *c, const struct cli_opt *d, char *item);

/* Calls fn for each element of a comma-separated list; none may be empty. */
static int for_each_item(struct cli_ctx *c, const struct cli_opt *d,
			 const char *list, item_fn fn)
{
	const char *whole = list;
	char item[64];
	size_t len;
	int err;

	for (;;) {
		len = strcspn(list, ",");
		if (len == 0)
			return usage_err(c->err, "invalid %s '%s': empty list element",
					 c->name, whole);
		if (len >= sizeof(item))
			return usage_err(c->err, "invalid %s '%.*s': too long",
					 c->name, (int)len, list);
		memcpy(item, list, len);
		item[len] = '\0';
		err = fn(c, d, item);
		if (err || !list[len])
			return err;
		list += len + 1;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int add_pid(struct cli_ctx *c, const struct cli_opt *d, char *item)
{
	struct bg_opts *o = c->o;
	uint32_t *pids;
	uint64_t v;
	int err = number(c, item, d->min, d->max, &v);

	if (err)
		return err;
	if (o->nr_pids && bsearch(&(uint32_t){ (uint32_t)v }, o->pids,
				  o->nr_pids, sizeof(*o->pids), cmp_u32))
		return 0;
	if (o->nr_pids == BG_MAX_PIDS)
		return usage_err(c->err, "too many pids (at most %d)", BG_MAX_PIDS);
	pids = realloc(o->pids, (o->nr_pids + 1) * sizeof(*pids));
	if (!pids)
		return nomem(c->err);
	pids[o->nr_pids++] = (uint32_t)v;
	qsort(pids, o->nr_pids, sizeof(*pids), cmp_u32);
	o->pids = pids;
	return 0;
}

static int set_pids(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	return for_each_item(c, d, arg, add_pid);
}

/* One element of a CPU list: "N" or "N-M". */
static int add_cpus(struct cli_ctx *c, const struct cli_opt *d, char *item)
{
	struct bg_opts *o = c->o;
	char *dash = strchr(item, '-');
	uint64_t lo, hi;
	int err;

	if (dash)
		*dash = '\0';
	err = number(c, item, d->min, d->max, &lo);
	if (err)
		return err;
	hi = lo;
	if (dash) {
		err = number(c, dash + 1, d->min, d->max, &hi);
		if (err)
			return err;
		if (hi < lo)
			return usage_err(c->err, "invalid %s '%s-%s': range ends before it starts",
					 c->name, item, dash + 1);
	}
	for (; lo <= hi; lo++) {
		if (!(o->cpus[lo / 64] & (1ULL << (lo % 64))))
			o->nr_cpus++;
		o->cpus[lo / 64] |= 1ULL << (lo % 64);
	}
	return 0;
}

static int set_cpus(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	return for_each_item(c, d, arg, add_cpus);
}

static void join_trace_opt_names(char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_TRACE_OPTS && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
				       trace_opts[i].name);
}

static const struct trace_opt *find_trace_opt(const char *name)
{
	size_t i;

	for (i = 0; i < NR_TRACE_OPTS; i++)
		if (!strcmp(trace_opts[i].name, name))
			return &trace_opts[i];
	return NULL;
}

/* "NAME" turns a tracefs option on, "noNAME" off. */
static int add_trace_opt(struct cli_ctx *c,
			 const struct cli_opt *d __maybe_unused, char *item)
{
	const struct trace_opt *t = find_trace_opt(item);
	bool on = true;
	char names[512];

	if (!t && !strncmp(item, "no", 2)) {
		t = find_trace_opt(item + 2);
		on = false;
	}
	if (!t) {
		join_trace_opt_names(names, sizeof(names));
		return usage_err(c->err, "unknown -O name '%s' (valid: %s)",
				 item, names);
	}
	if (on)
		c->o->flags |= t->flag;
	else
		c->o->flags &= ~t->flag;
	c->o->flags_set |= t->flag;
	return 0;
}

static int set_trace_opts(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	return for_each_item(c, d, arg, add_trace_opt);
}

static const struct cli_opt *opt_by_key(int key)
{
	size_t i;

	for (i = 0; i < NR_CLI_OPTS; i++)
		if (cli_opts[i].key == key)
			return &cli_opts[i];
	return NULL;
}

/* thresh=USEC and depth=N: checked exactly like -t and -D. */
static int graph_opt_value(struct cli_ctx *c, const struct graph_opt *g,
			   char *val)
{
	const struct cli_opt *d = opt_by_key(g->kind == GO_THRESH ? 't' : 'D');
	const char *name = c->name;
	int err;

	c->name = g->kind == GO_THRESH ? "--graph-opts thresh" :
					 "--graph-opts depth";
	err = d->set(c, d, val);
	c->name = name;
	return err;
}

static void join_graph_opt_names(char *buf, size_t len)
{
	static const char *const value[] = {
		[GO_THRESH] = "=USEC",
		[GO_DEPTH] = "=N",
	};
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_GRAPH_OPTS && at < len; i++) {
		if (graph_opts[i].kind == GO_UNSUPPORTED)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s%s",
				       at ? ", " : "", graph_opts[i].name,
				       value[graph_opts[i].kind] ?: "");
	}
}

static int add_graph_opt(struct cli_ctx *c,
			 const struct cli_opt *d __maybe_unused, char *item)
{
	char *val = strchr(item, '=');
	const struct graph_opt *g = NULL;
	char names[256];
	size_t i;

	if (val)
		*val++ = '\0';
	for (i = 0; i < NR_GRAPH_OPTS && !g; i++)
		if (!strcmp(graph_opts[i].name, item))
			g = &graph_opts[i];
	if (!g) {
		join_graph_opt_names(names, sizeof(names));
		return usage_err(c->err, "unknown %s word '%s' (valid: %s)",
				 c->name, item, names);
	}
	if (g->kind == GO_UNSUPPORTED)
		return usage_err(c->err, "%s '%s' is not supported yet", c->name,
				 item);
	if (g->kind != GO_FLAGS && !val)
		return usage_err(c->err, "%s '%s' needs a value: %s=%s", c->name,
				 item, item, g->kind == GO_THRESH ? "USEC" : "N");
	if (g->kind != GO_FLAGS)
		return graph_opt_value(c, g, val);
	if (val)
		return usage_err(c->err, "%s '%s' takes no value", c->name, item);
	c->o->flags = (c->o->flags | g->set) & ~g->clear;
	c->o->flags_set |= g->set | g->clear;
	return 0;
}

static int set_graph_opts(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	return for_each_item(c, d, arg, add_graph_opt);
}

/* ---- words ------------------------------------------------------------ */

/* 1 to 3 digits at *p; advances p. */
static int version_part(const char **p, unsigned int *v)
{
	unsigned int n = 0;

	for (*v = 0; **p >= '0' && **p <= '9' && n < 4; (*p)++, n++)
		*v = *v * 10 + (unsigned int)(**p - '0');
	return n >= 1 && n <= 3 ? 0 : -EINVAL;
}

/*
 * MAJOR.MINOR[.PATCH] with an optional "-..." or "+..." tail, so that
 * --compat=$(uname -r) works.
 */
static int set_compat(struct cli_ctx *c,
		      const struct cli_opt *d __maybe_unused, char *arg)
{
	const char *p = arg;
	unsigned int major, minor, patch;

	if (version_part(&p, &major) || major < 2 || *p++ != '.' ||
	    version_part(&p, &minor))
		goto bad;
	if (*p == '.' && (p++, version_part(&p, &patch)))
		goto bad;
	if (*p && *p != '-' && *p != '+')
		goto bad;
	if (major < 6 || (major == 6 && minor < 5))
		c->o->dialect = BG_DIALECT_6_1;
	else if (major == 6 && minor < 13)
		c->o->dialect = BG_DIALECT_6_5;
	else
		c->o->dialect = BG_DIALECT_6_13;
	c->o->dialect_set = true;
	return 0;
bad:
	return usage_err(c->err,
			 "invalid %s '%s': expected a kernel version like 6.1, 6.5 or 6.13",
			 c->name, arg);
}

/* Function names never start with '-': "-G -x foo" lost its GLOB. */
static int set_glob(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	struct bg_globs *g = (struct bg_globs *)((char *)c->o + d->off);
	char **v;

	if (!*arg || *arg == '-' || strpbrk(arg, " \t\n"))
		return usage_err(c->err, "invalid %s '%s': expected a function name or glob",
				 c->name, arg);
	v = realloc(g->v, (g->n + 1) * sizeof(*v));
	if (!v)
		return nomem(c->err);
	v[g->n++] = arg;
	g->v = v;
	return 0;
}

static int set_comm(struct cli_ctx *c,
		    const struct cli_opt *d __maybe_unused, char *arg)
{
	size_t len = strlen(arg);

	if (len == 0 || len >= BG_COMM_LEN)
		return usage_err(c->err, "invalid %s '%s': 1 to %d characters",
				 c->name, arg, BG_COMM_LEN - 1);
	memcpy(c->o->comm, arg, len + 1);
	return 0;
}

static int set_output(struct cli_ctx *c,
		      const struct cli_opt *d __maybe_unused, char *arg)
{
	if (!*arg)
		return usage_err(c->err, "invalid %s '': empty file name", c->name);
	c->o->output = strcmp(arg, "-") ? arg : NULL;
	return 0;
}

static int set_flag(struct cli_ctx *c,
		    const struct cli_opt *d, char *arg __maybe_unused)
{
	*(bool *)((char *)c->o + d->off) = true;
	return 0;
}

static int set_verbose(struct cli_ctx *c,
		       const struct cli_opt *d __maybe_unused, char *arg __maybe_unused)
{
	c->o->verbosity++;
	return 0;
}

static int do_help(struct cli_ctx *c __maybe_unused,
		   const struct cli_opt *d __maybe_unused, char *arg __maybe_unused)
{
	cli__usage(stdout);
	return 1;
}

static int do_version(struct cli_ctx *c __maybe_unused,
		      const struct cli_opt *d __maybe_unused, char *arg __maybe_unused)
{
	printf("bpfgraph %s\n", BG_VERSION);
	return 1;
}

/* ---- help ------------------------------------------------------------- */

static void print_help_lines(FILE *f, const char *help, int col)
{
	const char *nl;

	while ((nl = strchr(help, '\n'))) {
		fprintf(f, "%.*s\n%*s", (int)(nl - help), help, col, "");
		help = nl + 1;
	}
	fprintf(f, "%s\n", help);
}

static void print_opt(FILE *f, const struct cli_opt *d)
{
	char left[64];
	int n;

	if (d->key < 256)
		n = snprintf(left, sizeof(left), "-%c, --%s", d->key, d->name);
	else
		n = snprintf(left, sizeof(left), "    --%s", d->name);
	if (d->arg)
		snprintf(left + n, sizeof(left) - (size_t)n, "=%s", d->arg);
	if (strlen(left) > LEFT_W)
		fprintf(f, "  %s\n%*s", left, HELP_COL, "");
	else
		fprintf(f, "  %-*s  ", LEFT_W, left);
	print_help_lines(f, d->help, HELP_COL);
}

static void print_trace_opts(FILE *f)
{
	size_t i;
	int n;

	fputs("Names for -O (tracefs options; prefix \"no\" turns one off):\n", f);
	for (i = 0; i < NR_TRACE_OPTS; i++) {
		n = fprintf(f, "  %-22s%s", trace_opts[i].name, trace_opts[i].help);
		if (BG_O_DEFAULTS & trace_opts[i].flag)
			fprintf(f, "%*s[on]", n < 58 ? 58 - n : 1, "");
		fputc('\n', f);
	}
	fputs("--compat=6.1 drops funcgraph-retval; --graph-opts verbose has no\n"
	      "latency-format columns.\n", f);
}

void cli__usage(FILE *f)
{
	size_t i;
	int g;

	fputs(usage_head, f);
	for (g = 0; g < G_NR; g++) {
		fprintf(f, "\n%s:\n", group_titles[g]);
		for (i = 0; i < NR_CLI_OPTS; i++)
			if (cli_opts[i].group == (enum cli_group)g)
				print_opt(f, &cli_opts[i]);
		if (g == G_FILTER)
			fprintf(f, "  %-*s  %s\n%*s%s\n", LEFT_W, "-- COMMAND [ARG]...",
				"run COMMAND once attached, trace only",
				HELP_COL, "", "it, stop when it exits");
	}
	fputc('\n', f);
	print_trace_opts(f);
	fputc('\n', f);
	fputs(usage_examples, f);
}

/* ---- driver ----------------------------------------------------------- */

size_t cli__nr_trace_opts(void)
{
	return NR_TRACE_OPTS;
}

const char *cli__trace_opt_name(size_t i)
{
	return i < NR_TRACE_OPTS ? trace_opts[i].name : NULL;
}

uint32_t cli__trace_opt_flag(size_t i)
{
	return i < NR_TRACE_OPTS ? trace_opts[i].flag : 0;
}

int cli__exit_status(int parse_ret)
{
	if (parse_ret == -EINVAL)
		return BG_EXIT_USAGE;
	return parse_ret < 0 ? BG_EXIT_FAILURE : BG_EXIT_OK;
}

void cli__free(struct bg_opts *o)
{
	free(o->graph.v);
	free(o->allow.v);
	free(o->notrace.v);
	free(o->pids);
	memset(o, 0, sizeof(*o));
}

static void set_defaults(struct bg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cmd = BG_CMD_TRACE;
	o->callee_depth = BG_DEF_CALLEE_DEPTH;
	o->max_funcs = BG_DEF_MAX_FUNCS;
	o->flags = BG_O_DEFAULTS;
	o->dialect = BG_DEF_DIALECT;
	o->buffer_size = BG_DEF_BUFFER_SIZE;
}

/* getopt_long()'s tables, built from cli_opts[]. */
static void build_getopt(struct option *lo, char *so)
{
	size_t i;

	/* '+': stop at the first non-option (the command's own options);
	 * ':': report a missing argument as ':' and print nothing */
	*so++ = '+';
	*so++ = ':';
	for (i = 0; i < NR_CLI_OPTS; i++) {
		lo[i] = (struct option){ cli_opts[i].name,
					 cli_opts[i].arg ? required_argument :
							   no_argument,
					 NULL, cli_opts[i].key };
		if (cli_opts[i].key >= 256)
			continue;
		*so++ = (char)cli_opts[i].key;
		if (cli_opts[i].arg)
			*so++ = ':';
	}
	lo[i] = (struct option){ 0 };
	*so = '\0';
}

/* "--c" matches --callee-depth, --cpu, --comm and --compat. */
static bool ambiguous(const char *tok)
{
	size_t i, len = strcspn(tok, "=") - 2, hits = 0;

	for (i = 0; i < NR_CLI_OPTS; i++)
		hits += !strncmp(cli_opts[i].name, tok + 2, len);
	return hits > 1;
}

/* getopt_long() returned '?' or ':' for argv[optind - 1]. */
static int getopt_error(FILE *err, int ret, const char *tok)
{
	const struct cli_opt *d = opt_by_key(optopt);
	bool is_long = !strncmp(tok, "--", 2);

	if (ret == ':' && is_long)
		return usage_err(err, "option '--%s' requires an argument",
				 d ? d->name : tok + 2);
	if (ret == ':')
		return usage_err(err, "option '-%c' requires an argument", optopt);
	if (is_long && d)
		return usage_err(err, "option '--%s' doesn't allow an argument",
				 d->name);
	if (is_long && ambiguous(tok))
		return usage_err(err, "option '%.*s' is ambiguous", (int)strcspn(tok, "="),
				 tok);
	if (is_long)
		return usage_err(err, "unrecognized option '%.*s'",
				 (int)strcspn(tok, "="), tok);
	return usage_err(err, "invalid option -- '%c'", optopt);
}

static const char *cmd_word(enum bg_cmd cmd)
{
	for (size_t i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++)
		if (subcmds[i].cmd == cmd)
			return subcmds[i].word;
	return "tracing";
}

/* Returns 0 with *first at the first non-option, 1 (help), or -errno. */
static int parse_options(struct cli_ctx *c, int argc, char **argv, int *first)
{
	struct option lo[NR_CLI_OPTS + 1];
	char so[2 * NR_CLI_OPTS + 3];
	const struct cli_opt *d;
	char name[32];
	int key, err;

	build_getopt(lo, so);
	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
	while ((key = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (key == '?' || key == ':')
			return getopt_error(c->err, key, argv[optind - 1]);
		d = opt_by_key(key);
		if (!((d->cmds ?: CM_TRACING) & (1U << c->o->cmd)))
			return usage_err(c->err, "option '--%s' does not apply to %s", d->name,
					 cmd_word(c->o->cmd));
		snprintf(name, sizeof(name), "--%s", d->name);
		c->name = name;
		c->last_arg = optarg;
		err = d->set(c, d, optarg);
		c->name = "";
		if (err)
			return err;
	}
	*first = optind;
	return 0;
}

/* What is left after the options: nothing, or "-- COMMAND [ARG]...". */
static int take_command(struct cli_ctx *c, int argc, char **argv, int first,
			bool dashdash)
{
	if (first >= argc && !dashdash)
		return 0;
	if (!dashdash)
		return usage_err(c->err,
				 "unexpected argument '%s' (a COMMAND goes after --)",
				 argv[first]);
	if (first >= argc)
		return usage_err(c->err, "missing COMMAND after --");
	c->o->command = argv + first;
	c->o->command_argc = argc - first;
	return 0;
}

/* 6.1 has no funcgraph-retval: off by default there, an error if asked. */
static int check_retval_dialect(struct cli_ctx *c)
{
	struct bg_opts *o = c->o;
	uint32_t asked = o->flags & o->flags_set;

	if (o->dialect != BG_DIALECT_6_1)
		return 0;
	if (asked & (BG_O_RETVAL | BG_O_RETVAL_HEX))
		return usage_err(c->err,
				 "%s does not exist before 6.5; use --compat=6.5 or later",
				 asked & BG_O_RETVAL ? "funcgraph-retval" :
						       "funcgraph-retval-hex");
	o->flags &= ~(BG_O_RETVAL | BG_O_RETVAL_HEX);
	return 0;
}

/* Conflicts between options, checked once everything is known. */
static int check_conflicts(struct cli_ctx *c)
{
	struct bg_opts *o = c->o;

	if (o->cmd == BG_CMD_REPORT) {
		if (!o->input)
			return usage_err(c->err, "report needs the recording: -i FILE");
		if (o->command_argc)
			return usage_err(c->err, "report runs no COMMAND");
		return check_retval_dialect(c);
	}
	if (o->cmd == BG_CMD_RECORD && !o->output)
		return usage_err(c->err, "record needs a file to write: -o FILE");
	if (!o->graph.n)
		return usage_err(c->err, "no entry function: use -G FUNC");
	if (o->nr_pids && o->command_argc)
		return usage_err(c->err,
				 "-p/--pid and a COMMAND exclude each other: the COMMAND is what gets traced");
	return check_retval_dialect(c);
}

static bool subcommand(struct bg_opts *o, int argc, char **argv)
{
	size_t i;

	for (i = 0; argc > 1 && i < sizeof(subcmds) / sizeof(subcmds[0]); i++) {
		if (strcmp(argv[1], subcmds[i].word))
			continue;
		o->cmd = subcmds[i].cmd;
		o->sub_argv = argv + 1;
		o->sub_argc = argc - 1;
		return true;
	}
	return false;
}

static int parse_cmd(struct bg_opts *o, int argc, char **argv, FILE *err)
{
	struct cli_ctx c = { .o = o, .err = err, .name = "" };
	bool dashdash;
	int first, ret;

	ret = parse_options(&c, argc, argv, &first);
	if (ret)
		goto out;
	/* "-o --" took "--" as its argument: that is no separator */
	dashdash = first > 1 && !strcmp(argv[first - 1], "--") &&
		   argv[first - 1] != c.last_arg;
	ret = take_command(&c, argc, argv, first, dashdash);
	if (!ret)
		ret = check_conflicts(&c);
out:
	if (ret)
		cli__free(o); /* help, version or error: nothing to keep */
	return ret;
}

int cli__parse(struct bg_opts *o, int argc, char **argv, FILE *err)
{
	set_defaults(o);
	if (subcommand(o, argc, argv))
		return 0;
	return parse_cmd(o, argc, argv, err);
}

int cli__parse_cmd(struct bg_opts *o, enum bg_cmd cmd, int argc, char **argv, FILE *err)
{
	set_defaults(o);
	o->cmd = cmd;
	return parse_cmd(o, argc, argv, err);
}
