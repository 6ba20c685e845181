// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record files: write -> read round trips (header, functions appended
 * late, records, drain marks, trailer); files cut at every block and
 * inside blocks; corrupted and hostile files (one-line error with the byte
 * offset, no crash, bounded memory); and "bpfgraph report" of a recording
 * printing the very bytes the text writer printed live, for every script
 * of tests/golden/graph/ and for default and non-default options.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <bpf/btf.h>

#include "golden.h"

#include "canned.h"
#include "cli.h"
#include "cmd.h"
#include "args_src.h"
#include "graph.h"
#include "out_text.h"
#include "record.h"
#include "render.h"

struct tmp {
	char dir[64];
	char path[128];
};

static void tmp_make(struct tmp *t, const char *name)
{
	strcpy(t->dir, "/tmp/bg-test-record.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
}

static void tmp_clean(struct tmp *t)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	assert_int_equal(system(cmd), 0);
}

/* --- a sink that logs what it gets --------------------------------------- */

struct log {
	struct bg_rec *r;
	size_t n, cap;
	size_t drains, flushes;
	uint64_t last_drain;
};

static int log_feed(void *ctx, const struct bg_rec *r)
{
	struct log *l = ctx;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->r = realloc(l->r, l->cap * sizeof(*l->r));
		assert_non_null(l->r);
	}
	l->r[l->n++] = *r;
	return 0;
}

static void log_drain(void *ctx, uint64_t upto)
{
	struct log *l = ctx;

	l->drains++;
	l->last_drain = upto;
}

static void log_flush(void *ctx)
{
	((struct log *)ctx)->flushes++;
}

static struct rec_sink log_sink(struct log *l)
{
	return (struct rec_sink){ log_feed, log_drain, log_flush, l };
}

/* Counts only: replaying big files must not grow with them. */
static int count_feed(void *ctx, const struct bg_rec *r)
{
	(*(uint64_t *)ctx)++;
	return 0;
}

static void nop_drain(void *ctx, uint64_t upto)
{
}

static void nop_flush(void *ctx)
{
}

/* --- writing a sample file ----------------------------------------------- */

static void sample_funcs(struct functab *ft, size_t n)
{
	char name[32];

	for (size_t i = ft->n; i < n; i++) {
		snprintf(name, sizeof(name), "func_%zu", i);
		assert_int_equal(functab__add(ft, name, i % 3 ? NULL : "mod", 0xffffffff81000000ULL + i,
					      (uint32_t)i), (int)i);
		ft->f[i].btf_id = (uint32_t)i * 7;
		ft->f[i].flags = (uint32_t)i & 7;
		ft->f[i].ret_kind = (uint8_t)(i % 6);
		ft->f[i].ret_size = (uint8_t)(1 << (i % 4));
		ft->f[i].ret_type = i % 2 ? strdup("struct file *") : NULL;
	}
}

static struct bg_rec sample_rec(size_t i, size_t nfuncs)
{
	return (struct bg_rec){
		.ts = 1000000000ULL + i * 1000, .val = 0xffff888000000000ULL ^ i,
		.dur = (uint32_t)(i * 3), .pid = 100 + (uint32_t)(i % 5),
		.func = (uint32_t)(i % nfuncs), .cpu = (uint16_t)(i % 4),
		.type = (uint8_t)(i % 2 ? BG_REC_EXIT : BG_REC_ENTRY), .depth = (uint8_t)(i % 64),
	};
}

static const struct record_meta sample_meta = {
	.flags = BG_O_DEFAULTS | BG_O_PROC, .dialect = BG_DIALECT_6_13, .max_depth = 5,
	.nr_cpu_ids = 12, .ncpus_online = 8, .header = true, .thresh_ns = 7000,
	.clock_offset_ns = 1700000000123456789LL, .start_ns = 999,
	.release = "6.1.0-test", .hostname = "guest", .cmdline = "bpfgraph record -o x",
};

static const struct record_trailer sample_trailer = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

/* nrec records over 10 functions, 10 more functions added half-way. */
static void write_sample(const char *path, size_t nrec, bool trailer, struct functab *ft)
{
	struct record_writer *w;
	struct rec_sink s;
	struct bg_rec r;

	functab__init(ft);
	sample_funcs(ft, 10);
	w = record__create(path, &sample_meta, ft, stderr);
	assert_non_null(w);
	s = record__sink(w);
	for (size_t i = 0; i < nrec; i++) {
		if (i == nrec / 2)
			sample_funcs(ft, 20);
		r = sample_rec(i, i >= nrec / 2 ? 20 : 10);
		assert_int_equal(s.feed(s.ctx, &r), 0);
		if (i % 100 == 99) {
			s.drain(s.ctx, r.ts - 50);
			s.drain(s.ctx, r.ts - 10); /* kept: the last of a run */
		}
	}
	s.flush(s.ctx);
	if (trailer)
		assert_int_equal(record__write_trailer(w, &sample_trailer), 0);
	assert_int_equal(record__close(w), 0);
}

static void check_funcs(const struct functab *a, const struct functab *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_string_equal(a->f[i].name, b->f[i].name);
		assert_string_equal(a->f[i].display, b->f[i].display);
		assert_true((a->f[i].module == NULL) == (b->f[i].module == NULL));
		if (a->f[i].module)
			assert_string_equal(a->f[i].module, b->f[i].module);
		assert_true((a->f[i].ret_type == NULL) == (b->f[i].ret_type == NULL));
		if (a->f[i].ret_type)
			assert_string_equal(a->f[i].ret_type, b->f[i].ret_type);
		assert_int_equal(a->f[i].addr, b->f[i].addr);
		assert_int_equal(a->f[i].size, b->f[i].size);
		assert_int_equal(a->f[i].btf_id, b->f[i].btf_id);
		assert_int_equal(a->f[i].flags, b->f[i].flags);
		assert_int_equal(a->f[i].ret_kind, b->f[i].ret_kind);
		assert_int_equal(a->f[i].ret_size, b->f[i].ret_size);
	}
}

