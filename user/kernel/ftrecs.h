/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ftrace's own records of the sites it can hook, read from kernel memory:
 * the list behind available_filter_functions, without asking tracefs to
 * print it. tracefs formats every line with a kallsyms lookup, which took
 * 1.4-1.6 s of a start under emulation; the records themselves are a few
 * hundred KiB. The layouts come from the kernel's BTF
 * (kernel/trace/ftrace.c's struct ftrace_page, include/linux/ftrace.h's
 * struct dyn_ftrace and its flags), nothing from a kernel version.
 */
#ifndef BG_FTRECS_H
#define BG_FTRECS_H

#include <stddef.h>
#include <stdint.h>

struct btf;

/* Where the fields are, in bytes. */
struct ftrecs_layout {
	uint32_t pg_size, pg_next, pg_records, pg_index, pg_index_size;
	uint32_t rec_size, rec_ip, rec_flags;
	/* FTRACE_FL_DISABLED's value; 0: the kernel's BTF does not name it */
	uint64_t fl_disabled;
};

/* 0, or -ENOENT when the BTF lacks one of the types or fields. */
int ftrecs__layout(const struct btf *btf, struct ftrecs_layout *l);

/* Reads len bytes of kernel memory at addr: 0 or -errno. */
typedef int (*ftrecs_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);
/* One hookable site's address (a record's ip): 0, or -errno to stop. */
typedef int (*ftrecs_site_fn)(void *ctx, uint64_t ip);

/* Bounds on what a walk believes (a list changing under it reads as garbage). */
#define FTRECS_MAX_PAGES (1u << 16)
#define FTRECS_MAX_PER_PAGE (1u << 20)

/*
 * Walks the pages from the list head at head (the address of
 * ftrace_pages_start) and hands every record not marked disabled to site.
 * Returns the records seen (disabled ones included), or -errno: a read
 * that failed, a page count or record count past the bounds, or site's
 * error.
 */
long ftrecs__walk(const struct ftrecs_layout *l, uint64_t head, ftrecs_read_fn read, void *rctx,
		  ftrecs_site_fn site, void *sctx);

#endif
