// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record files: see record.h for the layout. The writer is a rec_sink
 * that also keeps the order of feeds and drains (as drain marks): the
 * graph builder's output depends on when records were released, not only
 * on the records, and report must repeat live output byte for byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <bpf/btf.h>

#include "bpfgraph.h"
#include "detail.h"
#include "options.h"
#include "record.h"

#define FILE_HDR_SIZE 16
#define BLK_HDR_SIZE 16
#define REC_SIZE 32
/* Records per block: 2048; a block is compressed and written when full. */
#define BLOCK_RAW (64U << 10)
/* A block waits at most this long (in record time) for more records. */
#define BLOCK_MAX_AGE_NS 1000000000ULL
#define ZLEVEL 1
#define NR_TRAILER 10
/* addr, size, btf_id, flags, kind, size, pad, three string lengths */
#define FUNC_MIN_SIZE (8 + 4 + 4 + 4 + 4 + 3 * 4)

/* --- little-endian buffers -------------------------------------------- */

struct bbuf {
	uint8_t *p;
	size_t len, cap;
	bool nomem;
};

static void b_put(struct bbuf *b, const void *src, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void b_le(struct bbuf *b, uint64_t v, unsigned int bytes)
{
	uint8_t le[8];

	for (unsigned int i = 0; i < bytes; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	b_put(b, le, bytes);
}

static void b_str(struct bbuf *b, const char *s)
{
	size_t n = s ? strnlen(s, RECORD_MAX_STR) : 0;

	b_le(b, n, 4);
	b_put(b, s, n);
}

struct cur {
	const uint8_t *p;
	size_t len, at;
	bool bad;
};

static uint64_t c_le(struct cur *c, unsigned int bytes)
{
	uint64_t v = 0;

	if (c->bad || c->len - c->at < bytes) {
		c->bad = true;
		return 0;
	}
	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint64_t)c->p[c->at + i] << (8 * i);
	c->at += bytes;
	return v;
}

/* A string of at most RECORD_MAX_STR bytes without NULs; NULL if empty. */
static char *c_str(struct cur *c, int *err)
{
	uint64_t n = c_le(c, 4);
	char *s;

	if (c->bad || n > RECORD_MAX_STR || n > c->len - c->at ||
	    memchr(c->p + c->at, 0, n)) {
		c->bad = true;
		return NULL;
	}
	if (!n)
		return NULL;
	s = strndup((const char *)c->p + c->at, n);
	if (!s)
		*err = -ENOMEM;
	c->at += n;
	return s;
}

static void put_rec(uint8_t *p, const struct bg_rec *r)
{
	struct bbuf b = { .p = p, .cap = REC_SIZE };

	b_le(&b, r->ts, 8);
	b_le(&b, r->val, 8);
	b_le(&b, r->dur, 4);
	b_le(&b, r->pid, 4);
	b_le(&b, r->func, 4);
	b_le(&b, r->cpu, 2);
	b_le(&b, r->type, 1);
	b_le(&b, r->depth, 1);
}

static void get_rec(const uint8_t *p, struct bg_rec *r)
{
	struct cur c = { .p = p, .len = REC_SIZE };

	r->ts = c_le(&c, 8);
	r->val = c_le(&c, 8);
	r->dur = (uint32_t)c_le(&c, 4);
	r->pid = (uint32_t)c_le(&c, 4);
	r->func = (uint32_t)c_le(&c, 4);
	r->cpu = (uint16_t)c_le(&c, 2);
	r->type = (uint8_t)c_le(&c, 1);
	r->depth = (uint8_t)c_le(&c, 1);
}

/* --- writer --------------------------------------------------------------- */

struct record_writer {
	FILE *f;
	FILE *err;
	char *path;
	const struct functab *funcs;
	size_t funcs_written;
	uint8_t raw[BLOCK_RAW];
	size_t raw_len;
	uint8_t *z;
	size_t zcap;
	uint64_t off;
	uint64_t drain_upto;
	bool drain_pending;
	bool block_aging;
	uint64_t block_born;
	int error; /* first write error, sticky */
	uint16_t version;
	/* funcgraph-args, -retaddr (record__set_args()) */
	struct args_fmt *af;
	struct args_src src;
	bool want_syms;
	uint64_t *callers; /* return addresses written to SYMS blocks: a set */
	size_t ncallers_cap, ncallers;
	uint64_t *fresh; /* ... and those still to be written */
	size_t nfresh, fresh_cap;
};

static int w_fail(struct record_writer *w, int err)
{
	if (!w->error) {
		w->error = err;
		fprintf(w->err, "bpfgraph: cannot write '%s' at offset %" PRIu64 ": %s\n",
			w->path, w->off, strerror(-err));
	}
	return w->error;
}

static int w_block(struct record_writer *w, uint32_t type, const uint8_t *raw, size_t len)
{
	uLongf zlen = w->zcap;
	struct bbuf h = {};
	uint32_t crc;
	int err = 0;

	if (w->error)
		return w->error;
	if (compress2(w->z, &zlen, raw, len, ZLEVEL) != Z_OK)
		return w_fail(w, -ENOMEM);
	b_le(&h, type, 4);
	b_le(&h, len, 4);
	b_le(&h, zlen, 4);
	crc = (uint32_t)crc32(crc32(0, h.p, 12), w->z, zlen);
	b_le(&h, crc, 4);
	if (h.nomem)
		err = -ENOMEM;
	else if (fwrite(h.p, 1, h.len, w->f) != h.len || fwrite(w->z, 1, zlen, w->f) != zlen ||
		 fflush(w->f))
		err = -errno ?: -EIO;
	free(h.p);
	if (err)
		return w_fail(w, err);
	w->off += BLK_HDR_SIZE + zlen;
	return 0;
}

static void put_func(struct bbuf *b, const struct bg_func *f)
{
	b_le(b, f->addr, 8);
	b_le(b, f->size, 4);
	b_le(b, f->btf_id, 4);
	b_le(b, f->flags, 4);
	b_le(b, f->ret_kind, 1);
	b_le(b, f->ret_size, 1);
	b_le(b, 0, 2);
	b_str(b, f->name);
	b_str(b, f->module);
	b_str(b, f->ret_type);
}

/* An enum parameter's enumerators: a count, then value and name of each. */
static void put_enumerators(struct bbuf *b, struct args_fmt *af, uint32_t func, unsigned int i)
{
	unsigned int n = 0;
	int32_t v;

	while (n < RECORD_MAX_ENUMS && args_fmt__enumerator(af, func, i, n, &v))
		n++;
	b_le(b, n, 2);
	for (unsigned int k = 0; k < n; k++) {
		b_str(b, args_fmt__enumerator(af, func, i, k, &v));
		b_le(b, (uint32_t)v, 4);
	}
}

/*
 * After a pointer parameter (version 4): the struct members --args-detail
 * shows of what it points to, a count and name, offset, size and
 * signedness of each.
 */
static void put_members(struct bbuf *b, struct args_fmt *af, uint32_t func, unsigned int i)
{
	struct detail_member m[BG_DETAIL_FIELDS];
	int n = args_fmt__members(af, func, i, m);

	b_le(b, (unsigned int)n, 1);
	for (int k = 0; k < n; k++) {
		b_str(b, m[k].name);
		b_le(b, m[k].off, 2);
		b_le(b, m[k].size, 1);
		b_le(b, m[k].is_signed, 1);
	}
}

/* The ARGS block of functions [first, end): their prototypes. */
static int w_args(struct record_writer *w, size_t first, size_t end)
{
	struct bbuf b = {};
	struct args_param p;
	int err;

	b_le(&b, first, 4);
	b_le(&b, end - first, 4);
	for (size_t i = first; i < end; i++) {
		int n = args_fmt__nparams(w->af, (uint32_t)i);

		b_le(&b, n < 0 ? RECORD_NO_PROTO : (unsigned int)n, 2);
		for (int k = 0; k < n; k++) {
			if (!args_fmt__param(w->af, (uint32_t)i, (unsigned int)k, &p))
				p = (struct args_param){ "", "?", 0, 0, 0 };
			b_le(&b, p.kind, 1);
			b_le(&b, p.enc, 1);
			b_le(&b, p.size, 4);
			b_str(&b, p.name);
			b_str(&b, p.type);
			if (p.kind == BTF_KIND_ENUM)
				put_enumerators(&b, w->af, (uint32_t)i, (unsigned int)k);
			if (p.kind == BTF_KIND_PTR && w->version >= RECORD_VERSION_DETAIL)
				put_members(&b, w->af, (uint32_t)i, (unsigned int)k);
		}
	}
	err = b.nomem ? w_fail(w, -ENOMEM) : w_block(w, RECORD_BLK_ARGS, b.p, b.len);
	free(b.p);
	return err;
}

/* Adds a return address to the set; true if it was not there. */
static bool caller_add(struct record_writer *w, uint64_t addr)
{
	size_t mask, i;

	if ((w->ncallers + 1) * 2 > w->ncallers_cap) {
		size_t cap = w->ncallers_cap ? w->ncallers_cap * 2 : 1024;
		uint64_t *n = calloc(cap, sizeof(*n)), *old = w->callers;

		if (!n)
			return false;
		for (size_t k = 0; k < w->ncallers_cap; k++) {
			if (!old[k])
				continue;
			for (i = (old[k] * 0x9e3779b97f4a7c15ULL) >> 40 & (cap - 1); n[i];
			     i = (i + 1) & (cap - 1))
				;
			n[i] = old[k];
		}
		free(old);
		w->callers = n;
		w->ncallers_cap = cap;
	}
	mask = w->ncallers_cap - 1;
	for (i = (addr * 0x9e3779b97f4a7c15ULL) >> 40 & mask; w->callers[i]; i = (i + 1) & mask)
		if (w->callers[i] == addr)
			return false;
	w->callers[i] = addr;
	w->ncallers++;
	return true;
}

static void note_caller(struct record_writer *w, const struct bg_rec *r)
{
	if (!w->want_syms || bg_rec_type(r) != BG_REC_ENTRY || !r->val || !caller_add(w, r->val))
		return;
	if (w->nfresh == w->fresh_cap) {
		size_t cap = w->fresh_cap ? w->fresh_cap * 2 : 256;
		uint64_t *n = realloc(w->fresh, cap * sizeof(*n));

		if (!n)
			return; /* printed as a bare address */
		w->fresh = n;
		w->fresh_cap = cap;
	}
	w->fresh[w->nfresh++] = r->val;
}

/* The SYMS block of the return addresses met since the last one. */
static int w_syms(struct record_writer *w)
{
	struct bbuf b = {};
	struct args_sym s;
	int err;

	if (!w->nfresh)
		return 0;
	b_le(&b, w->nfresh, 4);
	for (size_t i = 0; i < w->nfresh; i++) {
		uint64_t a = w->fresh[i];

		if (!w->src.sym || w->src.sym(w->src.sym_ctx, a, &s))
			s = (struct args_sym){ 0 };
		b_le(&b, a, 8);
		b_le(&b, s.name ? a - s.start : 0, 8);
		b_le(&b, s.size, 8);
		b_str(&b, s.name);
		b_str(&b, s.module);
	}
	w->nfresh = 0;
	err = b.nomem ? w_fail(w, -ENOMEM) : w_block(w, RECORD_BLK_SYMS, b.p, b.len);
	free(b.p);
	return err;
}

int record__set_args(struct record_writer *w, const struct args_src *src)
{
	if (w->version < RECORD_VERSION_ARGS)
		return 0;
	w->src = *src;
	w->af = args_fmt__new(&w->src, w->funcs);
	if (!w->af)
		return w_fail(w, -ENOMEM);
	w->want_syms = true;
	/* Prototypes of the functions already written. */
	return w->funcs_written ? w_args(w, 0, w->funcs_written) : 0;
}

/* FUNCS blocks for the functions added since the last call. */
static int w_funcs(struct record_writer *w)
{
	struct bbuf b = {};
	size_t first, i;
	int err = 0;

	while (!err && w->funcs_written < w->funcs->n) {
		first = w->funcs_written;
		b.len = 0;
		b_le(&b, first, 4);
		b_le(&b, 0, 4); /* count, patched below */
		for (i = first; i < w->funcs->n && b.len < RECORD_MAX_RAW / 2; i++)
			put_func(&b, &w->funcs->f[i]);
		if (b.nomem) {
			err = w_fail(w, -ENOMEM);
			break;
		}
		for (unsigned int k = 0; k < 4; k++)
			b.p[4 + k] = (uint8_t)((i - first) >> (8 * k));
		err = w_block(w, RECORD_BLK_FUNCS, b.p, b.len);
		if (!err && w->af)
			err = w_args(w, first, i);
		w->funcs_written = i;
	}
	free(b.p);
	return err;
}

static int w_records(struct record_writer *w)
{
	int err;

	if (!w->raw_len)
		return w->error;
	err = w_funcs(w);
	if (!err)
		err = w_syms(w);
	if (!err)
		err = w_block(w, RECORD_BLK_RECORDS, w->raw, w->raw_len);
	w->raw_len = 0;
	w->block_aging = false;
	return err;
}

static int w_append(struct record_writer *w, const struct bg_rec *r)
{
	int err;

	if (w->raw_len + REC_SIZE > sizeof(w->raw)) {
		err = w_records(w);
		if (err)
			return err;
	}
	put_rec(w->raw + w->raw_len, r);
	w->raw_len += REC_SIZE;
	return 0;
}

/*
 * Consecutive drains without a feed in between release what the last one
 * alone would: only that one is kept, written before the next record.
 */
static int w_pending_drain(struct record_writer *w)
{
	struct bg_rec m = { .ts = w->drain_upto, .type = RECORD_REC_DRAIN };

	if (!w->drain_pending)
		return 0;
	w->drain_pending = false;
	return w_append(w, &m);
}

static int w_feed(void *ctx, const struct bg_rec *rec)
{
	struct record_writer *w = ctx;
	int err;

	if (w->error)
		return w->error;
	err = w_pending_drain(w);
	note_caller(w, rec);
	return err ? err : w_append(w, rec);
}

static void w_drain(void *ctx, uint64_t upto)
{
	struct record_writer *w = ctx;

	if (!w->drain_pending || upto > w->drain_upto)
		w->drain_upto = upto;
	w->drain_pending = true;
	if (!w->raw_len)
		return;
	/* A quiet trace still reaches the disk: a killed writer loses little. */
	if (!w->block_aging) {
		w->block_aging = true;
		w->block_born = upto;
	} else if (upto - w->block_born >= BLOCK_MAX_AGE_NS) {
		w_records(w);
	}
}

static void w_flush(void *ctx)
{
	struct record_writer *w = ctx;
	struct bg_rec m = { .type = RECORD_REC_FLUSH };

	/* a drain before a flush can order records differently than it alone */
	if (!w_pending_drain(w) && !w_append(w, &m))
		w_records(w);
}

struct rec_sink record__sink(struct record_writer *w)
{
	return (struct rec_sink){ w_feed, w_drain, w_flush, w };
}

static int w_meta(struct record_writer *w, const struct record_meta *m)
{
	struct bbuf b = {};
	int err;

	b_le(&b, m->flags, 4);
	b_le(&b, m->dialect, 4);
	b_le(&b, m->max_depth, 4);
	b_le(&b, m->nr_cpu_ids, 4);
	b_le(&b, m->ncpus_online, 4);
	b_le(&b, m->header ? 1 : 0, 4);
	b_le(&b, m->thresh_ns, 8);
	b_le(&b, (uint64_t)m->clock_offset_ns, 8);
	b_le(&b, m->start_ns, 8);
	b_str(&b, m->release);
	b_str(&b, m->hostname);
	b_str(&b, m->cmdline);
	err = b.nomem ? w_fail(w, -ENOMEM) : w_block(w, RECORD_BLK_HEADER, b.p, b.len);
	free(b.p);
	return err;
}

static int w_file_header(struct record_writer *w)
{
	struct bbuf b = {};
	int err = 0;

	b_put(&b, RECORD_MAGIC, 8);
	b_le(&b, w->version, 2);
	b_le(&b, FILE_HDR_SIZE, 2);
	b_le(&b, 0, 4);
	if (b.nomem)
		err = -ENOMEM;
	else if (fwrite(b.p, 1, b.len, w->f) != b.len)
		err = -errno ?: -EIO;
	free(b.p);
	if (err)
		return w_fail(w, err);
	w->off = FILE_HDR_SIZE;
	return 0;
}

struct record_writer *record__create(const char *path, const struct record_meta *m,
				     const struct functab *funcs, FILE *err)
{
	struct record_writer *w = calloc(1, sizeof(*w));
	int e;

	if (!w)
		return NULL;
	w->err = err;
	w->funcs = funcs;
	/* Older readers refuse what they do not know: version 2 only when needed. */
	w->version = m->flags & BG_O_DETAIL ? RECORD_VERSION_DETAIL :
		     m->flags & (BG_O_ARGS | BG_O_RETADDR) ? RECORD_VERSION_ENUMS : 1;
	w->zcap = compressBound(BLOCK_RAW > RECORD_MAX_RAW ? BLOCK_RAW : RECORD_MAX_RAW);
	w->z = malloc(w->zcap);
	w->path = strdup(path);
	if (!w->z || !w->path) {
		e = -ENOMEM;
		fprintf(err, "bpfgraph: out of memory\n");
		goto fail;
	}
	w->f = fopen(path, "wbe");
	if (!w->f) {
		e = -errno;
		fprintf(err, "bpfgraph: cannot create '%s': %s\n", path, strerror(errno));
		goto fail;
	}
	e = w_file_header(w);
	if (!e)
		e = w_meta(w, m);
	if (!e)
		e = w_funcs(w);
	if (!e)
		return w;
fail:
	if (w->f)
		fclose(w->f);
	free(w->z);
	free(w->path);
	free(w);
	errno = -e;
	return NULL;
}

int record__write_trailer(struct record_writer *w, const struct record_trailer *t)
{
	const uint64_t v[NR_TRAILER] = {
		t->records,	    t->drops, t->recursion_misses,
		t->nested,	    t->unmatched_exits, t->unmatched_entries,
		t->deep,	    t->nostate, t->end_ns,
		t->held,
	};
	struct bbuf b = {};
	int err;

	err = w_records(w);
	if (!err)
		err = w_funcs(w);
	if (err)
		return err;
	b_le(&b, NR_TRAILER, 4);
	for (unsigned int i = 0; i < NR_TRAILER; i++)
		b_le(&b, v[i], 8);
	err = b.nomem ? w_fail(w, -ENOMEM) : w_block(w, RECORD_BLK_TRAILER, b.p, b.len);
	free(b.p);
	return err;
}

uint64_t record__bytes(const struct record_writer *w)
{
	return w->off;
}

int record__close(struct record_writer *w)
{
	int err;

	if (!w)
		return 0;
	w_records(w);
	err = w->error;
	if (fclose(w->f) && !err)
		err = w_fail(w, -errno);
	args_fmt__free(w->af);
	free(w->callers);
	free(w->fresh);
	free(w->z);
	free(w->path);
	free(w);
	return err;
}

/* --- reader --------------------------------------------------------------- */

struct record_reader {
	FILE *f;
	FILE *err;
	char *path;
	uint64_t off; /* of the next block */
	uint64_t blk_off; /* of the block being decoded */
	uint8_t *raw;
	uint8_t *z;
	size_t zcap;
	size_t func_str; /* bytes of the function table's strings so far */
	bool seen_trailer;
	uint16_t version;
	struct record_info info;
	/* ARGS blocks rebuilt as BTF (one FUNC per prototype), SYMS blocks */
	struct btf *btf;
	struct rsym *syms;
	size_t nsyms, syms_cap;
	bool syms_sorted;
	struct args_src src;
};

struct rsym {
	uint64_t addr, off, size;
	char *name, *module;
};

__attribute__((format(printf, 2, 3))) static int r_bad(struct record_reader *r,
							const char *fmt, ...)
{
	va_list ap;

	fprintf(r->err, "bpfgraph: %s: offset %" PRIu64 ": ", r->path, r->blk_off);
	va_start(ap, fmt);
	vfprintf(r->err, fmt, ap);
	va_end(ap);
	fputc('\n', r->err);
	return -EBADMSG;
}

static void r_truncated(struct record_reader *r)
{
	r->info.truncated = true;
	fprintf(r->err, "bpfgraph: warning: %s: truncated at offset %" PRIu64
		": the recording was cut short, read up to there\n", r->path, r->blk_off);
}

/* 0 and *len; 1 at a clean end; 2 if the file ends inside it; -errno. */
static int r_block(struct record_reader *r, uint32_t *type, size_t *len)
{
	uint8_t h[BLK_HDR_SIZE];
	struct cur c = { .p = h, .len = sizeof(h) };
	uint32_t raw_len, zlen, crc;
	uLongf out;
	size_t n;

	r->blk_off = r->off;
	n = fread(h, 1, sizeof(h), r->f);
	if (n == 0 && feof(r->f))
		return 1;
	if (n < sizeof(h))
		return ferror(r->f) ? -EIO : 2;
	*type = (uint32_t)c_le(&c, 4);
	raw_len = (uint32_t)c_le(&c, 4);
	zlen = (uint32_t)c_le(&c, 4);
	crc = (uint32_t)c_le(&c, 4);
	if (*type < RECORD_BLK_HEADER || *type > RECORD_BLK_SYMS)
		return r_bad(r, "unknown block type %u", *type);
	if (raw_len > RECORD_MAX_RAW || zlen > r->zcap)
		return r_bad(r, "block length %u/%u over the limit of %u", raw_len, zlen,
			     RECORD_MAX_RAW);
	n = fread(r->z, 1, zlen, r->f);
	if (n < zlen)
		return ferror(r->f) ? -EIO : 2;
	if ((uint32_t)crc32(crc32(0, h, 12), r->z, zlen) != crc)
		return r_bad(r, "block CRC mismatch (corrupted file)");
	out = raw_len;
	if (uncompress(r->raw, &out, r->z, zlen) != Z_OK || out != raw_len)
		return r_bad(r, "block does not decompress to its %u bytes", raw_len);
	r->off += BLK_HDR_SIZE + zlen;
	*len = raw_len;
	return 0;
}

static int r_meta(struct record_reader *r, size_t len)
{
	struct cur c = { .p = r->raw, .len = len };
	struct record_meta *m = &r->info.meta;
	int err = 0;

	m->flags = (uint32_t)c_le(&c, 4);
	m->dialect = (uint32_t)c_le(&c, 4);
	m->max_depth = (uint32_t)c_le(&c, 4);
	m->nr_cpu_ids = (uint32_t)c_le(&c, 4);
	m->ncpus_online = (uint32_t)c_le(&c, 4);
	m->header = c_le(&c, 4) & 1;
	m->thresh_ns = c_le(&c, 8);
	m->clock_offset_ns = (int64_t)c_le(&c, 8);
	m->start_ns = c_le(&c, 8);
	m->release = c_str(&c, &err);
	m->hostname = c_str(&c, &err);
	m->cmdline = c_str(&c, &err);
	if (err)
		return err;
	if (c.bad)
		return r_bad(r, "header block is malformed");
	if (m->nr_cpu_ids > BG_MAX_CPUS || m->max_depth > BG_MAX_DEPTH ||
	    (m->dialect != 601 && m->dialect != 605 && m->dialect != 613 &&
	     m->dialect != 615 && m->dialect != 617 && m->dialect != 619))
		return r_bad(r, "header block has out-of-range values");
	return 0;
}

static size_t str_len(const char *s)
{
	return s ? strlen(s) : 0;
}

static int r_func(struct record_reader *r, struct cur *c)
{
	struct bg_func f = {};
	int idx, err = 0;

	f.addr = c_le(c, 8);
	f.size = (uint32_t)c_le(c, 4);
	f.btf_id = (uint32_t)c_le(c, 4);
	f.flags = (uint32_t)c_le(c, 4);
	f.ret_kind = (uint8_t)c_le(c, 1);
	f.ret_size = (uint8_t)c_le(c, 1);
	c_le(c, 2);
	f.name = c_str(c, &err);
	f.module = c_str(c, &err);
	f.ret_type = c_str(c, &err);
	if (!err && (c->bad || !f.name || f.ret_kind > BG_RET_PTR || f.ret_size > 8))
		err = r_bad(r, "malformed function entry");
	/* Each string may be long, but a million of them would exhaust memory. */
	r->func_str += str_len(f.name) + str_len(f.module) + str_len(f.ret_type);
	if (!err && r->func_str > RECORD_MAX_FUNC_STR)
		err = r_bad(r, "function names over the limit of %u MiB",
			    RECORD_MAX_FUNC_STR >> 20);
	idx = err ? err : functab__add(&r->info.funcs, f.name, f.module, f.addr, f.size);
	if (idx >= 0) {
		struct bg_func *t = &r->info.funcs.f[idx];

		t->btf_id = f.btf_id;
		t->flags = f.flags;
		t->ret_kind = f.ret_kind;
		t->ret_size = f.ret_size;
		t->ret_type = f.ret_type;
		f.ret_type = NULL;
	}
	free(f.name);
	free(f.module);
	free(f.ret_type);
	return idx < 0 ? idx : 0;
}

static int r_funcs(struct record_reader *r, size_t len)
{
	struct cur c = { .p = r->raw, .len = len };
	uint64_t first = c_le(&c, 4), count = c_le(&c, 4);
	int err = 0;

	if (c.bad || first != r->info.funcs.n)
		return r_bad(r, "functions block does not continue the table (first %" PRIu64
			     ", have %zu)", first, r->info.funcs.n);
	if (count > (len - c.at) / FUNC_MIN_SIZE || first + count > RECORD_MAX_FUNCS)
		return r_bad(r, "functions block claims %" PRIu64 " entries", count);
	for (uint64_t i = 0; i < count && !err; i++)
		err = r_func(r, &c);
	if (!err && c.at != len)
		err = r_bad(r, "functions block has %zu bytes too many", len - c.at);
	return err;
}

static int r_trailer(struct record_reader *r, size_t len)
{
	struct cur c = { .p = r->raw, .len = len };
	uint64_t n = c_le(&c, 4), v[NR_TRAILER] = {};
	struct record_trailer *t = &r->info.trailer;

	/* Newer writers may add counters at the end: known ones are read. */
	for (uint64_t i = 0; i < n && i < NR_TRAILER; i++)
		v[i] = c_le(&c, 8);
	if (c.bad || n > (len - 4) / 8)
		return r_bad(r, "trailer block is malformed");
	*t = (struct record_trailer){ v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9] };
	r->info.has_trailer = true;
	r->seen_trailer = true;
	return 0;
}

