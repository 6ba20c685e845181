// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The value setters of the command-line options (cli_opts[].set): strict
 * number parsing with ranges, comma-separated lists (pids, CPUs, -O names,
 * --graph-opts words) and words (versions, globs, enum-like names). Each
 * one checks its argument and fills struct bg_opts, or writes one usage
 * error naming the option.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"
#include "render.h"

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
	return cli_usage_err(c->err, "invalid %s '%s': out of range %llu..%llu",
			     c->name, s, (unsigned long long)min,
			     (unsigned long long)max);
}

/* s as a number in min..max, or a usage error naming the option. */
static int number(struct cli_ctx *c, const char *s, uint64_t min,
		  uint64_t max, uint64_t *v)
{
	int err = parse_u64(s, v);

	if (err == -EINVAL)
		return cli_usage_err(c->err, "invalid %s '%s': not a number",
				     c->name, s);
	if (err || *v < min || *v > max)
		return range_err(c, s, min, max);
	return 0;
}

int cli_set_u32(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	uint64_t v;
	int err = number(c, arg, d->min, d->max, &v);

	if (!err)
		*(uint32_t *)((char *)c->o + d->off) = (uint32_t)v;
	return err;
}

int cli_set_thresh(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	uint64_t us;
	int err = number(c, arg, d->min, d->max, &us);

	if (!err)
		c->o->thresh_ns = us * 1000;
	return err;
}

/* "SECONDS[.FRACTION]" into *out in ms, at most millisecond precision, 0 if zero_ok. */
static int parse_seconds(struct cli_ctx *c, char *arg, uint64_t *out, bool zero_ok)
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
			return cli_usage_err(c->err, "invalid %s '%s': at most 3 decimals (milliseconds)",
					     c->name, arg);
		ms = ms * 10 + (uint64_t)(dot[i] - '0');
	}
	for (i = dot ? i : 1; i <= 3; i++)
		ms *= 10;
	if (err || s > BG_MAX_DURATION_S || (s == 0 && ms == 0 && !zero_ok) ||
	    s * 1000 + ms > BG_MAX_DURATION_S * 1000)
		return cli_usage_err(c->err, "invalid %s '%s': out of range %s..%llu",
				     c->name, arg, zero_ok ? "0" : "0.001", BG_MAX_DURATION_S);
	*out = s * 1000 + ms;
	return 0;
bad:
	return cli_usage_err(c->err, "invalid %s '%s': expected seconds, like 2 or 0.5",
			     c->name, arg);
}

int cli_set_duration(struct cli_ctx *c, const struct cli_opt *d __maybe_unused, char *arg)
{
	return parse_seconds(c, arg, &c->o->duration_ms, false);
}

int cli_set_wide_wait(struct cli_ctx *c, const struct cli_opt *d __maybe_unused, char *arg)
{
	return parse_seconds(c, arg, &c->o->wide_wait_ms, true);
}

/* "SIZE[K|M|G]": powers of two from 64K to 1G. */
/* A size like 8M (K, M, G suffixes) into *v, within d's range: 0 or a usage error. */
static int parse_size(struct cli_ctx *c, const struct cli_opt *d, const char *arg,
		      const char *range, uint64_t *v)
{
	char num[24];
	size_t len = strlen(arg);
	unsigned int shift = 0;
	int err;

	if (len && strchr("kKmMgG", arg[len - 1])) {
		shift = strchr("kK", arg[len - 1]) ? 10 :
			strchr("mM", arg[len - 1]) ? 20 : 30;
		len--;
	}
	if (len == 0 || len >= sizeof(num))
		return cli_usage_err(c->err, "invalid %s '%s': expected a size like 8M",
				     c->name, arg);
	memcpy(num, arg, len);
	num[len] = '\0';
	err = parse_u64(num, v);
	if (err == -EINVAL)
		return cli_usage_err(c->err, "invalid %s '%s': expected a size like 8M",
				     c->name, arg);
	if (err || *v > (d->max >> shift) || (*v << shift) < d->min)
		return cli_usage_err(c->err, "invalid %s '%s': out of range %s", c->name, arg,
				     range);
	*v <<= shift;
	return 0;
}

