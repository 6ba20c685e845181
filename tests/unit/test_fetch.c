// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring buffer's reading thread (user/session/fetch.c), fed by a
 * stand-in source: every sample is handed out once, in order, whatever the
 * reads, the bound on memory and the taker's stops; a read cut short by
 * the bound is said so and what it left is read later; the time up to
 * which everything was taken moves only once it was.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "golden.h"

#include "fetch.h"

/* Samples numbered 0..total-1, of varying sizes, "in the ring" up to avail. */
struct fake_ring {
	pthread_mutex_t lock;
	unsigned int next, avail, total;
	unsigned int reads;
};

static size_t sample_len(unsigned int i)
{
	return 8 + (i % 7) * 64;
}

static int fake_consume(void *ctx, int (*cb)(void *, void *, size_t), void *cb_ctx)
{
	struct fake_ring *r = ctx;
	unsigned char buf[512];
	int n = 0, err;

	pthread_mutex_lock(&r->lock);
	r->reads++;
	while (r->next < r->avail) {
		unsigned int i = r->next++;
		size_t len = sample_len(i);

		memset(buf, (int)(i & 0xff), len);
		memcpy(buf, &i, sizeof(i));
		/* Consumed whatever cb says, as libbpf does. */
		err = cb(cb_ctx, buf, len);
		if (err < 0) {
			pthread_mutex_unlock(&r->lock);
			return err;
		}
		n++;
	}
	pthread_mutex_unlock(&r->lock);
	return n;
}

static void ring_add(struct fake_ring *r, unsigned int n)
{
	pthread_mutex_lock(&r->lock);
	r->avail += n;
	if (r->avail > r->total)
		r->avail = r->total;
	pthread_mutex_unlock(&r->lock);
}

struct taker {
	unsigned int want; /* the next sample number expected */
	unsigned int bad;
	unsigned int stop_every; /* -EAGAIN after this many (0: never) */
	unsigned int since_stop;
};

static int take_one(void *ctx, void *data, size_t len)
{
	struct taker *t = ctx;
	const unsigned char *p = data;
	unsigned int i;

	memcpy(&i, data, sizeof(i));
	if (i != t->want || len != sample_len(i) || p[len - 1] != (unsigned char)(i & 0xff))
		t->bad++;
	t->want = i + 1;
	if (t->stop_every && ++t->since_stop >= t->stop_every) {
		t->since_stop = 0;
		return -EAGAIN;
	}
	return 0;
}

static struct fetch *start(struct fake_ring *r, size_t max_bytes)
{
	struct fetch_source src = {
		.consume = fake_consume, .ctx = r, .wake_fd = -1, .ring_bytes = 1u << 20,
	};

	pthread_mutex_init(&r->lock, NULL);
	return fetch__start_source(&src, max_bytes, 1000);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void test_in_order_across_reads(void **state)
{
	struct fake_ring r = { .total = 20000 };
	struct taker t = { .stop_every = 333 };
	struct fetch *f;
	uint64_t t0;

	(void)state;
	f = start(&r, 0);
	assert_non_null(f);
	t0 = now_ns();
	for (int k = 0; k < 10; k++) {
		ring_add(&r, 2000);
		assert_true(fetch__sync(f));
		/* Stopped by the taker every 333 samples: each take goes on where it stopped. */
		while (fetch__take(f, take_one, &t) > 0)
			;
		assert_int_equal(t.want, r.avail);
		/* All that the latest whole read found is taken: its start is the bound. */
		assert_true(fetch__taken_ns(f) >= t0);
	}
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.want, 20000);
	fetch__stop(f, NULL);
}

static void test_bound_cuts_a_read_short(void **state)
{
	/* 2 MiB of samples against a bound of two 256 KiB chunks. */
	struct fake_ring r = { .total = 20000, .avail = 20000 };
	struct taker t = { 0 };
	struct fetch_stats st;
	struct fetch *f;
	int cuts = 0;

	(void)state;
	f = start(&r, 512u << 10);
	assert_non_null(f);
	/* The thread may have begun its first read already: take until the ring is emptied. */
	for (int guard = 0; guard < 1000; guard++) {
		bool whole = fetch__sync(f);

		if (!whole)
			cuts++;
		while (fetch__take(f, take_one, &t) > 0)
			;
		if (whole && t.want == r.total)
			break;
	}
	assert_true(cuts > 0);
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.want, 20000);
	fetch__stop(f, &st);
	assert_true(st.full_waits > 0);
	/* One chunk past the bound at most (the sample that found it full). */
	assert_true(st.peak_bytes <= (512u << 10) + (256u << 10));
}

static void test_taken_time_waits_for_the_taker(void **state)
{
	struct fake_ring r = { .total = 100, .avail = 100 };
	struct taker t = { .stop_every = 10 };
	struct fetch *f;
	uint64_t before;

	(void)state;
	f = start(&r, 0);
	assert_non_null(f);
	assert_true(fetch__sync(f));
	before = fetch__taken_ns(f);
	/* Ten of a hundred taken: the read that found them is not taken whole. */
	assert_int_equal(fetch__take(f, take_one, &t), 10);
	assert_int_equal(fetch__taken_ns(f), before);
	while (fetch__take(f, take_one, &t) > 0)
		;
	assert_true(fetch__taken_ns(f) > before);
	assert_int_equal(t.want, 100);
	assert_int_equal(fetch__wait(f, 0), 0);
	fetch__stop(f, NULL);
}

static int fail_consume(void *ctx, int (*cb)(void *, void *, size_t), void *cb_ctx)
{
	(void)ctx;
	(void)cb;
	(void)cb_ctx;
	return -EBADF;
}

static void test_read_error_reported(void **state)
{
	struct fetch_source src = { .consume = fail_consume, .wake_fd = -1, .ring_bytes = 4096 };
	struct fetch *f;

	(void)state;
	f = fetch__start_source(&src, 0, 1000);
	assert_non_null(f);
	/* The thread ends on it; a sync does not hang, and waiting says why. */
	fetch__sync(f);
	assert_int_equal(fetch__wait(f, 0), -EBADF);
	fetch__stop(f, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order_across_reads),
		cmocka_unit_test(test_bound_cuts_a_read_short),
		cmocka_unit_test(test_taken_time_waits_for_the_taker),
		cmocka_unit_test(test_read_error_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
