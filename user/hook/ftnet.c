// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ftrace net (ftnet.h): tracefs's top instance set up for
 * function_graph over the entry functions and the command, read per CPU
 * from trace_pipe_raw, put back as it was found.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfgraph.h"
#include "ftnet.h"
#include "guard.h"
#include "ftpage.h"
#include "tracefs.h"

#define FT_TEXT_MAX 65536

/* A setting to put back: its file, what it held, whether it was changed. */
struct ft_saved {
	const char *file;
	char was[64];
	bool changed;
};

enum { SV_TRACING_ON, SV_CLOCK, SV_FORK, SV_IRQS, SV_DEPTH, SV_OVERWRITE, SV_N };

struct ftnet {
	char root[256];
	struct ft_saved sv[SV_N];
	bool graph_set, pid_set, notrace_set, tracer_on;
	struct guard guard; /* puts tracefs back should bpfgraph die (setup) */
	int *fd; /* per_cpu/cpuN/trace_pipe_raw, -1: none */
	uint32_t *cpu;
	uint32_t ncpu;
	uint8_t *page;
	struct ftp_layout lay;
	uint64_t lost;
};

static const char *const saved_files[SV_N] = {
	"tracing_on", "trace_clock", "options/function-fork", "options/funcgraph-irqs",
	"max_graph_depth", "options/overwrite",
};

static void path_of(const struct ftnet *n, const char *file, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s", n->root, file);
}

