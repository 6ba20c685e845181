// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfgraph.h"
#include "ckc.h"
#include "functab.h"
#include "hooks.h"
#include "kprobe.h"
#include "links.h"

/* Seconds between two merges of link pairs at least (kprobes__merge()). */
#define MERGE_EVERY_S 2.0

/* One queued function of the multi mode. */
struct kq {
	uint64_t addr, cookie;
	uint32_t idx;
};

struct kprobes {
	struct kprobes_opts o;
	struct linkvec links;
	struct kprobe_stats st;
	struct kq *q; /* multi: queued, not attached yet */
	size_t nq, capq;
	uint8_t *on; /* by function index: attached */
	size_t non;
	struct linkvec retired; /* multi: pairs a merge replaced, not closed yet */
	struct kq *all; /* multi: every function attached, for merging the pairs */
	size_t nall, capall;
	uint32_t gen; /* multi: generation of the newest link pair */
	uint32_t old_epoch; /* multi: o.epoch's until the retired pairs stopped taking calls */
	double merged_at; /* multi: when the pairs were last merged */
	double t0, last; /* progress */
	unsigned int done, total;
	struct ckc ckc; /* o.ckc's */
};

/* One link per address again: runs of a call are its own (bg_merging). */
static void merge_over(struct kprobes *k)
{
	if (k->o.merging && !k->retired.n)
		__atomic_store_n(k->o.merging, 0, __ATOMIC_RELEASE);
}

/* The links attached now, in the stats (they say the last count when the hooks go). */
static void count_live(struct kprobes *k)
{
	k->st.live = (unsigned int)(k->links.n + k->retired.n);
	k->st.replaced = (unsigned int)k->retired.n;
}

static uint64_t link_cookie(const struct kq *q, uint32_t gen)
{
	return q->cookie | (uint64_t)gen << BG_CK_GEN_SHIFT;
}

/*
 * The cookies of generation k->gen, once a merge made its link. The old
 * links still cover the addresses until they are closed: a call then runs
 * the program for both, which find the same cookie here, and its second
 * run is told apart by the frame the first one opened (session_dup() in
 * bpf/guard.bpf.h). Either generation's cookie serves meanwhile.
 */
static void ckc_renew(struct kprobes *k)
{
	for (size_t i = 0; i < k->nall; i++)
		ckc__set(&k->ckc, k->all[i].addr, link_cookie(&k->all[i], k->gen), false);
}

struct kprobes *kprobes__new(const struct kprobes_opts *o)
{
	struct kprobes *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->o = *o;
	if (ckc__init(&k->ckc, o->ckc, BG_CKC_BITS)) {
		free(k);
		return NULL;
	}
	return k;
}

static int mark_on(struct kprobes *k, uint32_t idx)
{
	if (idx >= k->non) {
		size_t n = k->non ? k->non : 256;
		uint8_t *v;

		while (n <= idx)
			n *= 2;
		v = realloc(k->on, n);
		if (!v)
			return -ENOMEM;
		memset(v + k->non, 0, n - k->non);
		k->on = v;
		k->non = n;
	}
	k->on[idx] = 1;
	return 0;
}

bool kprobes__attached(const struct kprobes *k, uint32_t idx)
{
	return k && idx < k->non && k->on[idx];
}

static const char *name_of(const struct kprobes *k, uint32_t idx)
{
	return k->o.funcs && idx < k->o.funcs->n ? k->o.funcs->f[idx].display : "?";
}

static void failed(struct kprobes *k, uint32_t idx, int err)
{
	k->st.failed++;
	if (err == -EMFILE || err == -ENFILE)
		k->st.no_fds++;
	if (k->o.verbose)
		fprintf(k->o.err, "bpfgraph: cannot kprobe '%s': %s\n", name_of(k, idx),
			strerror(-err));
}

/* Keeps both links of a pair, or neither; a session link (fd >= 0) alone. */
static int keep_pair(struct kprobes *k, struct bpf_link *l[2], int fd)
{
	int err;

	if (fd >= 0) {
		err = linkvec__push_fd(&k->links, fd);
		if (err)
			close(fd);
		else
			k->st.links++;
		return err;
	}
	err = linkvec__push(&k->links, l[1]);

	if (!err && (err = linkvec__push(&k->links, l[0])))
		k->links.n--; /* l[1] could not be kept either: drop both */
	if (err) {
		bpf_link__destroy(l[0]);
		bpf_link__destroy(l[1]);
		return err;
	}
	k->st.links += 2;
	return 0;
}