static void test_round_trip(void **state)
{
	const size_t nrec = 10000;
	struct record_reader *r;
	const struct record_info *in;
	struct functab ft;
	struct log l = {};
	struct rec_sink s = log_sink(&l);
	struct tmp t;

	tmp_make(&t, "rt.bgr");
	write_sample(t.path, nrec, true, &ft);
	r = record__open(t.path, stderr);
	assert_non_null(r);
	in = record__info(r);
	assert_int_equal(in->meta.flags, sample_meta.flags);
	assert_int_equal(in->meta.dialect, sample_meta.dialect);
	assert_int_equal(in->meta.max_depth, 5);
	assert_int_equal(in->meta.nr_cpu_ids, 12);
	assert_int_equal(in->meta.ncpus_online, 8);
	assert_true(in->meta.header);
	assert_int_equal(in->meta.thresh_ns, 7000);
	assert_int_equal(in->meta.clock_offset_ns, sample_meta.clock_offset_ns);
	assert_int_equal(in->meta.start_ns, 999);
	assert_string_equal(in->meta.release, "6.1.0-test");
	assert_string_equal(in->meta.hostname, "guest");
	assert_string_equal(in->meta.cmdline, "bpfgraph record -o x");
	assert_int_equal(record__replay(r, &s), 0);
	check_funcs(&ft, &in->funcs);
	assert_int_equal(l.n, nrec);
	for (size_t i = 0; i < nrec; i++) {
		struct bg_rec e = sample_rec(i, i >= nrec / 2 ? 20 : 10);

		assert_memory_equal(&l.r[i], &e, sizeof(e));
	}
	/* one mark per run of drains, the last upto of the run */
	assert_int_equal(l.drains, nrec / 100);
	assert_int_equal(l.last_drain, sample_rec(nrec - 1, 20).ts - 10);
	assert_int_equal(l.flushes, 2); /* the writer's flush mark, the end */
	assert_true(in->has_trailer);
	assert_false(in->truncated);
	assert_memory_equal(&in->trailer, &sample_trailer, sizeof(sample_trailer));
	assert_int_equal(in->records, nrec);
	record__close_reader(r);
	functab__free(&ft);
	free(l.r);
	tmp_clean(&t);
}

/* --- cut files ----------------------------------------------------------- */

static char *slurp_file(const char *path, size_t *len)
{
	char *p = golden_slurp(path, len);

	assert_non_null(p);
	return p;
}

static void write_bytes(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Replays path; returns record__replay()'s result, *n the records, err text. */
static int replay_count(const char *path, uint64_t *n, char *msg, size_t msglen,
			bool *truncated)
{
	FILE *err = fmemopen(msg, msglen, "w");
	struct rec_sink s = { count_feed, nop_drain, nop_flush, n };
	struct record_reader *r;
	int ret;

	assert_non_null(err);
	*n = 0;
	r = record__open(path, err);
	ret = r ? record__replay(r, &s) : -errno;
	if (r)
		*truncated = record__info(r)->truncated;
	record__close_reader(r);
	fclose(err);
	return ret;
}

/* A writer killed anywhere: readable up to the last complete block. */
static void test_truncated(void **state)
{
	const size_t nrec = 5000; /* 3 record blocks */
	struct functab ft;
	char msg[512];
	size_t len, prev = 0;
	char *data;
	struct tmp t;
	char cut[200];
	uint64_t n;
	bool tr = false;
	int ret;

	tmp_make(&t, "full.bgr");
	snprintf(cut, sizeof(cut), "%s/cut.bgr", t.dir);
	write_sample(t.path, nrec, false, &ft);
	data = slurp_file(t.path, &len);
	for (size_t at = 0; at <= len; at = at == len ? len + 1 :
					   at < 200 ? at + 1 : (at + 97 < len ? at + 97 : len)) {
		write_bytes(cut, data, at);
		ret = replay_count(cut, &n, msg, sizeof(msg), &tr);
		if (ret) {
			/* only a file without its complete header is unreadable */
			assert_int_equal(ret, -EBADMSG);
			assert_non_null(strstr(msg, cut));
			assert_non_null(strstr(msg, "offset "));
			assert_int_equal(strchr(msg, '\n') - msg, strlen(msg) - 1);
			assert_true(at < 200);
			continue;
		}
		assert_non_null(strstr(msg, "warning"));
		assert_true(n <= nrec);
		assert_true(n >= prev);
		prev = n;
		assert_true(tr || n == nrec || strstr(msg, "no trailer"));
	}
	assert_int_equal(prev, nrec);
	free(data);
	functab__free(&ft);
	tmp_clean(&t);
}

/* --- hostile files -------------------------------------------------------- */

static void put_le32(char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (char)(v >> (8 * i));
}

/* The file with one change must fail with msg mentioning "offset N". */
static void expect_bad(const char *path, const char *data, size_t len, const char *what,
		       uint64_t offset)
{
	char msg[512], want[64];
	uint64_t n;
	bool tr;

	write_bytes(path, data, len);
	assert_int_equal(replay_count(path, &n, msg, sizeof(msg), &tr), -EBADMSG);
	snprintf(want, sizeof(want), "offset %" PRIu64 ":", offset);
	if (!strstr(msg, want) || !strstr(msg, what) || !strstr(msg, path))
		fail_msg("expected '%s' and '%s' in: %s", want, what, msg);
	assert_int_equal(strchr(msg, '\n') - msg, strlen(msg) - 1);
}

static uint32_t get_le32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return u[0] | u[1] << 8 | u[2] << 16 | (uint32_t)u[3] << 24;
}

/* Offset of the last block of a valid file. */
static size_t last_block(const char *data, size_t len)
{
	size_t at = 16, last = 16;

	while (at < len) {
		last = at;
		at += 16 + get_le32(data + at + 8);
	}
	assert_int_equal(at, len);
	return last;
}

static void test_hostile(void **state)
{
	struct functab ft;
	size_t len;
	char *data, *bad;
	struct tmp t;
	char path[200];

	tmp_make(&t, "ok.bgr");
	snprintf(path, sizeof(path), "%s/bad.bgr", t.dir);
	write_sample(t.path, 3000, true, &ft);
	data = slurp_file(t.path, &len);
	bad = malloc(len);
	assert_non_null(bad);

	memcpy(bad, data, len);
	bad[0] = 'X';
	expect_bad(path, bad, len, "bad magic", 0);

	memcpy(bad, data, len);
	bad[8] = 9;
	expect_bad(path, bad, len, "version 9", 0);

	/* the header block's raw length: 4 GiB - 1 */
	memcpy(bad, data, len);
	put_le32(bad + 16 + 4, 0xffffffff);
	expect_bad(path, bad, len, "over the limit", 16);

	memcpy(bad, data, len);
	put_le32(bad + 16 + 8, 0x7fffffff);
	expect_bad(path, bad, len, "over the limit", 16);

	memcpy(bad, data, len);
	bad[16 + 16 + 3] ^= 0x40;
	expect_bad(path, bad, len, "CRC", 16);

	memcpy(bad, data, len);
	put_le32(bad + 16, 77);
	expect_bad(path, bad, len, "unknown block type 77", 16);

	memcpy(bad, data, len);
	bad[len - 1] ^= 1; /* inside the trailer */
	expect_bad(path, bad, len, "CRC", last_block(data, len));

	free(bad);
	free(data);
	functab__free(&ft);
	tmp_clean(&t);
}

/* Room for a crafted block of len payload bytes, either compression. */
static size_t block_bound(size_t len)
{
	return 16 + (compressBound(len) > ZSTD_compressBound(len) ? compressBound(len) :
								      ZSTD_compressBound(len));
}

