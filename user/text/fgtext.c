// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * function_graph text reader. A line is taken apart in the order the
 * kernel builds it ("Line layout" in docs/function-graph-format.md, whose
 * section names the comments of fgtext_*.c quote):
 * [abstime] [cpu] [task/pid] [lat flags] [duration] indentation body.
 * What the columns show sets the layout once, at the first event line;
 * later lines that do not fit it are still read, and kept verbatim when
 * keep_text is on. Lines that lost their line breaks (a trace pasted into
 * a web page) are cut at their CPU columns and read loosely, with the
 * depth taken from the nesting instead of the indentation. What is
 * decided from what, and which lines are damaged: "Reading it back".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fgtext_int.h"

#define IO_CHUNK 65536

/* --- messages ----------------------------------------------------------- */

static __attribute__((format(printf, 2, 0))) int vfail(struct fgtext *r, const char *fmt,
							va_list ap)
{
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	r->err_line = r->lineno;
	if (r->o.err)
		fprintf(r->o.err, "%s:%u: %s\n", r->o.name ? r->o.name : "<input>", r->lineno,
			r->err);
	return -EINVAL;
}

__attribute__((format(printf, 2, 3))) int fgtext_fail(struct fgtext *r, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vfail(r, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * p..end for a message into buf (at least 41 bytes): at most 40 bytes
 * (37 and "..."), up to a NUL, without a last '\r', control and
 * non-ASCII bytes as '?': one line on a terminal, whatever the input held.
 */
const char *fgtext_quote(char *buf, const char *p, const char *end)
{
	const char *nul = memchr(p, '\0', (size_t)(end - p));
	size_t n, i;
	bool cut;

	if (nul)
		end = nul;
	if (end > p && end[-1] == '\r')
		end--;
	n = (size_t)(end - p);
	cut = n > 40;
	if (cut)
		n = 37;
	for (i = 0; i < n; i++)
		buf[i] = p[i] >= ' ' && p[i] < 0x7f ? p[i] : '?';
	if (cut) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/*
 * Lenient: the line being read is left out. Counted, and named on
 * o.warn with how it began (quote), the first FGTEXT_MAX_WARN of them:
 * a damaged line is passed over, never silently.
 */
__attribute__((format(printf, 3, 4))) void fgtext_skip(struct fgtext *r, bool quote,
							const char *fmt, ...)
{
	char why[256], q[48];
	va_list ap;

	r->st.skipped++;
	if (!r->o.warn || r->st.skipped > FGTEXT_MAX_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(r->o.warn, "%s%s:%u: line skipped, %s%s%s%s\n", r->o.prefix ?: "",
		r->o.name ?: "<input>", r->lineno, why, quote ? ": '" : "",
		quote ? fgtext_quote(q, r->line, r->line + strlen(r->line)) : "",
		quote ? "'" : "");
}

/* A graph line that cannot be taken: an error, or SKIP_LINE when lenient. */
__attribute__((format(printf, 2, 3))) int fgtext_malformed(struct fgtext *r, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	int err;

	va_start(ap, fmt);
	if (r->o.lenient) {
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		fgtext_skip(r, true, "%s", why);
		return SKIP_LINE;
	}
	err = vfail(r, fmt, ap);
	va_end(ap);
	return err;
}

/* --- input -------------------------------------------------------------- */

static int fill(struct fgtext *r, FILE *in)
{
	r->ilen = fread(r->ibuf, 1, IO_CHUNK, in);
	r->ipos = 0;
	if (r->ilen)
		return 0;
	if (ferror(in))
		return -EIO;
	r->eof = true;
	return 0;
}

static int line_append(struct fgtext *r, size_t len, const char *s, size_t n)
{
	size_t max = r->o.max_line ? r->o.max_line : FGTEXT_MAX_LINE;

	if (r->toolong)
		return 0;
	if (len + n > max) {
		/* lenient: the rest of the line is read, dropped and counted */
		r->toolong = r->o.lenient;
		if (r->toolong)
			return 0;
		r->lineno++;
		fgtext_fail(r, "line longer than %zu bytes", max);
		return -E2BIG;
	}
	if (len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 256;
		char *nl;

		while (cap < len + n + 1)
			cap *= 2;
		nl = realloc(r->line, cap);
		if (!nl)
			return -ENOMEM;
		r->line = nl;
		r->cap = cap;
	}
	memcpy(r->line + len, s, n);
	return 0;
}

/*
 * Next line into r->line (NUL-terminated, no '\n'); *len = -1 at the end.
 * *toolong: the line was longer than max_line and left out (lenient).
 */
static int next_line(struct fgtext *r, FILE *in, ssize_t *len, bool *nl, bool *toolong)
{
	size_t n = 0;
	int err;

	*nl = false;
	for (;;) {
		const char *s, *e;

		if (r->ipos == r->ilen && !r->eof && (err = fill(r, in)))
			return err;
		if (r->ipos == r->ilen)
			break;
		s = r->ibuf + r->ipos;
		e = memchr(s, '\n', r->ilen - r->ipos);
		err = line_append(r, n, s, e ? (size_t)(e - s) : r->ilen - r->ipos);
		if (err)
			return err;
		n += e ? (size_t)(e - s) : r->ilen - r->ipos;
		r->ipos = e ? (size_t)(e - r->ibuf) + 1 : r->ilen;
		if (e) {
			*nl = true;
			break;
		}
	}
	if (!n && !*nl) {
		*len = -1;
		return 0;
	}
	*toolong = r->toolong;
	if (r->toolong) {
		r->toolong = false;
		n = 0;
	}
	if ((err = line_append(r, n, "", 0)))
		return err;
	r->line[n] = '\0';
	*len = (ssize_t)n;
	return 0;
}

int fgtext__read(struct fgtext *r, FILE *in)
{
	ssize_t len;
	bool nl, toolong;
	int err;

	for (;;) {
		err = next_line(r, in, &len, &nl, &toolong);
		if (err == -EIO)
			fgtext_fail(r, "read error");
		if (err || len < 0)
			break;
		r->lineno++;
		r->lay.final_newline = nl;
		if (toolong) {
			r->st.lines++;
			r->st.unparsed++;
			fgtext_skip(r, false, "longer than %zu bytes",
				    r->o.max_line ? r->o.max_line : FGTEXT_MAX_LINE);
			continue;
		}
		err = fgtext_process_line(r, r->line, (size_t)len);
		if (err)
			return err;
	}
	if (!err && r->npend)
		err = fgtext_pend_flush(r);
	if (!err && r->o.warn && r->st.skipped > FGTEXT_MAX_WARN)
		fprintf(r->o.warn, "%s%s: %" PRIu64 " damaged lines skipped in all, the first %d "
			"named above\n", r->o.prefix ?: "", r->o.name ?: "<input>", r->st.skipped,
			FGTEXT_MAX_WARN);
	return err;
}

/* --- object ------------------------------------------------------------- */

struct fgtext *fgtext__new(const struct fgtext_opts *opts)
{
	struct fgtext *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *opts;
	functab__init(&r->funcs);
	r->lay.flags = BG_O_DEFAULTS & ~BG_O_RETVAL;
	r->lay.dialect = BG_DIALECT_6_1;
	r->lay.final_newline = true;
	r->ibuf = malloc(IO_CHUNK);
	if (r->o.keep_text)
		r->mem = open_memstream(&r->membuf, &r->memsize);
	if (!r->ibuf || (r->o.keep_text && !r->mem)) {
		fgtext__free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void fgtext__free(struct fgtext *r)
{
	if (!r)
		return;
	out_text__free(r->w);
	if (r->mem)
		fclose(r->mem);
	free(r->membuf);
	for (size_t i = 0; i < BG_MAX_CPUS; i++)
		free(r->cpu[i]);
	functab__free(&r->funcs);
	free(r->names.slot);
	free(r->ibuf);
	free(r->line);
	free(r->pend);
	free(r->extra);
	free(r);
}

const struct functab *fgtext__funcs(const struct fgtext *r)
{
	return &r->funcs;
}

const struct fgtext_layout *fgtext__layout(const struct fgtext *r)
{
	return &r->lay;
}

const struct fgtext_stats *fgtext__stats(const struct fgtext *r)
{
	return &r->st;
}

const char *fgtext__error(const struct fgtext *r, uint32_t *line)
{
	if (line)
		*line = r->err_line;
	return r->err[0] ? r->err : NULL;
}
