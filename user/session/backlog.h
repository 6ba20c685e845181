/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Ring buffer samples read but not yet formatted, oldest first.
 *
 * Reading a sample out of the ring buffer costs a copy; pairing and
 * formatting its records costs about fifty times that. A reader that did
 * both at once fell behind a busy traced loop, and the kernel then dropped
 * what the full ring could not take (a third of the records of a loop of
 * failed opens on one CPU). The session empties the ring into this queue
 * at every turn of its loop and formats from here as fast as it can: the
 * records wait in the reader's memory, which grows as needed up to a
 * bound, instead of in the ring, whose size is fixed when tracing starts.
 *
 * Samples keep the time their read began: a record reaches the ring
 * within the reordering bound of its timestamp, so once every sample of a
 * read that emptied the ring is formatted, the graph builder may release
 * what is older than that time less the bound.
 */
#ifndef BG_BACKLOG_H
#define BG_BACKLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct backlog_chunk;

struct backlog {
	struct backlog_chunk *head, *tail, *spare;
	size_t bytes; /* of samples queued (their headers too) */
	size_t max_bytes; /* push refuses beyond this */
	size_t peak_bytes;
	uint64_t samples; /* queued */
	uint64_t refused; /* pushes refused for the bound */
};

/* An empty queue holding at most max_bytes. */
void backlog__init(struct backlog *b, size_t max_bytes);
/* Frees what is queued; the counts (peak_bytes, refused) stay. */
void backlog__free(struct backlog *b);

/*
 * Copies a sample of len bytes read at read_ns to the tail: 0, -ENOSPC
 * over the bound (nothing queued), -ENOMEM.
 */
int backlog__push(struct backlog *b, const void *data, size_t len, uint64_t read_ns);

static inline bool backlog__empty(const struct backlog *b)
{
	return !b->samples;
}

/*
 * Hands the oldest samples to fn in order until fn fails, the queue is
 * empty, or max_samples were handed over. *read_ns: the read time of the
 * last read whose samples were all handed over (unchanged if none was
 * finished); a read's samples must all be pushed before any is taken.
 * Returns how many samples were handed over, or fn's error (that sample
 * is gone).
 */
long backlog__take(struct backlog *b, size_t max_samples,
		   int (*fn)(void *ctx, void *data, size_t len), void *ctx, uint64_t *read_ns);

/*
 * A good bound for a machine with avail_bytes of memory available and a
 * ring buffer of ring_bytes: a quarter of what is available, at most
 * 1 GiB, never below the ring's size.
 */
size_t backlog__default_max(uint64_t avail_bytes, size_t ring_bytes);

#endif