/* A valid block holding whatever payload the test wants: zstd, or zlib (version 4 and before). */
static size_t craft_block_as(char *out, uint32_t type, const void *raw, size_t len, bool zlib)
{
	uLongf zlen = compressBound(len);
	uint32_t crc;

	if (zlib) {
		assert_int_equal(compress2((Bytef *)out + 16, &zlen, raw, len, 1), Z_OK);
	} else {
		zlen = ZSTD_compress(out + 16, ZSTD_compressBound(len), raw, len, 1);
		assert_false(ZSTD_isError(zlen));
	}
	put_le32(out, type);
	put_le32(out + 4, (uint32_t)len);
	put_le32(out + 8, (uint32_t)zlen);
	crc = (uint32_t)crc32(crc32(0, (Bytef *)out, 12), (Bytef *)out + 16, zlen);
	put_le32(out + 12, crc);
	return 16 + zlen;
}

static size_t craft_block(char *out, uint32_t type, const void *raw, size_t len)
{
	return craft_block_as(out, type, raw, len, false);
}

/*
 * The file at path as an older bpfgraph wrote it: every block's payload
 * compressed with zlib again, and the header saying version.
 */
static void rewrite_as_zlib(const char *path, uint16_t version)
{
	size_t len, at = 16, olen = 16;
	char *data = slurp_file(path, &len), *out = malloc(len * 4 + (1 << 20));
	uint8_t *raw = malloc(RECORD_MAX_RAW);

	assert_non_null(out);
	assert_non_null(raw);
	memcpy(out, data, 16);
	out[8] = (char)version;
	out[9] = 0;
	while (at < len) {
		uint32_t raw_len = get_le32(data + at + 4), zlen = get_le32(data + at + 8);
		size_t n = ZSTD_decompress(raw, RECORD_MAX_RAW, data + at + 16, zlen);

		assert_int_equal(n, raw_len);
		olen += craft_block_as(out + olen, get_le32(data + at), raw, raw_len, true);
		at += 16 + zlen;
	}
	write_bytes(path, out, olen);
	free(raw);
	free(out);
	free(data);
}

/* Valid CRCs, lying contents: counts and strings must be checked too. */
static void test_hostile_payloads(void **state)
{
	static char file[1 << 16];
	uint8_t raw[512] = {};
	struct functab ft;
	size_t len, hdr_end;
	char *data;
	struct tmp t;
	char path[200];

	tmp_make(&t, "ok.bgr");
	snprintf(path, sizeof(path), "%s/bad.bgr", t.dir);
	write_sample(t.path, 10, true, &ft);
	data = slurp_file(t.path, &len);
	/* file header + header block, taken as they are */
	hdr_end = 16 + 16 + get_le32(data + 24);
	memcpy(file, data, hdr_end);

	/* functions block claiming 2^31 entries */
	put_le32((char *)raw, 0);
	put_le32((char *)raw + 4, 0x80000000);
	len = hdr_end + craft_block(file + hdr_end, RECORD_BLK_FUNCS, raw, 64);
	expect_bad(path, file, len, "claims", hdr_end);

	/* a string length of 1 GiB in a function entry */
	put_le32((char *)raw + 4, 1);
	memset(raw + 8, 0, 32);
	put_le32((char *)raw + 8 + 28, 1U << 30);
	len = hdr_end + craft_block(file + hdr_end, RECORD_BLK_FUNCS, raw, 8 + 40);
	expect_bad(path, file, len, "malformed function", hdr_end);

	/* functions that do not continue the table */
	put_le32((char *)raw, 5);
	len = hdr_end + craft_block(file + hdr_end, RECORD_BLK_FUNCS, raw, 64);
	expect_bad(path, file, len, "does not continue", hdr_end);

	/* records block of 33 bytes, a record with cpu 65535 */
	len = hdr_end + craft_block(file + hdr_end, RECORD_BLK_RECORDS, raw, 33);
	expect_bad(path, file, len, "no multiple", hdr_end);
	memset(raw, 0, 32);
	raw[28] = 0xff;
	raw[29] = 0xff;
	raw[30] = BG_REC_ENTRY;
	len = hdr_end + craft_block(file + hdr_end, RECORD_BLK_RECORDS, raw, 32);
	expect_bad(path, file, len, "cpu 65535", hdr_end);

	/* a second header */
	len = hdr_end + craft_block(file + hdr_end, RECORD_BLK_HEADER, raw, 32);
	expect_bad(path, file, len, "second header", hdr_end);

	free(data);
	functab__free(&ft);
	tmp_clean(&t);
}

/*
 * A trailer of an older writer (nine counters, before the held calls) is
 * read with the counters it has; the ones it lacks are 0.
 */
static void test_old_trailer(void **state)
{
	static char file[1 << 16];
	uint8_t raw[4 + 9 * 8];
	const struct record_info *in;
	struct record_reader *r;
	struct functab ft;
	struct log l = {};
	struct rec_sink s = log_sink(&l);
	size_t len, end;
	char *data;
	struct tmp t;

	tmp_make(&t, "old.bgr");
	write_sample(t.path, 10, true, &ft);
	data = slurp_file(t.path, &len);
	end = last_block(data, len);
	memcpy(file, data, end);
	put_le32((char *)raw, 9);
	for (int i = 0; i < 9; i++) {
		put_le32((char *)raw + 4 + 8 * i, (uint32_t)(i + 1));
		put_le32((char *)raw + 8 + 8 * i, 0);
	}
	len = end + craft_block(file + end, RECORD_BLK_TRAILER, raw, sizeof(raw));
	write_bytes(t.path, file, len);
	r = record__open(t.path, stderr);
	assert_non_null(r);
	assert_int_equal(record__replay(r, &s), 0);
	in = record__info(r);
	assert_true(in->has_trailer);
	assert_int_equal(in->trailer.records, 1);
	assert_int_equal(in->trailer.end_ns, 9);
	assert_int_equal(in->trailer.held, 0);
	record__close_reader(r);
	free(data);
	free(l.r);
	functab__free(&ft);
	tmp_clean(&t);
}

/*
 * Each function string may be 64 KiB long; a table of such strings grew
 * without bound (about 1000 times the file's size, zlib permitting).
 * 15 functions of 64 KiB per block: the 69th block passes 64 MiB.
 */
