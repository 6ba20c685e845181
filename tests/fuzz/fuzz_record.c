// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for the record file reader. An input starting with
 * the magic is a whole record file. Any other input is a list of blocks,
 * each "u8 type, u32 length, payload", that the harness compresses and
 * checksums into a valid file: mutations of a real file rarely get past
 * the CRC and zlib, and these reach the payload decoders. The file is
 * opened, every block is read and the records go through the graph
 * builder into the writer of one of the formats, as "bpfgraph report"
 * does. Besides crashes, leaks and UB (the sanitizers), it checks the
 * error contract: a failure says so in lines that start with "bpfgraph: "
 * and name the file, and a refused file comes with a message.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "record.h"
#include "render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int mfd = -1;
static char path[64];
static FILE *devnull;

/* record__open() takes a path: the input lives in a memfd. */
static void setup(void)
{
	mfd = memfd_create("fuzz.bgr", MFD_CLOEXEC);
	devnull = fopen("/dev/null", "we");
	if (mfd < 0 || !devnull) {
		perror("fuzz_record: setup");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
}

static void put_bytes(const void *data, size_t size, size_t *at)
{
	const uint8_t *p = data;
	ssize_t n;

	for (size_t done = 0; done < size; done += (size_t)n) {
		n = pwrite(mfd, p + done, size - done, (off_t)(*at + done));
		if (n <= 0)
			abort();
	}
	*at += size;
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One block as the writer makes it: header with CRC, zlib payload. */
static void put_block(uint32_t type, const uint8_t *raw, size_t len, size_t *at)
{
	uLongf zlen = compressBound(len);
	uint8_t h[16], *z = malloc(zlen);

	if (!z || compress2(z, &zlen, raw, len, 1) != Z_OK)
		abort();
	le32(h, type);
	le32(h + 4, (uint32_t)len);
	le32(h + 8, (uint32_t)zlen);
	le32(h + 12, (uint32_t)crc32(crc32(0, h, 12), z, zlen));
	put_bytes(h, sizeof(h), at);
	put_bytes(z, zlen, at);
	free(z);
}

static void put_input(const uint8_t *data, size_t size)
{
	static const uint8_t hdr[16] = { 'B', 'G', 'R', 'E', 'C', 'O', 'R', 'D', 1, 0, 16 };
	size_t at = 0, i = 0, len;

	if (ftruncate(mfd, 0))
		abort();
	if (size >= 8 && !memcmp(data, RECORD_MAGIC, 8)) {
		put_bytes(data, size, &at);
		return;
	}
	put_bytes(hdr, sizeof(hdr), &at);
	while (size - i >= 5) {
		len = data[i + 1] | data[i + 2] << 8 | data[i + 3] << 16 |
		      (size_t)data[i + 4] << 24;
		if (len > size - i - 5)
			len = size - i - 5;
		put_block(data[i], data + i + 5, len, &at);
		i += 5 + len;
	}
}

/* Every line of the messages is "bpfgraph: ...<path>...". */
static void check_messages(const char *msg, size_t len, bool failed)
{
	const char *p = msg, *nl;
	size_t plen = strlen(path);

	if (failed && !len) {
		fprintf(stderr, "fuzz_record: failure without a message\n");
		abort();
	}
	for (; p < msg + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(msg + len - p));
		if (!nl || strncmp(p, "bpfgraph: ", 10) || !memmem(p, (size_t)(nl - p), path, plen)) {
			fprintf(stderr, "fuzz_record: bad message: %.*s\n", (int)(msg + len - p), p);
			abort();
		}
	}
}

/* The format depends on the input's size: each gets its share of inputs. */
static int replay(struct record_reader *r, size_t size)
{
	const struct record_info *in = record__info(r);
	const struct record_meta *m = &in->meta;
	struct render_opts ro = {
		.out = devnull, .funcs = &in->funcs,
		.format = (enum bg_format)(size % (BG_FMT_SVG + 1)),
		.flags = m->flags, .dialect = (enum bg_dialect)m->dialect,
		.nr_cpu_ids = m->nr_cpu_ids, .header = m->header, .folded_count = size & 8,
	};
	struct render *rd = render__new(&ro);
	struct rec_sink sink;
	int err;

	if (!rd)
		abort();
	sink = render__sink(rd);
	err = record__replay(r, &sink);
	if (!err)
		render__finish(rd);
	render__free(rd);
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_reader *r;
	char *msg = NULL;
	size_t mlen = 0;
	FILE *err;
	int ret;

	if (mfd < 0)
		setup();
	put_input(data, size);
	err = open_memstream(&msg, &mlen);
	if (!err)
		abort();
	r = record__open(path, err);
	ret = r ? replay(r, size) : -errno;
	record__close_reader(r);
	fclose(err);
	if (ret && ret != -EBADMSG) {
		fprintf(stderr, "fuzz_record: unexpected error %d\n", ret);
		abort();
	}
	check_messages(msg, mlen, ret != 0);
	free(msg);
	return 0;
}