int cli_set_bufsize(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	uint64_t v;
	int err = parse_size(c, d, arg, "64K..1G", &v);

	if (err)
		return err;
	if (v & (v - 1))
		return cli_usage_err(c->err, "invalid %s '%s': not a power of two",
				     c->name, arg);
	c->o->buffer_size = (uint32_t)v;
	c->o->buffer_size_set = true;
	return 0;
}

int cli_set_wide_mem(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	return parse_size(c, d, arg, "0..64G", &c->o->wide_mem);
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
			return cli_usage_err(c->err, "invalid %s '%s': empty list element",
					     c->name, whole);
		if (len >= sizeof(item))
			return cli_usage_err(c->err, "invalid %s '%.*s': too long",
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
		return cli_usage_err(c->err, "too many pids (at most %d)", BG_MAX_PIDS);
	pids = realloc(o->pids, (o->nr_pids + 1) * sizeof(*pids));
	if (!pids)
		return cli_nomem(c->err);
	pids[o->nr_pids++] = (uint32_t)v;
	qsort(pids, o->nr_pids, sizeof(*pids), cmp_u32);
	o->pids = pids;
	return 0;
}

int cli_set_pids(struct cli_ctx *c, const struct cli_opt *d, char *arg)
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
			return cli_usage_err(c->err,
					     "invalid %s '%s-%s': range ends before it starts",
					     c->name, item, dash + 1);
	}
	for (; lo <= hi; lo++) {
		if (!(o->cpus[lo / 64] & (1ULL << (lo % 64))))
			o->nr_cpus++;
		o->cpus[lo / 64] |= 1ULL << (lo % 64);
	}
	return 0;
}

int cli_set_cpus(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	return for_each_item(c, d, arg, add_cpus);
}

static void join_trace_opt_names(char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < cli_nr_trace_opts && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
				       cli_trace_opts[i].name);
}

static const struct cli_trace_opt *find_trace_opt(const char *name)
{
	size_t i;

	for (i = 0; i < cli_nr_trace_opts; i++)
		if (!strcmp(cli_trace_opts[i].name, name))
			return &cli_trace_opts[i];
	return NULL;
}

/* "NAME" turns a tracefs option on, "noNAME" off. */
static int add_trace_opt(struct cli_ctx *c,
			 const struct cli_opt *d __maybe_unused, char *item)
{
	const struct cli_trace_opt *t = find_trace_opt(item);
	bool on = true;
	char names[512];

	if (!t && !strncmp(item, "no", 2)) {
		t = find_trace_opt(item + 2);
		on = false;
	}
	if (!t) {
		join_trace_opt_names(names, sizeof(names));
		return cli_usage_err(c->err, "unknown -O name '%s' (valid: %s)",
				     item, names);
	}
	if (on)
		c->o->flags |= t->flag;
	else
		c->o->flags &= ~t->flag;
	c->o->flags_set |= t->flag;
	return 0;
}

int cli_set_trace_opts(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	return for_each_item(c, d, arg, add_trace_opt);
}

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
	{ "args", GO_FLAGS, BG_O_ARGS, 0 },
	{ "retaddr", GO_FLAGS, BG_O_RETADDR, 0 },
};

#define NR_GRAPH_OPTS (sizeof(graph_opts) / sizeof(graph_opts[0]))