/* A type of kind, size and encoding as a BTF type of btf; its id or < 0. */
static int r_type(struct btf *btf, unsigned int kind, unsigned int enc, uint32_t size)
{
	switch (kind) {
	case 0:
		return 0;
	case BTF_KIND_PTR:
		return btf__add_ptr(btf, 0);
	case BTF_KIND_INT:
		return btf__add_int(btf, "int", size && size <= 16 ? size : 8, enc & 7);
	case BTF_KIND_ENUM:
		return btf__add_enum(btf, "e", size == 1 || size == 2 || size == 8 ? size : 4);
	case BTF_KIND_ENUM64:
		return btf__add_enum64(btf, "e", 8, false);
	case BTF_KIND_UNION:
		return btf__add_union(btf, "u", size);
	case BTF_KIND_FLOAT:
		return btf__add_float(btf, "f", size == 2 || size == 4 || size == 8 ||
						 size == 12 || size == 16 ? size : 8);
	default:
		return btf__add_struct(btf, "s", size);
	}
}

/*
 * The enumerators after an enum parameter (version 3) onto enum id of
 * r->btf, or only read past when id is not above 0. BTF's kflag says
 * what the writer's enum was, whatever the sign of its values.
 */
static int r_enumerators(struct record_reader *r, struct cur *c, int id, bool is_signed)
{
	unsigned int n = (unsigned int)c_le(c, 2);
	struct btf_type *t;
	int err = 0;

	if (n > RECORD_MAX_ENUMS)
		return r_bad(r, "enum of %u values", n);
	for (unsigned int k = 0; k < n && !err && !c->bad; k++) {
		char *name = c_str(c, &err);
		int32_t v = (int32_t)(uint32_t)c_le(c, 4);

		if (!err && !c->bad && id > 0 && btf__add_enum_value(r->btf, name ?: "", v))
			err = -ENOMEM;
		free(name);
	}
	if (id > 0 && !err) {
		t = (struct btf_type *)btf__type_by_id(r->btf, (uint32_t)id);
		t->info = (t->info & ~(1U << 31)) | (is_signed ? 1U << 31 : 0);
	}
	return err;
}

