// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pngstat FILE [RRGGBB]: what a screenshot shows, for tests/browser/svg.sh.
 * Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes)
 * with zlib and prints one line:
 *
 *   WIDTH HEIGHT COLORS BACKGROUND OTHER_PERMILLE MATCHES
 *
 * COLORS distinct colours, BACKGROUND the commonest as RRGGBB,
 * OTHER_PERMILLE the pixels of any other colour in 1/1000, MATCHES the
 * pixels of colour RRGGBB (0 without it). Exit 1 with a message on
 * anything it cannot read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_DIM 16384

struct png {
	uint32_t w, h;
	unsigned int bpp; /* bytes per pixel: 3 or 4 */
	uint8_t *z; /* IDAT data */
	size_t zlen;
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int die(const char *path, const char *what)
{
	fprintf(stderr, "pngstat: %s: %s\n", path, what);
	return 1;
}

static int read_chunks(FILE *f, const char *path, struct png *p)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	uint8_t h[8], ihdr[13];

	if (fread(h, 1, 8, f) != 8 || memcmp(h, sig, 8))
		return die(path, "not a PNG file");
	while (fread(h, 1, 8, f) == 8) {
		uint32_t len = be32(h);
		uint8_t *nz;

		if (len > (1U << 30))
			return die(path, "chunk too long");
		if (!memcmp(h + 4, "IHDR", 4)) {
			if (len != 13 || fread(ihdr, 1, 13, f) != 13)
				return die(path, "bad IHDR");
			p->w = be32(ihdr);
			p->h = be32(ihdr + 4);
			if (ihdr[8] != 8 || (ihdr[9] != 2 && ihdr[9] != 6) || ihdr[12])
				return die(path, "only 8-bit RGB(A), non-interlaced");
			p->bpp = ihdr[9] == 6 ? 4 : 3;
		} else if (!memcmp(h + 4, "IDAT", 4)) {
			nz = realloc(p->z, p->zlen + len);
			if (!nz || fread(nz + p->zlen, 1, len, f) != len)
				return die(path, "short IDAT");
			p->z = nz;
			p->zlen += len;
		} else if (!memcmp(h + 4, "IEND", 4)) {
			return 0;
		} else if (fseek(f, len, SEEK_CUR)) {
			return die(path, "short chunk");
		}
		if (fseek(f, 4, SEEK_CUR)) /* CRC */
			return die(path, "short chunk");
	}
	return die(path, "no IEND");
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the per-row filters in place; rows stay 1 + stride bytes apart. */
static int unfilter(uint8_t *raw, const struct png *p)
{
	size_t stride = (size_t)p->w * p->bpp;

	for (uint32_t y = 0; y < p->h; y++) {
		uint8_t *row = raw + y * (stride + 1), *cur = row + 1;
		const uint8_t *up = y ? row - stride : NULL;

		for (size_t i = 0; i < stride; i++) {
			int a = i >= p->bpp ? cur[i - p->bpp] : 0, b = up ? up[i] : 0;
			int c = up && i >= p->bpp ? up[i - p->bpp] : 0;

			switch (row[0]) {
			case 0: break;
			case 1: cur[i] += a; break;
			case 2: cur[i] += b; break;
			case 3: cur[i] += (a + b) / 2; break;
			case 4: cur[i] += paeth(a, b, c); break;
			default: return -1;
			}
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void stats(const uint8_t *raw, const struct png *p, long want)
{
	size_t n = (size_t)p->w * p->h, stride = (size_t)p->w * p->bpp, colors = 0;
	size_t best = 0, run, matches = 0;
	uint32_t *px = malloc(n * sizeof(*px)), bg = 0;

	if (!px)
		exit(1);
	for (uint32_t y = 0; y < p->h; y++)
		for (uint32_t x = 0; x < p->w; x++) {
			const uint8_t *q = raw + y * (stride + 1) + 1 + (size_t)x * p->bpp;

			px[(size_t)y * p->w + x] = (uint32_t)q[0] << 16 | q[1] << 8 | q[2];
		}
	for (size_t i = 0; i < n; i++)
		matches += want >= 0 && px[i] == (uint32_t)want;
	qsort(px, n, sizeof(*px), cmp_u32);
	for (size_t i = 0; i < n; i += run) {
		for (run = 1; i + run < n && px[i + run] == px[i]; run++)
			;
		colors++;
		if (run > best) {
			best = run;
			bg = px[i];
		}
	}
	printf("%u %u %zu %06x %zu %zu\n", p->w, p->h, colors, bg,
	       n ? (n - best) * 1000 / n : 0, matches);
	free(px);
}

int main(int argc, char **argv)
{
	struct png p = { 0 };
	uLongf rawlen;
	uint8_t *raw;
	FILE *f;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: pngstat FILE [RRGGBB]\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f)
		return die(argv[1], "cannot open");
	if (read_chunks(f, argv[1], &p))
		return 1;
	fclose(f);
	if (!p.w || !p.h || p.w > MAX_DIM || p.h > MAX_DIM || !p.zlen)
		return die(argv[1], "no image");
	rawlen = (uLongf)p.h * ((uLongf)p.w * p.bpp + 1);
	raw = malloc(rawlen);
	if (!raw || uncompress(raw, &rawlen, p.z, p.zlen) != Z_OK ||
	    rawlen != (uLongf)p.h * ((uLongf)p.w * p.bpp + 1))
		return die(argv[1], "bad image data");
	if (unfilter(raw, &p))
		return die(argv[1], "bad filter");
	stats(raw, &p, argc == 3 ? strtol(argv[2], NULL, 16) : -1);
	free(raw);
	free(p.z);
	return 0;
}
