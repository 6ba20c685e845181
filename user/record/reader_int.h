/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The record file reader's state, shared by reader.c (framing, header,
 * functions, records, trailer) and reader_args.c (ARGS and SYMS blocks,
 * rebuilt for the argument printer). Internal to user/record/.
 */
#ifndef BG_RECORD_READER_INT_H
#define BG_RECORD_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zstd.h>

#include "args_src.h"
#include "record.h"

/* A return address's symbol from a SYMS block. */
struct rsym {
	uint64_t addr, off, size;
	char *name, *module;
};

struct record_reader {
	FILE *f;
	FILE *err;
	char *path;
	uint64_t off; /* of the next block */
	uint64_t blk_off; /* of the block being decoded */
	uint8_t *raw;
	uint8_t *z;
	size_t zcap;
	ZSTD_DCtx *zd; /* version 5 on */
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

/* Reports a malformed file on r->err at the block's offset; -EBADMSG. */
__attribute__((format(printf, 2, 3))) int r_bad(struct record_reader *r, const char *fmt, ...);
/* ARGS, SYMS blocks of len bytes in r->raw. 0 or -errno (message written). */
int r_args(struct record_reader *r, size_t len);
int r_syms(struct record_reader *r, size_t len);

#endif
