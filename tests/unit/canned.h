/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Canned record scripts for the record and format tests: the language of
 * tests/golden/graph/<case>.in (see test_graph.c), replayed into any
 * rec_sink, so the same records can go to the graph builder directly or
 * through a record file. Scripts that use "lost" or "echo" (no rec_sink
 * counterpart) are refused with canned.unsupported.
 */
#ifndef BG_TEST_CANNED_H
#define BG_TEST_CANNED_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"
#include "out_text.h"
#include "record.h"
#include "session.h"

struct canned {
	struct functab ft;
	uint32_t flags;
	enum bg_dialect dialect;
	uint32_t nr_cpu_ids;
	bool header;
	bool unsupported;
	char *text; /* the script, split into lines as it is read */
	char *next;
};

static inline uint64_t canned_num(const char *s)
{
	if (!s)
		return 0;
	if (*s == '-')
		return (uint64_t)strtoll(s, NULL, 0);
	return strtoull(s, NULL, 0);
}

static inline void canned_opts(struct canned *c, char **tok)
{
	static const struct {
		const char *name;
		uint32_t flag;
	} names[] = {
		{ "cpu", BG_O_CPU },	       { "overhead", BG_O_OVERHEAD },
		{ "proc", BG_O_PROC },	       { "duration", BG_O_DURATION },
		{ "abstime", BG_O_ABSTIME },   { "irqs", BG_O_IRQS },
		{ "tail", BG_O_TAIL },	       { "retval", BG_O_RETVAL },
		{ "retval-hex", BG_O_RETVAL_HEX }, { "context-info", BG_O_CONTEXT_INFO },
	};

	c->flags = 0;
	for (; *tok; tok++) {
		const char *t = *tok + (**tok == '-' || **tok == '+');

		if (!strcmp(*tok, "default")) {
			c->flags |= BG_O_DEFAULTS;
			continue;
		}
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (strcmp(t, names[i].name))
				continue;
			if (**tok == '-')
				c->flags &= ~names[i].flag;
			else
				c->flags |= names[i].flag;
		}
	}
}

static inline void canned_func(struct canned *c, char **tok)
{
	static const char *const kinds[] = { "unknown", "void", "signed",
					     "unsigned", "bool", "ptr" };
	static const char *const spell[] = { NULL, NULL, "long", "unsigned int",
					     "bool", "void *" };
	const char *mod = NULL, *ret = NULL;
	struct bg_func *f;
	int i;

	for (char **t = tok + 1; *t; t++) {
		if (!strncmp(*t, "mod=", 4))
			mod = *t + 4;
		else if (!strncmp(*t, "ret=", 4))
			ret = *t + 4;
	}
	i = functab__add(&c->ft, tok[0], mod, 0xffffffff81000000ULL + c->ft.n * 0x100, 0x100);
	if (i < 0)
		abort();
	f = &c->ft.f[i];
	f->ret_size = 8;
	for (size_t k = 0; ret && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t n = strlen(kinds[k]);

		if (strncmp(ret, kinds[k], n) || (ret[n] && ret[n] != ':'))
			continue;
		f->ret_kind = (uint8_t)k;
		if (ret[n] == ':')
			f->ret_size = (uint8_t)canned_num(ret + n + 1);
		if (spell[k])
			f->ret_type = strdup(spell[k]);
	}
}

static inline struct bg_rec canned_rec(struct canned *c, char **a, int n, const char *op)
{
	struct bg_rec r = { 0 };
	char comm[BG_COMM_LEN] = { 0 };

	if (!strcmp(op, "comm")) {
		r.type = BG_REC_COMM;
		r.pid = (uint32_t)canned_num(a[0]);
		/* Not NUL-terminated when it fills the 16 bytes, as the kernel's. */
		if (a[1])
			memcpy(comm, a[1], strnlen(a[1], sizeof(comm)));
		memcpy(&r.ts, comm, 8);
		memcpy(&r.val, comm + 8, 8);
		r.dur = a[1] && a[2] ? (uint32_t)canned_num(a[2]) : 0; /* the process id */
		return r;
	}
	r.cpu = (uint16_t)canned_num(a[0]);
	r.pid = (uint32_t)canned_num(a[1]);
	if (!strcmp(op, "S")) {
		r.type = BG_REC_SWITCH;
		r.ts = canned_num(a[2]);
		return r;
	}
	r.func = (uint32_t)functab__find(&c->ft, a[2], NULL);
	r.depth = (uint8_t)canned_num(a[3]);
	r.ts = canned_num(a[4]);
	if (op[0] == 'E') {
		r.type = BG_REC_ENTRY;
	} else {
		r.type = BG_REC_EXIT | (op[1] == 'U' ? BG_RF_DUR_US : 0);
		r.dur = (uint32_t)canned_num(a[5]);
		r.val = n >= 7 ? canned_num(a[6]) : 0;
	}
	return r;
}

