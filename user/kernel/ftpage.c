// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ftrace ring buffer pages and function_graph's events in them
 * (ftpage.h): the formats' texts, a page's events, an event as a record.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftpage.h"

#define TS_MSB (0x1fULL << 59) /* bits an absolute time stamp keeps */

uint64_t ftp_rd(const uint8_t *p, uint32_t size)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < size && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

void ftp_layout_init(struct ftp_layout *l)
{
	for (int i = 0; i < TC_NEVENTS; i++)
		l->ev[i].id = -1;
}

/*
 * One "field:TYPE NAME;\toffset:N;\tsize:N;..." line: the name (array
 * brackets cut) into name, offset and size. false for any other line.
 */
static bool field_line(const char *line, char *name, size_t cap, struct tc_field *fl)
{
	const char *p = strstr(line, "field:"), *semi, *end, *start;
	const char *off, *sz;

	if (!p || !(semi = strchr(p, ';')))
		return false;
	end = semi;
	if (end[-1] == ']')
		while (end > p && *end != '[')
			end--;
	start = end;
	while (start > p + 6 && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
		start--;
	off = strstr(semi, "offset:");
	sz = strstr(semi, "size:");
	if (start == end || (size_t)(end - start) >= cap || !off || !sz)
		return false;
	memcpy(name, start, (size_t)(end - start));
	name[end - start] = '\0';
	fl->offset = (uint32_t)strtoul(off + 7, NULL, 10);
	fl->size = (uint32_t)strtoul(sz + 5, NULL, 10);
	return true;
}

/* Each field line of text (from the line after "from", if given) to take(). */
static void each_field(const char *text, void (*take)(void *ctx, const char *name,
						       struct tc_field fl), void *ctx)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[512], name[64];
		struct tc_field fl;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (field_line(line, name, sizeof(name), &fl))
			take(ctx, name, fl);
		p = nl ? nl + 1 : NULL;
	}
}

static void take_header(void *ctx, const char *name, struct tc_field fl)
{
	struct ftp_layout *l = ctx;

	if (!strcmp(name, "commit"))
		l->commit = fl;
	else if (!strcmp(name, "data"))
		l->data = fl;
}

int ftp_parse_header_page(struct ftp_layout *l, const char *text)
{
	each_field(text, take_header, l);
	if ((l->commit.size != 4 && l->commit.size != 8) || !l->data.offset ||
	    l->data.offset >= l->page_size)
		return -EINVAL;
	return 0;
}

static const char *const event_names[TC_NEVENTS] = {
	"funcgraph_entry", "fgraph_retaddr_entry", "funcgraph_exit",
};

static void take_field(void *ctx, const char *name, struct tc_field fl)
{
	static const struct {
		const char *name;
		size_t off;
	} known[] = {
		{ "common_type", offsetof(struct tc_event, type) },
		{ "common_flags", offsetof(struct tc_event, flags) },
		{ "common_pid", offsetof(struct tc_event, pid) },
		{ "func", offsetof(struct tc_event, func) },
		{ "depth", offsetof(struct tc_event, depth) },
		{ "retval", offsetof(struct tc_event, retval) },
		{ "calltime", offsetof(struct tc_event, calltime) },
		{ "rettime", offsetof(struct tc_event, rettime) },
		{ "overrun", offsetof(struct tc_event, overrun) },
		{ "retaddr", offsetof(struct tc_event, retaddr) },
	};
	struct tc_event *e = ctx;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i].name) && fl.size <= 8)
			*(struct tc_field *)((char *)e + known[i].off) = fl;
}

static bool usable(const struct tc_event *e)
{
	if (!e->type.size || !e->pid.size || !e->func.size || !e->depth.size)
		return false;
	return !e->exit || (e->calltime.size && e->rettime.size);
}

int ftp_parse_format(struct ftp_layout *l, const char *text, const char **name)
{
	const char *nm = strstr(text, "name: "), *id = strstr(text, "\nID: ");
	struct tc_event e = { .id = -1 };
	int k = -1;

	if (!nm || !id)
		return 0;
	for (int i = 0; i < TC_NEVENTS; i++) {
		size_t n = strlen(event_names[i]);

		if (!strncmp(nm + 6, event_names[i], n) && nm[6 + n] == '\n')
			k = i;
	}
	if (k < 0)
		return 0;
	e.id = atoi(id + 5);
	e.exit = k == 2;
	each_field(strstr(text, "\nformat:"), take_field, &e);
	if (!usable(&e)) {
		*name = event_names[k];
		return -EINVAL;
	}
	l->ev[k] = e;
	return 0;
}

bool ftp_have_events(const struct ftp_layout *l)
{
	return l->ev[0].id >= 0 || l->ev[1].id >= 0 || l->ev[2].id >= 0;
}