static void test_hostile_functab(void **state)
{
	const size_t per = 15, slen = RECORD_MAX_STR - 1, esize = 37 + slen;
	const size_t raw_len = 8 + per * esize;
	size_t len, flen, bad_off = 0, nblk = RECORD_MAX_FUNC_STR / (per * (slen + 1)) + 2;
	char *data, *file, *raw, *blk, path[200];
	struct functab ft;
	struct tmp t;

	tmp_make(&t, "ok.bgr");
	snprintf(path, sizeof(path), "%s/bad.bgr", t.dir);
	write_sample(t.path, 10, true, &ft);
	data = slurp_file(t.path, &len);
	flen = 16 + 16 + get_le32(data + 24);
	file = malloc(flen);
	raw = calloc(1, raw_len);
	blk = malloc(block_bound(raw_len));
	assert_non_null(file);
	assert_non_null(raw);
	assert_non_null(blk);
	memcpy(file, data, flen);
	for (size_t b = 0; b < nblk; b++) {
		char *p = raw + 8, *nf;
		size_t n;

		put_le32(raw, (uint32_t)(b * per));
		put_le32(raw + 4, (uint32_t)per);
		for (size_t i = 0; i < per; i++, p += esize) {
			put_le32(p + 24, 1);
			p[28] = 'f';
			put_le32(p + 33, (uint32_t)slen);
			memset(p + 37, 'x', slen);
		}
		n = craft_block(blk, RECORD_BLK_FUNCS, raw, raw_len);
		nf = realloc(file, flen + n);
		assert_non_null(nf);
		file = nf;
		memcpy(file + flen, blk, n);
		if ((b + 1) * per * (slen + 1) > RECORD_MAX_FUNC_STR && !bad_off)
			bad_off = flen;
		flen += n;
	}
	expect_bad(path, file, flen, "over the limit", bad_off);
	free(blk);
	free(raw);
	free(file);
	free(data);
	functab__free(&ft);
	tmp_clean(&t);
}

/* Random damage anywhere: an error or a warning, never a crash or a leak. */
static void test_fuzz(void **state)
{
	struct functab ft;
	size_t len;
	char *data, *bad, msg[512];
	struct tmp t;
	char path[200];
	uint64_t n;
	bool tr;

	tmp_make(&t, "ok.bgr");
	snprintf(path, sizeof(path), "%s/fuzz.bgr", t.dir);
	write_sample(t.path, 3000, true, &ft);
	data = slurp_file(t.path, &len);
	bad = malloc(len);
	assert_non_null(bad);
	srandom(42);
	for (int i = 0; i < 300; i++) {
		memcpy(bad, data, len);
		for (int k = 0; k < 1 + i % 4; k++)
			bad[(size_t)random() % len] ^= (char)(1 << (random() % 8));
		write_bytes(path, bad, len);
		int ret = replay_count(path, &n, msg, sizeof(msg), &tr);

		assert_true(ret == 0 || ret == -EBADMSG);
		if (ret)
			assert_non_null(strstr(msg, "offset "));
	}
	free(bad);
	free(data);
	functab__free(&ft);
	tmp_clean(&t);
}

/* Replaying 400k records (12 MB of them) needs no more than a block. */
static void test_memory_bounded(void **state)
{
	const size_t nrec = 400000;
	struct rusage before, after;
	struct functab ft;
	struct tmp t;
	char msg[256];
	uint64_t n;
	bool tr;

	tmp_make(&t, "big.bgr");
	write_sample(t.path, nrec, true, &ft);
	getrusage(RUSAGE_SELF, &before);
	assert_int_equal(replay_count(t.path, &n, msg, sizeof(msg), &tr), 0);
	getrusage(RUSAGE_SELF, &after);
	assert_int_equal(n, nrec);
	/* ru_maxrss is in KiB: a block is 1 MiB at most, allow 8 */
	assert_true(after.ru_maxrss - before.ru_maxrss < 8 * 1024);
	functab__free(&ft);
	tmp_clean(&t);
}

/* --- report == live text --------------------------------------------------- */

struct direct {
	struct graph *g;
	struct out_text *w;
};

/* What live tracing prints: records straight into graph + text writer. */
static char *run_direct(const char *script, uint32_t add_flags, enum bg_dialect dialect,
			size_t *len)
{
	struct canned c;
	char *tok[16], *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	struct out_text_opts wo;
	struct graph_opts go;
	struct out_text *w;
	struct graph *g;
	struct rec_sink s;
	int n;

	assert_int_equal(canned_open(&c, script), 0);
	canned_settings(&c, tok, &n);
	wo = (struct out_text_opts){ .out = m, .funcs = &c.ft, .flags = c.flags | add_flags,
				     .dialect = dialect ? dialect : c.dialect,
				     .nr_cpu_ids = c.nr_cpu_ids, .header = c.header };
	w = out_text__new(&wo);
	go = (struct graph_opts){ .funcs = &c.ft, .sink = { out_text__emit, w } };
	g = graph__new(&go);
	s = graph__sink(g);
	out_text__begin(w);
	canned_play(&c, tok, n, &s);
	fclose(m);
	graph__free(g);
	out_text__free(w);
	canned_free(&c);
	return buf;
}

/* The same script into a record file, with its options as recorded ones. */
static void record_script(const char *script, const char *path)
{
	assert_int_equal(canned_record(script, path, true), 0);
}

/* "bpfgraph report -i in -o out [extra...]" through cmd_report(). */
static char *run_report(const char *in, const char *out, const char *const *extra,
			size_t *len)
{
	char *argv[16] = { "report", "-i", (char *)in, "-o", (char *)out };
	int argc = 5;

	for (; extra && *extra; extra++)
		argv[argc++] = (char *)*extra;
	assert_int_equal(cmd_report(argc, argv), BG_EXIT_OK);
	return slurp_file(out, len);
}

static bool script_supported(const char *path)
{
	struct canned c;
	char *tok[16];
	int n;
	bool ok;

	assert_int_equal(canned_open(&c, path), 0);
	canned_settings(&c, tok, &n);
	while (n && !c.unsupported) {
		c.unsupported |= !strcmp(tok[0], "lost");
		n = canned_line(&c, tok, 16);
	}
	ok = !c.unsupported;
	canned_free(&c);
	return ok;
}

static void compare(const char *what, const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen == blen && !memcmp(a, b, alen))
		return;
	fprintf(stderr, "%s: report differs from live text:\n--- live\n%.*s--- report\n%.*s",
		what, (int)alen, a, (int)blen, b);
	fail();
}

static void test_report_equals_live(void **state)
{
	static const char *const nondefault[] = { "-O", "funcgraph-proc,funcgraph-abstime",
						  "--compat=6.13", NULL };
	char dir[4096], script[4096 + 256], out[200];
	size_t alen, blen, nscripts = 0;
	struct dirent *de;
	struct tmp t;
	char *a, *b;
	DIR *d;

	tmp_make(&t, "s.bgr");
	snprintf(out, sizeof(out), "%s/out.txt", t.dir);
	snprintf(dir, sizeof(dir), "%s/tests/golden/graph", BG_SRCDIR);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);

		if (nl < 4 || strcmp(de->d_name + nl - 3, ".in"))
			continue;
		snprintf(script, sizeof(script), "%s/%s", dir, de->d_name);
		if (!script_supported(script))
			continue;
		record_script(script, t.path);
		a = run_direct(script, 0, 0, &alen);
		b = run_report(t.path, out, NULL, &blen);
		compare(de->d_name, a, alen, b, blen);
		free(a);
		free(b);
		a = run_direct(script, BG_O_PROC | BG_O_ABSTIME, BG_DIALECT_6_13, &alen);
		b = run_report(t.path, out, nondefault, &blen);
		compare(de->d_name, a, alen, b, blen);
		free(a);
		free(b);
		nscripts++;
	}
	closedir(d);
	/* most scripts have no "lost" or "echo" line */
	assert_true(nscripts >= 15);
	tmp_clean(&t);
}