static void progress(struct kprobes *k)
{
	if (!k->o.progress || !links__progress_due(k->t0, &k->last, false))
		return;
	fprintf(k->o.err, "\rbpfgraph: attaching %u/%u functions by kprobe...", k->done,
		k->total);
	fflush(k->o.err);
}

static int attach_single(struct kprobes *k, uint32_t idx, const struct bg_func *f)
{
	struct bpf_link *l[2] = {};
	int err = 0;

	/* The return probe first, as with fexit: no entry without its exit. */
	for (int i = 1; i >= 0; i--) {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .retprobe = i == 1,
			    .bpf_cookie = functab__cookie(f, idx));

		/* By address: clones and same-named statics have no unique name. */
		ko.offset = f->addr;
		l[i] = bpf_program__attach_kprobe_opts(i ? k->o.exit : k->o.entry, NULL, &ko);
		if (!l[i]) {
			err = -errno;
			bpf_link__destroy(l[1]);
			return err;
		}
	}
	return keep_pair(k, l, -1) ?: mark_on(k, idx);
}

static int kq_push(struct kq **v, size_t *n, size_t *cap, struct kq e)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		struct kq *q = realloc(*v, c * sizeof(*q));

		if (!q)
			return -ENOMEM;
		*v = q;
		*cap = c;
	}
	(*v)[(*n)++] = e;
	return 0;
}

static int queue(struct kprobes *k, uint32_t idx, const struct bg_func *f)
{
	struct kq e = { f->addr, functab__cookie(f, idx), idx };

	return kq_push(&k->q, &k->nq, &k->capq, e);
}

int kprobes__attach(struct kprobes *k, uint32_t idx, const struct bg_func *f)
{
	double t0 = links__now();
	int err;

	if (k->o.multi)
		return queue(k, idx, f);
	err = attach_single(k, idx, f);
	k->st.attach_s += links__now() - t0;
	if (err)
		failed(k, idx, err);
	else
		k->st.attached++;
	return err;
}

/*
 * The links of generation gen for q[0..n): a kprobe.multi pair into l[2],
 * or with o.session one kprobe.session link into *fd (else -1). 0 or
 * -errno (then nothing attached).
 */
static int link_pair(struct kprobes *k, const struct kq *q, size_t n, uint32_t gen,
		     struct bpf_link *l[2], int *fd)
{
	uint64_t *addrs = malloc(n * sizeof(*addrs)), *cookies = malloc(n * sizeof(*cookies));
	int err = 0;

	l[0] = l[1] = NULL;
	*fd = -1;
	if (!addrs || !cookies) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		addrs[i] = q[i].addr;
		cookies[i] = link_cookie(&q[i], gen);
	}
	if (k->o.session) {
		*fd = links__kprobe_multi(bpf_program__fd(k->o.entry), BG_ATTACH_KPROBE_SESSION,
					  addrs, cookies, n);
		if (*fd < 0) {
			err = *fd;
			*fd = -1;
		}
		goto out;
	}
	/* Return link first: see bg_mentry. */
	for (int i = 1; i >= 0 && !err; i--) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, mo, .addrs = (const unsigned long *)addrs,
			    .cookies = (const __u64 *)cookies, .cnt = n, .retprobe = i == 1);

		l[i] = bpf_program__attach_kprobe_multi_opts(i ? k->o.exit : k->o.entry, NULL,
							     &mo);
		if (!l[i])
			err = -errno;
	}
	if (err) {
		bpf_link__destroy(l[1]);
		l[1] = NULL;
	}
out:
	free(addrs);
	free(cookies);
	return err;
}

/* One kprobe.multi pair for q[0..n): 0 or -errno (then nothing attached). */
static int attach_batch(struct kprobes *k, const struct kq *q, size_t n)
{
	struct bpf_link *l[2];
	int fd, err = link_pair(k, q, n, k->gen, l, &fd);

	if (!err)
		err = keep_pair(k, l, fd);
	for (size_t i = 0; !err && i < n; i++)
		err = mark_on(k, q[i].idx) ?: kq_push(&k->all, &k->nall, &k->capall, q[i]);
	/* A link of their own: the cache names it (a merge's link takes them over, ckc_renew()). */
	for (size_t i = 0; !err && i < n; i++)
		ckc__set(&k->ckc, q[i].addr, link_cookie(&q[i], k->gen), true);
	count_live(k);
	return err;
}

