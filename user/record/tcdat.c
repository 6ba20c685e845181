// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trace-cmd data files: the file's layout (trace-cmd.dat.v6(5): the
 * metadata one after the other; .v7(5): sections found through options)
 * down to the per-CPU data, which tcdat_data.c reads. Little-endian files
 * only; version 7's compressed sections are unpacked (tcdat_zip.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "tcdat.h"
#include "tcdat_int.h"

/* Larger metadata than this is no trace-cmd file's: refused before allocating. */
#define TC_MAX_TEXT (512U << 20)
#define TC_SEC_COMPRESSED 1

/* Where reading is: in the file, or in a compressed section unpacked to mem. */
struct cur {
	struct tcdat *r;
	uint64_t pos;
	uint8_t *mem;
	uint64_t mem_len;
};

int tcdat_fail(struct tcdat *r, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(r->err, "%s: %s: ", r->prefix, r->name);
	va_start(ap, fmt);
	vfprintf(r->err, fmt, ap);
	va_end(ap);
	fputc('\n', r->err);
	return -err;
}

int tcdat_read_at(struct tcdat *r, uint64_t off, void *buf, size_t n, const char *what)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(r->fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (k < 0)
			return tcdat_fail(r, errno, "cannot read %s: %s", what, strerror(errno));
		if (!k)
			return tcdat_fail(r, EINVAL, "the file ends inside %s", what);
		got += (size_t)k;
	}
	return 0;
}

static int get(struct cur *c, void *buf, size_t n, const char *what)
{
	int err = 0;

	if (!c->mem)
		err = tcdat_read_at(c->r, c->pos, buf, n, what);
	else if (c->pos > c->mem_len || n > c->mem_len - c->pos)
		err = tcdat_fail(c->r, EINVAL, "the section ends inside %s", what);
	else
		memcpy(buf, c->mem + c->pos, n);
	c->pos += n;
	return err;
}

static int get_u(struct cur *c, int bytes, uint64_t *v, const char *what)
{
	uint8_t b[8];
	int err = get(c, b, (size_t)bytes, what);

	*v = 0;
	for (int i = 0; !err && i < bytes; i++)
		*v |= (uint64_t)b[i] << (8 * i);
	return err;
}

/* size (in size_bytes) and that much text, NUL-terminated into *out. */
static int get_text(struct cur *c, int size_bytes, char **out, size_t *len, const char *what)
{
	uint64_t n;
	int err = get_u(c, size_bytes, &n, what);

	*out = NULL;
	if (err)
		return err;
	if (n > TC_MAX_TEXT)
		return tcdat_fail(c->r, EINVAL, "%s claims %" PRIu64 " bytes", what, n);
	*out = malloc(n + 1);
	if (!*out)
		return tcdat_fail(c->r, ENOMEM, "out of memory");
	err = get(c, *out, n, what);
	(*out)[n] = '\0';
	if (len)
		*len = n;
	if (err) {
		free(*out);
		*out = NULL;
	}
	return err;
}

/* A NUL-terminated string of at most cap - 1 bytes. */
static int get_str(struct cur *c, char *s, size_t cap, const char *what)
{
	for (size_t i = 0; i < cap; i++) {
		int err = get(c, s + i, 1, what);

		if (err)
			return err;
		if (!s[i])
			return 0;
	}
	return tcdat_fail(c->r, EINVAL, "%s is too long", what);
}

static int expect(struct cur *c, const char *word, size_t n)
{
	char buf[16];
	int err = get(c, buf, n, word);

	if (!err && memcmp(buf, word, n))
		return tcdat_fail(c->r, EINVAL, "'%s' expected at offset %" PRIu64, word,
				  c->pos - n);
	return err;
}

static int read_header_info(struct cur *c)
{
	char *text;
	int err = expect(c, "header_page", 12);

	if (!err)
		err = get_text(c, 8, &text, NULL, "header_page");
	if (err)
		return err;
	err = tcdat_parse_header_page(c->r, text);
	free(text);
	if (!err)
		err = expect(c, "header_event", 13);
	if (!err)
		err = get_text(c, 8, &text, NULL, "header_event");
	if (err)
		return err;
	if (!strstr(text, "type_len    :    5 bits") || !strstr(text, "time_delta  :   27 bits"))
		err = tcdat_fail(c->r, EINVAL, "its ring buffer event header is not the kernel's");
	free(text);
	return err;
}

static int read_ftrace_formats(struct cur *c)
{
	uint64_t n;
	int err = get_u(c, 4, &n, "ftrace event formats");

	for (uint64_t i = 0; !err && i < n; i++) {
		char *text;

		err = get_text(c, 8, &text, NULL, "an ftrace event format");
		if (!err)
			err = tcdat_parse_format(c->r, text);
		free(text);
	}
	return err;
}

