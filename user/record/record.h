/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Record files ("bpfgraph record -o FILE"): the raw records of a session
 * plus everything needed to render them elsewhere, so that "bpfgraph
 * report" feeds the same graph builder and writers as live tracing and
 * prints the same bytes. writer.c writes them, reader.c and reader_args.c
 * read them back, codec.c holds the byte encoding both use.
 *
 * All integers are little-endian and of fixed width; a string is a u32
 * length and that many bytes without a NUL (at most RECORD_MAX_STR).
 *   file header   "BGRECORD", u16 version, u16 header size (16), u32 0
 *   then blocks   u32 type, u32 raw length, u32 stored length, u32 CRC-32
 *                 of the 12 header bytes before it and the stored bytes;
 *                 then the stored bytes: the raw payload, compressed
 *                 (raw at most RECORD_MAX_RAW): one zstd frame from
 *                 version 5 on, a zlib stream before
 * Block types and their raw payloads:
 *   1 HEADER      exactly once, first: meta (u32 flags, dialect,
 *                 max_depth, nr_cpu_ids, ncpus_online, header; u64
 *                 thresh_ns, clock_offset_ns, start_ns; strings release,
 *                 hostname, cmdline)
 *   2 FUNCS       functions appended to the table, before the records
 *                 that use them: u32 first index, u32 count, per function
 *                 u64 addr, u32 size, btf_id, flags, u8 ret_kind,
 *                 ret_size, u16 0, strings name, module, ret_type
 *   3 RECORDS     32-byte records (u64 ts, val; u32 dur, pid, func; u16
 *                 cpu; u8 type, depth); type 15 is a drain mark (ts =
 *                 upto), type 14 a flush mark
 *   4 TRAILER     written last: u32 count, that many u64 counters (a
 *                 reader takes the ones it knows; older files lack the last)
 *   5 ARGS        (version 2) the prototypes of functions of the table,
 *                 after their FUNCS block, for funcgraph-args: u32 first
 *                 index, u32 count, per function u16 parameter count
 *                 (0xffff: no prototype), per parameter u8 BTF kind, u8
 *                 encoding, u32 size, strings name and C type; after an
 *                 enum (version 3) u16 count, per enumerator name and u32
 *                 value; after a pointer (version 4) u8 count, per struct
 *                 member --args-detail reads name, u16 offset, u8 size,
 *                 u8 signedness
 *   6 SYMS        (version 2) the symbols of return addresses met since
 *                 the last, before the records, for funcgraph-retaddr:
 *                 u32 count, per address u64 address, its offset into the
 *                 symbol, the symbol's size, strings name, module
 * Versions: 1 has neither ARGS nor SYMS; 2 adds them and BG_REC_ARGS
 * records; 3 adds enumerators to ARGS; 4 adds the pointed-to members to
 * ARGS and BG_REC_DETAIL records; 5 compresses blocks with zstd (level
 * 1) instead of zlib: on the records of a trace 3.7-4.9x less CPU and
 * 1.2-1.6x smaller (tests/bench/reader's record mode, docs/performance.md).
 * A writer writes version 5 (what older bpfgraph refuses by its version
 * rather than misreads), a reader takes every version up to
 * RECORD_VERSION.
 * Each block stands alone, so a file whose writer died is readable up to
 * its last complete block, and memory stays bounded by one block.
 */
#ifndef BG_RECORD_H
#define BG_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "args_src.h"
#include "functab.h"
#include "sink.h"

#define RECORD_MAGIC "BGRECORD"
#define RECORD_VERSION 5 /* the newest this bpfgraph reads, and the one it writes */
#define RECORD_VERSION_ARGS 2 /* funcgraph-args/-retaddr: ARGS, SYMS, BG_REC_ARGS */
#define RECORD_VERSION_ENUMS 3 /* ARGS: an enum parameter's enumerators */
#define RECORD_VERSION_DETAIL 4 /* --args-detail: BG_REC_DETAIL records */
#define RECORD_VERSION_ZSTD 5 /* blocks compressed with zstd, not zlib */
#define RECORD_BLK_HEADER 1
#define RECORD_BLK_FUNCS 2
#define RECORD_BLK_RECORDS 3
#define RECORD_BLK_TRAILER 4
#define RECORD_BLK_ARGS 5
#define RECORD_BLK_SYMS 6
#define RECORD_NO_PROTO 0xffff
#define RECORD_MAX_ENUMS 4096 /* enumerators kept of an enum parameter */
/* Limits a reader enforces before it allocates anything. */
#define RECORD_MAX_RAW (1U << 20) /* payload of one block */
#define RECORD_MAX_FUNCS (1U << 21)
#define RECORD_MAX_STR 65536
/* Strings of the whole function table: a table of hostile size is refused. */
#define RECORD_MAX_FUNC_STR (64U << 20)
/* Record type nibbles of marks: graph__drain(ts), graph__flush() here. */
#define RECORD_REC_DRAIN 0x0f
#define RECORD_REC_FLUSH 0x0e

struct record_meta {
	uint32_t flags; /* BG_O_* */
	uint32_t dialect; /* enum bg_dialect */
	uint32_t max_depth;
	uint32_t nr_cpu_ids; /* possible CPUs (text CPU column width) */
	uint32_t ncpus_online;
	bool header; /* "# tracer" header block */
	uint64_t thresh_ns;
	/* CLOCK_REALTIME - CLOCK_MONOTONIC at start: record ts + this = wall time */
	int64_t clock_offset_ns;
	uint64_t start_ns; /* CLOCK_MONOTONIC at start */
	char *release; /* uname -r */
	char *hostname;
	char *cmdline;
};

struct record_trailer {
	uint64_t records;
	uint64_t drops;
	uint64_t recursion_misses;
	uint64_t nested;
	uint64_t unmatched_exits;
	uint64_t unmatched_entries;
	uint64_t deep;
	uint64_t nostate;
	uint64_t end_ns; /* CLOCK_MONOTONIC at the end */
	/* calls of -G functions not traced while the wide net's finds were linked */
	uint64_t held;
};

/* --- writing ------------------------------------------------------------ */

struct record_writer;

/*
 * Creates path and writes the file header and the HEADER block. funcs is
 * read again before every block: functions added meanwhile are appended
 * (FUNCS block) ahead of the records that may use them. The meta strings
 * are copied. NULL with errno set (message written to err).
 */
struct record_writer *record__create(const char *path, const struct record_meta *m,
				     const struct functab *funcs, FILE *err);
/*
 * What funcgraph-args and -retaddr print with (copied; what it points to
 * must outlive w): the prototypes of the functions and the symbols of
 * return addresses go into the file with them. Only for files created
 * with those options in their meta flags.
 */
int record__set_args(struct record_writer *w, const struct args_src *src);
/* feed/drain/flush of a session, into the file. */
struct rec_sink record__sink(struct record_writer *w);
int record__write_trailer(struct record_writer *w, const struct record_trailer *t);
/* Writes what is buffered and closes; 0 or the first write error. */
int record__close(struct record_writer *w);
/* Bytes written so far. */
uint64_t record__bytes(const struct record_writer *w);

/* --- reading ------------------------------------------------------------ */

struct record_reader;

struct record_info {
	struct record_meta meta;
	struct functab funcs; /* grows while records are replayed */
	struct record_trailer trailer;
	bool has_trailer;
	bool truncated; /* the file ended inside a block */
	uint64_t records; /* records replayed */
	uint64_t blocks;
};

/*
 * Opens path and reads up to and including the HEADER block. Problems are
 * reported on err as one line naming the file and the byte offset. NULL
 * with errno set (EBADMSG: not a valid record file).
 */
struct record_reader *record__open(const char *path, FILE *err);
const struct record_info *record__info(const struct record_reader *r);
/*
 * The prototypes and symbols read from the file so far (ARGS, SYMS
 * blocks), for the writers: valid while r lives, filled in as replay goes.
 */
const struct args_src *record__args_src(struct record_reader *r);
/*
 * Reads the rest of the file: records and drain marks go to sink in
 * file order, flush at the end (also after a truncation, which is a
 * warning on err, not an error). 0 or -errno (message written).
 */
int record__replay(struct record_reader *r, const struct rec_sink *sink);
void record__close_reader(struct record_reader *r);
void record__free_meta(struct record_meta *m);

#endif
