/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The trace-cmd data file reader's insides, shared by its file part
 * (tcdat.c: versions, sections, metadata) and its data part
 * (tcdat_data.c: ring buffer pages to records).
 */
#ifndef BG_RECORD_TCDAT_INT_H
#define BG_RECORD_TCDAT_INT_H

#include "ftpage.h"
#include "tcdat.h"
#include "tcdat_layout.h"

struct tc_sym {
	uint64_t addr;
	const char *name; /* into syms_text */
	const char *module; /* NULL: vmlinux */
	int func; /* functab index, -1 until met */
};

struct tc_ret {
	uint64_t addr;
	uint8_t kind, size;
	char *type;
};

enum { TC_ZIP_NONE, TC_ZIP_ZSTD };

/* A compressed CPU's chunks, one unpacked at a time (tcdat_zip.c). */
struct tc_chunks {
	bool started;
	uint64_t pos, end; /* in the file: the next chunk, the data's end */
	uint32_t left; /* chunks not yet unpacked */
	uint8_t *buf; /* the current chunk, unpacked */
	uint32_t len, off; /* its size, the next page in it */
};

/* Per CPU: where its pages are in the file. */
struct tc_cpuinfo {
	uint32_t cpu;
	uint64_t offset, size;
};

struct tcdat {
	int fd;
	const char *name, *prefix;
	FILE *err;
	struct tcdat_meta meta;
	/* page_size, long_size, header_page and the function_graph event formats */
	struct ftp_layout lay;
	char *syms_text;
	struct tc_sym *syms; /* sorted by addr */
	size_t nsyms;
	struct tc_ret *rets; /* sorted by addr */
	size_t nrets;
	char *cmdlines;
	struct tc_cpuinfo *cpus;
	uint32_t ncpus;
	struct functab funcs;
	struct tcdat_stats stats;
	bool latency; /* the trace is latency text, not per-CPU data */
	int zip; /* TC_ZIP_*: how version 7's compressed sections and data are */
	uint64_t data_sec; /* version 7: the top instance's trace data section */
	bool data_zip; /* its CPUs' data is in compressed chunks */
};

/* A message on r->err: "PREFIX: NAME: ..."; returns -err. */
int tcdat_fail(struct tcdat *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Exactly n bytes at off, or -EIO/-EINVAL with a message naming what. */
int tcdat_read_at(struct tcdat *r, uint64_t off, void *buf, size_t n, const char *what);

/* tcdat_zip.c: compression. The TC_ZIP_* of a name, -1 if unknown. */
int tcdat_zip_kind(const char *name);
/* The compressed section data at off unpacked into *out (malloc'd), *len bytes. */
int tcdat_unpack_section(struct tcdat *r, uint64_t off, uint8_t **out, uint64_t *len,
			 const char *what);
/*
 * The next chunk of the compressed CPU data at start (size bytes) into
 * z->buf: 0, 1 at the end, or -errno with a message.
 */
int tcdat_chunk_next(struct tcdat *r, struct tc_chunks *z, uint64_t start, uint64_t size);

/* tcdat_fmt.c: the metadata's texts */
int tcdat_parse_header_page(struct tcdat *r, const char *text);
int tcdat_parse_format(struct tcdat *r, const char *text);
int tcdat_parse_kallsyms(struct tcdat *r, char *text);
int tcdat_parse_meta(struct tcdat *r, const char *text, size_t len);
/* The functab index of the function at addr, added when first met; -ENOMEM. */
int tcdat_func(struct tcdat *r, uint64_t addr);

#endif