/* --- funcgraph-args and -retaddr through a record file ------------------ */

struct args_case {
	struct functab ft;
	struct btf *btf;
	struct args_src src;
};

static int case_sym(void *ctx, uint64_t addr, struct args_sym *out)
{
	(void)ctx;
	if (addr < 0xffffffff81200000ULL || addr >= 0xffffffff81200100ULL)
		return -ENOENT;
	*out = (struct args_sym){ "do_sys_open", NULL, 0xffffffff81200000ULL, 0x100 };
	return 0;
}

static void args_case_init(struct args_case *a)
{
	int i32, u64, ptr, sz, proto;

	functab__init(&a->ft);
	assert_int_equal(functab__add(&a->ft, "do_sys_openat2", NULL, 0xffffffff81300000ULL, 0x100), 0);
	assert_int_equal(functab__add(&a->ft, "vfs_read", NULL, 0xffffffff81400000ULL, 0x100), 1);
	assert_int_equal(functab__add(&a->ft, "getname.part.0", NULL, 0xffffffff81500000ULL, 0x100), 2);
	a->btf = btf__new_empty();
	i32 = btf__add_int(a->btf, "int", 4, BTF_INT_SIGNED);
	u64 = btf__add_int(a->btf, "unsigned long", 8, 0);
	sz = btf__add_typedef(a->btf, "size_t", u64);
	ptr = btf__add_ptr(a->btf, i32);
	proto = btf__add_func_proto(a->btf, i32);
	btf__add_func_param(a->btf, "dfd", i32);
	btf__add_func_param(a->btf, "filename", ptr);
	btf__add_func(a->btf, "do_sys_openat2", BTF_FUNC_GLOBAL, proto);
	proto = btf__add_func_proto(a->btf, i32);
	btf__add_func_param(a->btf, "file", ptr);
	btf__add_func_param(a->btf, "count", sz);
	btf__add_func_param(a->btf, "", u64);
	btf__add_func(a->btf, "vfs_read", BTF_FUNC_GLOBAL, proto);
	a->src = (struct args_src){ .btf = a->btf, .sym = case_sym };
}

static void args_case_play(const struct rec_sink *s)
{
	static const struct bg_rec recs[] = {
		{ .ts = 1000, .val = 0xffffffff81200049ULL, .pid = 7, .func = 0, .type = BG_REC_ENTRY },
		{ .ts = 0xffffff9c, .val = 0x47a073, .func = 0, .type = BG_REC_ARGS },
		{ .ts = 1100, .val = 0xffffffff81300010ULL, .pid = 7, .func = 1, .depth = 1,
		  .type = BG_REC_ENTRY },
		{ .ts = 0xffff888104a1e300ULL, .val = 0x20000, .dur = 5, .func = 1,
		  .type = BG_REC_ARGS },
		{ .ts = 1200, .val = 0x20, .dur = 100, .pid = 7, .func = 1, .depth = 1,
		  .type = BG_REC_EXIT },
		{ .ts = 1300, .val = 0xffffffff81300020ULL, .pid = 7, .func = 2, .depth = 1,
		  .type = BG_REC_ENTRY },
		{ .ts = 1, .val = 2, .func = 2, .type = BG_REC_ARGS },
		{ .ts = 1400, .val = 0, .dur = 100, .pid = 7, .func = 2, .depth = 1,
		  .type = BG_REC_EXIT },
		{ .ts = 2000, .val = 0xfffffffffffffffeULL, .dur = 1000, .pid = 7, .func = 0,
		  .type = BG_REC_EXIT },
	};

	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		assert_int_equal(s->feed(s->ctx, &recs[i]), 0);
	s->flush(s->ctx);
}

/*
 * A recording with funcgraph-args and -retaddr prints in report what the
 * writer printed live, without the kernel's BTF or kallsyms: the file
 * carries the prototypes and the symbols of return addresses.
 */
static void test_report_args(void **state)
{
	static const char want[] =
		" 0)               |  do_sys_openat2(dfd=4294967196, filename=0x47a073) { /* <-do_sys_open+0x49/0x100 */\n"
		" 0)   0.100 us    |    vfs_read(file=0xffff888104a1e300, count=0x20000, =0x5); /* <-0xffffffff81300010 ret=0x20 */\n"
		" 0)   0.100 us    |    getname.part.0(); /* <-0xffffffff81300020 ret=0x0 */\n"
		" 0)   1.000 us    |  } /* do_sys_openat2 ret=-2 */\n";
	struct record_meta m = { .flags = BG_O_DEFAULTS | BG_O_ARGS | BG_O_RETADDR,
				 .dialect = BG_DIALECT_6_19, .nr_cpu_ids = 2 };
	struct out_text_opts wo;
	struct record_writer *rw;
	struct args_case a;
	struct out_text *w;
	struct graph *g;
	struct rec_sink s;
	char out[200], *live = NULL, *rep;
	size_t llen, rlen;
	struct tmp t;
	FILE *f;

	(void)state;
	args_case_init(&a);
	tmp_make(&t, "args.bgr");
	snprintf(out, sizeof(out), "%s/out.txt", t.dir);
	f = open_memstream(&live, &llen);
	wo = (struct out_text_opts){ .out = f, .funcs = &a.ft, .flags = m.flags,
				     .dialect = BG_DIALECT_6_19, .nr_cpu_ids = 2, .args = &a.src };
	w = out_text__new(&wo);
	g = graph__new(&(struct graph_opts){ .funcs = &a.ft, .sink = { out_text__emit, w } });
	s = graph__sink(g);
	args_case_play(&s);
	fclose(f);
	graph__free(g);
	out_text__free(w);
	assert_string_equal(live, want);

	rw = record__create(t.path, &m, &a.ft, stderr);
	assert_non_null(rw);
	assert_int_equal(record__set_args(rw, &a.src), 0);
	s = record__sink(rw);
	args_case_play(&s);
	assert_int_equal(record__write_trailer(rw, &(struct record_trailer){}), 0);
	assert_int_equal(record__close(rw), 0);
	rep = run_report(t.path, out, NULL, &rlen);
	compare("args", live, llen, rep, rlen);
	free(rep);
	/* the file's dialect is only a default: 6.15 prints it its way */
	rep = run_report(t.path, out, (const char *const[]){ "--compat=6.16", "-O", "nofuncgraph-retaddr", NULL }, &rlen);
	assert_non_null(strstr(rep, "vfs_read(file=0xffff888104a1e300, count=131072, =5); /* ret=0x20 */"));
	free(rep);
	/* JSON and Chrome: the arguments named and typed, the caller */
	rep = run_report(t.path, out, (const char *const[]){ "--format=json", NULL }, &rlen);
	assert_non_null(strstr(rep, "\"args\":[{\"name\":\"dfd\",\"type\":\"int\",\"value\":"
				    "\"4294967196\"},{\"name\":\"filename\",\"type\":\"int *\","
				    "\"value\":\"0x47a073\"}],\"retaddr\":\"do_sys_open+0x49/0x100\""));
	assert_non_null(strstr(rep, "{\"name\":\"count\",\"type\":\"size_t\",\"value\":\"0x20000\"}"));
	assert_non_null(strstr(rep, "\"name\":\"getname.part.0\""));
	assert_non_null(strstr(rep, "\"args\":null,\"retaddr\":\"0xffffffff81300020\""));
	free(rep);
	rep = run_report(t.path, out, (const char *const[]){ "--format=chrome", NULL }, &rlen);
	assert_non_null(strstr(rep, ",\"args\":[{\"name\":\"dfd\",\"type\":\"int\""));
	free(rep);
	free(live);
	tmp_clean(&t);
	btf__free(a.btf);
	functab__free(&a.ft);
}