int ftp_open_page(struct ftp_cursor *c, const struct ftp_layout *l, const uint8_t *page)
{
	uint64_t commit = ftp_rd(page + l->commit.offset, l->commit.size);
	uint32_t data = l->data.offset;

	c->page = page;
	c->ts = ftp_rd(page, 8);
	c->pos = data;
	c->end = data + (uint32_t)(commit & FTP_COMMIT_MASK);
	c->lost = false;
	c->lost_count = 0;
	if (c->end > l->page_size)
		return -EINVAL;
	if (commit & FTP_MISSED_EVENTS) {
		c->lost = true;
		if ((commit & FTP_MISSED_STORED) && c->end + l->long_size <= l->page_size)
			c->lost_count = ftp_rd(page + c->end, l->long_size);
	}
	return 0;
}

int ftp_step(struct ftp_cursor *c, const uint8_t **data, uint32_t *len)
{
	uint32_t w, type, delta, n;

	if (c->pos + 4 > c->end)
		return -1;
	w = (uint32_t)ftp_rd(c->page + c->pos, 4);
	type = w & 0x1f;
	delta = w >> 5;
	if (type == FTP_TYPE_PADDING) {
		if (!delta || c->pos + 8 > c->end)
			return -1; /* the rest of the page is unused */
		n = (uint32_t)ftp_rd(c->page + c->pos + 4, 4);
		c->ts += delta;
		c->pos += 4 + (n > c->end ? c->end : n);
		return 0;
	}
	if (type == FTP_TYPE_TIME_EXTEND || type == FTP_TYPE_TIME_STAMP) {
		uint64_t v;

		if (c->pos + 8 > c->end)
			return -1;
		v = ftp_rd(c->page + c->pos + 4, 4) << FTP_TS_BITS | delta;
		c->ts = type == FTP_TYPE_TIME_STAMP ? v | (c->ts & TS_MSB) : c->ts + v;
		c->pos += 8;
		return 0;
	}
	if (!type) {
		if (c->pos + 8 > c->end)
			return -1;
		n = (uint32_t)ftp_rd(c->page + c->pos + 4, 4);
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

static const struct tc_event *which(const struct ftp_layout *l, const uint8_t *d, uint32_t len)
{
	for (int i = 0; i < TC_NEVENTS; i++) {
		const struct tc_event *e = &l->ev[i];

		if (e->id >= 0 && len >= e->type.offset + e->type.size &&
		    ftp_rd(d + e->type.offset, e->type.size) == (uint64_t)e->id)
			return e;
	}
	return NULL;
}

static bool fits(const struct tc_field *f, uint32_t len)
{
	return !f->size || f->offset + f->size <= len;
}

const struct tc_event *ftp_event(const struct ftp_layout *l, const uint8_t *d, uint32_t len,
				 uint64_t ts, uint32_t cpu, struct bg_rec *rec, uint64_t *func,
				 uint32_t *flags)
{
	const struct tc_event *e = which(l, d, len);
	uint64_t depth, dur;

	if (!e || !fits(&e->pid, len) || !fits(&e->func, len) || !fits(&e->depth, len) ||
	    !fits(&e->retval, len) || !fits(&e->calltime, len) || !fits(&e->rettime, len) ||
	    !fits(&e->overrun, len) || !fits(&e->retaddr, len) || !fits(&e->flags, len))
		return NULL;
	*func = ftp_rd(d + e->func.offset, e->func.size);
	*flags = e->flags.size ? (uint32_t)ftp_rd(d + e->flags.offset, e->flags.size) : 0;
	depth = ftp_rd(d + e->depth.offset, e->depth.size);
	*rec = (struct bg_rec){
		.ts = ts, .pid = (uint32_t)ftp_rd(d + e->pid.offset, e->pid.size),
		.cpu = (uint16_t)cpu, .depth = (uint8_t)(depth > 255 ? 255 : depth),
	};
	if (!e->exit) {
		rec->type = BG_REC_ENTRY;
		if (e->retaddr.size)
			rec->val = ftp_rd(d + e->retaddr.offset, e->retaddr.size);
		return e;
	}
	dur = ftp_rd(d + e->rettime.offset, e->rettime.size) -
	      ftp_rd(d + e->calltime.offset, e->calltime.size);
	rec->type = BG_REC_EXIT;
	if (e->retval.size)
		rec->val = ftp_rd(d + e->retval.offset, e->retval.size);
	else
		rec->type |= BG_RF_NOVAL;
	if (dur > UINT32_MAX) {
		rec->type |= BG_RF_DUR_US;
		dur /= 1000;
	}
	rec->dur = dur > UINT32_MAX ? UINT32_MAX : (uint32_t)dur;
	return e;
}
