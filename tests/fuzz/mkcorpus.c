// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Seeds for fuzz_record: each canned script given (tests/golden/graph/
 * *.in, the language of tests/unit/canned.h) recorded into DIR/NAME.bgr,
 * with its options as the recorded ones, as test_record.c records them;
 * and the same blocks uncompressed in the harness's block-list form
 * (u8 type, u32 length, payload) as DIR/NAME.blocks.
 *   mkcorpus DIR SCRIPT...
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include "../unit/canned.h"
#include "record.h"

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* NAME.bgr -> NAME.blocks */
static int to_blocks(const char *bgr, const char *out)
{
	static uint8_t file[1 << 20], raw[RECORD_MAX_RAW];
	FILE *f = fopen(bgr, "rb"), *o;
	size_t len, at = 16;
	uLongf rlen;
	int err = 0;

	if (!f)
		return -errno;
	len = fread(file, 1, sizeof(file), f);
	fclose(f);
	o = fopen(out, "wb");
	if (!o)
		return -errno;
	while (!err && len - at >= 16 && get_le32(file + at + 8) <= len - at - 16) {
		uint32_t zlen = get_le32(file + at + 8);

		rlen = sizeof(raw);
		if (uncompress(raw, &rlen, file + at + 16, zlen) != Z_OK) {
			err = -EBADMSG;
			break;
		}
		fputc((int)get_le32(file + at), o);
		for (int i = 0; i < 4; i++)
			fputc((int)(rlen >> (8 * i)) & 0xff, o);
		fwrite(raw, 1, rlen, o);
		at += 16 + zlen;
	}
	if (fclose(o) && !err)
		err = -EIO;
	return err;
}

static int record_script(const char *script, const char *dir)
{
	static const struct record_trailer trailer = { .records = 1, .drops = 2 };
	struct record_writer *w;
	struct record_meta m;
	struct rec_sink s;
	struct canned c;
	char *tok[16], path[4096], blocks[4096], *base, *dot, copy[4096];
	int n, err;

	if (canned_open(&c, script)) {
		fprintf(stderr, "mkcorpus: cannot read '%s'\n", script);
		return -ENOENT;
	}
	snprintf(copy, sizeof(copy), "%s", script);
	base = basename(copy);
	dot = strrchr(base, '.');
	if (dot)
		*dot = '\0';
	snprintf(path, sizeof(path), "%s/%s.bgr", dir, base);
	canned_settings(&c, tok, &n);
	m = (struct record_meta){ .flags = c.flags, .dialect = c.dialect,
				  .nr_cpu_ids = c.nr_cpu_ids, .header = c.header,
				  .release = "6.1.0-fuzz", .hostname = "seed" };
	w = record__create(path, &m, &c.ft, stderr);
	if (!w) {
		canned_free(&c);
		return -errno;
	}
	s = record__sink(w);
	canned_play(&c, tok, n, &s);
	err = record__write_trailer(w, &trailer);
	if (record__close(w) && !err)
		err = -EIO;
	if (!err && !c.unsupported) {
		snprintf(blocks, sizeof(blocks), "%s/%s.blocks", dir, base);
		err = to_blocks(path, blocks);
	}
	if (c.unsupported)
		remove(path);
	canned_free(&c);
	return err;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: mkcorpus DIR SCRIPT...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		if (record_script(argv[i], argv[1]))
			ret = 1;
	return ret;
}
