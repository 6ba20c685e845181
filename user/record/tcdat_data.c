// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A trace-cmd data file's per-CPU data: ring buffer pages (header_page:
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

#define TS_MSB (0x1fULL << 59) /* bits an absolute time stamp keeps */
#define DRAIN_EVERY 4096

struct tc_cursor {
	const struct tc_cpuinfo *ci;
	uint64_t next_page; /* offset in the CPU's data */
	uint8_t *page;
	uint32_t pos, end; /* in page: the next event header, the data's end */
	uint64_t ts;
	bool lost; /* a loss to report before the next record */
	uint64_t lost_count;
	bool have; /* rec holds the next record */
	struct bg_rec rec;
	struct tc_chunks zip; /* compressed data: the chunk being read */
};

static uint64_t rd(const uint8_t *p, uint32_t size)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < size && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The next page of a CPU's data into c->page: 0, 1 at the end, -errno. */
static int next_page(struct tcdat *r, struct tc_cursor *c)
{
	struct tc_chunks *z = &c->zip;
	int err;

	if (!r->data_zip) {
		if (c->next_page + r->page_size > c->ci->size)
			return 1;
		err = tcdat_read_at(r, c->ci->offset + c->next_page, c->page, r->page_size,
				    "a CPU's data");
		c->next_page += r->page_size;
		return err;
	}
	while (!z->buf || z->off + r->page_size > z->len) {
		err = tcdat_chunk_next(r, z, c->ci->offset, c->ci->size);
		if (err)
			return err;
	}
	memcpy(c->page, z->buf + z->off, r->page_size);
	z->off += r->page_size;
	return 0;
}

static int load_page(struct tcdat *r, struct tc_cursor *c)
{
	uint64_t commit;
	uint32_t data = r->data.offset;
	int err = next_page(r, c);

	if (err)
		return err;
	c->ts = rd(c->page, 8);
	commit = rd(c->page + r->commit.offset, r->commit.size);
	c->pos = data;
	c->end = data + (uint32_t)(commit & TCDAT_COMMIT_MASK);
	if (c->end > r->page_size)
		return tcdat_fail(r, EINVAL, "CPU %u: a page's commit %" PRIu64 " exceeds it",
				  c->ci->cpu, (uint64_t)(commit & TCDAT_COMMIT_MASK));
	if (commit & TCDAT_MISSED_EVENTS) {
		r->stats.lost_pages++;
		c->lost = true;
		if ((commit & TCDAT_MISSED_STORED) && c->end + r->long_size <= r->page_size)
			c->lost_count += rd(c->page + c->end, r->long_size);
	}
	return 0;
}

static const struct tc_event *which(const struct tcdat *r, const uint8_t *d, uint32_t len)
{
	for (int i = 0; i < TC_NEVENTS; i++) {
		const struct tc_event *e = &r->ev[i];

		if (e->id >= 0 && len >= e->type.offset + e->type.size &&
		    rd(d + e->type.offset, e->type.size) == (uint64_t)e->id)
			return e;
	}
	return NULL;
}

static bool fits(const struct tc_field *f, uint32_t len)
{
	return !f->size || f->offset + f->size <= len;
}

/* The exit's fields: return value, and the duration from calltime and rettime. */
static void take_exit(struct tcdat *r, struct bg_rec *rec, const struct tc_event *e,
		      const uint8_t *d)
{
	uint64_t dur = rd(d + e->rettime.offset, e->rettime.size) -
		       rd(d + e->calltime.offset, e->calltime.size);

	rec->type = BG_REC_EXIT;
	if (e->retval.size)
		rec->val = rd(d + e->retval.offset, e->retval.size);
	if (dur > UINT32_MAX) {
		rec->type |= BG_RF_DUR_US;
		dur /= 1000;
	}
	rec->dur = dur > UINT32_MAX ? UINT32_MAX : (uint32_t)dur;
	/* bpfgraph's mark of an exit that was missed (tcdat_layout.h); the kernel's overrun is not */
	if (r->meta.bpfgraph && e->overrun.size && rd(d + e->overrun.offset, e->overrun.size)) {
		rec->type |= BG_RF_NOEXIT;
		rec->val = 0;
	}
	r->stats.exits++;
}