/* thresh=USEC and depth=N: checked exactly like -t and -D. */
static int graph_opt_value(struct cli_ctx *c, const struct graph_opt *g,
			   char *val)
{
	const struct cli_opt *d = cli_opt_by_key(g->kind == GO_THRESH ? 't' : 'D');
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
		return cli_usage_err(c->err, "unknown %s word '%s' (valid: %s)",
				     c->name, item, names);
	}
	if (g->kind == GO_UNSUPPORTED)
		return cli_usage_err(c->err, "%s '%s' is not supported yet", c->name,
				     item);
	if (g->kind != GO_FLAGS && !val)
		return cli_usage_err(c->err, "%s '%s' needs a value: %s=%s", c->name,
				     item, item, g->kind == GO_THRESH ? "USEC" : "N");
	if (g->kind != GO_FLAGS)
		return graph_opt_value(c, g, val);
	if (val)
		return cli_usage_err(c->err, "%s '%s' takes no value", c->name, item);
	c->o->flags = (c->o->flags | g->set) & ~g->clear;
	c->o->flags_set |= g->set | g->clear;
	return 0;
}

int cli_set_graph_opts(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	return for_each_item(c, d, arg, add_graph_opt);
}

/* ---- words ------------------------------------------------------------ */

int cli_set_format(struct cli_ctx *c,
		   const struct cli_opt *d __maybe_unused, char *arg)
{
	int f = render__parse_format(arg);

	if (f < 0)
		return cli_usage_err(c->err, "invalid %s '%s': expected text, json, chrome, folded, svg, stat or trace-cmd",
				     c->name, arg);
	c->o->format = (enum bg_format)f;
	return 0;
}