/*
 * Reads a script: settings and functions at once; stops before the first
 * record so that the caller can build its sink with the settings. Returns
 * 0, or -ENOENT if the file cannot be read.
 */
static inline int canned_open(struct canned *c, const char *path)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, len = 0;
	char buf[4096];

	memset(c, 0, sizeof(*c));
	functab__init(&c->ft);
	c->flags = BG_O_DEFAULTS;
	c->dialect = BG_DIALECT_6_1;
	c->nr_cpu_ids = 2;
	if (!f)
		return -ENOENT;
	while (fgets(buf, sizeof(buf), f)) {
		size_t n = strlen(buf);

		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			c->text = realloc(c->text, cap);
		}
		memcpy(c->text + len, buf, n + 1);
		len += n;
	}
	fclose(f);
	c->next = c->text;
	return c->text ? 0 : -ENOENT;
}

/* Tokenises the next line; 0 tokens at the end. */
static inline int canned_line(struct canned *c, char **tok, int max)
{
	char *line, *save = NULL, *t;
	int n = 0;

	while (c->next && *c->next) {
		line = c->next;
		c->next = strchr(line, '\n');
		if (c->next)
			*c->next++ = '\0';
		if (*line == '#')
			continue;
		if (!strncmp(line, "echo ", 5)) {
			c->unsupported = true;
			continue;
		}
		for (t = strtok_r(line, " \t", &save); t && n < max - 1; t = strtok_r(NULL, " \t", &save))
			tok[n++] = t;
		tok[n] = NULL;
		if (n)
			return n;
	}
	return 0;
}

static inline bool canned_is_record(const char *op)
{
	return !strcmp(op, "E") || !strcmp(op, "X") || !strcmp(op, "XU") ||
	       !strcmp(op, "S") || !strcmp(op, "comm");
}

/*
 * Settings and functions up to the first record (kept for canned_play).
 * The script's text is consumed as it goes: canned_play continues it.
 */
static inline void canned_settings(struct canned *c, char **tok, int *ntok)
{
	int n;

	while ((n = canned_line(c, tok, 16))) {
		if (!strcmp(tok[0], "opts"))
			canned_opts(c, tok + 1);
		else if (!strcmp(tok[0], "dialect"))
			c->dialect = (enum bg_dialect)canned_num(tok[1]);
		else if (!strcmp(tok[0], "nr_cpu_ids"))
			c->nr_cpu_ids = (uint32_t)canned_num(tok[1]);
		else if (!strcmp(tok[0], "header"))
			c->header = canned_num(tok[1]) != 0;
		else if (!strcmp(tok[0], "func"))
			canned_func(c, tok + 1);
		else
			break;
	}
	*ntok = n;
}

/* Plays the records, drains and flushes into sink; a flush at the end. */
static inline void canned_play(struct canned *c, char **tok, int n, const struct rec_sink *s)
{
	struct bg_rec r;

	for (; n; n = canned_line(c, tok, 16)) {
		if (canned_is_record(tok[0])) {
			r = canned_rec(c, tok + 1, n - 1, tok[0]);
			s->feed(s->ctx, &r);
		} else if (!strcmp(tok[0], "drain")) {
			s->drain(s->ctx, canned_num(tok[1]));
		} else if (!strcmp(tok[0], "flush")) {
			s->flush(s->ctx);
		} else if (!strcmp(tok[0], "func")) {
			canned_func(c, tok + 1); /* functions found late */
		} else {
			c->unsupported = true;
		}
	}
	s->flush(s->ctx);
}

static inline void canned_free(struct canned *c)
{
	functab__free(&c->ft);
	free(c->text);
}

/*
 * The script at path into a record file at out, its settings as recorded
 * options; with records false, the header and functions only. 0 or -errno.
 */
static inline int canned_record(const char *path, const char *out, bool records)
{
	struct record_writer *rw;
	struct record_meta m;
	struct rec_sink s;
	struct canned c;
	char *tok[16];
	int n, err;

	err = canned_open(&c, path);
	if (err)
		return err;
	canned_settings(&c, tok, &n);
	m = (struct record_meta){ .flags = c.flags, .dialect = c.dialect,
				  .nr_cpu_ids = c.nr_cpu_ids, .header = c.header };
	rw = record__create(out, &m, &c.ft, stderr);
	if (!rw) {
		canned_free(&c);
		return -EIO;
	}
	s = record__sink(rw);
	if (records)
		canned_play(&c, tok, n, &s);
	err = record__write_trailer(rw, &(struct record_trailer){});
	err = record__close(rw) ?: err;
	canned_free(&c);
	return err;
}

#endif
