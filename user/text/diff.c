// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph diff: see diff.h for what is compared. Both sides are built
 * from graph events the same way (diff__feed), so text read by fgtext
 * and record files replayed through the graph builder compare alike.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "diff_int.h"
#include "fgtext.h"
#include "input.h"
#include "record.h"
#include "tcdat.h"

/* --- comparing ----------------------------------------------------------- */

static double ratio_or_one(size_t num, size_t den)
{
	return den ? (double)num / (double)den : 1.0;
}

int diff__compare(struct diff *d, FILE *out, struct diff_stats *st)
{
	struct side *A = &d->s[DIFF_A], *B = &d->s[DIFF_B];
	int err;

	memset(&d->st, 0, sizeof(d->st));
	d->st.read[DIFF_A] = A->read;
	d->st.read[DIFF_B] = B->read;
	err = diff_collect_invs(d, A, DIFF_A);
	if (!err)
		err = diff_collect_invs(d, B, DIFF_B);
	if (!err)
		err = diff_pair_all(d);
	for (size_t i = 0; !err && i < A->ninvs; i++) {
		if (A->inv[i].pair != NONE)
			err = diff_compare_pair(d, &A->inv[i], &B->inv[A->inv[i].pair]);
		else
			err = diff_unpaired(d, DIFF_A, &A->inv[i]);
	}
	for (size_t j = 0; !err && j < B->ninvs; j++)
		if (B->inv[j].pair == NONE)
			err = diff_unpaired(d, DIFF_B, &B->inv[j]);
	if (!err)
		err = diff_durations(d);
	if (err)
		return err;
	for (size_t i = 0; i < d->names.n; i++) {
		if (!d->dur[i].count[0] || !d->dur[i].count[1])
			continue;
		d->st.dur_funcs++;
		d->st.dur_changed += diff_dur_changed(d, &d->dur[i]);
	}
	d->st.recall = ratio_or_one(d->st.matched, d->st.calls[DIFF_A]);
	d->st.precision = ratio_or_one(d->st.matched, d->st.calls[DIFF_B]);
	if (st)
		*st = d->st;
	return out ? diff_report(d, out) : 0;
}

/* --- object ---------------------------------------------------------------- */

struct diff *diff__new(const struct diff_opts *opts)
{
	struct diff *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->o = *opts;
	if (d->o.ratio <= 1)
		d->o.ratio = DIFF_DEF_RATIO;
	d->s[DIFF_A].name = "A";
	d->s[DIFF_B].name = "B";
	return d;
}

static void side_free(struct side *sd)
{
	for (size_t i = 0; i < BG_MAX_CPUS; i++) {
		if (sd->ctx[i])
			diff_ctx_free(sd->ctx[i]);
		free(sd->ctx[i]);
	}
	for (size_t i = 0; i < sd->npark; i++)
		diff_ctx_free(&sd->park[i].ctx);
	for (size_t i = 0; i < sd->ninvs; i++) {
		free(sd->inv[i].nodes);
		free(sd->inv[i].sym);
		free(sd->inv[i].bsym);
		free(sd->inv[i].bpos);
	}
	free(sd->inv);
	free(sd->park);
	free(sd->node);
	free(sd->inv_root);
}

void diff__free(struct diff *d)
{
	if (!d)
		return;
	side_free(&d->s[DIFF_A]);
	side_free(&d->s[DIFF_B]);
	for (size_t i = 0; i < d->names.n; i++)
		free(d->names.s[i]);
	free(d->names.s);
	free(d->names.flags);
	free(d->names.slot);
	free(d->only[0].v);
	free(d->only[1].v);
	free(d->moved.v);
	free(d->dur);
	free(d);
}

/* --- reading text ----------------------------------------------------------- */

struct feed_ctx {
	struct diff *d;
	int side;
};

static int feed_text(void *ctx, const struct fgtext_ev *e, const struct functab *ft)
{
	struct feed_ctx *fc = ctx;

	if (e->kind != FGT_EVENT)
		return 0;
	return diff__feed(fc->d, fc->side, &e->ev, ft, e->line);
}

