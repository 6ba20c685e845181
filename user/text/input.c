// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The input of report and diff: a file or standard input, a record file,
 * a trace-cmd data file or text (see input.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "input.h"
#include "record.h"
#include "tcdat.h"

/* Copies the rest of f, after the n bytes already read, to a temporary file. */
static FILE *spool(FILE *f, const char *head, size_t n)
{
	FILE *t = tmpfile();
	char buf[65536];
	size_t k;

	if (!t)
		return NULL;
	if (n && fwrite(head, 1, n, t) != n)
		goto fail;
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, k, t) != k)
			goto fail;
	if (ferror(f) || fflush(t) || fseek(t, 0, SEEK_SET))
		goto fail;
	return t;
fail:
	fclose(t);
	return NULL;
}

int input__open(struct input *in, const char *path, const char *prefix)
{
	char head[16]; /* the longer of the two magics */
	bool std = !strcmp(path, "-");
	size_t n;
	FILE *t;
	int err;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->name = std ? "<stdin>" : path;
	in->f = std ? stdin : fopen(path, "rbe");
	if (!in->f) {
		err = -errno;
		fprintf(stderr, "%s: cannot open '%s': %s\n", prefix, path, strerror(errno));
		return err;
	}
	n = fread(head, 1, sizeof(head), in->f);
	in->record = n >= sizeof(RECORD_MAGIC) - 1 &&
		     !memcmp(head, RECORD_MAGIC, sizeof(RECORD_MAGIC) - 1);
	in->tcdat = tcdat__is(head, n);
	if (!ferror(in->f) && !fseek(in->f, 0, SEEK_SET))
		return 0;
	/* a pipe: what fread() took is in head, the rest still in f */
	t = ferror(in->f) ? NULL : spool(in->f, head, n);
	if (!t) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", prefix, in->name,
			strerror(errno ?: EIO));
		return -EIO;
	}
	input__close(in);
	in->f = t;
	in->spooled = true;
	return 0;
}

const char *input__record_path(struct input *in)
{
	if (!in->spooled && in->f != stdin)
		return in->path;
	snprintf(in->fdpath, sizeof(in->fdpath), "/proc/self/fd/%d", fileno(in->f));
	return in->fdpath;
}

void input__close(struct input *in)
{
	if (in->f && in->f != stdin)
		fclose(in->f);
	in->f = NULL;
}