/*
 * The members after a pointer parameter (version 4) as a struct of them,
 * and the pointer to it: its id (or 0 when ok is false, only read past),
 * or a negative error.
 */
static int r_members(struct record_reader *r, struct cur *c, bool ok)
{
	unsigned int n = (unsigned int)c_le(c, 1);
	char *names[BG_DETAIL_FIELDS] = { 0 };
	uint32_t off[BG_DETAIL_FIELDS], end = 0;
	unsigned int size[BG_DETAIL_FIELDS], sg[BG_DETAIL_FIELDS];
	int ints[BG_DETAIL_FIELDS], st = 0, err = 0;

	if (n > BG_DETAIL_FIELDS)
		return r_bad(r, "pointer parameter with %u members", n);
	for (unsigned int k = 0; k < n && !err; k++) {
		names[k] = c_str(c, &err);
		off[k] = (uint32_t)c_le(c, 2);
		size[k] = (unsigned int)c_le(c, 1);
		sg[k] = (unsigned int)c_le(c, 1);
		if (!err && !c->bad && ((size[k] != 1 && size[k] != 2 && size[k] != 4 && size[k] != 8) ||
					 sg[k] > 1 || !names[k] || !*names[k]))
			err = r_bad(r, "pointer parameter with a bad member");
		if (!err && off[k] + size[k] > end)
			end = off[k] + size[k];
	}
	/* the members' types first: a struct's fields follow it directly */
	for (unsigned int k = 0; k < n && !err && !c->bad && ok; k++)
		if ((ints[k] = btf__add_int(r->btf, "int", (size_t)size[k],
					    sg[k] ? BTF_INT_SIGNED : 0)) < 0)
			err = -ENOMEM;
	if (!err && !c->bad && ok && n) {
		st = btf__add_struct(r->btf, "s", end);
		for (unsigned int k = 0; k < n && st > 0; k++)
			if (btf__add_field(r->btf, names[k], ints[k], off[k] * 8, 0))
				st = -1;
		if (st < 0)
			err = -ENOMEM;
	}
	for (unsigned int k = 0; k < n; k++)
		free(names[k]);
	if (err)
		return err;
	return ok && !c->bad ? btf__add_ptr(r->btf, st) : 0;
}