/* One function_graph event into c->rec: 1; another event: 0; -ENOMEM. */
static int take_event(struct tcdat *r, struct tc_cursor *c, const uint8_t *d, uint32_t len)
{
	const struct tc_event *e = which(r, d, len);
	uint64_t depth;
	int func;

	if (!e || !fits(&e->pid, len) || !fits(&e->func, len) || !fits(&e->depth, len) ||
	    !fits(&e->retval, len) || !fits(&e->calltime, len) || !fits(&e->rettime, len) ||
	    !fits(&e->overrun, len) || !fits(&e->retaddr, len)) {
		r->stats.other++;
		return 0;
	}
	func = tcdat_func(r, rd(d + e->func.offset, e->func.size));
	if (func < 0)
		return tcdat_fail(r, ENOMEM, "out of memory");
	depth = rd(d + e->depth.offset, e->depth.size);
	c->rec = (struct bg_rec){
		.ts = c->ts, .pid = (uint32_t)rd(d + e->pid.offset, e->pid.size),
		.func = (uint32_t)func, .cpu = (uint16_t)c->ci->cpu,
		.depth = (uint8_t)(depth > 255 ? 255 : depth),
	};
	if (e->exit) {
		take_exit(r, &c->rec, e, d);
		return 1;
	}
	c->rec.type = BG_REC_ENTRY;
	if (e->retaddr.size)
		c->rec.val = rd(d + e->retaddr.offset, e->retaddr.size);
	r->stats.entries++;
	return 1;
}

/*
 * The event header at c->pos: its data and length, the clock moved on.
 * 1: a data event; 0: none (time, padding); -1: the page is done.
 */
static int step(struct tc_cursor *c, const uint8_t **data, uint32_t *len)
{
	uint32_t w, type, delta, n;

	if (c->pos + 4 > c->end)
		return -1;
	w = (uint32_t)rd(c->page + c->pos, 4);
	type = w & 0x1f;
	delta = w >> 5;
	if (type == TCDAT_TYPE_PADDING) {
		if (!delta || c->pos + 8 > c->end)
			return -1; /* the rest of the page is unused */
		n = (uint32_t)rd(c->page + c->pos + 4, 4);
		c->ts += delta;
		c->pos += 4 + (n > c->end ? c->end : n);
		return 0;
	}
	if (type == TCDAT_TYPE_TIME_EXTEND || type == TCDAT_TYPE_TIME_STAMP) {
		uint64_t v;

		if (c->pos + 8 > c->end)
			return -1;
		v = rd(c->page + c->pos + 4, 4) << TCDAT_TS_BITS | delta;
		c->ts = type == TCDAT_TYPE_TIME_STAMP ? v | (c->ts & TS_MSB) : c->ts + v;
		c->pos += 8;
		return 0;
	}
	if (!type) {
		if (c->pos + 8 > c->end)
			return -1;
		n = (uint32_t)rd(c->page + c->pos + 4, 4);
		n = n >= 4 ? ((n - 4) + 3) & ~3U : 0;
		*data = c->page + c->pos + 8;
		c->pos += 8;
	} else {
		n = type * 4;
		*data = c->page + c->pos + 4;
		c->pos += 4;
	}
	if (c->pos + n > c->end)
		return -1;
	c->pos += n;
	c->ts += delta;
	*len = n;
	return 1;
}

/* The cursor's next function_graph record into c->rec (c->have false at the end). */
static int advance(struct tcdat *r, struct tc_cursor *c)
{
	c->have = false;
	for (;;) {
		const uint8_t *d = NULL;
		uint32_t len = 0;
		int k = step(c, &d, &len);

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
		cur[i].page = malloc(r->page_size);
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