/* Event systems (tracepoints): function_graph has none of its events there. */
static int skip_event_formats(struct cur *c)
{
	uint64_t nsys, nev, size;
	char name[256];
	int err = get_u(c, 4, &nsys, "event systems");

	for (uint64_t i = 0; !err && i < nsys; i++) {
		err = get_str(c, name, sizeof(name), "an event system's name");
		if (!err)
			err = get_u(c, 4, &nev, "an event system");
		for (uint64_t j = 0; !err && j < nev; j++) {
			err = get_u(c, 8, &size, "an event format");
			c->pos += size;
		}
	}
	return err;
}

static int read_kallsyms(struct cur *c)
{
	char *text;
	int err = get_text(c, 4, &text, NULL, "kallsyms");

	if (!err)
		err = tcdat_parse_kallsyms(c->r, text); /* keeps text */
	return err;
}

static int skip_printk(struct cur *c)
{
	uint64_t n;
	int err = get_u(c, 4, &n, "printk formats");

	c->pos += n;
	return err;
}

static int read_cmdlines(struct cur *c)
{
	return get_text(c, 8, &c->r->cmdlines, NULL, "saved cmdlines");
}

static int take_cpus(struct tcdat *r, uint32_t n)
{
	if (n > 1U << 20)
		return tcdat_fail(r, EINVAL, "it claims %u CPUs", n);
	free(r->cpus);
	r->cpus = calloc(n ? n : 1, sizeof(*r->cpus));
	if (!r->cpus)
		return tcdat_fail(r, ENOMEM, "out of memory");
	r->ncpus = n;
	return 0;
}

static uint64_t le_at(const char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)(uint8_t)p[i] << (8 * i);
	return v;
}

/* Options both versions share; the section offsets of version 7 into sec[]. */
static int take_option(struct tcdat *r, uint16_t id, const char *buf, size_t n, uint64_t *sec)
{
	if (id == TCDAT_OPT_BPFGRAPH)
		return tcdat_parse_meta(r, buf, n);
	if (id == TCDAT_OPT_CPUCOUNT && n >= 4 && !r->meta.nr_cpu_ids)
		r->meta.nr_cpu_ids = (uint32_t)le_at(buf, 4);
	if (id >= TCDAT_OPT_HEADER_INFO && id <= TCDAT_OPT_CMDLINES && n >= 8)
		sec[id - TCDAT_OPT_HEADER_INFO] = le_at(buf, 8);
	if (id == TCDAT_OPT_BUFFER_TEXT)
		r->latency = true;
	return 0;
}

/* Version 7's BUFFER option of the top instance: its CPUs' data. */
static int take_buffer(struct tcdat *r, const char *buf, size_t n)
{
	const char *name = buf + 8, *clock, *p;
	uint32_t ncpu;

	if (n < 8 || !memchr(name, '\0', n - 8) || *name)
		return 0; /* another instance's */
	clock = name + 1;
	p = memchr(clock, '\0', n - (size_t)(clock - buf));
	if (!p || (size_t)(p + 1 - buf) + 8 > n)
		return tcdat_fail(r, EINVAL, "its BUFFER option is cut short");
	p++;
	ncpu = (uint32_t)le_at(p + 4, 4);
	p += 8;
	if ((size_t)(p - buf) + 20ULL * ncpu > n)
		return tcdat_fail(r, EINVAL, "its BUFFER option is cut short");
	if (take_cpus(r, ncpu))
		return -ENOMEM;
	r->data_sec = le_at(buf, 8);
	for (uint32_t i = 0; i < ncpu; i++, p += 20)
		r->cpus[i] = (struct tc_cpuinfo){ (uint32_t)le_at(p, 4), le_at(p + 4, 8),
						  le_at(p + 12, 8) };
	return 0;
}

/*
 * Options up to DONE. Version 6's end with a zero id; version 7's DONE
 * carries the offset of the next options section (0: none), into *next.
 */
static int read_options(struct cur *c, uint64_t *sec, uint64_t *next)
{
	for (;;) {
		uint64_t id, size;
		char *buf;
		int err = get_u(c, 2, &id, "an option");

		if (err)
			return err;
		if (!id && c->r->meta.version < 7)
			return 0;
		err = get_u(c, 4, &size, "an option");
		if (!err && size > TC_MAX_TEXT)
			err = tcdat_fail(c->r, EINVAL, "option %" PRIu64 " claims %" PRIu64 " bytes",
					 id, size);
		buf = err ? NULL : malloc(size + 1);
		if (!err && !buf)
			err = tcdat_fail(c->r, ENOMEM, "out of memory");
		if (!err)
			err = get(c, buf, size, "an option");
		if (!err) {
			buf[size] = '\0';
			if (!id)
				*next = size >= 8 ? le_at(buf, 8) : 0;
			else if (id == TCDAT_OPT_BUFFER && c->r->meta.version >= 7)
				err = take_buffer(c->r, buf, size);
			else
				err = take_option(c->r, (uint16_t)id, buf, size, sec);
		}
		free(buf);
		if (err || !id)
			return err;
	}
}