static const char *const hook_names[] = {
	[BG_HOOK_AUTO] = "auto", [BG_HOOK_KMULTI] = "kprobe-multi",
	[BG_HOOK_FENTRY] = "fentry", [BG_HOOK_KPROBE] = "kprobe",
	[BG_HOOK_TMULTI] = "fentry-multi", [BG_HOOK_KSESSION] = "kprobe-session",
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

int cli_set_hook(struct cli_ctx *c, const struct cli_opt *d __maybe_unused, char *arg)
{
	int i = name_index(hook_names, sizeof(hook_names) / sizeof(hook_names[0]), arg);

	if (i >= 0) {
		c->o->hook = (enum bg_hook)i;
		return 0;
	}
	return cli_usage_err(c->err, "invalid %s '%s': expected auto, kprobe-session, "
				     "kprobe-multi, fentry-multi, fentry or kprobe",
			     c->name, arg);
}

static const char *const locks_names[] = {
	[BG_LOCKS_AUTO] = "auto", [BG_LOCKS_HOOKED] = "hooked", [BG_LOCKS_CALLSITES] = "callsites",
};

int cli_set_locks(struct cli_ctx *c, const struct cli_opt *d __maybe_unused, char *arg)
{
	int i = name_index(locks_names, sizeof(locks_names) / sizeof(locks_names[0]), arg);

	if (i >= 0) {
		c->o->locks = (enum bg_locks)i;
		return 0;
	}
	return cli_usage_err(c->err, "invalid %s '%s': expected auto, hooked or callsites",
			     c->name, arg);
}

static const char *const wide_names[] = {
	[BG_WIDE_FIRST] = "first", [BG_WIDE_ALWAYS] = "always", [BG_WIDE_OFF] = "off",
	[BG_WIDE_FTRACE] = "ftrace", [BG_WIDE_SESSION] = "session",
};

int cli_set_wide(struct cli_ctx *c, const struct cli_opt *d __maybe_unused, char *arg)
{
	int i = name_index(wide_names, sizeof(wide_names) / sizeof(wide_names[0]), arg);

	if (i >= 0) {
		c->o->wide = (enum bg_wide)i;
		return 0;
	}
	return cli_usage_err(c->err, "invalid %s '%s': expected first, session, always, "
			     "off or ftrace",
			     c->name, arg);
}

int cli_set_kprobes(struct cli_ctx *c, const struct cli_opt *d __maybe_unused,
		    char *arg __maybe_unused)
{
	c->o->hook = BG_HOOK_KPROBE;
	return 0;
}

int cli_set_folded_weight(struct cli_ctx *c,
			  const struct cli_opt *d __maybe_unused, char *arg)
{
	if (strcmp(arg, "time") && strcmp(arg, "count"))
		return cli_usage_err(c->err, "invalid %s '%s': expected time or count", c->name,
				     arg);
	c->o->folded_count = !strcmp(arg, "count");
	return 0;
}

/* strings, fields, or both joined by ',' (either order, each once). */
int cli_set_args_detail(struct cli_ctx *c,
			const struct cli_opt *d __maybe_unused, char *arg)
{
	uint32_t flags = 0;
	const char *p = arg;

	for (;;) {
		size_t n = strcspn(p, ",");
		uint32_t f = n == 7 && !strncmp(p, "strings", 7) ? BG_O_DETAIL_STR :
			     n == 6 && !strncmp(p, "fields", 6)	 ? BG_O_DETAIL_FIELDS :
									   0;

		if (!f || (flags & f))
			return cli_usage_err(c->err, "invalid %s '%s': expected strings, fields "
					     "or strings,fields", c->name, arg);
		flags |= f;
		if (!p[n])
			break;
		p += n + 1;
	}
	c->o->flags = (c->o->flags & ~BG_O_DETAIL) | flags;
	c->o->flags_set |= BG_O_DETAIL;
	return 0;
}

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
int cli_set_compat(struct cli_ctx *c,
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
	else if (major == 6 && minor < 15)
		c->o->dialect = BG_DIALECT_6_13;
	else if (major == 6 && minor < 17)
		c->o->dialect = BG_DIALECT_6_15;
	else if (major == 6 && minor < 19)
		c->o->dialect = BG_DIALECT_6_17;
	else
		c->o->dialect = BG_DIALECT_6_19;
	c->o->dialect_set = true;
	return 0;
bad:
	return cli_usage_err(c->err,
			     "invalid %s '%s': expected a kernel version like 6.1, 6.5, 6.13 or 6.19",
			     c->name, arg);
}

/* Function names never start with '-': "-G -x foo" lost its GLOB. */
int cli_set_glob(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	struct bg_globs *g = (struct bg_globs *)((char *)c->o + d->off);
	char **v;

	if (!*arg || *arg == '-' || strpbrk(arg, " \t\n"))
		return cli_usage_err(c->err, "invalid %s '%s': expected a function name or glob",
				     c->name, arg);
	v = realloc(g->v, (g->n + 1) * sizeof(*v));
	if (!v)
		return cli_nomem(c->err);
	v[g->n++] = arg;
	g->v = v;
	return 0;
}

int cli_set_comm(struct cli_ctx *c,
		 const struct cli_opt *d __maybe_unused, char *arg)
{
	size_t len = strlen(arg);

	if (len == 0 || len >= BG_COMM_LEN)
		return cli_usage_err(c->err, "invalid %s '%s': 1 to %d characters",
				     c->name, arg, BG_COMM_LEN - 1);
	memcpy(c->o->comm, arg, len + 1);
	return 0;
}

int cli_set_output(struct cli_ctx *c,
		   const struct cli_opt *d __maybe_unused, char *arg)
{
	if (!*arg)
		return cli_usage_err(c->err, "invalid %s '': empty file name", c->name);
	c->o->output = strcmp(arg, "-") ? arg : NULL;
	return 0;
}

int cli_set_path(struct cli_ctx *c, const struct cli_opt *d, char *arg)
{
	if (!*arg)
		return cli_usage_err(c->err, "invalid %s '': empty file name", c->name);
	*(const char **)((char *)c->o + d->off) = arg;
	return 0;
}

int cli_set_flag(struct cli_ctx *c,
		 const struct cli_opt *d, char *arg __maybe_unused)
{
	*(bool *)((char *)c->o + d->off) = true;
	return 0;
}

int cli_set_verbose(struct cli_ctx *c,
		    const struct cli_opt *d __maybe_unused, char *arg __maybe_unused)
{
	c->o->verbosity++;
	return 0;
}