/*
 * Enum names (7.3's "reason=2 [SKB_DROP_REASON_NOT_SPECIFIED]") come from
 * the enumerators the file keeps (version 3): a signed enum's negative
 * value and an unsigned one's value of 2^31 as the writer's BTF had them.
 */
/* A recording of recs with their functions' prototypes from src. */
static void record_recs(const char *path, const struct record_meta *m, const struct functab *ft,
			const struct args_src *src, const struct bg_rec *recs, size_t n)
{
	struct record_writer *rw = record__create(path, m, ft, stderr);
	struct rec_sink s;

	assert_non_null(rw);
	assert_int_equal(record__set_args(rw, src), 0);
	s = record__sink(rw);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s.feed(s.ctx, &recs[i]), 0);
	s.flush(s.ctx);
	assert_int_equal(record__write_trailer(rw, &(struct record_trailer){}), 0);
	assert_int_equal(record__close(rw), 0);
}

static void test_report_enum_names(void **state)
{
	static const char want[] =
		" 0)   0.100 us    |  skb_release_data(skb=0xffff888104a1e300, reason=2 [SKB_DROP_REASON_NOT_SPECIFIED], state=-1 [CT_STATE_DISABLED], high=2147483648 [HIGH], other=7); /* ret=0x0 */\n";
	struct record_meta m = { .flags = BG_O_DEFAULTS | BG_O_ARGS, .dialect = BG_DIALECT_6_19,
				 .nr_cpu_ids = 1 };
	static const struct bg_rec recs[] = {
		{ .ts = 1000, .pid = 7, .func = 0, .type = BG_REC_ENTRY },
		{ .ts = 0xffff888104a1e300ULL, .val = 2, .dur = 0xffffffff, .pid = 0xffffffff,
		  .func = 0, .type = BG_REC_ARGS },
		{ .ts = 0x80000000, .val = 7, .func = 0, .depth = 1, .type = BG_REC_ARGS },
		{ .ts = 1100, .dur = 100, .pid = 7, .func = 0, .type = BG_REC_EXIT },
	};
	struct args_src src;
	struct functab ft;
	int ptr, u, sg, hi, proto;
	struct btf *btf;
	char out[200], *rep;
	size_t rlen;
	struct tmp t;

	(void)state;
	functab__init(&ft);
	assert_int_equal(functab__add(&ft, "skb_release_data", NULL, 0xffffffff81300000ULL, 0x100), 0);
	btf = btf__new_empty();
	ptr = btf__add_ptr(btf, 0);
	u = btf__add_enum(btf, "skb_drop_reason", 4);
	btf__add_enum_value(btf, "SKB_CONSUMED", 1);
	btf__add_enum_value(btf, "SKB_DROP_REASON_NOT_SPECIFIED", 2);
	sg = btf__add_enum(btf, "ctx_state", 4);
	btf__add_enum_value(btf, "CT_STATE_DISABLED", -1);
	hi = btf__add_enum(btf, "high", 4);
	btf__add_enum_value(btf, "HIGH", (int64_t)0x80000000);
	/* libbpf marked it signed for its negative s32: it is not */
	((struct btf_type *)btf__type_by_id(btf, (uint32_t)hi))->info &= ~(1U << 31);
	proto = btf__add_func_proto(btf, 0);
	btf__add_func_param(btf, "skb", ptr);
	btf__add_func_param(btf, "reason", u);
	btf__add_func_param(btf, "state", sg);
	btf__add_func_param(btf, "high", hi);
	btf__add_func_param(btf, "other", u);
	btf__add_func(btf, "skb_release_data", BTF_FUNC_GLOBAL, proto);
	src = (struct args_src){ .btf = btf };
	tmp_make(&t, "enums.bgr");
	snprintf(out, sizeof(out), "%s/out.txt", t.dir);
	record_recs(t.path, &m, &ft, &src, recs, sizeof(recs) / sizeof(recs[0]));
	rep = run_report(t.path, out, (const char *const[]){ "--no-header", NULL }, &rlen);
	assert_string_equal(rep, want);
	free(rep);
	/* 6.17 had no names */
	rep = run_report(t.path, out, (const char *const[]){ "--no-header", "--compat=6.17", NULL },
			 &rlen);
	assert_non_null(strstr(rep, "reason=2, state=-1, high=2147483648, other=7);"));
	free(rep);
	tmp_clean(&t);
	btf__free(btf);
	functab__free(&ft);
}

/* An open_how-shaped struct pointer and a string, as do_sys_openat2 has them. */
static struct btf *openat2_btf(void)
{
	struct btf *btf = btf__new_empty();
	int i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int u64 = btf__add_int(btf, "long long unsigned int", 8, 0);
	int chr = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	int cstr = btf__add_ptr(btf, btf__add_const(btf, chr));
	int how = btf__add_struct(btf, "open_how", 24), proto;

	btf__add_field(btf, "flags", u64, 0, 0);
	btf__add_field(btf, "mode", u64, 64, 0);
	btf__add_field(btf, "resolve", u64, 128, 0);
	how = btf__add_ptr(btf, how);
	proto = btf__add_func_proto(btf, i32);
	btf__add_func_param(btf, "dfd", i32);
	btf__add_func_param(btf, "filename", cstr);
	btf__add_func_param(btf, "how", how);
	btf__add_func(btf, "do_sys_openat2", BTF_FUNC_GLOBAL, proto);
	return btf;
}