int diff__read_text(struct diff *d, int side, FILE *in, const char *name, FILE *err)
{
	struct feed_ctx fc = { .d = d, .side = side };
	struct fgtext_opts o = { .emit = feed_text, .ctx = &fc, .name = name,
				 .lenient = !d->o.strict, .warn = err,
				 .prefix = "bpfgraph diff: " };
	struct fgtext *r = fgtext__new(&o);
	const char *msg;
	uint32_t line;
	int ret;

	d->s[side].name = name;
	if (!r) {
		ret = -errno;
		if (err)
			fprintf(err, "bpfgraph diff: %s: %s\n", name, strerror(-ret));
		return ret;
	}
	ret = fgtext__read(r, in);
	msg = fgtext__error(r, &line);
	if (ret && err && msg && line)
		fprintf(err, "bpfgraph diff: %s:%u: %s\n", name, line, msg);
	else if (ret && err)
		fprintf(err, "bpfgraph diff: %s: %s\n", name, msg ? msg : strerror(-ret));
	fgtext__free(r);
	return ret;
}

/* --- reading a record file -------------------------------------------------- */

struct rec_feed {
	struct diff *d;
	int side;
	const struct functab *ft; /* the reader's, growing as records come */
	int err; /* the first diff__feed() error: the graph builder's sink has no return */
};

static void feed_gev(void *ctx, const struct gev *ev)
{
	struct rec_feed *f = ctx;

	if (!f->err)
		f->err = diff__feed(f->d, f->side, ev, f->ft, 0);
}

/* Lost records leave calls out or misnested: the comparison is not of the whole run. */
static void warn_drops(const struct record_info *in, const char *name, FILE *err)
{
	if (in->trailer.drops)
		fprintf(err, "bpfgraph diff: %s: the recording dropped %" PRIu64 " records: its "
			"graph may miss calls or nest them wrongly\n", name, in->trailer.drops);
}

