// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trace-cmd data file writer. Each graph event becomes what the kernel's
 * function_graph tracer puts in its ring buffer for it: an ENTER one
 * funcgraph_entry, a LEAF an entry and an exit back to back, an EXIT one
 * funcgraph_exit; lost events set the next page's missed flag with their
 * count, as the kernel does for a reader. Banners are not events: a
 * reader makes them from the pids, as the kernel's printer does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfgraph.h"
#include "out_tracecmd.h"
#include "tcdat_layout.h"

struct tc_cpu {
	FILE *pages; /* finished pages, NULL until the first */
	uint64_t npages;
	uint8_t page[TCDAT_PAGE_SIZE];
	uint32_t used; /* data bytes of page */
	uint64_t last_ts; /* of the last event on page */
	bool missed; /* events were lost before page's first */
	uint64_t missed_count; /* 0: unknown */
	/*
	 * Text without a pid column names tasks in banners only: events of
	 * pid 0 are the task of the last banner; those before the first
	 * wait in held until it names them (prev_pid).
	 */
	bool banner;
	uint32_t banner_pid;
	struct gev *held;
	size_t nheld, held_cap;
};

struct tc_comm {
	uint32_t pid;
	char comm[BG_COMM_LEN + 1];
};

struct out_tracecmd {
	struct out_tracecmd_opts o;
	struct tc_cpu **cpu; /* by number, NULL until seen */
	uint32_t ncpu;
	struct tc_comm *comms; /* sorted by pid */
	size_t ncomms, comm_cap;
	int err;
};

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define COMMON_FIELDS                                                                     \
	"format:\n"                                                                       \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"            \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"            \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"    \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                        \
	"\n"

static const char fmt_entry[] =
	"name: funcgraph_entry\n"
	"ID: 11\n" COMMON_FIELDS
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"--> %ps (%d)\", (void *)REC->func, REC->depth\n";

static const char fmt_exit[] =
	"name: funcgraph_exit\n"
	"ID: 10\n" COMMON_FIELDS
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d retval: %lx\", "
	"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth, REC->retval\n";

static void le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t out_tracecmd__addr(const struct functab *funcs, uint32_t idx)
{
	if (funcs && idx < funcs->n && funcs->f[idx].addr)
		return funcs->f[idx].addr;
	return TCDAT_SYNTH_BASE + (uint64_t)idx * TCDAT_SYNTH_STEP;
}

struct out_tracecmd *out_tracecmd__new(const struct out_tracecmd_opts *opts)
{
	struct out_tracecmd *w;

	if (!opts || !opts->out) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->o = *opts;
	return w;
}

void out_tracecmd__free(struct out_tracecmd *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->ncpu; i++) {
		if (w->cpu[i] && w->cpu[i]->pages)
			fclose(w->cpu[i]->pages);
		if (w->cpu[i])
			free(w->cpu[i]->held);
		free(w->cpu[i]);
	}
	free(w->cpu);
	free(w->comms);
	free(w);
}