/*
 * --args-detail: the file (version 4) keeps the detail records and the
 * members of each struct pointer parameter, so report prints the same
 * text without the kernel's BTF; JSON has them as "str" and "fields". A
 * version 3 file with such records is refused, as an older reader would.
 */
static void test_report_detail(void **state)
{
	static const char want[] =
		" 0)   0.100 us    |  do_sys_openat2(dfd=-100, filename=0x47a073 \"/nonexistent/bpfgraph-wl\", how=0xffffc90000013e58 {flags=0x8000 mode=0 resolve=0}); /* ret=-2 */\n";
	struct record_meta m = { .flags = BG_O_DEFAULTS | BG_O_ARGS | BG_O_DETAIL,
				 .dialect = BG_DIALECT_6_19, .nr_cpu_ids = 1 };
	struct bg_rec recs[] = {
		{ .ts = 1000, .pid = 7, .type = BG_REC_ENTRY },
		{ .ts = (uint64_t)-100, .val = 0x47a073, .dur = 0x00013e58, .pid = 0xffffc900,
		  .type = BG_REC_ARGS },
		{ .depth = 1, .type = BG_REC_ARGS },
		{ .depth = 0x01, .type = BG_REC_DETAIL },
		{ .depth = 0x11, .type = BG_REC_DETAIL },
		{ .ts = 0x8000, .depth = 0x02, .type = BG_REC_DETAIL | BG_RF_D_FIELDS },
		{ .ts = 1100, .val = (uint64_t)-2, .dur = 100, .pid = 7, .type = BG_REC_EXIT },
	};
	const char *path = "/nonexistent/bpfgraph-wl"; /* 24 bytes and its NUL: two parts */
	struct args_src src;
	struct functab ft;
	struct btf *btf = openat2_btf();
	char out[200], *rep;
	size_t rlen;
	struct tmp t;

	(void)state;
	memcpy(&recs[3].ts, path, 8);
	memcpy(&recs[3].val, path + 8, 8);
	memcpy(&recs[3].dur, path + 16, 4);
	memcpy(&recs[3].pid, path + 20, 4);
	functab__init(&ft);
	assert_int_equal(functab__add(&ft, "do_sys_openat2", NULL, 0xffffffff81300000ULL, 0x100), 0);
	src = (struct args_src){ .btf = btf };
	tmp_make(&t, "detail.bgr");
	snprintf(out, sizeof(out), "%s/out.txt", t.dir);
	record_recs(t.path, &m, &ft, &src, recs, sizeof(recs) / sizeof(recs[0]));
	btf__free(btf); /* the file's own prototypes from here */
	rep = run_report(t.path, out, (const char *const[]){ "--no-header", NULL }, &rlen);
	assert_string_equal(rep, want);
	free(rep);
	rep = run_report(t.path, out, (const char *const[]){ "--format=json", NULL }, &rlen);
	assert_non_null(strstr(rep, "\"value\":\"0x47a073\",\"str\":\"/nonexistent/bpfgraph-wl\"}"));
	assert_non_null(strstr(rep, "\"fields\":{\"flags\":\"0x8000\",\"mode\":\"0\",\"resolve\":\"0\"}"));
	free(rep);
	/* the ftrace text without the option: the same line without the detail */
	rep = run_report(t.path, out, (const char *const[]){ "--no-header", "-O", "nofuncgraph-args", NULL },
			 &rlen);
	assert_null(strstr(rep, "bpfgraph-wl"));
	free(rep);
	/*
	 * Versions before 4 have no such records: one of version 2 (argument
	 * registers, no prototypes written) that holds them is refused.
	 */
	m.flags &= ~(BG_O_DETAIL | BG_O_ARGS);
	btf = openat2_btf();
	src.btf = btf;
	record_recs(t.path, &m, &ft, &src, recs, sizeof(recs) / sizeof(recs[0]));
	rewrite_as_zlib(t.path, RECORD_VERSION_ARGS);
	{
		char *argv[] = { "report", "-i", t.path, "-o", out };

		assert_int_equal(cmd_report(5, argv), BG_EXIT_FAILURE);
	}
	tmp_clean(&t);
	btf__free(btf);
	functab__free(&ft);
}

static const struct btf *one_module(void *ctx, const char *module)
{
	return !strcmp(module, "binfmt_misc") ? ctx : NULL;
}

/*
 * A module's function gets its prototype from the module's BTF (split on
 * vmlinux's), where the kernel finds it too; a name vmlinux has wins, as
 * the kernel looks there first. The record file keeps what was found.
 */
