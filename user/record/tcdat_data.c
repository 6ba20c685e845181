// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A trace-cmd data file's per-CPU data: ring buffer pages (ftpage.h; header_page:
 * time stamp, commit with the missed-events flags, data) holding events
 * behind the compressed header of header_event (type_len:5,
 * time_delta:27; 29 padding, 30 time extend, 31 absolute time stamp).
 * One cursor per CPU; the CPUs merged by time stamp into the sink, as
 * trace-cmd report and the kernel's trace file merge them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfgraph.h"
#include "tcdat.h"
#include "tcdat_int.h"

#define DRAIN_EVERY 4096

struct tc_cursor {
	const struct tc_cpuinfo *ci;
	uint64_t next_page; /* offset in the CPU's data */
	uint8_t *page;
	struct ftp_cursor pc; /* in page */
	bool lost; /* a loss to report before the next record */
	uint64_t lost_count;
	bool have; /* rec holds the next record */
	struct bg_rec rec;
	struct tc_chunks zip; /* compressed data: the chunk being read */
};

/* The next page of a CPU's data into c->page: 0, 1 at the end, -errno. */
static int next_page(struct tcdat *r, struct tc_cursor *c)
{
	struct tc_chunks *z = &c->zip;
	int err;

	if (!r->data_zip) {
		if (c->next_page + r->lay.page_size > c->ci->size)
			return 1;
		err = tcdat_read_at(r, c->ci->offset + c->next_page, c->page, r->lay.page_size,
				    "a CPU's data");
		c->next_page += r->lay.page_size;
		return err;
	}
	while (!z->buf || z->off + r->lay.page_size > z->len) {
		err = tcdat_chunk_next(r, z, c->ci->offset, c->ci->size);
		if (err)
			return err;
	}
	memcpy(c->page, z->buf + z->off, r->lay.page_size);
	z->off += r->lay.page_size;
	return 0;
}

static int load_page(struct tcdat *r, struct tc_cursor *c)
{
	int err = next_page(r, c);

	if (err)
		return err;
	if (ftp_open_page(&c->pc, &r->lay, c->page))
		return tcdat_fail(r, EINVAL, "CPU %u: a page's commit exceeds it", c->ci->cpu);
	if (c->pc.lost) {
		r->stats.lost_pages++;
		c->lost = true;
		c->lost_count += c->pc.lost_count;
	}
	return 0;
}

/* One function_graph event into c->rec: 1; another event: 0; -ENOMEM. */
static int take_event(struct tcdat *r, struct tc_cursor *c, const uint8_t *d, uint32_t len)
{
	uint64_t addr;
	uint32_t flags;
	const struct tc_event *e = ftp_event(&r->lay, d, len, c->pc.ts, c->ci->cpu, &c->rec,
					     &addr, &flags);
	int func;

	if (!e) {
		r->stats.other++;
		return 0;
	}
	func = tcdat_func(r, addr);
	if (func < 0)
		return tcdat_fail(r, ENOMEM, "out of memory");
	c->rec.func = (uint32_t)func;
	if (!e->exit) {
		r->stats.entries++;
		return 1;
	}
	/* bpfgraph's mark of an exit that was missed (tcdat_layout.h); the kernel's overrun is not */
	if (r->meta.bpfgraph && e->overrun.size && ftp_rd(d + e->overrun.offset, e->overrun.size)) {
		c->rec.type |= BG_RF_NOEXIT;
		c->rec.val = 0;
	}
	r->stats.exits++;
	return 1;
}

/* The cursor's next function_graph record into c->rec (c->have false at the end). */
static int advance(struct tcdat *r, struct tc_cursor *c)
{
	c->have = false;
	for (;;) {
		const uint8_t *d = NULL;
		uint32_t len = 0;
		int k = ftp_step(&c->pc, &d, &len);

		if (k < 0) {
			int err = load_page(r, c);

			if (err)
				return err > 0 ? 0 : err;
			continue;
		}
		if (k > 0) {
			k = take_event(r, c, d, len);
			if (k < 0)
				return k;
			if (k) {
				c->have = true;
				return 0;
			}
		}
	}
}

/* Comms first: the graph builder names tasks from them. */
static int feed_comms(struct tcdat *r, const struct tcdat_sink *s)
{
	const char *p = r->cmdlines;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		struct bg_rec rec = { .type = BG_REC_COMM };
		char *end;
		unsigned long pid = strtoul(p, &end, 10);

		if (end != p && *end == ' ' && (size_t)(end + 1 - p) <= n) {
			size_t len = n - (size_t)(end + 1 - p);

			rec.pid = (uint32_t)pid;
			memcpy(&rec.ts, end + 1, len < BG_COMM_LEN ? len : BG_COMM_LEN);
			if (len < BG_COMM_LEN)
				((char *)&rec.ts)[len] = '\0';
			if (s->recs.feed(s->recs.ctx, &rec))
				return tcdat_fail(r, ENOMEM, "out of memory");
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

static int feed_one(struct tc_cursor *c, const struct tcdat_sink *s)
{
	if (c->lost) {
		int err = s->lost ? s->lost(s->lost_ctx, c->ci->cpu, c->lost_count) : 0;

		if (err)
			return err;
		c->lost = false;
		c->lost_count = 0;
	}
	return c->have ? s->recs.feed(s->recs.ctx, &c->rec) : 0;
}

/* The cursor with the oldest next record (ties: the lowest CPU), or NULL. */
static struct tc_cursor *oldest(struct tc_cursor *cur, uint32_t n)
{
	struct tc_cursor *best = NULL;

	for (uint32_t i = 0; i < n; i++)
		if (cur[i].have && (!best || cur[i].rec.ts < best->rec.ts ||
				    (cur[i].rec.ts == best->rec.ts && cur[i].ci->cpu < best->ci->cpu)))
			best = &cur[i];
	return best;
}

static int merge(struct tcdat *r, struct tc_cursor *cur, const struct tcdat_sink *s)
{
	uint64_t fed = 0;
	struct tc_cursor *c;
	int err = 0;

	for (uint32_t i = 0; !err && i < r->ncpus; i++) {
		cur[i].ci = &r->cpus[i];
		cur[i].page = malloc(r->lay.page_size);
		err = cur[i].page ? advance(r, &cur[i]) : tcdat_fail(r, ENOMEM, "out of memory");
	}
	while (!err && (c = oldest(cur, r->ncpus))) {
		err = feed_one(c, s);
		if (err)
			return tcdat_fail(r, -err, "cannot replay: %s", strerror(-err));
		err = advance(r, c);
		/* no CPU has an older record left than the oldest next one */
		if (!err && ++fed % DRAIN_EVERY == 0 && (c = oldest(cur, r->ncpus)))
			s->recs.drain(s->recs.ctx, c->rec.ts);
	}
	/* losses at the very end of a CPU's data */
	for (uint32_t i = 0; !err && i < r->ncpus; i++)
		if (cur[i].lost)
			err = feed_one(&cur[i], s);
	return err;
}

int tcdat__replay(struct tcdat *r, const struct tcdat_sink *s)
{
	struct tc_cursor *cur = calloc(r->ncpus ? r->ncpus : 1, sizeof(*cur));
	int err;

	if (!cur)
		return tcdat_fail(r, ENOMEM, "out of memory");
	err = feed_comms(r, s);
	if (!err)
		err = merge(r, cur, s);
	for (uint32_t i = 0; i < r->ncpus; i++) {
		free(cur[i].page);
		free(cur[i].zip.buf);
	}
	free(cur);
	if (!err)
		s->recs.flush(s->recs.ctx);
	return err;
}
