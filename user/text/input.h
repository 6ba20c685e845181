/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The input of "bpfgraph report -i FILE" and of each side of "bpfgraph
 * diff A B": a file, or "-" for standard input, which is either a record
 * file, a trace-cmd data file or function_graph text. What it is, is told by its first bytes (the
 * record file magic), never by its name. Input that cannot seek (a pipe)
 * is copied to a temporary file first: text is read twice by report, and
 * the record reader opens its file by name.
 */
#ifndef BG_INPUT_H
#define BG_INPUT_H

#include <stdbool.h>
#include <stdio.h>

struct input {
	FILE *f; /* at offset 0 after input__open() */
	const char *path; /* as given: a file name or "-" */
	const char *name; /* for messages: path, or "<stdin>" for "-" */
	bool record; /* starts with RECORD_MAGIC */
	bool tcdat; /* starts with trace-cmd's magic (tcdat.h) */
	bool spooled; /* f is a copy in a temporary file */
	char fdpath[32]; /* input__record_path()'s name for f */
};

/*
 * Opens path ("-": standard input) and tells a record file from text.
 * 0 or -errno, with one message on stderr starting with prefix
 * ("bpfgraph", "bpfgraph diff").
 */
int input__open(struct input *in, const char *path, const char *prefix);
/* A name record__open() can open: path, or /proc/self/fd/N of f. */
const char *input__record_path(struct input *in);
/* Closes f (standard input stays open). */
void input__close(struct input *in);

#endif