static void test_args_module_btf(void **state)
{
	struct record_meta m = { .flags = BG_O_DEFAULTS | BG_O_ARGS, .dialect = BG_DIALECT_6_19,
				 .nr_cpu_ids = 1 };
	static const struct bg_rec recs[] = {
		{ .ts = 1000, .pid = 7, .func = 0, .type = BG_REC_ENTRY },
		{ .ts = 0xffff888104a1e300ULL, .val = 0x7ffd2c3e1000, .dur = 0x1000, .func = 0,
		  .type = BG_REC_ARGS },
		{ .ts = 1100, .dur = 100, .pid = 7, .func = 0, .type = BG_REC_EXIT },
		{ .ts = 1200, .pid = 7, .func = 1, .type = BG_REC_ENTRY },
		{ .ts = 5, .func = 1, .type = BG_REC_ARGS },
		{ .ts = 1300, .dur = 100, .pid = 7, .func = 1, .type = BG_REC_EXIT },
	};
	struct btf *base = btf__new_empty(), *mod;
	struct gev ev = { .type = GEV_LEAF, .nargs = 3, .args = { 0xffff888104a1e300ULL, 0x7ffd2c3e1000, 0x1000 } };
	struct args_src src;
	struct args_fmt *af;
	struct functab ft;
	int i32, ptr, sz, proto;
	char buf[256], out[200], *rep;
	size_t rlen;
	struct tmp t;

	(void)state;
	functab__init(&ft);
	assert_int_equal(functab__add(&ft, "bm_status_read", "binfmt_misc", 0xffffffffc0001000ULL, 0x100), 0);
	assert_int_equal(functab__add(&ft, "shared", "binfmt_misc", 0xffffffffc0002000ULL, 0x100), 1);
	i32 = btf__add_int(base, "int", 4, BTF_INT_SIGNED);
	ptr = btf__add_ptr(base, 0);
	sz = btf__add_int(base, "unsigned long", 8, 0);
	proto = btf__add_func_proto(base, i32);
	btf__add_func_param(base, "vmlinux_arg", i32);
	btf__add_func(base, "shared", BTF_FUNC_GLOBAL, proto);
	mod = btf__new_empty_split(base);
	proto = btf__add_func_proto(mod, i32);
	btf__add_func_param(mod, "file", ptr);
	btf__add_func_param(mod, "buf", ptr);
	btf__add_func_param(mod, "nbytes", sz);
	btf__add_func(mod, "bm_status_read", BTF_FUNC_GLOBAL, proto);
	proto = btf__add_func_proto(mod, i32);
	btf__add_func_param(mod, "module_arg", i32);
	btf__add_func(mod, "shared", BTF_FUNC_GLOBAL, proto);

	/* without the module's BTF: "()", as before */
	src = (struct args_src){ .btf = base };
	af = args_fmt__new(&src, &ft);
	assert_int_equal(args_fmt__args(af, &ev, 619, BG_O_ARGS, buf, sizeof(buf)), 0);
	args_fmt__free(af);
	src = (struct args_src){ .btf = base, .module_btf = one_module, .module_ctx = mod };
	af = args_fmt__new(&src, &ft);
	args_fmt__args(af, &ev, 619, BG_O_ARGS, buf, sizeof(buf));
	assert_string_equal(buf, "file=0xffff888104a1e300, buf=0x7ffd2c3e1000, nbytes=0x1000");
	ev.func = 1;
	args_fmt__args(af, &ev, 619, BG_O_ARGS, buf, sizeof(buf));
	assert_string_equal(buf, "vmlinux_arg=-131387266833664");
	args_fmt__free(af);

	tmp_make(&t, "mod.bgr");
	snprintf(out, sizeof(out), "%s/out.txt", t.dir);
	record_recs(t.path, &m, &ft, &src, recs, sizeof(recs) / sizeof(recs[0]));
	rep = run_report(t.path, out, (const char *const[]){ "--no-header", "-O", "nofuncgraph-retval", NULL }, &rlen);
	assert_non_null(strstr(rep, "bm_status_read [binfmt_misc](file=0xffff888104a1e300, buf=0x7ffd2c3e1000, nbytes=0x1000);\n"));
	assert_non_null(strstr(rep, "shared [binfmt_misc](vmlinux_arg=5);\n"));
	free(rep);
	tmp_clean(&t);
	btf__free(mod);
	btf__free(base);
	functab__free(&ft);
}

/* Whether the file at path has a block of type. */
static bool has_block(const char *path, uint32_t type)
{
	size_t len, at = 16;
	char *data = slurp_file(path, &len);
	bool found = false;

	while (at + 16 <= len && !found) {
		found = get_le32(data + at) == type;
		at += 16 + get_le32(data + at + 8);
	}
	free(data);
	return found;
}

/*
 * Every recording is version 5 (zstd blocks), which older bpfgraph
 * refuses by its version; prototypes and symbols go in only with the
 * options that print them. The zlib files of versions 1 to 4 are still
 * read, record for record as their zstd twin.
 */
static void test_record_version(void **state)
{
	struct record_meta m = { .flags = BG_O_DEFAULTS, .dialect = BG_DIALECT_6_5 };
	struct btf *btf = openat2_btf();
	struct args_src src = { .btf = btf };
	struct record_writer *rw;
	struct functab ft;
	unsigned char h[16];
	struct tmp t;
	FILE *f;

	(void)state;
	functab__init(&ft);
	assert_int_equal(functab__add(&ft, "do_sys_openat2", NULL, 0xffffffff81300000ULL, 0x100), 0);
	tmp_make(&t, "v5.bgr");
	for (int args = 0; args < 2; args++) {
		m.flags = BG_O_DEFAULTS | (args ? BG_O_ARGS : 0);
		rw = record__create(t.path, &m, &ft, stderr);
		assert_non_null(rw);
		assert_int_equal(record__set_args(rw, &src), 0);
		assert_int_equal(record__close(rw), 0);
		f = fopen(t.path, "rb");
		assert_non_null(f);
		assert_int_equal(fread(h, 1, sizeof(h), f), sizeof(h));
		fclose(f);
		assert_int_equal(h[8] | h[9] << 8, RECORD_VERSION_ZSTD);
		assert_int_equal(has_block(t.path, RECORD_BLK_ARGS), args);
	}
	tmp_clean(&t);
	btf__free(btf);
	functab__free(&ft);
}

static void test_read_zlib_versions(void **state)
{
	const size_t nrec = 3000;
	struct functab ft;
	struct tmp t;
	size_t n4;

	(void)state;
	for (uint16_t v = 1; v <= RECORD_VERSION_DETAIL; v++) {
		struct log l = {};
		struct rec_sink s = log_sink(&l);
		const struct record_info *in;
		struct record_reader *r;

		tmp_make(&t, "old.bgr");
		write_sample(t.path, nrec, true, &ft);
		rewrite_as_zlib(t.path, v);
		r = record__open(t.path, stderr);
		assert_non_null(r);
		assert_int_equal(record__replay(r, &s), 0);
		in = record__info(r);
		check_funcs(&ft, &in->funcs);
		assert_int_equal(l.n, nrec);
		for (size_t i = 0; i < nrec; i++) {
			struct bg_rec e = sample_rec(i, i >= nrec / 2 ? 20 : 10);

			assert_memory_equal(&l.r[i], &e, sizeof(e));
		}
		assert_true(in->has_trailer);
		assert_memory_equal(&in->trailer, &sample_trailer, sizeof(sample_trailer));
		n4 = in->records;
		record__close_reader(r);
		functab__free(&ft);
		free(l.r);
		tmp_clean(&t);
		assert_int_equal(n4, nrec);
	}
}

/* report's usage errors: exit 2; an unreadable file: exit 1. */
static void test_report_errors(void **state)
{
	char *no_input[] = { "report", NULL };
	char *graph[] = { "report", "-i", "x", "-G", "f", NULL };
	char *missing[] = { "report", "-i", "/nonexistent/x.bgr", NULL };
	char *record_no_o[] = { "record", "-G", "f", NULL };

	assert_int_equal(cmd_report(1, no_input), BG_EXIT_USAGE);
	assert_int_equal(cmd_report(5, graph), BG_EXIT_USAGE);
	assert_int_equal(cmd_report(3, missing), BG_EXIT_FAILURE);
	assert_int_equal(cmd_record(3, record_no_o), BG_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_hostile_payloads),
		cmocka_unit_test(test_hostile_functab),
		cmocka_unit_test(test_old_trailer),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_memory_bounded),
		cmocka_unit_test(test_report_equals_live),
		cmocka_unit_test(test_report_args),
		cmocka_unit_test(test_report_enum_names),
		cmocka_unit_test(test_report_detail),
		cmocka_unit_test(test_args_module_btf),
		cmocka_unit_test(test_record_version),
		cmocka_unit_test(test_read_zlib_versions),
		cmocka_unit_test(test_report_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