/* The file's text (NUL-terminated, at most cap - 1 bytes): its length, or -errno. */
static long read_text(const struct ftnet *n, const char *file, char *buf, size_t cap)
{
	char path[640];
	size_t got = 0;
	int fd;

	path_of(n, file, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got + 1 < cap) {
		ssize_t k = read(fd, buf + got, cap - 1 - got);

		if (k < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (!k)
			break;
		got += (size_t)k;
	}
	close(fd);
	buf[got] = '\0';
	return (long)got;
}

/*
 * text into the file, truncated first: set_graph_function and
 * set_ftrace_pid are replaced, not added to; "trace" is cleared; the
 * other files take a value either way.
 */
static int write_text(const struct ftnet *n, const char *file, const char *text)
{
	char path[640];
	size_t len = strlen(text);
	int fd, err = 0;

	path_of(n, file, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC);
	if (fd < 0)
		return -errno;
	if (len && write(fd, text, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* A listing file holds nothing but comments (set_ftrace_filter's "####...", or empty). */
static bool listing_empty(const struct ftnet *n, const char *file)
{
	char buf[4096];
	long len = read_text(n, file, buf, sizeof(buf));

	if (len < 0)
		return len == -ENOENT; /* a kernel without it: nothing set there */
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (*p != '#' && *p != '\n')
			return false;
	return true;
}

static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
		if ((p == text || p[-1] == ' ' || p[-1] == '[') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == ']'))
			return true;
	return false;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* trace_clock's current clock: the one in brackets. */
static void current_clock(const char *text, char *out, size_t cap)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b && (size_t)(b - a - 1) < cap)
		snprintf(out, cap, "%.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(out, cap, "local");
}

static int why_fail(char *why, size_t cap, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int why_fail(char *why, size_t cap, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return err;
}

/* The top instance is free: no tracer, no event, no filter, no pid of anyone. */
static int check_free(struct ftnet *n, char *why, size_t cap)
{
	char buf[4096];
	long len;

	len = read_text(n, "available_tracers", buf, sizeof(buf));
	if (len < 0)
		return why_fail(why, cap, (int)len, "cannot read %s/available_tracers: %s",
				n->root, strerror((int)-len));
	if (!has_word(buf, "function_graph"))
		return why_fail(why, cap, -EOPNOTSUPP, "the kernel has no function_graph tracer");
	len = read_text(n, "current_tracer", buf, sizeof(buf));
	trim(buf);
	if (len < 0 || strcmp(buf, "nop"))
		return why_fail(why, cap, -EBUSY, "tracefs's top instance runs the %s tracer",
				len < 0 ? "(unreadable)" : buf);
	if (!listing_empty(n, "set_event"))
		return why_fail(why, cap, -EBUSY, "events are enabled in tracefs's top instance");
	len = read_text(n, "set_ftrace_pid", buf, sizeof(buf));
	trim(buf);
	if (len < 0 || (strcmp(buf, "no pid") && buf[0]))
		return why_fail(why, cap, -EBUSY, "set_ftrace_pid is set in tracefs's top instance");
	/* 5.8 and later; left alone where it is missing. */
	len = read_text(n, "set_ftrace_notrace_pid", buf, sizeof(buf));
	trim(buf);
	if (len >= 0 && strcmp(buf, "no pid") && buf[0])
		return why_fail(why, cap, -EBUSY, "set_ftrace_notrace_pid is set in tracefs's top "
				"instance");
	if (!listing_empty(n, "set_ftrace_filter") || !listing_empty(n, "set_ftrace_notrace") ||
	    !listing_empty(n, "set_graph_function") || !listing_empty(n, "set_graph_notrace"))
		return why_fail(why, cap, -EBUSY, "function filters are set in tracefs's top "
				"instance");
	len = read_text(n, "trace_clock", buf, sizeof(buf));
	if (len < 0 || !has_word(buf, "mono"))
		return why_fail(why, cap, -EOPNOTSUPP, "trace_clock has no mono clock");
	return 0;
}

static int save(struct ftnet *n, int k)
{
	char buf[4096];
	long len = read_text(n, saved_files[k], buf, sizeof(buf));

	n->sv[k].file = saved_files[k];
	if (len < 0)
		return (int)len;
	if (k == SV_CLOCK) {
		current_clock(buf, n->sv[k].was, sizeof(n->sv[k].was));
	} else {
		trim(buf);
		snprintf(n->sv[k].was, sizeof(n->sv[k].was), "%.*s",
			 (int)sizeof(n->sv[k].was) - 1, buf);
	}
	return 0;
}

static int set(struct ftnet *n, int k, const char *value)
{
	int err = write_text(n, saved_files[k], value);

	if (!err)
		n->sv[k].changed = true;
	return err;
}

/* Where each field of the pages and of function_graph's events is. */
static int read_layout(struct ftnet *n, char *why, size_t cap)
{
	static const char *const formats[] = {
		"events/ftrace/funcgraph_entry/format", "events/ftrace/funcgraph_exit/format",
		"events/ftrace/fgraph_retaddr_entry/format",
	};
	char *buf = malloc(FT_TEXT_MAX);
	const char *name = NULL;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	ftp_layout_init(&n->lay);
	n->lay.page_size = (uint32_t)getpagesize();
	n->lay.long_size = sizeof(long);
	if (read_text(n, "events/header_page", buf, FT_TEXT_MAX) < 0 ||
	    ftp_parse_header_page(&n->lay, buf))
		err = why_fail(why, cap, -EINVAL, "cannot read where a page's data is "
			       "(events/header_page)");
	for (size_t i = 0; !err && i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (read_text(n, formats[i], buf, FT_TEXT_MAX) < 0)
			continue; /* fgraph_retaddr_entry: 6.13 and later */
		if (ftp_parse_format(&n->lay, buf, &name))
			err = why_fail(why, cap, -EINVAL, "the %s format lacks fields", name);
	}
	if (!err && (n->lay.ev[0].id < 0 || n->lay.ev[2].id < 0))
		err = why_fail(why, cap, -EINVAL, "no funcgraph_entry or funcgraph_exit format");
	free(buf);
	return err;
}

/* Every CPU's trace_pipe_raw, non-blocking. */
static int open_pipes(struct ftnet *n, char *why, size_t cap)
{
	char path[640];
	struct dirent *e;
	DIR *d;

	path_of(n, "per_cpu", path, sizeof(path));
	d = opendir(path);
	if (!d)
		return why_fail(why, cap, -errno, "cannot list %s: %s", path, strerror(errno));
	while ((e = readdir(d))) {
		unsigned int c;
		char file[320];
		int fd;
		void *p, *q;

		if (sscanf(e->d_name, "cpu%u", &c) != 1)
			continue;
		snprintf(file, sizeof(file), "per_cpu/%s/trace_pipe_raw", e->d_name);
		path_of(n, file, path, sizeof(path));
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue; /* an offline CPU's */
		p = realloc(n->fd, (n->ncpu + 1) * sizeof(*n->fd));
		q = p ? realloc(n->cpu, (n->ncpu + 1) * sizeof(*n->cpu)) : NULL;
		if (p)
			n->fd = p;
		if (!q) {
			close(fd);
			closedir(d);
			return -ENOMEM;
		}
		n->cpu = q;
		n->fd[n->ncpu] = fd;
		n->cpu[n->ncpu++] = c;
	}
	closedir(d);
	return n->ncpu ? 0 : why_fail(why, cap, -ENOENT, "no CPU's trace_pipe_raw opens");
}

/* The entry functions' names, space-separated, for set_graph_function. */
static char *graph_list(const struct ftnet_opts *o)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < o->ngraph; i++)
		len += strlen(o->graph[i]) + 1;
	s = calloc(1, len);
	for (size_t i = 0; s && i < o->ngraph; i++) {
		strcat(s, o->graph[i]);
		strcat(s, " ");
	}
	return s;
}

/* The process whose id is in /proc/ID/status's Tgid line (0: none, or gone). */
uint32_t ftnet__tgid(uint32_t id)
{
	char path[64], line[128];
	uint32_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", id);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	return tgid;
}

/*
 * The thread ids for set_ftrace_pid (which matches a task's own id) that
 * cover ids as the BPF side's filter does: a process's every thread
 * (those it has now), a thread alone. Space-separated; NULL: no memory.
 */
static char *tid_list(const uint32_t *ids, size_t n)
{
	size_t len = 0, cap = 256;
	char *s = malloc(cap);

	for (size_t i = 0; s && i < n; i++) {
		char path[64];
		struct dirent *e;
		DIR *d = NULL;

		snprintf(path, sizeof(path), "/proc/%u/task", ids[i]);
		if (ftnet__tgid(ids[i]) == ids[i])
			d = opendir(path);
		for (;;) {
			char num[16];
			int k;

			if (d) {
				e = readdir(d);
				if (!e)
					break;
				if (e->d_name[0] < '0' || e->d_name[0] > '9')
					continue;
				k = snprintf(num, sizeof(num), "%s ", e->d_name);
			} else {
				k = snprintf(num, sizeof(num), "%u ", ids[i]);
			}
			if (k < 0 || k >= (int)sizeof(num))
				continue;
			if (len + (size_t)k + 1 > cap) {
				char *t = realloc(s, cap * 2);

				if (!t) {
					free(s);
					s = NULL;
					break;
				}
				s = t;
				cap *= 2;
			}
			memcpy(s + len, num, (size_t)k);
			len += (size_t)k;
			if (!d)
				break;
		}
		if (d)
			closedir(d);
	}
	if (s)
		s[len] = '\0';
	return s;
}

/* The thread ids of ids (tid_list()) into file, function-fork to fork: 0 or -errno. */
static int write_tids(struct ftnet *n, const char *file, const uint32_t *ids, size_t count,
		      const char *fork)
{
	char *list = tid_list(ids, count);
	int err;

	if (!list)
		return -ENOMEM;
	err = write_text(n, file, list);
	free(list);
	return err ? err : set(n, SV_FORK, fork);
}

/*
 * tracefs as it was found: what n changed, or (all) whatever it may have
 * changed, for the guard, which cannot know how far its parent got (every
 * setting was read before it was made). The buffers' files must be closed
 * (the tracer cannot change while one is open).
 */
static void restore(const struct ftnet *n, bool all)
{
	if (all || n->tracer_on || n->sv[SV_TRACING_ON].changed)
		write_text(n, "tracing_on", "0");
	/* The tracer first: its hooks cost every function call of the machine. */
	if (all || n->tracer_on)
		write_text(n, "current_tracer", "nop");
	if (all || n->graph_set)
		write_text(n, "set_graph_function", "");
	if (all || n->pid_set)
		write_text(n, "set_ftrace_pid", "");
	if (all || n->notrace_set)
		write_text(n, "set_ftrace_notrace_pid", "");
	for (int k = SV_N - 1; k >= 0; k--)
		if (all || n->sv[k].changed)
			write_text(n, saved_files[k], n->sv[k].was);
	/* What it recorded is bpfgraph's, not left for the next reader of "trace". */
	if (all || n->sv[SV_CLOCK].changed)
		write_text(n, "trace", "");
}

/* The guard's undo (guard.h): everything that may have been changed. */
static void guard_restore(void *n)
{
	restore(n, true);
}

static int setup(struct ftnet *n, const struct ftnet_opts *o, char *why, size_t cap)
{
	char num[32], *list;
	int err;

	for (int k = 0; k < SV_N; k++)
		if ((err = save(n, k)))
			return why_fail(why, cap, err, "cannot read %s/%s: %s", n->root,
					saved_files[k], strerror(-err));
	/* Before anything is changed: from here on it is put back whatever happens. */
	guard__start(&n->guard, guard_restore, n, tracefs__fd());
	if ((err = set(n, SV_TRACING_ON, "0")) || (err = set(n, SV_CLOCK, "mono")) ||
	    (err = write_text(n, "trace", "")))
		return why_fail(why, cap, err, "cannot set up tracefs: %s", strerror(-err));
	list = graph_list(o);
	if (!list)
		return -ENOMEM;
	n->graph_set = true;
	err = write_text(n, "set_graph_function", list);
	free(list);
	if (err)
		return why_fail(why, cap, err, "set_graph_function refuses the entry functions: %s",
				strerror(-err));
	if (o->pid > 0) {
		snprintf(num, sizeof(num), "%d", (int)o->pid);
		n->pid_set = true;
		if ((err = write_text(n, "set_ftrace_pid", num)) ||
		    (err = set(n, SV_FORK, "1")))
			return why_fail(why, cap, err, "cannot set the command's pid: %s",
					strerror(-err));
	} else if (o->npids) {
		n->pid_set = true;
		if ((err = write_tids(n, "set_ftrace_pid", o->pids, o->npids, "0")))
			return why_fail(why, cap, err, "cannot set the traced pids: %s",
					strerror(-err));
	} else if (o->self > 0) {
		/* Its threads made later (the ring buffer's reader) follow by function-fork. */
		uint32_t self = (uint32_t)o->self;

		n->notrace_set = true;
		if ((err = write_tids(n, "set_ftrace_notrace_pid", &self, 1, "1")))
			return why_fail(why, cap, err, "cannot leave bpfgraph's own calls out "
					"(set_ftrace_notrace_pid): %s", strerror(-err));
	}
	snprintf(num, sizeof(num), "%u", o->max_depth);
	/*
	 * Full buffers drop what comes next, not the oldest pages: the first
	 * call is read from its start however far the reading falls behind a
	 * command that goes on calling.
	 */
	if ((err = set(n, SV_IRQS, o->irqs ? "1" : "0")) || (err = set(n, SV_DEPTH, num)) ||
	    (err = set(n, SV_OVERWRITE, "0")))
		return why_fail(why, cap, err, "cannot set function_graph's options: %s",
				strerror(-err));
	return 0;
}

/* Where tracefs is (root: asked, else tracefs.h's), writable: 0 or -errno. */
static int find_root(struct ftnet *n, const char *root, char *why, size_t cap)
{
	char probe[300];

	if (!root && !(root = tracefs__root(NULL, why, cap)))
		return -ENOENT;
	snprintf(n->root, sizeof(n->root), "%s", root);
	snprintf(probe, sizeof(probe), "%s/current_tracer", n->root);
	if (access(probe, W_OK))
		return why_fail(why, cap, -errno, "tracefs is not reachable (%s: %s)", probe,
				strerror(errno));
	return 0;
}

int ftnet__usable(const char *root, char *why, size_t cap)
{
	struct ftnet n = { 0 };
	int err = find_root(&n, root, why, cap);

	return err ? err : check_free(&n, why, cap);
}

struct ftnet *ftnet__new(const struct ftnet_opts *o, char *why, size_t cap)
{
	struct ftnet *n = calloc(1, sizeof(*n));
	int err;

	if (!n)
		return NULL;
	err = find_root(n, o->root, why, cap);
	if (err) {
		free(n);
		errno = -err;
		return NULL;
	}
	err = check_free(n, why, cap);
	if (!err)
		err = read_layout(n, why, cap);
	if (!err)
		err = setup(n, o, why, cap);
	if (!err && !(n->page = malloc(n->lay.page_size)))
		err = -ENOMEM;
	if (err) {
		if (err == -ENOMEM)
			snprintf(why, cap, "out of memory");
		ftnet__free(n);
		errno = -err;
		return NULL;
	}
	return n;
}

/*
 * The tracer cannot change while a trace_pipe_raw is open (the kernel's
 * tracing_set_tracer() says EBUSY): the pipes are opened once it is
 * function_graph, and closed before it is nop again.
 */
int ftnet__start(struct ftnet *n)
{
	char why[256];
	int err = write_text(n, "current_tracer", "function_graph");

	if (err)
		return err;
	n->tracer_on = true;
	err = open_pipes(n, why, sizeof(why));
	return err ? err : write_text(n, "tracing_on", "1");
}

/* One page of cpu's: each function_graph event to the sink. */
static long take_page(struct ftnet *n, uint32_t cpu, const struct ftnet_sink *sink)
{
	struct ftp_cursor c;
	long count = 0;
	int k;

	if (ftp_open_page(&c, &n->lay, n->page))
		return -EINVAL;
	if (c.lost) {
		uint64_t lost = c.lost_count ? c.lost_count : 1;

		n->lost += lost;
		if (sink->lost)
			sink->lost(sink->ctx, cpu, lost);
	}
	for (;;) {
		const uint8_t *d = NULL;
		uint32_t len = 0, flags;
		uint64_t addr;
		struct bg_rec r;

		k = ftp_step(&c, &d, &len);
		if (k < 0)
			return count;
		if (!k || !ftp_event(&n->lay, d, len, c.ts, cpu, &r, &addr, &flags))
			continue;
		k = sink->take(sink->ctx, &r, addr, flags);
		if (k)
			return k;
		count++;
	}
}

long ftnet__read(struct ftnet *n, uint32_t max_pages, const struct ftnet_sink *sink)
{
	long total = 0;

	for (uint32_t i = 0; i < n->ncpu; i++) {
		for (uint32_t pages = 0; !max_pages || pages < max_pages; pages++) {
			ssize_t k = read(n->fd[i], n->page, n->lay.page_size);
			long t;

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0 && errno != EAGAIN)
				return -errno;
			if (k <= 0)
				break;
			if ((size_t)k < n->lay.page_size)
				memset(n->page + k, 0, n->lay.page_size - (size_t)k);
			t = take_page(n, n->cpu[i], sink);
			if (t < 0)
				return t;
			total += t;
		}
	}
	return total;
}

uint64_t ftnet__lost(const struct ftnet *n)
{
	return n->lost;
}

int ftnet__stop(struct ftnet *n)
{
	return write_text(n, "tracing_on", "0");
}

void ftnet__free(struct ftnet *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < n->ncpu; i++)
		close(n->fd[i]);
	n->ncpu = 0;
	restore(n, false);
	guard__stop(&n->guard, true);
	free(n->fd);
	free(n->cpu);
	free(n->page);
	free(n);
}
