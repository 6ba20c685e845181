/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's ftrace ring buffer pages and function_graph's events in
 * them, as tracefs hands them out (per_cpu/cpuN/trace_pipe_raw) and as
 * trace-cmd stores them in its data files. A page is header_page's
 * fields (a u64 time stamp, commit: the data's length with the
 * missed-events flags, then the data); each event behind a compressed
 * header (kernel/trace/ring_buffer.c, struct ring_buffer_event:
 * type_len:5, time_delta:27; 29 padding, 30 time extend, 31 absolute
 * time stamp, 0 a length in the next word, 1-28 that many words of data).
 * Where each field lies comes from the texts tracefs gives (header_page,
 * events/ftrace/NAME/format): nothing is assumed of a kernel version.
 */
#ifndef BG_FTPAGE_H
#define BG_FTPAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "bpfgraph.h"

#define FTP_TYPE_PADDING 29
#define FTP_TYPE_TIME_EXTEND 30
#define FTP_TYPE_TIME_STAMP 31
#define FTP_TYPE_DATA_MAX 28
#define FTP_TS_BITS 27
/* commit's flags (RB_MISSED_EVENTS, RB_MISSED_STORED) and its length */
#define FTP_MISSED_EVENTS (1ULL << 31)
#define FTP_MISSED_STORED (1ULL << 30)
#define FTP_COMMIT_MASK ((1ULL << 27) - 1)
/* common_flags: the event was made in a hard or soft interrupt */
#define FTP_FLAG_HARDIRQ 0x08
#define FTP_FLAG_SOFTIRQ 0x10

/* One field of an event format: where and how wide; size 0: absent. */
struct tc_field {
	uint32_t offset, size;
};

/* The function_graph events the reader knows, from their formats. */
struct tc_event {
	int id; /* -1: none */
	bool exit;
	struct tc_field type, flags, pid, func, depth, retval, calltime, rettime, overrun, retaddr;
};

#define TC_NEVENTS 3 /* funcgraph_entry, fgraph_retaddr_entry, funcgraph_exit */

/* Where things are in a page and its events. */
struct ftp_layout {
	uint32_t page_size, long_size;
	struct tc_field commit, data; /* from header_page */
	struct tc_event ev[TC_NEVENTS];
};

/* Reading one page. */
struct ftp_cursor {
	const uint8_t *page;
	uint32_t pos, end; /* in page: the next event header, the data's end */
	uint64_t ts; /* the clock at pos */
	bool lost; /* events were lost before this page */
	uint64_t lost_count; /* how many, when the kernel stored it (0: unknown) */
};

/* A little-endian value of size (<= 8) bytes. */
uint64_t ftp_rd(const uint8_t *p, uint32_t size);
/* Every event of l unknown (ids -1). */
void ftp_layout_init(struct ftp_layout *l);
/* header_page's text into l->commit and l->data (page_size set first): 0 or -EINVAL. */
int ftp_parse_header_page(struct ftp_layout *l, const char *text);
/*
 * One event format's text: kept in l->ev if it is one of
 * function_graph's. 0, or -EINVAL when it is one but lacks a field
 * (*name: which).
 */
int ftp_parse_format(struct ftp_layout *l, const char *text, const char **name);
/* At least one of function_graph's events is known. */
bool ftp_have_events(const struct ftp_layout *l);
/* Starts reading page (l->page_size bytes): 0, or -EINVAL if its commit exceeds it. */
int ftp_open_page(struct ftp_cursor *c, const struct ftp_layout *l, const uint8_t *page);
/*
 * The event header at c->pos: its data and length, the clock moved on.
 * 1: a data event; 0: none (time, padding); -1: the page is done.
 */
int ftp_step(struct ftp_cursor *c, const uint8_t **data, uint32_t *len);
/*
 * A function_graph event's data d (len bytes), made at ts on cpu, as a
 * record: ENTRY (val: the return address where the event has one) or
 * EXIT (val: the return value where it has one; dur from calltime and
 * rettime); *func the function's address, *flags common_flags. The
 * event's format, or NULL for another event (rec untouched).
 */
const struct tc_event *ftp_event(const struct ftp_layout *l, const uint8_t *d, uint32_t len,
				 uint64_t ts, uint32_t cpu, struct bg_rec *rec, uint64_t *func,
				 uint32_t *flags);

#endif