/*
 * One function's prototype from an ARGS block into r->btf: the types by
 * what the printer looks at, under typedefs named with the recorded C
 * spelling (JSON's "type"), a FUNC named as the function.
 */
static int r_proto(struct record_reader *r, struct cur *c, const char *fname)
{
	unsigned int n = (unsigned int)c_le(c, 2);
	char *names[64] = { 0 };
	int types[64], proto, err = 0;
	bool ok = fname != NULL;

	if (n == RECORD_NO_PROTO)
		return 0;
	if (n > 64)
		return r_bad(r, "prototype of %u parameters", n);
	/* Parameters must follow their FUNC_PROTO: their types go first. */
	for (unsigned int k = 0; k < n && !err; k++) {
		unsigned int kind = (unsigned int)c_le(c, 1), enc = (unsigned int)c_le(c, 1);
		uint32_t size = (uint32_t)c_le(c, 4);
		char *type;

		names[k] = c_str(c, &err);
		type = c_str(c, &err);
		types[k] = -1;
		if (!err && !c->bad && kind == BTF_KIND_PTR && r->version >= RECORD_VERSION_DETAIL) {
			types[k] = r_members(r, c, ok);
			if (types[k] < 0) {
				err = types[k];
				types[k] = -1;
			}
		} else if (!err && !c->bad && ok) {
			types[k] = r_type(r->btf, kind, enc, size);
		}
		/* the values must follow their enum in BTF, before the typedef */
		if (!err && !c->bad && kind == BTF_KIND_ENUM && r->version >= RECORD_VERSION_ENUMS)
			err = r_enumerators(r, c, ok ? types[k] : 0, enc & BTF_INT_SIGNED);
		if (!err && !c->bad && ok) {
			if (types[k] > 0 && type)
				types[k] = btf__add_typedef(r->btf, type, types[k]);
			ok = types[k] >= 0;
		}
		free(type);
	}
	if (!err && c->bad)
		err = r_bad(r, "arguments block is malformed");
	if (!err && ok) {
		proto = btf__add_func_proto(r->btf, 0);
		for (unsigned int k = 0; k < n && proto > 0; k++)
			if (btf__add_func_param(r->btf, names[k] ? names[k] : "", types[k]))
				proto = -1;
		if (proto > 0)
			btf__add_func(r->btf, fname, BTF_FUNC_GLOBAL, proto);
	}
	for (unsigned int k = 0; k < n; k++)
		free(names[k]);
	return err;
}