/* Version 6: the metadata in a row, then options and the CPUs' data. */
static int read_v6(struct cur *c)
{
	uint64_t sec[TCDAT_OPT_CMDLINES - TCDAT_OPT_HEADER_INFO + 1] = { 0 }, ncpu, next = 0;
	char word[10];
	int err = read_header_info(c);

	if (!err)
		err = read_ftrace_formats(c);
	if (!err)
		err = skip_event_formats(c);
	if (!err)
		err = read_kallsyms(c);
	if (!err)
		err = skip_printk(c);
	if (!err)
		err = read_cmdlines(c);
	if (!err)
		err = get_u(c, 4, &ncpu, "the CPU count");
	if (!err)
		err = get(c, word, sizeof(word), "the data's kind");
	if (!err && !memcmp(word, "options  ", sizeof(word))) {
		err = read_options(c, sec, &next);
		if (!err)
			err = get(c, word, sizeof(word), "the data's kind");
	}
	if (err)
		return err;
	if (!memcmp(word, "latency  ", sizeof(word)))
		return tcdat_fail(c->r, EINVAL, "it holds latency tracer text, not "
				  "function_graph events: read it with trace-cmd report");
	if (memcmp(word, "flyrecord", sizeof(word)))
		return tcdat_fail(c->r, EINVAL, "neither flyrecord nor latency data");
	err = take_cpus(c->r, (uint32_t)ncpu);
	for (uint32_t i = 0; !err && i < c->r->ncpus; i++) {
		c->r->cpus[i].cpu = i;
		err = get_u(c, 8, &c->r->cpus[i].offset, "the CPU data table");
		if (!err)
			err = get_u(c, 8, &c->r->cpus[i].size, "the CPU data table");
	}
	return err;
}

/* A version 7 section's header: its id must be want; its data unpacked if compressed. */
static int section(struct cur *c, uint64_t off, uint16_t want, const char *what)
{
	uint64_t id, flags, skip;
	int err;

	free(c->mem);
	c->mem = NULL;
	c->pos = off;
	err = get_u(c, 2, &id, what);
	if (!err)
		err = get_u(c, 2, &flags, what);
	if (!err)
		err = get_u(c, 4, &skip, what); /* its description's string id */
	if (!err)
		err = get_u(c, 8, &skip, what); /* its size */
	if (err)
		return err;
	if (id != want)
		return tcdat_fail(c->r, EINVAL, "no %s section at offset %" PRIu64, what, off);
	if (!(flags & TC_SEC_COMPRESSED))
		return 0;
	if (c->r->zip == TC_ZIP_NONE)
		return tcdat_fail(c->r, EINVAL, "its %s section is compressed, the file "
				  "says with nothing", what);
	err = tcdat_unpack_section(c->r, c->pos, &c->mem, &c->mem_len, what);
	c->pos = 0;
	return err;
}

/* Version 7: options sections name where every other section is. */
static int read_v7(struct cur *c, uint64_t opts)
{
	uint64_t sec[TCDAT_OPT_CMDLINES - TCDAT_OPT_HEADER_INFO + 1] = { 0 };
	int (*const readers[])(struct cur *) = { read_header_info, read_ftrace_formats,
						 NULL, read_kallsyms, NULL, read_cmdlines };
	static const char *const what[] = { "header info", "ftrace events", "", "kallsyms",
					    "", "cmdlines" };
	int err = 0;

	for (int n = 0; !err && opts && n < 64; n++) {
		uint64_t next = 0;

		err = section(c, opts, TCDAT_OPT_DONE, "options");
		if (!err)
			err = read_options(c, sec, &next);
		opts = next;
	}
	for (int i = 0; !err && i < (int)(sizeof(readers) / sizeof(readers[0])); i++) {
		if (!readers[i])
			continue;
		if (!sec[i])
			return tcdat_fail(c->r, EINVAL, "it has no %s section", what[i]);
		err = section(c, sec[i], (uint16_t)(TCDAT_OPT_HEADER_INFO + i), what[i]);
		if (!err)
			err = readers[i](c);
	}
	/* the CPUs' data is compressed if its section is */
	if (!err && c->r->zip != TC_ZIP_NONE && c->r->data_sec) {
		uint8_t hdr[4];

		err = tcdat_read_at(c->r, c->r->data_sec, hdr, sizeof(hdr), "the trace data's section");
		c->r->data_zip = !err && (hdr[2] & TC_SEC_COMPRESSED);
	}
	if (!err && !c->r->cpus && c->r->latency)
		return tcdat_fail(c->r, EINVAL, "it holds latency tracer text, not "
				  "function_graph events: read it with trace-cmd report");
	return err;
}