int kprobes__merge(struct kprobes *k, unsigned int max_pairs)
{
	struct linkvec old;
	struct bpf_link *l[2];
	double t0 = links__now();
	uint32_t gen;
	int fd, err;

	if (!k || !k->o.multi || !k->o.gen ||
	    k->links.n <= (k->o.session ? 1 : 2) * (size_t)max_pairs || !k->nall)
		return 0;
	/* One epoch of retired pairs at a time (bg_in_epoch counts two). */
	if (k->retired.n)
		return 0;
	/* Discovery that never settles (a busy -p trace) re-attaches everything at most this often. */
	if (k->merged_at && t0 - k->merged_at < MERGE_EVERY_S)
		return 0;
	k->merged_at = t0;
	gen = (k->gen + 1) & 0xff;
	/* A call may run the plan's program for two links from now on. */
	if (k->o.merging)
		__atomic_store_n(k->o.merging, 1, __ATOMIC_RELEASE);
	/* Made while the old pairs still trace: its entries are ignored until bg_gen moves. */
	err = link_pair(k, k->all, k->nall, gen, l, &fd);
	if (err) {
		if (k->o.verbose)
			fprintf(k->o.err, "bpfgraph: cannot merge %zu kprobe.multi links into one "
				"pair: %s\n", k->links.n, strerror(-err));
		merge_over(k);
		return err;
	}
	old = k->links;
	memset(&k->links, 0, sizeof(k->links));
	if ((err = keep_pair(k, l, fd))) {
		free(k->links.v);
		free(k->links.fds);
		k->links = old;
		merge_over(k);
		return err;
	}
	__atomic_store_n(k->o.gen, gen, __ATOMIC_RELEASE);
	k->gen = gen;
	ckc_renew(k);
	/* From now on the new pair takes every call (see kprobes__retire()). */
	if (k->o.epoch) {
		k->old_epoch = __atomic_load_n(k->o.epoch, __ATOMIC_ACQUIRE);
		__atomic_store_n(k->o.epoch, k->old_epoch + 1, __ATOMIC_RELEASE);
	}
	/*
	 * The old pairs take no new call now; calls under way still need
	 * their exits: they are closed once the tasks that entered their
	 * graph before now have left it (kprobes__retire()).
	 */
	for (size_t i = 0; i < old.n; i++)
		if (linkvec__push_entry(&k->retired, old.v[i], old.fds[i]))
			links__close_one(old.v[i], old.fds[i]); /* no memory: closed at once */
	free(old.v);
	free(old.fds);
	kprobes__retire(k);
	count_live(k);
	k->st.merges++;
	k->st.merge_s += links__now() - t0;
	k->st.attach_s += links__now() - t0;
	return 0;
}

/* Attach q[0..n), splitting a refused batch until each culprit stands alone. */
static void attach_split(struct kprobes *k, const struct kq *q, size_t n)
{
	int err;

	if (!n)
		return;
	err = attach_batch(k, q, n);
	if (!err) {
		k->st.attached += (unsigned int)n;
		k->done += (unsigned int)n;
		progress(k);
		return;
	}
	if (n == 1 || err == -ENOMEM) {
		for (size_t i = 0; i < n; i++)
			failed(k, q[i].idx, err);
		k->done += (unsigned int)n;
		return;
	}
	attach_split(k, q, n / 2);
	attach_split(k, q + n / 2, n - n / 2);
}