static int r_args(struct record_reader *r, size_t len)
{
	struct cur c = { .p = r->raw, .len = len };
	uint64_t first = c_le(&c, 4), count = c_le(&c, 4);
	int err = 0;

	if (c.bad || first + count > r->info.funcs.n)
		return r_bad(r, "arguments block for functions not in the table");
	for (uint64_t i = first; i < first + count && !err; i++)
		err = r_proto(r, &c, r->btf ? r->info.funcs.f[i].name : NULL);
	if (!err && c.at != len)
		err = r_bad(r, "arguments block has %zu bytes too many", len - c.at);
	return err;
}

static int r_syms(struct record_reader *r, size_t len)
{
	struct cur c = { .p = r->raw, .len = len };
	uint64_t n = c_le(&c, 4);
	int err = 0;

	if (c.bad || n > len / 28)
		return r_bad(r, "symbols block is malformed");
	for (uint64_t i = 0; i < n && !err; i++) {
		struct rsym s = { 0 };

		s.addr = c_le(&c, 8);
		s.off = c_le(&c, 8);
		s.size = c_le(&c, 8);
		s.name = c_str(&c, &err);
		s.module = c_str(&c, &err);
		if (!err && c.bad)
			err = r_bad(r, "symbols block is malformed");
		if (!err && r->nsyms == r->syms_cap) {
			size_t cap = r->syms_cap ? r->syms_cap * 2 : 256;
			struct rsym *p = realloc(r->syms, cap * sizeof(*p));

			if (!p)
				err = -ENOMEM;
			else
				r->syms = p, r->syms_cap = cap;
		}
		if (err) {
			free(s.name);
			free(s.module);
			break;
		}
		r->syms[r->nsyms++] = s;
		r->syms_sorted = false;
	}
	return err;
}