int diff__read_record(struct diff *d, int side, const char *path, const char *name, FILE *err)
{
	struct rec_feed f = { .d = d, .side = side };
	struct record_reader *rr = record__open(path, err);
	struct graph *g;
	struct rec_sink sink;
	int ret;

	d->s[side].name = name;
	if (!rr)
		return errno ? -errno : -EINVAL; /* said on err */
	f.ft = &record__info(rr)->funcs;
	g = graph__new(&(struct graph_opts){ .funcs = f.ft, .sink = { feed_gev, &f } });
	if (!g) {
		record__close_reader(rr);
		fprintf(err, "bpfgraph diff: %s: %s\n", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	sink = graph__sink(g);
	ret = record__replay(rr, &sink); /* its problems are said on err */
	if (!ret && f.err) {
		ret = f.err;
		fprintf(err, "bpfgraph diff: %s: %s\n", name, strerror(-ret));
	}
	if (!ret)
		warn_drops(record__info(rr), name, err);
	graph__free(g);
	record__close_reader(rr);
	return ret;
}

static int tcdat_lost(void *ctx, uint32_t cpu, uint64_t count)
{
	return graph__lost(ctx, cpu, count);
}

/* A trace-cmd data file (tcdat.h), through the graph builder like a record file. */
static int read_tcdat(struct diff *d, int side, FILE *f, const char *name, FILE *err)
{
	struct rec_feed fd = { .d = d, .side = side };
	struct tcdat *r = tcdat__open(f, name, "bpfgraph diff", err);
	struct graph *g;
	int ret;

	d->s[side].name = name;
	if (!r)
		return errno ? -errno : -EINVAL; /* said on err */
	fd.ft = tcdat__funcs(r);
	g = graph__new(&(struct graph_opts){ .funcs = fd.ft, .sink = { feed_gev, &fd } });
	if (!g) {
		tcdat__close(r);
		fprintf(err, "bpfgraph diff: %s: %s\n", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = tcdat__replay(r, &(struct tcdat_sink){ graph__sink(g), tcdat_lost, g });
	if (!ret && fd.err) {
		ret = fd.err;
		fprintf(err, "bpfgraph diff: %s: %s\n", name, strerror(-ret));
	}
	graph__free(g);
	tcdat__close(r);
	return ret;
}

/* --- command line ---------------------------------------------------------- */

static const char usage_text[] =
	"Usage: bpfgraph diff [OPTIONS] A B\n"
	"\n"
	"Compare two function graphs: A, the reference (the kernel's own\n"
	"function_graph, say), and B. Each is function_graph text of any\n"
	"dialect (the tracefs trace or trace_pipe file, perf ftrace, perf-tools\n"
	"funcgraph or bpfgraph output), a bpfgraph record file or a trace-cmd\n"
	"data file (trace.dat), told apart by their first bytes; - reads\n"
	"standard input.\n"
	"Invocations of the same depth-0 function are paired, A with the B that\n"
	"shares most call lines with it (a call line is a function at a depth);\n"
	"the calls only in A, only in B, moved to another parent, and the\n"
	"duration changes per function are listed, then one summary line:\n"
	"  recall R precision P (A: N calls in I invocations, B: N calls in I invocations)\n"
	"recall = call lines of A found in B / A's call lines, precision = the\n"
	"same / B's call lines.\n"
	"\n"
	"Options:\n"
	"      --root=FUNC       compare only the invocations of FUNC, a glob\n"
	"                        (default: every depth-0 function)\n"
	"      --ignore=GLOB     drop these functions and what they call before\n"
	"                        comparing (repeatable)\n"
	"      --last=N          compare only the last N invocations of each side\n"
	"                        (the warm ones, after a first call that loaded\n"
	"                        caches or let bpfgraph find functions)\n"
	"      --skip-last=N     leave out the last N invocations of each side\n"
	"                        first (with --last: compare the ones before them)\n"
	"      --max-lines=N     list at most N differences of each kind (default 20)\n"
	"      --ratio=R         count a function whose mean duration grew or shrank\n"
	"                        R times or more as changed (default 2)\n"
	"      --one-task        each file traced one task (a pid filter): follow\n"
	"                        its calls across CPUs, ignore context switch banners\n"
	"      --strict          refuse text with a damaged line, as a capture cut\n"
	"                        short has (default: skip it with a warning)\n"
	"  -q, --quiet           print only the summary line\n"
	"  -h, --help            print this help and exit\n"
	"\n"
	"Exit status: 0 when compared, whatever the differences; 1 when a file\n"
	"cannot be read or parsed, or A or B has no call to compare (none at\n"
	"all, or none left by --root, --ignore, --last, --skip-last); 2 on\n"
	"usage errors.\n"
	"\n"
	"Examples:\n"
	"  bpfgraph diff --ignore='irq_*' oracle.txt bpfgraph.txt\n"
	"  bpfgraph diff -q --root=do_sys_openat2 trace.txt out.txt\n";

void diff__usage(FILE *f)
{
	fputs(usage_text, f);
}

enum { OPT_ROOT = 256, OPT_IGNORE, OPT_MAX_LINES, OPT_RATIO, OPT_LAST, OPT_SKIP_LAST,
       OPT_ONE_TASK, OPT_STRICT };

static const struct option long_opts[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "ignore", required_argument, NULL, OPT_IGNORE },
	{ "max-lines", required_argument, NULL, OPT_MAX_LINES },
	{ "last", required_argument, NULL, OPT_LAST },
	{ "skip-last", required_argument, NULL, OPT_SKIP_LAST },
	{ "ratio", required_argument, NULL, OPT_RATIO },
	{ "one-task", no_argument, NULL, OPT_ONE_TASK },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{},
};

struct diff_cmd {
	struct diff_opts o;
	char **ignore;
	const char *path[2];
};

static __attribute__((format(printf, 1, 2))) int usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs("bpfgraph diff: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'bpfgraph diff --help' for more information.\n", stderr);
	return -EINVAL;
}

static bool is_digit_str(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* --NAME=N, a count from min to 1000000, into *out. */
static int parse_count(const char *name, const char *arg, size_t min, size_t *out)
{
	char *end;

	errno = 0;
	*out = strtoul(arg, &end, 10);
	if (!is_digit_str(arg) || *end || errno || *out < min || *out > 1000000)
		return usage_err("invalid --%s '%s': a number from %zu to 1000000", name, arg, min);
	return 0;
}

static int parse_value(struct diff_cmd *c, int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case OPT_ROOT:
		c->o.root = arg;
		return 0;
	case OPT_ONE_TASK:
		c->o.one_task = true;
		return 0;
	case OPT_STRICT:
		c->o.strict = true;
		return 0;
	case OPT_IGNORE: {
		char **v = realloc(c->ignore, (c->o.n_ignore + 1) * sizeof(*v));

		if (!v) {
			fprintf(stderr, "bpfgraph diff: failed to add --ignore '%s': %s\n", arg,
				strerror(ENOMEM));
			return -ENOMEM;
		}
		c->ignore = v;
		v[c->o.n_ignore++] = (char *)arg;
		c->o.ignore = v;
		return 0;
	}
	case OPT_MAX_LINES:
		return parse_count("max-lines", arg, 0, &c->o.max_lines);
	case OPT_LAST:
		return parse_count("last", arg, 1, &c->o.last);
	case OPT_SKIP_LAST:
		return parse_count("skip-last", arg, 0, &c->o.skip_last);
	case OPT_RATIO:
		errno = 0;
		c->o.ratio = strtod(arg, &end);
		if (*end || errno || !(c->o.ratio > 1) || !isfinite(c->o.ratio) ||
		    !(arg[0] >= '0' && arg[0] <= '9'))
			return usage_err("invalid --ratio '%s': a number greater than 1", arg);
		return 0;
	}
	return -EINVAL;
}

/* 0 to go on, 1 after --help, -EINVAL on usage errors (message written). */
static int parse_args(struct diff_cmd *c, int argc, char **argv)
{
	int opt, err;

	c->o.max_lines = DIFF_DEF_MAX_LINES;
	c->o.ratio = DIFF_DEF_RATIO;
	optind = 0; /* GNU: start over, tests call this more than once */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":qh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			c->o.quiet = true;
			break;
		case 'h':
			diff__usage(stdout);
			return 1;
		case ':':
			return usage_err("option '%s' needs a value", argv[optind - 1]);
		case '?':
			return usage_err("unknown option '%s'", argv[optind - 1]);
		default:
			err = parse_value(c, opt, optarg);
			if (err)
				return err;
		}
	}
	if (argc - optind != 2)
		return usage_err(argc - optind < 2 ? "two files to compare are needed" :
						     "too many files: only A and B are compared");
	c->path[0] = argv[optind];
	c->path[1] = argv[optind + 1];
	if (!strcmp(c->path[0], "-") && !strcmp(c->path[1], "-"))
		return usage_err("only one of A and B can be standard input");
	return 0;
}

