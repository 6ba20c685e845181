// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backlog.h"

/* Samples are at most a batch of records or a kernel stack: well under this. */
#define CHUNK_BYTES (1u << 20)

/* A sample in a chunk: this header, then len bytes, padded to 8. */
struct entry {
	uint64_t read_ns;
	uint32_t len;
	uint32_t pad;
};

struct backlog_chunk {
	struct backlog_chunk *next;
	size_t cap; /* bytes of data[] */
	size_t used; /* written by push */
	size_t off; /* taken by take */
	_Alignas(8) unsigned char data[];
};

static size_t entry_size(size_t len)
{
	return sizeof(struct entry) + ((len + 7) & ~(size_t)7);
}

void backlog__init(struct backlog *b, size_t max_bytes)
{
	memset(b, 0, sizeof(*b));
	b->max_bytes = max_bytes;
}

void backlog__free(struct backlog *b)
{
	struct backlog_chunk *c, *n;

	for (c = b->head; c; c = n) {
		n = c->next;
		free(c);
	}
	free(b->spare);
	b->head = b->tail = b->spare = NULL;
	b->bytes = 0;
	b->samples = 0;
}

/* A chunk with room for need bytes: the spare one if it is large enough. */
static struct backlog_chunk *chunk_new(struct backlog *b, size_t need)
{
	size_t cap = need > CHUNK_BYTES ? need : CHUNK_BYTES;
	struct backlog_chunk *c = b->spare;

	if (c && c->cap >= cap) {
		b->spare = NULL;
	} else {
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
	}
	c->next = NULL;
	c->used = c->off = 0;
	return c;
}

int backlog__push(struct backlog *b, const void *data, size_t len, uint64_t read_ns)
{
	size_t need = entry_size(len);
	struct backlog_chunk *c = b->tail;
	struct entry *e;

	if (len > UINT32_MAX)
		return -EINVAL;
	if (b->bytes + need > b->max_bytes) {
		b->refused++;
		return -ENOSPC;
	}
	if (!c || c->cap - c->used < need) {
		c = chunk_new(b, need);
		if (!c)
			return -ENOMEM;
		if (b->tail)
			b->tail->next = c;
		else
			b->head = c;
		b->tail = c;
	}
	e = (struct entry *)(c->data + c->used);
	e->read_ns = read_ns;
	e->len = (uint32_t)len;
	e->pad = 0;
	memcpy(e + 1, data, len);
	c->used += need;
	b->bytes += need;
	if (b->bytes > b->peak_bytes)
		b->peak_bytes = b->bytes;
	b->samples++;
	return 0;
}

/* The oldest sample, or NULL. */
static struct entry *peek(const struct backlog *b)
{
	const struct backlog_chunk *c = b->head;

	return c && c->off < c->used ? (struct entry *)(c->data + c->off) : NULL;
}

/* Drops the oldest sample; a chunk taken whole is kept as the spare or freed. */
static void pop(struct backlog *b, size_t size)
{
	struct backlog_chunk *c = b->head;

	c->off += size;
	b->bytes -= size;
	b->samples--;
	if (c->off < c->used)
		return;
	if (c == b->tail) {
		/* The tail goes on filling from its start. */
		c->used = c->off = 0;
		return;
	}
	b->head = c->next;
	if (!b->spare && c->cap == CHUNK_BYTES) {
		b->spare = c;
	} else {
		free(c);
	}
}

long backlog__take(struct backlog *b, size_t max_samples,
		   int (*fn)(void *ctx, void *data, size_t len), void *ctx, uint64_t *read_ns)
{
	size_t n = 0;
	struct entry *e;
	int err;

	while (n < max_samples && (e = peek(b))) {
		uint64_t t = e->read_ns;

		err = fn(ctx, e + 1, e->len);
		pop(b, entry_size(e->len));
		n++;
		if (err < 0)
			return err;
		/* The last of its read: everything read then was handed over. */
		e = peek(b);
		if (!e || e->read_ns != t)
			*read_ns = t;
	}
	return (long)n;
}

size_t backlog__default_max(uint64_t avail_bytes, size_t ring_bytes)
{
	uint64_t max = avail_bytes / 4;

	if (max > (1ULL << 30))
		max = 1ULL << 30;
	if (max < ring_bytes)
		max = ring_bytes;
	return (size_t)max;
}
