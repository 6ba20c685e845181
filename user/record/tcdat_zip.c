// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Compressed trace-cmd files (version 7, trace-cmd.dat.v7(5)) with zstd,
 * trace-cmd's default (Debian's has no other): a compressed section's data ("<4: compressed size><4: size><data>"),
 * and a CPU's trace data in chunks of whole pages ("<4: chunks>", then
 * per chunk the same header and data).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "tcdat_int.h"

/* No section or chunk of a trace-cmd file is larger. */
#define TC_MAX_UNPACKED (512U << 20)

int tcdat_zip_kind(const char *name)
{
	if (!*name || !strcmp(name, "none"))
		return TC_ZIP_NONE;
	if (!strcmp(name, "zstd"))
		return TC_ZIP_ZSTD;
	return -1;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* csize bytes at off unpacked into a new buffer of exactly usize bytes. */
static int unpack_at(struct tcdat *r, uint64_t off, uint32_t csize, uint32_t usize,
		     uint8_t **out, const char *what)
{
	uint8_t *src, *dst;
	int err;

	*out = NULL;
	if (usize > TC_MAX_UNPACKED || csize > TC_MAX_UNPACKED)
		return tcdat_fail(r, EINVAL, "%s claims %u bytes", what, usize > csize ? usize : csize);
	src = malloc(csize ? csize : 1);
	dst = malloc(usize ? usize : 1);
	if (!src || !dst) {
		free(src);
		free(dst);
		return tcdat_fail(r, ENOMEM, "out of memory");
	}
	err = tcdat_read_at(r, off, src, csize, what);
	if (!err) {
		size_t n = ZSTD_decompress(dst, usize, src, csize);

		if (ZSTD_isError(n) || n != usize)
			err = tcdat_fail(r, EINVAL, "%s does not unpack with zstd: %s", what,
					 ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size");
	}
	free(src);
	if (err) {
		free(dst);
		return err;
	}
	*out = dst;
	return 0;
}

int tcdat_unpack_section(struct tcdat *r, uint64_t off, uint8_t **out, uint64_t *len,
			 const char *what)
{
	uint8_t hdr[8];
	int err = tcdat_read_at(r, off, hdr, sizeof(hdr), what);

	if (err)
		return err;
	*len = le32(hdr + 4);
	return unpack_at(r, off + 8, le32(hdr), le32(hdr + 4), out, what);
}

int tcdat_chunk_next(struct tcdat *r, struct tc_chunks *z, uint64_t start, uint64_t size)
{
	uint8_t hdr[8];
	uint32_t csize, usize;
	int err;

	if (!z->started) {
		z->started = true;
		z->pos = start;
		/* trace-cmd's size leaves out the chunk count before the chunks */
		z->end = start + 4 + size;
		if (!size)
			return 1; /* a CPU without data */
		err = tcdat_read_at(r, z->pos, hdr, 4, "a CPU's compressed data");
		if (err)
			return err;
		z->left = le32(hdr);
		z->pos += 4;
	}
	if (!z->left)
		return 1;
	err = tcdat_read_at(r, z->pos, hdr, sizeof(hdr), "a CPU's compressed data");
	if (err)
		return err;
	csize = le32(hdr);
	usize = le32(hdr + 4);
	if (z->pos + 8 + csize > z->end || usize % r->lay.page_size)
		return tcdat_fail(r, EINVAL, "a compressed chunk of a CPU's data is damaged");
	free(z->buf);
	err = unpack_at(r, z->pos + 8, csize, usize, &z->buf, "a CPU's compressed data");
	if (err)
		return err;
	z->len = usize;
	z->off = 0;
	z->pos += 8 + csize;
	z->left--;
	return 0;
}
