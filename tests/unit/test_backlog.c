// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader's backlog: samples come out in the order they went in, with
 * their bytes; a read counts as handed over only once all of its samples
 * were; the bound refuses a sample whole; memory is reused as the queue
 * empties, across chunks and for samples larger than a chunk.
 */
#include <errno.h>

#include "golden.h"

#include "backlog.h"

struct got {
	uint32_t seq[8192];
	size_t len[8192];
	size_t n;
	int fail_at; /* -1: never */
};

/* A sample: its sequence number, then len - 4 bytes of (seq + i) & 0xff. */
static void make(unsigned char *buf, uint32_t seq, size_t len)
{
	memcpy(buf, &seq, sizeof(seq));
	for (size_t i = sizeof(seq); i < len; i++)
		buf[i] = (unsigned char)(seq + i);
}

static int check(void *ctx, void *data, size_t len)
{
	struct got *g = ctx;
	const unsigned char *p = data;
	uint32_t seq;

	if ((int)g->n == g->fail_at)
		return -EIO;
	memcpy(&seq, p, sizeof(seq));
	for (size_t i = sizeof(seq); i < len; i++)
		if (p[i] != (unsigned char)(seq + i))
			return -EBADMSG;
	if (g->n < 8192) {
		g->seq[g->n] = seq;
		g->len[g->n] = len;
	}
	g->n++;
	return 0;
}

static void test_order_and_reads(void **state)
{
	static struct got g = { .fail_at = -1 };
	unsigned char buf[512];
	struct backlog b;
	uint64_t whole = 0;

	(void)state;
	backlog__init(&b, 1 << 20);
	assert_true(backlog__empty(&b));
	/* Three reads: samples 0-2 at 100, 3-4 at 200, 5 at 300. */
	for (uint32_t i = 0; i < 6; i++) {
		make(buf, i, 8 + 100 * i % 500);
		assert_int_equal(backlog__push(&b, buf, 8 + 100 * i % 500,
					       i < 3 ? 100 : i < 5 ? 200 : 300), 0);
	}
	assert_int_equal(b.samples, 6);
	/* Two samples: the first read is not whole yet. */
	assert_int_equal(backlog__take(&b, 2, check, &g, &whole), 2);
	assert_int_equal(whole, 0);
	assert_int_equal(backlog__take(&b, 2, check, &g, &whole), 2);
	assert_int_equal(whole, 100);
	assert_int_equal(backlog__take(&b, 100, check, &g, &whole), 2);
	assert_int_equal(whole, 300);
	assert_true(backlog__empty(&b));
	assert_int_equal(b.bytes, 0);
	assert_int_equal(g.n, 6);
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(g.seq[i], i);
		assert_int_equal(g.len[i], 8 + 100 * i % 500);
	}
	assert_int_equal(backlog__take(&b, 100, check, &g, &whole), 0);
	backlog__free(&b);
}

/* Over the bound a sample is refused whole and counted; room comes back. */
static void test_bound(void **state)
{
	static struct got g = { .fail_at = -1 };
	unsigned char buf[64];
	struct backlog b;
	uint64_t whole = 0;

	(void)state;
	/* Two samples of 64 bytes with their 16-byte headers. */
	backlog__init(&b, 160);
	make(buf, 1, sizeof(buf));
	assert_int_equal(backlog__push(&b, buf, sizeof(buf), 1), 0);
	make(buf, 2, sizeof(buf));
	assert_int_equal(backlog__push(&b, buf, sizeof(buf), 1), 0);
	make(buf, 3, sizeof(buf));
	assert_int_equal(backlog__push(&b, buf, sizeof(buf), 2), -ENOSPC);
	assert_int_equal(b.refused, 1);
	assert_int_equal(b.peak_bytes, 160);
	assert_int_equal(backlog__take(&b, 1, check, &g, &whole), 1);
	assert_int_equal(backlog__push(&b, buf, sizeof(buf), 2), 0);
	assert_int_equal(backlog__take(&b, 10, check, &g, &whole), 2);
	assert_int_equal(g.seq[2], 3);
	backlog__free(&b);
	assert_int_equal(b.peak_bytes, 160);
}

/*
 * Many chunks' worth, taken while more comes, and one sample larger than
 * a chunk: everything in order, nothing left.
 */
static void test_chunks(void **state)
{
	static struct got g = { .fail_at = -1 };
	static unsigned char big[3 << 20];
	unsigned char buf[520];
	struct backlog b;
	uint64_t whole = 0;
	uint32_t seq = 0;

	(void)state;
	backlog__init(&b, 64 << 20);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 2000; i++, seq++) {
			make(buf, seq, 24 + seq % 497);
			assert_int_equal(backlog__push(&b, buf, 24 + seq % 497, seq / 100), 0);
		}
		if (round == 1) {
			make(big, seq, sizeof(big));
			assert_int_equal(backlog__push(&b, big, sizeof(big), seq / 100), 0);
			seq++;
		}
		assert_int_equal(backlog__take(&b, 1500, check, &g, &whole), 1500);
	}
	assert_int_equal(backlog__take(&b, SIZE_MAX, check, &g, &whole), seq - 6000);
	assert_true(backlog__empty(&b));
	assert_int_equal(b.bytes, 0);
	assert_int_equal(g.n, seq);
	for (uint32_t i = 0; i < seq && i < 8192; i++)
		assert_int_equal(g.seq[i], i);
	assert_int_equal(whole, (seq - 1) / 100);
	backlog__free(&b);
}

/* fn's error is passed on; its sample is gone, the next one comes next. */
static void test_error(void **state)
{
	static struct got g = { .fail_at = 1 };
	unsigned char buf[32];
	struct backlog b;
	uint64_t whole = 0;

	(void)state;
	backlog__init(&b, 1 << 20);
	for (uint32_t i = 0; i < 3; i++) {
		make(buf, i, sizeof(buf));
		assert_int_equal(backlog__push(&b, buf, sizeof(buf), 7), 0);
	}
	assert_int_equal(backlog__take(&b, 10, check, &g, &whole), -EIO);
	assert_int_equal(b.samples, 1);
	g.fail_at = -1;
	assert_int_equal(backlog__take(&b, 10, check, &g, &whole), 1);
	assert_int_equal(g.seq[1], 2);
	assert_int_equal(whole, 7);
	backlog__free(&b);
}

static void test_default_max(void **state)
{
	(void)state;
	assert_int_equal(backlog__default_max(4ULL << 30, 8 << 20), 1ULL << 30);
	assert_int_equal(backlog__default_max(1ULL << 30, 8 << 20), 256 << 20);
	assert_int_equal(backlog__default_max(16 << 20, 8 << 20), 8 << 20);
	assert_int_equal(backlog__default_max(0, 8 << 20), 8 << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_reads),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_default_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
