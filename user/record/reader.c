// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading record files (record.h has the layout): each block's framing
 * is checked (type, lengths against the limits, CRC) before it is
 * decompressed, then decoded against the limits of record.h, so that a
 * hostile file is refused with a message and never allocates much; a
 * file cut short is read up to its last whole block.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <bpf/btf.h>

#include "bpfgraph.h"
#include "codec.h"
#include "reader_int.h"
#include "record.h"

int r_bad(struct record_reader *r, const char *fmt, ...)
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
	if (r->version >= RECORD_VERSION_ZSTD) {
		n = ZSTD_decompressDCtx(r->zd, r->raw, raw_len, r->z, zlen);
		if (ZSTD_isError(n) || n != raw_len)
			return r_bad(r, "block does not decompress to its %u bytes", raw_len);
	} else {
		out = raw_len;
		if (uncompress(r->raw, &out, r->z, zlen) != Z_OK || out != raw_len)
			return r_bad(r, "block does not decompress to its %u bytes", raw_len);
	}
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
	r->zcap = compressBound(RECORD_MAX_RAW) > ZSTD_compressBound(RECORD_MAX_RAW) ?
			  compressBound(RECORD_MAX_RAW) : ZSTD_compressBound(RECORD_MAX_RAW);
	r->raw = malloc(RECORD_MAX_RAW);
	r->z = malloc(r->zcap);
	r->zd = ZSTD_createDCtx();
	r->path = strdup(path);
	/* Made now: writers hold the pointer from before the ARGS blocks. */
	r->btf = btf__new_empty();
	if (!r->raw || !r->z || !r->zd || !r->path || !r->btf) {
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
	ZSTD_freeDCtx(r->zd);
	free(r->path);
	free(r);
}
