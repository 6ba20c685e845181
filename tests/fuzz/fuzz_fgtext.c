// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for the function_graph text reader: the input is a
 * text file. It is read into a document, written back, and its events go
 * to the writer of one of the formats, as "bpfgraph report" of a text
 * does. Besides crashes, leaks and UB (the sanitizers), it checks the
 * reader's promises: an error is one "name:line: problem" line with the
 * line of the error, lenient reading does not fail and names the lines it
 * skips on one line each (at most FGTEXT_MAX_WARN, then a count), a
 * document without recovered or dropped lines is written back byte for
 * byte, and the arguments and return addresses of calls come from their
 * lines.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgtext.h"
#include "render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

static void die(const char *what)
{
	fprintf(stderr, "fuzz_fgtext: %s\n", what);
	abort();
}

/* One line "fuzz:N: problem\n", N the line fgtext__load() reported. */
static void check_error(const char *msg, size_t len, int err, uint32_t line)
{
	char want[32];
	int n = snprintf(want, sizeof(want), "fuzz:%u: ", line);

	if (err != EINVAL && err != E2BIG) {
		fprintf(stderr, "fuzz_fgtext: unexpected error %d\n", err);
		abort();
	}
	if (!line || len < (size_t)n + 1 || memcmp(msg, want, (size_t)n) ||
	    memchr(msg, '\n', len) != msg + len - 1) {
		fprintf(stderr, "fuzz_fgtext: bad message for line %u: %.*s\n", line, (int)len,
			msg);
		abort();
	}
}

/* Lenient: "fuzz:N: line skipped, ..." lines, then "fuzz: N damaged lines ..." if more. */
static void check_warnings(const struct fgtext_doc *d, const char *msg, size_t len)
{
	uint64_t lines = 0, skipped = d->stats->skipped;

	for (const char *p = msg, *nl; p < msg + len; p = nl + 1, lines++) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(msg + len - p));
		n = nl ? (size_t)(nl - p) : 0;
		if (!nl || memchr(p, '\0', n) || strncmp(p, "fuzz:", 5) ||
		    (!memmem(p, n, ": line skipped, ", 16) &&
		     !memmem(p, n, " damaged lines skipped in all", 29)))
			die("a warning that is not one line of its shape");
	}
	if (skipped > d->stats->unparsed ||
	    lines != (skipped > FGTEXT_MAX_WARN ? FGTEXT_MAX_WARN + 1 : skipped))
		die("warnings and skipped lines disagree");
}

static void check_roundtrip(const struct fgtext_doc *d, const uint8_t *data, size_t size)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (!m || fgtext__write(d, m) || fclose(m))
		die("cannot write the document back");
	if (!d->stats->recovered && !d->stats->joined && !d->stats->unparsed &&
	    (len != size || memcmp(out, data, size))) {
		fprintf(stderr, "fuzz_fgtext: written back differently:\n%.*s", (int)len, out);
		abort();
	}
	free(out);
}

/*
 * What a call carries beyond struct gev: found in its line when the line
 * was kept, and taken apart by fgtext__next_arg() into pieces that stay
 * inside it, in order.
 */
static void check_extras(const struct fgtext_doc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct fgtext_ev *e = &d->ev[i];
		const char *p = e->args, *last = e->args;
		struct fgtext_arg a;
		size_t len = p ? strlen(p) : 0, n = 0;

		if ((e->args || e->retaddr) &&
		    (e->kind != FGT_EVENT || (e->ev.type != GEV_ENTER && e->ev.type != GEV_LEAF)))
			die("arguments on an event that is not a call");
		if (e->text && ((e->args && !strstr(e->text, e->args)) ||
				(e->retaddr && !strstr(e->text, e->retaddr))))
			die("arguments not found in their line");
		while (fgtext__next_arg(&p, &a)) {
			if (a.value < last || a.value + a.value_len > e->args + len ||
			    (a.name_len && (a.name < last || a.name + a.name_len >= a.value)) ||
			    p <= last || ++n > len)
				die("an argument outside its text");
			last = p;
		}
	}
}

/* The events into the writer of the format picked by the input's size. */
static void other_writer(const struct fgtext_doc *d, size_t size)
{
	struct render_opts ro = { .out = devnull, .funcs = d->funcs,
				  .format = (enum bg_format)(size % (BG_FMT_SVG + 1)),
				  .folded_count = size & 8 };
	struct out_text_opts to = {};
	struct render *rd;
	struct gsink s;

	fgtext__out_opts(d->layout, &to);
	ro.flags = to.flags;
	ro.dialect = to.dialect;
	ro.nr_cpu_ids = to.nr_cpu_ids;
	rd = render__new(&ro);
	if (!rd)
		die("cannot make a writer");
	s = render__events(rd);
	for (size_t i = 0; i < d->n; i++)
		if (d->ev[i].kind == FGT_EVENT)
			s.emit(s.ctx, &d->ev[i].ev);
	render__finish(rd);
	render__free(rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fgtext_opts o = { .name = "fuzz", .lenient = size & 1,
				 .max_line = size & 2 ? 512 : 0 };
	struct fgtext_doc *d;
	char *msg = NULL;
	size_t mlen = 0;
	uint32_t line;
	FILE *in;
	int err;

	if (!devnull && !(devnull = fopen("/dev/null", "we")))
		abort();
	/* fmemopen() refuses a zero size */
	in = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "re");
	o.err = open_memstream(&msg, &mlen);
	if (!in || !o.err)
		abort();
	if (o.lenient)
		o.warn = o.err;
	d = fgtext__load(in, &o, &line);
	err = d ? 0 : errno;
	fclose(o.err);
	fclose(in);
	if (!d && o.lenient)
		die("lenient reading failed");
	if (!d) {
		check_error(msg, mlen, err, line);
	} else {
		if (o.lenient)
			check_warnings(d, msg, mlen);
		else if (mlen)
			die("strict reading wrote a message but did not fail");
		check_roundtrip(d, data, size);
		check_extras(d);
		other_writer(d, size);
	}
	fgtext__doc_free(d);
	free(msg);
	return 0;
}