static int cmp_rsym(const void *a, const void *b)
{
	const struct rsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int r_sym(void *ctx, uint64_t addr, struct args_sym *out)
{
	struct record_reader *r = ctx;
	struct rsym key = { .addr = addr }, *s;

	if (!r->syms_sorted && r->nsyms) {
		qsort(r->syms, r->nsyms, sizeof(*r->syms), cmp_rsym);
		r->syms_sorted = true;
	}
	s = r->nsyms ? bsearch(&key, r->syms, r->nsyms, sizeof(*r->syms), cmp_rsym) : NULL;
	if (!s || !s->name)
		return -ENOENT;
	*out = (struct args_sym){ s->name, s->module, addr - s->off, s->size };
	return 0;
}

const struct args_src *record__args_src(struct record_reader *r)
{
	r->src = (struct args_src){ .btf = r->btf, .sym = r_sym, .sym_ctx = r };
	return &r->src;
}

static bool rec_ok(const struct record_reader *r, const struct bg_rec *rec)
{
	switch (bg_rec_type(rec)) {
	case BG_REC_ARGS:
		return r->version >= RECORD_VERSION_ARGS && rec->cpu < BG_MAX_CPUS;
	case BG_REC_DETAIL:
		return r->version >= RECORD_VERSION_DETAIL && rec->cpu < BG_MAX_CPUS;
	case BG_REC_ENTRY:
	case BG_REC_EXIT:
	case BG_REC_SWITCH:
		return rec->cpu < BG_MAX_CPUS;
	case BG_REC_COMM:
	case RECORD_REC_DRAIN:
	case RECORD_REC_FLUSH:
		return true;
	default:
		return false;
	}
}

static int r_records(struct record_reader *r, size_t len, const struct rec_sink *sink)
{
	struct bg_rec rec;
	int err;

	if (len % REC_SIZE)
		return r_bad(r, "records block of %zu bytes is no multiple of %d", len, REC_SIZE);
	for (size_t at = 0; at < len; at += REC_SIZE) {
		get_rec(r->raw + at, &rec);
		if (!rec_ok(r, &rec))
			return r_bad(r, "record %zu: bad type %u or cpu %u", at / REC_SIZE,
				     rec.type, rec.cpu);
		if (bg_rec_type(&rec) == RECORD_REC_DRAIN) {
			sink->drain(sink->ctx, rec.ts);
			continue;
		}
		if (bg_rec_type(&rec) == RECORD_REC_FLUSH) {
			sink->flush(sink->ctx);
			continue;
		}
		err = sink->feed(sink->ctx, &rec);
		if (err)
			return r_bad(r, "record %zu: %s", at / REC_SIZE, strerror(-err));
		r->info.records++;
	}
	return 0;
}

static int r_dispatch(struct record_reader *r, uint32_t type, size_t len,
		      const struct rec_sink *sink)
{
	if (r->seen_trailer)
		return r_bad(r, "block after the trailer");
	r->info.blocks++;
	switch (type) {
	case RECORD_BLK_FUNCS:
		return r_funcs(r, len);
	case RECORD_BLK_RECORDS:
		return r_records(r, len, sink);
	case RECORD_BLK_TRAILER:
		return r_trailer(r, len);
	case RECORD_BLK_ARGS:
		if (r->version >= RECORD_VERSION_ARGS)
			return r_args(r, len);
		return r_bad(r, "arguments block in a version %u file", r->version);
	case RECORD_BLK_SYMS:
		if (r->version >= RECORD_VERSION_ARGS)
			return r_syms(r, len);
		return r_bad(r, "symbols block in a version %u file", r->version);
	default:
		return r_bad(r, "second header block");
	}
}

int record__replay(struct record_reader *r, const struct rec_sink *sink)
{
	uint32_t type = 0;
	size_t len = 0;
	int ret;

	while ((ret = r_block(r, &type, &len)) == 0) {
		ret = r_dispatch(r, type, len, sink);
		if (ret)
			return ret;
	}
	if (ret == 2)
		r_truncated(r);
	else if (ret == 1 && !r->seen_trailer)
		fprintf(r->err, "bpfgraph: warning: %s: no trailer at offset %" PRIu64
			": the recording was not finished\n", r->path, r->off);
	if (ret < 0) {
		if (ret != -EBADMSG)
			fprintf(r->err, "bpfgraph: cannot read '%s': %s\n", r->path,
				strerror(-ret));
		return ret;
	}
	sink->flush(sink->ctx);
	return 0;
}

static int r_start(struct record_reader *r)
{
	uint8_t h[FILE_HDR_SIZE];
	struct cur c = { .p = h, .len = sizeof(h) };
	uint32_t type = 0;
	size_t len = 0;
	uint64_t version;
	int ret;

	if (fread(h, 1, sizeof(h), r->f) != sizeof(h) || memcmp(h, RECORD_MAGIC, 8))
		return r_bad(r, "not a bpfgraph record file (bad magic)");
	c.at = 8;
	version = c_le(&c, 2);
	if (version < 1 || version > RECORD_VERSION || c_le(&c, 2) != FILE_HDR_SIZE)
		return r_bad(r, "record file version %" PRIu64 " is not supported (this "
			     "bpfgraph reads versions 1 to %d)", version, RECORD_VERSION);
	r->version = (uint16_t)version;
	r->off = FILE_HDR_SIZE;
	ret = r_block(r, &type, &len);
	if (ret > 0)
		return r_bad(r, "file ends before its header block");
	if (ret < 0)
		return ret;
	if (type != RECORD_BLK_HEADER)
		return r_bad(r, "first block is not the header");
	r->info.blocks++;
	return r_meta(r, len);
}

struct record_reader *record__open(const char *path, FILE *err)
{
	struct record_reader *r = calloc(1, sizeof(*r));
	int e;

	if (!r)
		return NULL;
	r->err = err;
	functab__init(&r->info.funcs);
	r->zcap = compressBound(RECORD_MAX_RAW);
	r->raw = malloc(RECORD_MAX_RAW);
	r->z = malloc(r->zcap);
	r->path = strdup(path);
	/* Made now: writers hold the pointer from before the ARGS blocks. */
	r->btf = btf__new_empty();
	if (!r->raw || !r->z || !r->path || !r->btf) {
		fprintf(err, "bpfgraph: out of memory\n");
		e = -ENOMEM;
		goto fail;
	}
	r->f = fopen(path, "rbe");
	if (!r->f) {
		e = -errno;
		fprintf(err, "bpfgraph: cannot open '%s': %s\n", path, strerror(errno));
		goto fail;
	}
	e = r_start(r);
	if (!e)
		return r;
	if (e == -EIO)
		fprintf(err, "bpfgraph: cannot read '%s': %s\n", path, strerror(EIO));
fail:
	record__close_reader(r);
	errno = -e;
	return NULL;
}

const struct record_info *record__info(const struct record_reader *r)
{
	return &r->info;
}

void record__free_meta(struct record_meta *m)
{
	free(m->release);
	free(m->hostname);
	free(m->cmdline);
	m->release = m->hostname = m->cmdline = NULL;
}

void record__close_reader(struct record_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	record__free_meta(&r->info.meta);
	functab__free(&r->info.funcs);
	btf__free(r->btf);
	for (size_t i = 0; i < r->nsyms; i++) {
		free(r->syms[i].name);
		free(r->syms[i].module);
	}
	free(r->syms);
	free(r->raw);
	free(r->z);
	free(r->path);
	free(r);
}