bool tcdat__is(const void *head, size_t n)
{
	return n >= TCDAT_MAGIC_LEN && !memcmp(head, TCDAT_MAGIC, TCDAT_MAGIC_LEN);
}

/* Magic, version, endianness, long and page size; version 7's compression. */
static int read_start(struct cur *c, uint64_t *opts)
{
	char head[TCDAT_MAGIC_LEN], ver[16], comp[64], cver[64];
	uint8_t el[2];
	uint64_t page;
	int err = get(c, head, sizeof(head), "the file header");

	if (!err && !tcdat__is(head, sizeof(head)))
		return tcdat_fail(c->r, EINVAL, "not a trace-cmd data file");
	if (!err)
		err = get_str(c, ver, sizeof(ver), "the version");
	if (!err)
		err = get(c, el, sizeof(el), "the file header");
	if (!err)
		err = get_u(c, 4, &page, "the page size");
	if (err)
		return err;
	c->r->meta.version = (uint32_t)atoi(ver);
	if (c->r->meta.version < 6 || c->r->meta.version > 7)
		return tcdat_fail(c->r, ENOTSUP, "trace-cmd file version %s: bpfgraph reads "
				  "versions 6 and 7", ver);
	if (el[0])
		return tcdat_fail(c->r, ENOTSUP, "a big-endian file: bpfgraph reads "
				  "little-endian ones");
	if ((el[1] != 4 && el[1] != 8) || page < 4096 || page > (1U << 20))
		return tcdat_fail(c->r, EINVAL, "long size %u, page size %" PRIu64 ": damaged",
				  el[1], page);
	c->r->lay.long_size = el[1];
	c->r->lay.page_size = (uint32_t)page;
	if (c->r->meta.version < 7)
		return 0;
	err = get_str(c, comp, sizeof(comp), "the compression");
	if (!err)
		err = get_str(c, cver, sizeof(cver), "the compression");
	if (!err && (c->r->zip = tcdat_zip_kind(comp)) < 0)
		return tcdat_fail(c->r, ENOTSUP, "compressed with %s %s: bpfgraph reads "
				  "zstd-compressed and uncompressed files (trace-cmd convert "
				  "--compression none)", comp, cver);
	return err ? err : get_u(c, 8, opts, "the options' offset");
}

/* Defaults for a file trace-cmd made: function_graph's own. */
static void default_meta(struct tcdat *r)
{
	struct tcdat_meta *m = &r->meta;

	m->has_retval = r->lay.ev[2].retval.size != 0;
	if (m->bpfgraph)
		return;
	m->flags = BG_O_DEFAULTS & ~(BG_O_RETVAL | BG_O_RETVAL_HEX);
	m->dialect = m->has_retval ? BG_DIALECT_6_5 : BG_DIALECT_6_1;
	m->header = true;
	if (!m->nr_cpu_ids)
		m->nr_cpu_ids = r->ncpus;
}

struct tcdat *tcdat__open(FILE *f, const char *name, const char *prefix, FILE *err)
{
	struct tcdat *r = calloc(1, sizeof(*r));
	struct cur c = { r, 0 };
	uint64_t opts = 0;
	int e;

	if (!r) {
		fprintf(err, "%s: out of memory\n", prefix);
		errno = ENOMEM;
		return NULL;
	}
	r->fd = fileno(f);
	r->name = name;
	r->prefix = prefix;
	r->err = err;
	functab__init(&r->funcs);
	ftp_layout_init(&r->lay);
	e = read_start(&c, &opts);
	if (!e)
		e = r->meta.version < 7 ? read_v6(&c) : read_v7(&c, opts);
	free(c.mem);
	if (!e && !ftp_have_events(&r->lay))
		e = tcdat_fail(r, EINVAL, "it has no function_graph event formats "
			       "(funcgraph_entry, funcgraph_exit)");
	if (e) {
		tcdat__close(r);
		errno = -e;
		return NULL;
	}
	default_meta(r);
	return r;
}

const struct tcdat_meta *tcdat__meta(const struct tcdat *r)
{
	return &r->meta;
}

const struct functab *tcdat__funcs(const struct tcdat *r)
{
	return &r->funcs;
}

const struct tcdat_stats *tcdat__stats(const struct tcdat *r)
{
	return &r->stats;
}

void tcdat__close(struct tcdat *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrets; i++)
		free(r->rets[i].type);
	free(r->rets);
	free(r->syms);
	free(r->syms_text);
	free(r->cmdlines);
	free(r->cpus);
	functab__free(&r->funcs);
	free(r);
}