/* path ("-": standard input), a record file, a trace-cmd file or text, into side. */
static int read_side(struct diff *d, int side, const char *path)
{
	struct input in;
	int err = input__open(&in, path, "bpfgraph diff");

	if (!err && in.record)
		err = diff__read_record(d, side, input__record_path(&in), in.name, stderr);
	else if (!err && in.tcdat)
		err = read_tcdat(d, side, in.f, in.name, stderr);
	else if (!err)
		err = diff__read_text(d, side, in.f, in.name, stderr);
	input__close(&in);
	return err;
}

/*
 * A side with no call to compare fails the comparison: recall over no
 * call is 1.000, which a check on it would pass for a capture that
 * failed. One message per side says which, and why.
 */
static bool nothing_to_compare(const struct diff_cmd *c, const struct diff_stats *st)
{
	bool none = false;

	for (int i = 0; i < 2; i++) {
		const char *name = strcmp(c->path[i], "-") ? c->path[i] : "<stdin>";

		if (!st->read[i])
			fprintf(stderr, "bpfgraph diff: %s: no function call in it, nothing to "
				"compare (an empty or failed capture?)\n", name);
		else if (!st->invocations[i])
			fprintf(stderr, "bpfgraph diff: %s: no call at depth 0 to compare%s%s%s%s\n",
				name, c->o.root || c->o.n_ignore || c->o.skip_last ? " with" : "",
				c->o.root ? " --root" : "", c->o.n_ignore ? " --ignore" : "",
				c->o.skip_last ? " --skip-last" : "");
		none |= !st->invocations[i];
	}
	return none;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_stats st;
	struct diff_cmd c = {};
	struct diff *d = NULL;
	int err;

	err = parse_args(&c, argc, argv);
	if (err) {
		free(c.ignore);
		return err > 0 ? BG_EXIT_OK : err == -ENOMEM ? BG_EXIT_FAILURE : BG_EXIT_USAGE;
	}
	d = diff__new(&c.o);
	if (!d) {
		err = -ENOMEM;
		fprintf(stderr, "bpfgraph diff: out of memory\n");
		goto cleanup;
	}
	/* read_side() said what failed */
	err = read_side(d, DIFF_A, c.path[0]);
	if (!err)
		err = read_side(d, DIFF_B, c.path[1]);
	if (err)
		goto cleanup;
	err = diff__compare(d, NULL, &st);
	if (!err && nothing_to_compare(&c, &st)) {
		err = -ENODATA;
		goto cleanup;
	}
	if (!err)
		err = diff_report(d, stdout);
	if (!err && fflush(stdout))
		err = -EIO;
	if (err)
		fprintf(stderr, "bpfgraph diff: %s\n", strerror(-err));
cleanup:
	diff__free(d);
	free(c.ignore);
	return err ? BG_EXIT_FAILURE : BG_EXIT_OK;
}
