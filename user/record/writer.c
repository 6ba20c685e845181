// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Writing record files (record.h has the layout). The writer is a
 * rec_sink that also keeps the order of feeds and drains (as drain
 * marks): the graph builder's output depends on when records were
 * released, not only on the records, and report must repeat live output
 * byte for byte. Functions, their prototypes and the symbols of return
 * addresses go into the file ahead of the first records that use them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include <bpf/btf.h>

#include "bpfgraph.h"
#include "codec.h"
#include "detail.h"
#include "options.h"
#include "record.h"

/* Records per block: 2048; a block is compressed and written when full. */
#define BLOCK_RAW (64U << 10)
/* A block waits at most this long (in record time) for more records. */
#define BLOCK_MAX_AGE_NS 1000000000ULL
#define ZSTD_LEVEL 1

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
	ZSTD_CCtx *zc;
	uint64_t off;
	uint64_t drain_upto;
	bool drain_pending;
	bool block_aging;
	uint64_t block_born;
	int error; /* first write error, sticky */
	/*
	 * What the options need, as the version that brought it: prototypes
	 * and symbols (RECORD_VERSION_ARGS and up) only with funcgraph-args
	 * or -retaddr, struct members only with --args-detail.
	 */
	uint16_t needs;
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
	size_t zlen;
	struct bbuf h = {};
	uint32_t crc;
	int err = 0;

	if (w->error)
		return w->error;
	zlen = ZSTD_compress2(w->zc, w->z, w->zcap, raw, len);
	if (ZSTD_isError(zlen))
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
			/* The count is in every file since version 4; members with --args-detail. */
			if (p.kind == BTF_KIND_PTR && w->needs >= RECORD_VERSION_DETAIL)
				put_members(&b, w->af, (uint32_t)i, (unsigned int)k);
			else if (p.kind == BTF_KIND_PTR)
				b_le(&b, 0, 1);
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
	if (w->needs < RECORD_VERSION_ARGS)
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
	b_le(&b, RECORD_VERSION, 2);
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
	w->needs = m->flags & BG_O_DETAIL ? RECORD_VERSION_DETAIL :
		   m->flags & (BG_O_ARGS | BG_O_RETADDR) ? RECORD_VERSION_ENUMS : 1;
	w->zcap = ZSTD_compressBound(BLOCK_RAW > RECORD_MAX_RAW ? BLOCK_RAW : RECORD_MAX_RAW);
	w->z = malloc(w->zcap);
	w->zc = ZSTD_createCCtx();
	w->path = strdup(path);
	if (!w->z || !w->path || !w->zc ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, ZSTD_LEVEL))) {
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
	ZSTD_freeCCtx(w->zc);
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
	ZSTD_freeCCtx(w->zc);
	free(w->z);
	free(w->path);
	free(w);
	return err;
}