static int by_addr(const void *a, const void *b)
{
	const struct kq *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

unsigned int kprobes__flush(struct kprobes *k)
{
	unsigned int before;
	size_t n = 0;

	if (!k || !k->nq)
		return 0;
	before = k->st.failed;
	/* The kernel refuses a batch naming one address twice. */
	qsort(k->q, k->nq, sizeof(*k->q), by_addr);
	for (size_t i = 0; i < k->nq; i++)
		if (!n || k->q[i].addr != k->q[n - 1].addr)
			k->q[n++] = k->q[i];
	k->t0 = links__now();
	k->last = 0;
	k->done = 0;
	k->total = (unsigned int)n;
	attach_split(k, k->q, n);
	if (k->last > 0)
		fprintf(k->o.err, "\n");
	k->st.attach_s += links__now() - k->t0;
	k->nq = 0;
	return k->st.failed - before;
}

/*
 * The retired pairs go once no call they took can be under way: no task
 * is inside a graph now, or none that entered its graph before they
 * stopped taking calls (bg_in_epoch). New calls are the newest pair's:
 * its entries record (the old pairs' are ignored: BG_CK_GEN), or, for
 * kprobe.session links, ftrace runs the newest link first and the old
 * link's run finds the call taken (session_dup() in bpf/guard.bpf.h).
 * Under a steady load a moment with no task inside any graph is seldom
 * there when this looks; each task's graph ends soon. (A task that stays
 * inside one keeps them.)
 */
void kprobes__retire(struct kprobes *k)
{
	if (!k || !k->retired.n || !k->o.active)
		return;
	if (__atomic_load_n(k->o.active, __ATOMIC_ACQUIRE) &&
	    (!k->o.in_epoch ||
	     __atomic_load_n(&k->o.in_epoch[k->old_epoch & 1], __ATOMIC_ACQUIRE) > 0))
		return;
	k->st.detach_s += linkvec__destroy_all(&k->retired);
	count_live(k);
	merge_over(k);
}

const struct kprobe_stats *kprobes__stats(const struct kprobes *k)
{
	return &k->st;
}

void kprobes__detach(struct kprobes *k)
{
	if (!k)
		return;
	k->nq = 0;
	k->st.detach_s += linkvec__destroy_all(&k->links);
	k->st.detach_s += linkvec__destroy_all(&k->retired);
}

void kprobes__free(struct kprobes *k)
{
	if (!k)
		return;
	kprobes__detach(k);
	linkvec__free(&k->links);
	linkvec__free(&k->retired);
	free(k->q);
	free(k->on);
	free(k->all);
	ckc__fini(&k->ckc);
	free(k);
}

int kprobes__probe_prog(unsigned int expected_attach_type)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po,
		    .expected_attach_type = (enum bpf_attach_type)expected_attach_type);
	int pfd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "bg_probe", "GPL", insns, 2, &po);

	return pfd < 0 ? -errno : pfd;
}

/*
 * More functions than a kprobe.multi link takes (the kernel's
 * MAX_KPROBE_MULTI_CNT, 1 << 20, since 6.7): refused before anything is
 * read or looked up.
 */
#define BG_KPROBE_MULTI_TOO_MANY ((1U << 20) + 1)

static int session_probe(void)
{
	unsigned long addr = 0;
	union bpf_attr attr;
	int pfd, lfd, err;

	pfd = kprobes__probe_prog(BG_ATTACH_KPROBE_SESSION);
	if (pfd < 0)
		return pfd == -EINVAL || pfd == -E2BIG ? 0 : pfd;
	/*
	 * Too many addresses: a kernel with kprobe.session takes the attach
	 * type and then refuses the count (E2BIG); one without refuses the
	 * attach type first (EINVAL). A symbol no kernel has told them apart
	 * too (ESRCH), but the kernel's lookup of it walked every symbol:
	 * 0.12 s of each start on 7.3 under emulation.
	 */
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = (uint32_t)pfd;
	attr.link_create.attach_type = BG_ATTACH_KPROBE_SESSION;
	attr.link_create.kprobe_multi.cnt = BG_KPROBE_MULTI_TOO_MANY;
	attr.link_create.kprobe_multi.addrs = (uint64_t)(uintptr_t)&addr;
	lfd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	err = errno;
	close(pfd);
	if (lfd >= 0) {
		close(lfd);
		return 1;
	}
	return err == E2BIG;
}

/* The answer once per process: the tier and the wide net both ask. */
int kprobes__session_supported(void)
{
	static int answer = -1;

	if (answer < 0)
		answer = session_probe();
	return answer;
}

int kprobes__multi_supported(void)
{
	unsigned long addr = 0;
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.addrs = &addr, .kprobe_multi.cnt = 0);
	int pfd, lfd, err;

	pfd = kprobes__probe_prog(BPF_TRACE_KPROBE_MULTI);
	if (pfd < 0)
		return pfd;
	lfd = bpf_link_create(pfd, 0, BPF_TRACE_KPROBE_MULTI, &lo);
	err = errno;
	close(pfd);
	if (lfd >= 0) {
		close(lfd); /* no kernel makes one for no function; it works anyway */
		return 1;
	}
	return err == EINVAL;
}

static int kprobe_add(void *be, uint32_t idx, struct bg_func *f)
{
	return kprobes__attach(be, idx, f);
}

static unsigned int kprobe_flush(void *be, void (*refused)(void *ctx, uint32_t idx), void *ctx)
{
	(void)refused;
	(void)ctx;
	return kprobes__flush(be);
}

static bool kprobe_hooked(const void *be, uint32_t idx)
{
	return kprobes__attached(be, idx);
}

const struct hook_ops hook_ops_kprobe = {
	.name = "kprobes", .add = kprobe_add, .flush = kprobe_flush, .hooked = kprobe_hooked,
};
