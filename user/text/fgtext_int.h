/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * function_graph text reader, private: the reader's state and what its
 * parts share. fgtext.c reads the input line by line and holds the object,
 * fgtext_lex.c takes a line apart, fgtext_layout.c learns the layout and
 * renders with it, fgtext_event.c turns lines into events. fgtext_doc.c
 * uses only fgtext.h.
 */
#ifndef BG_FGTEXT_INT_H
#define BG_FGTEXT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fgtext.h"

#define COMM_BUF 64
#define MAX_CPU_WIDTH 9 /* keeps nr_cpu_ids in 32 bits */

/* What fgtext_malformed() returns when lenient: the line is passed on as text. */
#define SKIP_LINE 2

struct fgt_cpu {
	/* enter_funcs[]: function of the last "f() {" printed at each depth */
	uint32_t open[FGTEXT_MAX_DEPTH];
	uint32_t rdepth; /* calls open in joined lines (recovery) */
};

/* display name -> functab index, open addressing; slots hold index + 1 */
struct name_map {
	uint32_t *slot;
	size_t cap, n;
};

/* What the columns of one line said. */
struct cols {
	bool abstime, cpu, proc, lat, dur_field, has_dur;
	uint64_t ts, dur;
	uint32_t cpu_nr, pid;
	int cpu_width;
	char mark;
	const char *comm;
	size_t comm_len;
};

enum body_type { B_ENTER, B_LEAF, B_EXIT, B_COMMENT };

struct body {
	enum body_type type;
	const char *name; /* display name, with " [mod]" */
	size_t name_len;
	/* spans of the line: between the parentheses, after "<-"; NULL if none */
	const char *args, *retaddr;
	size_t args_len, retaddr_len;
	bool has_ret, ret_hex;
	bool ret_other; /* a value after "ret=" that is not a number (ret=false) */
	int ret_form; /* has_ret or ret_other: BG_DIALECT_6_5 ("= x") or _6_13 ("ret=x") */
	uint64_t ret;
};

struct fgtext {
	struct fgtext_opts o;
	struct functab funcs;
	struct name_map names;
	struct fgtext_layout lay;
	struct fgtext_stats st;
	bool lay_set; /* columns fixed by the first event line */
	bool hdr_cols; /* a column header line was seen */
	struct fgt_cpu *cpu[BG_MAX_CPUS];
	/* input */
	char *ibuf;
	size_t ipos, ilen;
	bool eof;
	char *line;
	size_t cap;
	bool toolong; /* the line being read is left out (lenient) */
	uint32_t lineno;
	/* a context-switch banner being assembled: up to 3 lines */
	char *pend;
	size_t pend_len, pend_cap;
	int npend;
	uint32_t pend_line;
	struct fgtext_ev pend_ev;
	/* rendering, to compare with the input (keep_text) */
	FILE *mem;
	char *membuf;
	size_t memsize;
	struct out_text *w;
	struct out_text_opts wo;
	char comm[2][COMM_BUF];
	/* fgtext_ev.args and .retaddr of the event being handed out */
	char *extra;
	size_t extra_cap;
	char err[256];
	uint32_t err_line;
};

/* --- small helpers, inline: the lexer calls them per character ---------- */

static inline bool fgtext_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline const char *fgtext_skip_spaces(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

static inline bool fgtext_starts(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - p) >= n && !memcmp(p, lit, n);
}

/* fgtext.c: messages */
__attribute__((format(printf, 2, 3))) int fgtext_fail(struct fgtext *r, const char *fmt, ...);
__attribute__((format(printf, 2, 3))) int fgtext_malformed(struct fgtext *r, const char *fmt, ...);
__attribute__((format(printf, 3, 4))) void fgtext_skip(struct fgtext *r, bool quote,
							const char *fmt, ...);
const char *fgtext_quote(char *buf, const char *p, const char *end);

/* fgtext_lex.c: small helpers, function names, columns, bodies */
const char *fgtext_parse_u64(const char *p, const char *end, uint64_t *v);
const char *fgtext_find(const char *p, const char *end, const char *lit);
bool fgtext_split_name(const char *p, size_t n, size_t *sym_len, const char **mod, size_t *mod_len);
const char *fgtext_parse_cpu(const char *p, const char *end, struct cols *c);
bool fgtext_split_task(const char *s, const char *e, struct cols *c);
const char *fgtext_parse_usecs(const char *p, const char *end, uint64_t *ns);
bool fgtext_is_mark(char c);
const char *fgtext_parse_cols(const char *p, const char *end, struct cols *c);
bool fgtext_any_col(const struct cols *c);
bool fgtext_parse_body(const char *p, const char *end, struct body *b, bool loose);
bool fgtext_irq_marker(const char *p, const char *end);

/* fgtext_layout.c: layout, rendering */
void fgtext_set_layout(struct fgtext *r, const struct cols *c);
void fgtext_learn_overhead(struct fgtext *r, const struct cols *c);
void fgtext_learn_retval(struct fgtext *r, const struct body *b);
void fgtext_learn_tail(struct fgtext *r, bool named, bool seen, bool ret_shown);
void fgtext_header_line(struct fgtext *r, const char *p, const char *end);
int fgtext_renders_same(struct fgtext *r, const struct fgtext_ev *e, bool *same);

/* fgtext_event.c: whole lines */
int fgtext_process_line(struct fgtext *r, char *p, size_t n);
int fgtext_pend_flush(struct fgtext *r);

#endif
