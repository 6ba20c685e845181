// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "bpfgraph.h"
#include "ftrecs.h"
#include "functab.h"
#include "globset.h"
#include "kprobe.h"
#include "ksyms.h"
#include "ktext.h"
#include "links.h"
#include "plan.h"
#include "tracefs.h"
#include "wide.h"

#include "wide_int.h"

static void close_links(struct wide *w);
/* The stack of the child that closes the net (wide__detach_async). */
#define CLOSER_STACK (64 * 1024)

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int by_sym_addr(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a, *y = *(const struct ksym *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool planned(const struct wide *w, uint64_t addr)
{
	return bsearch(&addr, w->planned, w->nplanned, sizeof(addr), by_u64) != NULL;
}

/*
 * Of the functions no trampoline may hook, the ones function_graph shows
 * in most calls (about a tenth of the lines of an open or a TCP send).
 * The net hooks them: fprobe's recursion guard skips the calls our
 * programs make to them, so the calls traced functions make are shown.
 * Not migrate_disable/enable, preempt_count_add/sub or the clocksource's
 * read function: every program run of ours calls them too, and hooking
 * them multiplied what each traced call cost (docs/kernels.md, "The wide net").
 */
static bool shown_rcu(const struct ksym *s)
{
	return !s->module &&
	       (!strcmp(s->name, "__rcu_read_lock") || !strcmp(s->name, "__rcu_read_unlock"));
}

/*
 * Left out: the tracer's own path, except shown_rcu(). (What has links of
 * its own goes later: finish_list().)
 */
static int add(struct wide *w, const struct ksym *s)
{
	if (plan__denied(s->name) && (w->o.no_rcu || !shown_rcu(s))) {
		w->st.denied++;
		return 0;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		const struct ksym **v = realloc(w->sym, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->sym = v;
		w->cap = cap;
	}
	w->sym[w->n++] = s;
	return 0;
}

/*
 * The kernel's own list of what ftrace can hook, by address (6.5+): the
 * fentry site, at most an endbr64 past the start. 0, or -errno when
 * tracefs cannot be read.
 */
static int from_tracefs(struct wide *w)
{
	/* Read only: a read-only mount does, which tracefs.h passes over. */
	static const char *const paths[] = {
		"/sys/kernel/tracing/available_filter_functions_addrs",
		"/sys/kernel/debug/tracing/available_filter_functions_addrs",
		NULL,
	};
	static char own[128];
	const char *root;
	char line[512];
	FILE *f = NULL;
	int err = 0;

	for (int i = 0; paths[i] && !f; i++)
		if ((f = fopen(paths[i], "re")))
			w->st.source = paths[i];
	if (!f && (root = tracefs__root(NULL, NULL, 0))) {
		snprintf(own, sizeof(own), "%s/available_filter_functions_addrs", root);
		if ((f = fopen(own, "re")))
			w->st.source = own;
	}
	if (!f)
		return -errno ?: -ENOENT;
	while (!err && fgets(line, sizeof(line), f)) {
		uint64_t addr = strtoull(line, NULL, 16);
		const struct ksym *s = ksyms__find_addr(w->o.ks, addr);

		if (s && addr - s->addr < BG_FENTRY_SITE_END)
			err = add(w, s);
	}
	fclose(f);
	return err;
}

static int read_kmem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return ktext__read(ctx, addr, buf, len);
}

/* A record's site: its function, when the site is that function's fentry site. */
static int record_site(void *ctx, uint64_t ip)
{
	struct wide *w = ctx;
	const struct ksym *s = ksyms__find_addr(w->o.ks, ip);

	/*
	 * The kernel marks the records of weak functions' leftovers disabled
	 * (kallsyms names another function there, further away): not hooked.
	 */
	return s && ip - s->addr < BG_FENTRY_SITE_END ? add(w, s) : 0;
}

/*
 * ftrace's records, read from kernel memory (user/kernel/ftrecs.h): the
 * sites available_filter_functions_addrs lists, without the kallsyms
 * lookup tracefs makes for each line. 0, or -errno where the kernel's
 * BTF, kallsyms or /proc/kcore does not give them.
 */
static int from_records(struct wide *w)
{
	struct ftrecs_layout l;
	uint64_t head = ksyms__data(w->o.ks, KSYMS_FTRACE_PAGES);
	long n;

	if (!w->o.btf || !w->o.kt || !head)
		return -ENOENT;
	n = ftrecs__layout(w->o.btf, &l);
	if (!n)
		n = ftrecs__walk(&l, head, read_kmem, w->o.kt, record_site, w);
	w->st.records = n;
	if (n < 0)
		return (int)n;
	/* No site at all: not ftrace's list (a kernel without it reads as empty). */
	if (!w->n)
		return -ENOENT;
	w->st.source = "ftrace's records in kernel memory (/proc/kcore)";
	return 0;
}

/*
 * Sections the kernel builds without fentry calls (noinstr is notrace, and
 * so is the entry code), whose functions may still start with a 5-byte
 * NOP: an alternative or a static branch, which ftrace refuses to hook.
 * One such address makes the kernel refuse the whole link (6.12) or take
 * it and hook nothing (7.3; live.c's wide_works() finds out). Copies of
 * inline helpers (notrace too) lie in plain .text: a few of those remain.
 */
static const char *const notrace_sections[][2] = {
	{ "__entry_text_start", "__entry_text_end" },
	{ "__irqentry_text_start", "__irqentry_text_end" },
	{ "__softirqentry_text_start", "__softirqentry_text_end" },
	{ "__noinstr_text_start", "__noinstr_text_end" },
	{ "__cpuidle_text_start", "__cpuidle_text_end" },
	{ "__kprobes_text_start", "__kprobes_text_end" },
	{ "_sinittext", "_einittext" },
};

#define N_NOTRACE_SECTIONS (sizeof(notrace_sections) / sizeof(notrace_sections[0]))

/* Their bounds in this kernel; a section it lacks is [0, 0). */
static void notrace_ranges(const struct wide *w, uint64_t r[][2])
{
	for (size_t i = 0; i < N_NOTRACE_SECTIONS; i++) {
		const struct ksym *lo = ksyms__find_name(w->o.ks, notrace_sections[i][0], NULL);
		const struct ksym *hi = ksyms__find_name(w->o.ks, notrace_sections[i][1], NULL);

		r[i][0] = lo && hi && !lo->module && !hi->module ? lo->addr : 0;
		r[i][1] = lo && hi && !lo->module && !hi->module ? hi->addr : 0;
	}
}

static bool in_ranges(uint64_t r[][2], size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= r[i][0] && addr < r[i][1])
			return true;
	return false;
}

/* Without tracefs: every text symbol whose code starts with an fentry site. */
static int from_text(struct wide *w)
{
	struct ktext_window win = { 0 };
	uint64_t notrace[N_NOTRACE_SECTIONS][2];
	uint8_t code[16];
	struct kcode_info ci;
	int err = 0;

	if (!w->o.kt)
		return -ENOENT;
	w->st.source = "kernel text (/proc/kcore)";
	notrace_ranges(w, notrace);
	/* In address order: the read-ahead window serves most functions. */
	for (size_t i = 0; !err && i < ksyms__count(w->o.ks); i++) {
		const struct ksym *s = ksyms__at(w->o.ks, i);

		if ((s->type != 't' && s->type != 'T') || s->size < sizeof(code) ||
		    (!s->module && in_ranges(notrace, N_NOTRACE_SECTIONS, s->addr)) ||
		    ktext__read_ahead(w->o.kt, &win, s->addr, code, sizeof(code)))
			continue;
		kcode__site(code, sizeof(code), s->addr, w->o.ks, &ci);
		if (ci.fentry_site)
			err = add(w, s);
	}
	ktext__window_free(&win);
	return err;
}

static void *list_all(void *arg)
{
	struct wide *w = arg;
	double t0 = links__now();
	int err = from_records(w);

	if (err && err != -ENOMEM) {
		w->n = 0;
		w->st.denied = 0;
		err = from_tracefs(w);
	}
	if (err && err != -ENOMEM) {
		w->n = 0;
		w->st.denied = 0;
		err = from_text(w);
	}
	w->list_err = err;
	w->st.build_s = links__now() - t0;
	return NULL;
}

struct wide *wide__new(const struct wide_opts *o)
{
	struct wide *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->o = *o;
	w->link_fd = w->hot_fd = w->part_fd = w->keep_fd = -1;
	err = pthread_create(&w->lister, NULL, list_all, w);
	if (err) {
		free(w);
		errno = err;
		return NULL;
	}
	w->listing = true;
	return w;
}

/* The list, less what has links of its own, each address once: 0 or -errno. */
static int finish_list(struct wide *w, const struct functab *funcs)
{
	size_t n = 0;

	if (w->listing) {
		pthread_join(w->lister, NULL);
		w->listing = false;
	}
	if (w->list_err)
		return w->list_err;
	w->planned = malloc((funcs->n + 1) * sizeof(*w->planned));
	if (!w->planned)
		return -ENOMEM;
	/* Traced at their call sites, not by links: the net shows them while it records. */
	for (size_t i = 0; i < funcs->n; i++)
		if (!(funcs->f[i].flags & BG_FN_CALLSITE))
			w->planned[w->nplanned++] = funcs->f[i].addr;
	qsort(w->planned, w->nplanned, sizeof(*w->planned), by_u64);
	/* The kernel refuses a link naming one address twice. */
	qsort(w->sym, w->n, sizeof(*w->sym), by_sym_addr);
	for (size_t i = 0; i < w->n; i++)
		if ((!n || w->sym[i]->addr != w->sym[n - 1]->addr) &&
		    !planned(w, w->sym[i]->addr))
			w->sym[n++] = w->sym[i];
	w->n = n;
	w->st.funcs = n;
	return 0;
}

static bool notrace(const struct wide *w, const char *name)
{
	for (size_t i = 0; i < w->o.n_notrace; i++)
		if (!fnmatch(w->o.notrace[i], name, 0))
			return true;
	return false;
}

/*
 * One link over the table's entries that keep says (all: NULL) and, with
 * met, only those met (met[i] >= 0): a kprobe.session link running the
 * net's program, or with prog_fd >= 0 an entry-only kprobe.multi link
 * running that program: its fd, WIDE_NO_LINK when nothing is to be linked,
 * or the kernel's -errno. A refusal is tried once more after a pause:
 * nothing the net needs may be left out in silence (an errno such as
 * ENOENT must not read as "nothing to link").
 */
#define WIDE_NO_LINK INT_MIN

static int link_many(struct wide *w, bool (*keep)(const struct wide *, size_t),
		     const int32_t *met,
		     uint64_t flags, int prog_fd)
{
	uint64_t *addrs = malloc((w->n + 1) * sizeof(*addrs));
	uint64_t *cookies = malloc((w->n + 1) * sizeof(*cookies));
	size_t n = 0;
	int fd;

	if (!addrs || !cookies) {
		fd = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < w->n; i++) {
		if ((keep && !keep(w, i)) || (met && met[i] < 0))
			continue;
		addrs[n] = w->sym[i]->addr;
		cookies[n++] = (uint64_t)(BG_FUNC_WIDE | i) |
			       (uint64_t)w->gen << BG_CK_GEN_SHIFT | flags |
			       (notrace(w, w->sym[i]->name) ? BG_CK_NOTRACE : 0);
	}
	if (!n) {
		fd = WIDE_NO_LINK;
		goto out;
	}
	for (int tries = 0; tries < 2; tries++) {
		if (tries) {
			struct timespec nap = { 0, 100 * 1000 * 1000L };

			w->st.retried++;
			nanosleep(&nap, NULL);
		}
		fd = links__kprobe_multi(prog_fd >= 0 ? prog_fd : w->prog_fd,
					 prog_fd >= 0 ? BPF_TRACE_KPROBE_MULTI :
							BG_ATTACH_KPROBE_SESSION,
					 addrs, cookies, n);
		if (fd >= 0 || fd == -ENOMEM || fd == -E2BIG)
			break;
		if (!w->st.refused)
			w->st.refused = fd;
	}
out:
	free(addrs);
	free(cookies);
	return fd;
}

/*
 * Functions the kernel runs all the time, and while it patches the
 * fentry sites of a new link: locks, RCU, allocation, time, scheduling,
 * interrupts. With wide_opts.split_hot, hooked by a link of their own
 * made after the others, so that patching the bulk of the net does not
 * run the net's handler on every one of their calls (docs/kernels.md,
 * "The wide net", "Attaching"), and closed before them.
 */
static const char *const hot_globs[] = {
	"*rcu*", "*spin_*", "*_raw_*", "*mutex*", "*_lock", "*_unlock", "*_lock_*", "*_unlock_*",
	"*text_poke*", "*stop_machine*", "*nmi*", "*irq*", "*sync_core*", "*int3*",
	"*jump_label*", "*static_call*", "*static_key*", "*sched*", "*tick*", "*hrtimer*",
	"*clock*", "*time*", "migrate_*", "preempt_*", "kmem_cache_*", "*kmalloc*", "*kfree*",
	"*alloc_pages*", "*slab*", "*kallsyms*", "*perf_*", "*ftrace*", "*fentry*", "bpf_*",
	"*memcpy*", "*memset*", "*cond_resched*", "*wake*", "*switch*", "*account*", "*_tlb*",
	NULL,
};

/*
 * What the text patching itself runs for each site it patches (decoding
 * the instruction, mapping the page, reading the old bytes) and around
 * it: in the hot link on every kernel, which is then the only one
 * without split_hot. Hooked in the link being patched they ran the
 * net's handler many times per site: the net's attach went from 0.98 to
 * 0.72-0.80 s on 6.12 (with hot_globs) and from 1.87 to 1.21-1.23 s on
 * 7.3 (these alone) under the bench's emulation.
 */
static const char *const patch_globs[] = {
	"*text_poke*", "insn_*", "inat_*", "*_pte", "*pte_offset*", "*locked_pte*", "walk_to_*",
	"*nofault*", "__rcu_read_lock", "__rcu_read_unlock", "__kmalloc*", "kmalloc*",
	"*cond_resched*", NULL,
};

/* Which listed functions go to the hot link, found once (w->hot: 1 hot, 0 cold). */
static int find_hot(struct wide *w)
{
	struct globset *g = w->o.split_hot ? globset__new(hot_globs) : NULL;
	struct globset *p = globset__new(patch_globs);

	free(w->hot);
	w->hot = malloc(w->n + 1);
	if (!w->hot || !p || (w->o.split_hot && !g)) {
		globset__free(g);
		globset__free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < w->n; i++)
		w->hot[i] = (g && globset__match(g, w->sym[i]->name)) ||
			    globset__match(p, w->sym[i]->name);
	globset__free(g);
	globset__free(p);
	return 0;
}

/* The net's three parts: returns hooked (cold, then hot), entries only. */
static bool full_cold(const struct wide *w, size_t i)
{
	return w->full[i] && !wide_is_hot(w, i);
}

static bool full_hot(const struct wide *w, size_t i)
{
	return w->full[i] && wide_is_hot(w, i);
}

static bool partial(const struct wide *w, size_t i)
{
	return !w->full[i];
}

int wide__attach(struct wide *w, const struct functab *funcs, int prog_fd, int entry_fd,
		 int ranges_fd, uint32_t gen)
{
	double t0;
	int fd, err;

	err = finish_list(w, funcs);
	if (!err)
		err = find_hot(w);
	t0 = links__now();
	if (!err)
		err = wide_choose_full(w, funcs);
	w->st.choose_s = links__now() - t0;
	/* Without the ranges their callees are drawn one level up (see close_lazy()). */
	if (!err && w->st.entry_only && ranges_fd >= 0 && wide_fill_ranges(w, ranges_fd) == 0)
		w->st.ranges = true;
	if (err)
		return err;
	w->prog_fd = prog_fd;
	w->gen = gen;
	t0 = links__now();
	/* Cold before hot: see hot_globs. */
	fd = link_many(w, full_cold, NULL, 0, -1);
	if (fd < 0 && fd != WIDE_NO_LINK) {
		err = fd;
		goto out;
	}
	w->link_fd = fd >= 0 ? fd : -1;
	if (w->st.entry_only) {
		fd = link_many(w, partial, NULL, BG_CK_LAZY | BG_CK_NETONLY, entry_fd);
		if (fd < 0 && fd != WIDE_NO_LINK) {
			err = fd;
			goto out;
		}
		w->part_fd = fd >= 0 ? fd : -1;
	}
	if (w->hot) {
		fd = link_many(w, full_hot, NULL, 0, -1);
		if (fd < 0 && fd != WIDE_NO_LINK) {
			err = fd;
			goto out;
		}
		w->hot_fd = fd >= 0 ? fd : -1;
	}
out:
	if (err)
		close_links(w);
	w->st.links = (w->link_fd >= 0) + (w->hot_fd >= 0) + (w->part_fd >= 0);
	w->st.attach_s += links__now() - t0;
	return err;
}

/* The rcu pair, and the lock primitives traced at their call sites after the net. */
static bool keep_rcu(const struct wide *w, size_t i)
{
	const struct ksym *s = w->sym[i];

	return shown_rcu(s) || (!w->o.hook_locks && !s->module && plan__shared_leaf(s->name));
}

int wide__narrow(struct wide *w, const int32_t *met, bool planned, int entry_fd)
{
	double t0 = links__now();
	int fd = link_many(w, keep_rcu, planned ? NULL : met, BG_CK_KEEP | BG_CK_LAZY | BG_CK_NET,
			   entry_fd);

	w->st.attach_s += links__now() - t0;
	if (fd < 0)
		return fd == WIDE_NO_LINK ? 0 : fd;
	w->keep_fd = fd;
	return 0;
}

bool wide__kept(const struct wide *w)
{
	return w && w->keep_fd >= 0;
}

int wide__take_keep(struct wide *w)
{
	int fd = w ? w->keep_fd : -1;

	if (w)
		w->keep_fd = -1;
	return fd;
}

bool wide__attached(const struct wide *w)
{
	return w && (w->link_fd >= 0 || w->hot_fd >= 0 || w->part_fd >= 0);
}

const struct ksym *wide__sym(const struct wide *w, uint32_t i)
{
	return w && i < w->n ? w->sym[i] : NULL;
}

static void close_links(struct wide *w)
{
	/* Hot first: see hot_globs. */
	if (w->hot_fd >= 0)
		close(w->hot_fd);
	if (w->part_fd >= 0)
		close(w->part_fd);
	if (w->link_fd >= 0)
		close(w->link_fd);
	w->link_fd = w->hot_fd = w->part_fd = -1;
}

/* Reaps the closing child: true once it is gone (or not ours to wait for). */
static bool reap_closer(struct wide *w, bool block)
{
	pid_t r;

	if (!w->closer)
		return true;
	do
		r = waitpid(w->closer, NULL, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return false;
	/* ECHILD: the process releasing all hooks (handoff.h) is not its parent. */
	if (r == w->closer)
		w->st.detach_s += links__now() - w->closer_t0;
	/* Its stack, once it is gone (else it goes with this process). */
	if (r == w->closer && w->closer_stack)
		munmap(w->closer_stack, CLOSER_STACK);
	w->closer_stack = NULL;
	w->closer = 0;
	return true;
}

void wide__detach(struct wide *w)
{
	double t0 = links__now();

	if (!w)
		return;
	reap_closer(w, true);
	if (!wide__attached(w))
		return;
	close_links(w);
	w->st.detach_s += links__now() - t0;
}

/*
 * The child: only the net's descriptors (any other would keep its hook or
 * a pipe open) and the read end of a pipe, stdio on /dev/null, a session
 * of its own (Ctrl-C is for bpfgraph). It closes the net once bpfgraph
 * has closed its own copies (the pipe's end): the last close does the
 * kernel's work, seconds of it for a net of 40 000 functions under a
 * load, which bpfgraph's reading must not wait for.
 *
 * It shares this process's memory (clone(CLONE_VM)), as the process that
 * releases the hooks does (handoff.c): a fork copies the page tables, and
 * under the net every kernel function runs tens of times slower (a fork
 * took 0.4-2.2 s of the poll in a loaded guest, and a stop request that
 * came meanwhile waited for it). So it runs on a stack of its own, reads
 * its descriptors from that stack's far end (this process closes its
 * copies and reuses the struct at once), and makes system calls only:
 * no allocation, no lock of the C library, errno (this thread's storage,
 * shared) read nowhere. Its descriptor table and signal handlers are
 * copies of its own.
 */
struct closer_arg {
	int fd[3]; /* hot, part, the rest: the order of close_links */
	int rd;
};

static int closer_main(void *arg)
{
	const struct closer_arg *a = arg;
	int keep[4] = { a->fd[0], a->fd[1], a->fd[2], a->rd }, from = 3;
	struct sigaction ign = { .sa_handler = SIG_IGN };
	int null;
	char c;

	/* bpfgraph's handlers (a stop request) are not this child's business. */
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGTERM, &ign, NULL);
	sigaction(SIGHUP, &ign, NULL);
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	setsid();
	/* Every descriptor but those kept (in order; -1: none), closed by ranges. */
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			if (keep[j] < keep[i]) {
				int t = keep[i];

				keep[i] = keep[j];
				keep[j] = t;
			}
	for (int i = 0; i < 4; i++) {
		if (keep[i] < from)
			continue;
		if (keep[i] > from)
			syscall(__NR_close_range, (unsigned int)from, (unsigned int)keep[i] - 1, 0U);
		from = keep[i] + 1;
	}
	syscall(__NR_close_range, (unsigned int)from, ~0U, 0U);
	/* bpfgraph's end of the pipe closed (or an error: close now anyway). */
	while (read(a->rd, &c, 1) > 0)
		;
	for (int i = 0; i < 3; i++)
		if (a->fd[i] >= 0)
			syscall(__NR_close_range, (unsigned int)a->fd[i], (unsigned int)a->fd[i], 0U);
	return 0;
}

int wide__detach_async(struct wide *w)
{
	struct closer_arg *a;
	void *stack;
	pid_t pid;
	int p[2];

	if (!wide__attached(w))
		return 0;
	w->closer_t0 = links__now();
	stack = mmap(NULL, CLOSER_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		wide__detach(w);
		return 0;
	}
	if (pipe(p)) {
		munmap(stack, CLOSER_STACK);
		wide__detach(w);
		return 0;
	}
	/* At the low end: the child's stack grows down from the high one. */
	a = stack;
	*a = (struct closer_arg){ .fd = { w->hot_fd, w->part_fd, w->link_fd }, .rd = p[0] };
	pid = clone(closer_main, (char *)stack + CLOSER_STACK, CLONE_VM | SIGCHLD, a);
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		munmap(stack, CLOSER_STACK);
		wide__detach(w);
		return 0;
	}
	w->closer = pid;
	w->closer_stack = stack;
	w->st.closer_spawn_s = links__now() - w->closer_t0;
	/* Cheap: the child holds the last references, and closes them after these. */
	close_links(w);
	close(p[1]);
	close(p[0]);
	return 1;
}

bool wide__detached(struct wide *w)
{
	return !wide__attached(w) && reap_closer(w, false);
}

const struct wide_stats *wide__stats(const struct wide *w)
{
	return &w->st;
}

void wide__free(struct wide *w)
{
	if (!w)
		return;
	if (w->listing)
		pthread_join(w->lister, NULL);
	/* A child still closing the net goes on alone (its own session). */
	reap_closer(w, false);
	w->closer = 0;
	wide__detach(w);
	if (w->keep_fd >= 0)
		close(w->keep_fd);
	free(w->sym);
	free(w->hot);
	free(w->full);
	free(w->planned);
	free(w);
}

