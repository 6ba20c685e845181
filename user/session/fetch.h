/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ring buffer's own reading thread: it empties the ring into memory
 * (samples kept in order, in chunks) whatever the session's thread is
 * doing meanwhile: formatting a burst, attaching what discovery found,
 * handing the wide net over. Those take seconds under a load, and a ring
 * nobody reads in that time fills and the kernel drops records.
 *
 * What waits in memory is bounded (max_bytes): past it the thread stops
 * reading until the session takes some, and the kernel drops what the
 * ring cannot hold, as without this thread.
 */
#ifndef BG_FETCH_H
#define BG_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"

struct fetch;

struct fetch_stats {
	size_t peak_bytes; /* the most held in memory at once */
	uint64_t full_waits; /* passes cut short by max_bytes */
	uint64_t lost; /* samples read that no memory could be found for */
	uint64_t max_gap_ns; /* the longest time between two reads' starts */
	uint64_t max_gap_end_ns; /* when it ended (CLOCK_MONOTONIC, the records' clock) */
	uint64_t max_consume_ns; /* the longest read */
	uint64_t max_consume_bytes, max_consume_cpu_ns; /* what it read, its CPU */
	struct cpu_mark cpu; /* the thread's CPU time, its kernel part, its page faults (fetch__stop) */
};

/*
 * Creates the ring buffer reader of ringbuf_fd and its thread, which reads
 * every poll_ms (sooner when a read found much, or the ring is woken up).
 * max_bytes: 0 for a quarter of the memory available, 1 GiB at most.
 * NULL (errno).
 */
struct fetch *fetch__start(int ringbuf_fd, size_t max_bytes, int poll_ms);

/* A stand-in for the ring buffer (the unit tests'). */
struct fetch_source {
	/*
	 * Hands what waits to cb as libbpf's ring_buffer__consume() does:
	 * each sample given is consumed whatever cb returns; cb < 0 stops
	 * (that return); else the samples handed.
	 */
	int (*consume)(void *ctx, int (*cb)(void *cb_ctx, void *data, size_t len), void *cb_ctx);
	void *ctx;
	int wake_fd; /* readable: a read is due at once (-1: none) */
	size_t ring_bytes;
};

struct fetch *fetch__start_source(const struct fetch_source *src, size_t max_bytes, int poll_ms);
/*
 * Waits up to timeout_ms for samples to take: 1 when some wait, 0 when
 * none came, -EINTR when a signal came first, or the error that ended
 * the thread.
 */
int fetch__wait(struct fetch *f, int timeout_ms);
/*
 * Has the thread read the ring now, and waits until it did: false when
 * that read stopped at the bound on memory (records are left in the ring).
 */
bool fetch__sync(struct fetch *f);
/*
 * Hands the samples held, oldest first, to fn until none is left or fn
 * returns < 0. A sample fn returned -EAGAIN for counts as taken (as with
 * libbpf's callbacks). Samples taken, or fn's error other than -EAGAIN.
 */
long fetch__take(struct fetch *f, int (*fn)(void *ctx, void *data, size_t len), void *ctx);
/*
 * CLOCK_MONOTONIC ns of the latest whole read of the ring of which every
 * sample was taken: what was in the ring then has been handed out.
 */
uint64_t fetch__taken_ns(struct fetch *f);
/*
 * Ends the thread (samples not taken are dropped) and, with st, says what
 * it did. NULL f is ignored.
 */
void fetch__stop(struct fetch *f, struct fetch_stats *st);

#endif