static struct tc_cpu *get_cpu(struct out_tracecmd *w, uint32_t cpu)
{
	if (cpu >= BG_MAX_CPUS)
		return NULL;
	if (cpu >= w->ncpu) {
		struct tc_cpu **v = realloc(w->cpu, (cpu + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + w->ncpu, 0, (cpu + 1 - w->ncpu) * sizeof(*v));
		w->cpu = v;
		w->ncpu = cpu + 1;
	}
	if (!w->cpu[cpu])
		w->cpu[cpu] = calloc(1, sizeof(**w->cpu));
	return w->cpu[cpu];
}

/* The page as the kernel hands it to a reader: commit with flags, missed count after the data. */
static int flush_page(struct out_tracecmd *w, struct tc_cpu *c)
{
	uint64_t commit = c->used;

	if (!c->used && !c->missed)
		return 0;
	if (c->missed) {
		commit |= TCDAT_MISSED_EVENTS;
		if (c->missed_count) {
			le64(c->page + TCDAT_PAGE_HDR + c->used, c->missed_count);
			commit |= TCDAT_MISSED_STORED;
		}
	}
	if (!c->used)
		le64(c->page, c->last_ts);
	le64(c->page + 8, commit);
	if (!c->pages)
		c->pages = tmpfile();
	if (!c->pages || fwrite(c->page, 1, sizeof(c->page), c->pages) != sizeof(c->page)) {
		w->err = -EIO;
		return -EIO;
	}
	c->npages++;
	memset(c->page, 0, sizeof(c->page));
	c->used = 0;
	c->missed = false;
	c->missed_count = 0;
	return 0;
}

/* Bytes the event needs on c's page: header, time extension, data. */
static uint32_t event_room(const struct tc_cpu *c, uint64_t ts, uint32_t len)
{
	uint32_t need = 4 + len;

	if (c->used && (ts < c->last_ts || ts - c->last_ts >= (1ULL << TCDAT_TS_BITS)))
		need += 8;
	return need;
}

/* One event of len bytes (a multiple of 4, at most 112) at ts on cpu. */
static void put_event(struct out_tracecmd *w, uint32_t cpu, uint64_t ts, const uint8_t *data,
		      uint32_t len)
{
	struct tc_cpu *c = get_cpu(w, cpu);
	uint32_t room, delta = 0;
	uint8_t *p;

	if (!c) {
		w->err = w->err ?: -ENOMEM;
		return;
	}
	room = TCDAT_PAGE_DATA - (c->missed ? 8 : 0);
	if (c->used + event_room(c, ts, len) > room && flush_page(w, c))
		return;
	p = c->page + TCDAT_PAGE_HDR + c->used;
	if (!c->used) {
		le64(c->page, ts); /* the page's time stamp: its first event's */
	} else if (ts < c->last_ts) {
		/* back in time (made-up clocks of text): an absolute time stamp */
		le32(p, TCDAT_TYPE_TIME_STAMP | (uint32_t)(ts & ((1U << TCDAT_TS_BITS) - 1)) << 5);
		le32(p + 4, (uint32_t)(ts >> TCDAT_TS_BITS));
		p += 8;
	} else if (ts - c->last_ts >= (1ULL << TCDAT_TS_BITS)) {
		uint64_t d = ts - c->last_ts;

		le32(p, TCDAT_TYPE_TIME_EXTEND | (uint32_t)(d & ((1U << TCDAT_TS_BITS) - 1)) << 5);
		le32(p + 4, (uint32_t)(d >> TCDAT_TS_BITS));
		p += 8;
	} else {
		delta = (uint32_t)(ts - c->last_ts);
	}
	le32(p, len / 4 | delta << 5);
	memcpy(p + 4, data, len);
	p += 4 + len;
	c->used = (uint32_t)(p - (c->page + TCDAT_PAGE_HDR));
	c->last_ts = ts;
}

static void common(uint8_t *d, uint16_t id, uint32_t pid)
{
	le16(d, id);
	d[2] = 0; /* common_flags */
	d[3] = 0; /* common_preempt_count */
	le32(d + 4, pid);
}

static void put_entry(struct out_tracecmd *w, const struct gev *ev)
{
	uint8_t d[TCDAT_ENTRY_SIZE];

	common(d, TCDAT_ID_GRAPH_ENT, ev->pid);
	le64(d + 8, out_tracecmd__addr(w->o.funcs, ev->func));
	le32(d + 16, ev->depth);
	put_event(w, ev->cpu, ev->ts, d, sizeof(d));
}

/* calltime and rettime carry the duration exactly, whatever the clock did. */
static void put_exit(struct out_tracecmd *w, const struct gev *ev, uint64_t ret_ts)
{
	uint8_t d[TCDAT_EXIT_SIZE];

	common(d, TCDAT_ID_GRAPH_RET, ev->pid);
	le64(d + 8, out_tracecmd__addr(w->o.funcs, ev->func));
	le64(d + 16, ev->noret ? 0 : ev->ret);
	le32(d + 24, ev->depth);
	le32(d + 28, ev->noret ? 1 : 0);
	le64(d + 32, ret_ts - ev->dur);
	le64(d + 40, ret_ts);
	put_event(w, ev->cpu, ret_ts, d, sizeof(d));
}

static void note_comm(struct out_tracecmd *w, uint32_t pid, const char *comm)
{
	size_t lo = 0, hi = w->ncomms;

	if (!pid || !comm || !*comm || !strcmp(comm, "<...>"))
		return;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->comms[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == w->ncomms || w->comms[lo].pid != pid) {
		if (w->ncomms == w->comm_cap) {
			size_t cap = w->comm_cap ? w->comm_cap * 2 : 64;
			struct tc_comm *v = realloc(w->comms, cap * sizeof(*v));

			if (!v) {
				w->err = w->err ?: -ENOMEM;
				return;
			}
			w->comms = v;
			w->comm_cap = cap;
		}
		memmove(w->comms + lo + 1, w->comms + lo, (w->ncomms - lo) * sizeof(*w->comms));
		w->ncomms++;
		w->comms[lo].pid = pid;
	}
	snprintf(w->comms[lo].comm, sizeof(w->comms[lo].comm), "%s", comm);
}

static void note_lost(struct out_tracecmd *w, const struct gev *ev)
{
	struct tc_cpu *c = get_cpu(w, ev->cpu);

	if (!c) {
		w->err = w->err ?: -ENOMEM;
		return;
	}
	/* the loss belongs before the next event: the next page says so */
	if (c->used && flush_page(w, c))
		return;
	c->missed = true;
	c->missed_count += ev->count;
}

static void put_gev(struct out_tracecmd *w, const struct gev *ev)
{
	switch (ev->type) {
	case GEV_ENTER:
		note_comm(w, ev->pid, ev->comm);
		put_entry(w, ev);
		break;
	case GEV_LEAF:
		note_comm(w, ev->pid, ev->comm);
		put_entry(w, ev);
		put_exit(w, ev, ev->ts + ev->dur);
		break;
	case GEV_EXIT:
		note_comm(w, ev->pid, ev->comm);
		put_exit(w, ev, ev->ts);
		break;
	case GEV_LOST:
		note_lost(w, ev);
		break;
	case GEV_BANNER:
		break;
	}
}

/* Held events, with the pid the first banner gave them. */
static void release_held(struct out_tracecmd *w, struct tc_cpu *c, uint32_t pid)
{
	for (size_t i = 0; i < c->nheld; i++) {
		if (c->held[i].type != GEV_LOST)
			c->held[i].pid = pid;
		put_gev(w, &c->held[i]);
	}
	free(c->held);
	c->held = NULL;
	c->nheld = c->held_cap = 0;
}

/* Holds a pid-0 event before the CPU's first banner; false if it cannot wait. */
static bool hold(struct tc_cpu *c, const struct gev *ev)
{
	if (c->nheld == c->held_cap) {
		size_t cap = c->held_cap ? c->held_cap * 2 : 64;
		struct gev *v = cap <= (1U << 16) ? realloc(c->held, cap * sizeof(*v)) : NULL;

		if (!v)
			return false;
		c->held = v;
		c->held_cap = cap;
	}
	c->held[c->nheld] = *ev;
	/* pointers valid during emit only: what is kept of them is the comm table */
	c->held[c->nheld].comm = c->held[c->nheld].prev_comm = NULL;
	c->held[c->nheld].args_text = c->held[c->nheld].retaddr_text = NULL;
	c->nheld++;
	return true;
}

void out_tracecmd__emit(void *ctx, const struct gev *ev)
{
	struct out_tracecmd *w = ctx;
	struct tc_cpu *c = get_cpu(w, ev->cpu);
	struct gev e = *ev;

	if (!c) {
		w->err = w->err ?: -ENOMEM;
		return;
	}
	if (ev->type == GEV_BANNER) {
		note_comm(w, ev->prev_pid, ev->prev_comm);
		note_comm(w, ev->pid, ev->comm);
		if (!c->banner)
			release_held(w, c, ev->prev_pid);
		c->banner = true;
		c->banner_pid = ev->pid;
		return;
	}
	if (!e.pid && c->banner)
		e.pid = c->banner_pid;
	if (!e.pid && !c->banner && (c->nheld || ev->type != GEV_LOST) && hold(c, &e))
		return;
	if (c->nheld)
		release_held(w, c, 0); /* too many to wait: pid 0 they stay */
	put_gev(w, &e);
}

/* --- the file ------------------------------------------------------------ */

static void put_u16(FILE *f, uint16_t v)
{
	uint8_t b[2];

	le16(b, v);
	fwrite(b, 1, sizeof(b), f);
}

static void put_u32(FILE *f, uint32_t v)
{
	uint8_t b[4];

	le32(b, v);
	fwrite(b, 1, sizeof(b), f);
}

static void put_u64(FILE *f, uint64_t v)
{
	uint8_t b[8];

	le64(b, v);
	fwrite(b, 1, sizeof(b), f);
}

/* A string with its size before it, in size_bytes (4 or 8). */
static void put_sized(FILE *f, const char *s, size_t len, int size_bytes)
{
	if (size_bytes == 4)
		put_u32(f, (uint32_t)len);
	else
		put_u64(f, len);
	fwrite(s, 1, len, f);
}

/* A whole section made by fn into a memory stream, then put sized. */
static int put_made(FILE *f, int size_bytes, void (*fn)(struct out_tracecmd *, FILE *),
		    struct out_tracecmd *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return -ENOMEM;
	fn(w, m);
	if (fclose(m)) {
		free(buf);
		return -ENOMEM;
	}
	put_sized(f, buf, len, size_bytes);
	free(buf);
	return 0;
}

static void make_kallsyms(struct out_tracecmd *w, FILE *m)
{
	const struct functab *t = w->o.funcs;

	for (uint32_t i = 0; t && i < t->n; i++) {
		fprintf(m, "%016" PRIx64 " t %s", out_tracecmd__addr(t, i), t->f[i].name);
		if (t->f[i].module)
			fprintf(m, "\t[%s]", t->f[i].module);
		fputc('\n', m);
	}
}

static void make_cmdlines(struct out_tracecmd *w, FILE *m)
{
	for (size_t i = 0; i < w->ncomms; i++)
		fprintf(m, "%u %s\n", w->comms[i].pid, w->comms[i].comm);
}

/* bpfgraph's own option (tcdat_layout.h): what the text needs beyond the events. */
static void make_meta(struct out_tracecmd *w, FILE *m)
{
	const struct functab *t = w->o.funcs;

	fprintf(m, "bpfgraph %d\nflags 0x%x\ndialect %u\ncpus %u\nheader %d\n",
		TCDAT_BPFGRAPH_VERSION, w->o.flags, w->o.dialect, w->o.nr_cpu_ids,
		w->o.header ? 1 : 0);
	for (uint32_t i = 0; t && i < t->n; i++) {
		const struct bg_func *f = &t->f[i];

		if (f->ret_kind == BG_RET_UNKNOWN && !f->ret_type)
			continue;
		fprintf(m, "ret %" PRIx64 " %u %u", out_tracecmd__addr(t, i), f->ret_kind,
			f->ret_size);
		if (f->ret_type)
			fprintf(m, " %s", f->ret_type);
		fputc('\n', m);
	}
	fputc('\0', m);
}

static int put_option(FILE *f, uint16_t id, void (*fn)(struct out_tracecmd *, FILE *),
		      struct out_tracecmd *w)
{
	put_u16(f, id);
	return put_made(f, 4, fn, w);
}

static uint32_t file_cpus(const struct out_tracecmd *w)
{
	uint32_t n = w->o.nr_cpu_ids > w->ncpu ? w->o.nr_cpu_ids : w->ncpu;

	return n ? n : 1;
}

/* Everything before the per-CPU table: through "flyrecord". */
static int put_header(struct out_tracecmd *w, FILE *f, uint32_t ncpu)
{
	fwrite(TCDAT_MAGIC "6", 1, TCDAT_MAGIC_LEN + 2, f); /* with the version's NUL */
	fputc(0, f); /* little-endian */
	fputc(8, f); /* long size */
	put_u32(f, TCDAT_PAGE_SIZE);
	fwrite("header_page", 1, 12, f);
	put_sized(f, header_page, sizeof(header_page) - 1, 8);
	fwrite("header_event", 1, 13, f);
	put_sized(f, header_event, sizeof(header_event) - 1, 8);
	put_u32(f, 2); /* ftrace event formats */
	put_sized(f, fmt_entry, sizeof(fmt_entry) - 1, 8);
	put_sized(f, fmt_exit, sizeof(fmt_exit) - 1, 8);
	put_u32(f, 0); /* event systems */
	if (put_made(f, 4, make_kallsyms, w))
		return -ENOMEM;
	put_u32(f, 0); /* printk formats */
	if (put_made(f, 8, make_cmdlines, w))
		return -ENOMEM;
	put_u32(f, ncpu);
	fwrite("options  ", 1, 10, f);
	put_u16(f, TCDAT_OPT_CPUCOUNT);
	put_u32(f, 4);
	put_u32(f, ncpu);
	if (put_option(f, TCDAT_OPT_BPFGRAPH, make_meta, w))
		return -ENOMEM;
	put_u16(f, TCDAT_OPT_DONE);
	fwrite("flyrecord", 1, 10, f);
	return 0;
}

static int copy_pages(struct tc_cpu *c, FILE *out)
{
	char buf[65536];
	size_t n;

	if (!c || !c->pages)
		return 0;
	if (fflush(c->pages) || fseek(c->pages, 0, SEEK_SET))
		return -EIO;
	while ((n = fread(buf, 1, sizeof(buf), c->pages)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			return -EIO;
	return ferror(c->pages) ? -EIO : 0;
}

/* The per-CPU table: the data starts page-aligned after it. */
static void put_table(struct out_tracecmd *w, size_t hlen, uint32_t ncpu)
{
	uint64_t off = (hlen + 16ULL * ncpu + TCDAT_PAGE_SIZE - 1) &
		       ~(uint64_t)(TCDAT_PAGE_SIZE - 1);

	for (uint32_t i = 0; i < ncpu; i++) {
		struct tc_cpu *c = i < w->ncpu ? w->cpu[i] : NULL;
		uint64_t size = c ? c->npages * TCDAT_PAGE_SIZE : 0;

		put_u64(w->o.out, off);
		put_u64(w->o.out, size);
		off += size;
	}
	for (size_t pad = (size_t)(-(hlen + 16ULL * ncpu) & (TCDAT_PAGE_SIZE - 1)); pad; pad--)
		fputc(0, w->o.out);
}

int out_tracecmd__end(struct out_tracecmd *w)
{
	uint32_t ncpu;
	char *hdr = NULL;
	size_t hlen = 0;
	FILE *m;
	int err;

	for (uint32_t i = 0; i < w->ncpu; i++) {
		if (!w->cpu[i])
			continue;
		release_held(w, w->cpu[i], 0);
		flush_page(w, w->cpu[i]);
	}
	if (w->err)
		return w->err;
	ncpu = file_cpus(w);
	m = open_memstream(&hdr, &hlen);
	if (!m)
		return -ENOMEM;
	err = put_header(w, m, ncpu);
	if (fclose(m) || err) {
		free(hdr);
		return -ENOMEM;
	}
	fwrite(hdr, 1, hlen, w->o.out);
	free(hdr);
	put_table(w, hlen, ncpu);
	for (uint32_t i = 0; i < w->ncpu; i++)
		if (copy_pages(w->cpu[i], w->o.out))
			return -EIO;
	return ferror(w->o.out) ? -EIO : 0;
}
