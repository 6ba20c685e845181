// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "fetch.h"
#include "settle.h"

/* Samples are a batch of records or a kernel stack: far smaller than this. */
#define CHUNK_BYTES (64u << 10)
/* Chunks kept for reuse instead of freed (a pass's worth at a moderate rate). */
#define SPARE_MAX 64
/* A pass that read more than 1/FAST_SHARE of the ring reads again sooner. */
#define FAST_SHARE 8
#define FAST_MS 5
/* The part of the pool whose pages are made present before tracing starts. */
#define POOL_READY_BYTES (2u << 20)

/* A sample in a chunk: this header, then len bytes padded to 8. */
struct entry {
	uint32_t len;
	uint32_t pad;
};

struct chunk {
	struct chunk *next;
	bool pass_end; /* the last chunk of a read that emptied the ring */
	uint64_t pass_ns; /* with pass_end: when that read began */
	bool pooled; /* in fetch.pool, never freed */
	size_t used, off;
	_Alignas(8) unsigned char data[CHUNK_BYTES];
};

struct fetch {
	struct ring_buffer *rb;
	struct fetch_source src; /* a test's stand-in for the ring buffer */
	pthread_t thread;
	bool started;
	int ep_fd; /* the ring (edge-triggered: forced wake-ups only) and ctl_fd */
	int ctl_fd; /* to the thread: a sync or the end was asked for */
	int ready_fd; /* to the session: samples were published */
	int poll_ms;
	size_t ring_bytes;
	size_t max_chunks;

	pthread_mutex_t lock;
	pthread_cond_t cv; /* sync_done moved */
	/* Under lock: */
	struct chunk *head, *tail; /* published, oldest first */
	struct chunk *spare; /* the pool's free chunks, and up to SPARE_MAX others */
	unsigned int nspare; /* of the others */
	size_t held; /* chunks allocated and not spare: queue, fill and cur */
	uint64_t pass_ns; /* the latest read that emptied the ring */
	uint64_t sync_req, sync_done;
	bool sync_whole; /* the read sync_done names emptied the ring */
	bool quit;
	int err; /* the thread ended on this error (-errno) */
	struct fetch_stats st;

	/*
	 * Chunks as large as the ring, mapped once: growing memory takes the
	 * process's mmap lock for writing, which the kernel has been seen to
	 * hold for seconds (a thread growing its malloc heap in mprotect()
	 * sat in D state for 4.8 s on 7.3 while the ring filled); a page
	 * fault in a mapping takes it at most for reading. The first
	 * POOL_READY_BYTES have their pages in place from the start (a first
	 * call's records, read while the wide net slows every fault); the
	 * rest take theirs when first used, so that a trace that never has
	 * more than that waiting does not hold a ring's worth of memory.
	 * Chunks never handed out are taken in order (pool_next), those given
	 * back are reused first. Past the pool, malloc.
	 */
	void *pool;
	size_t pool_next, pool_n; /* pool_n chunks mapped */
	/* The ring's consumer and producer positions (read-only mappings), or NULL. */
	const uint64_t *cons_pos, *prod_pos;
	size_t page_size;

	/* The thread's own: */
	struct chunk *fill; /* being filled by the pass under way */
	bool over; /* this pass passed max_chunks: it ends early */
	uint64_t pass_end_pos; /* the producer position when this pass began */
	bool pass_done; /* this pass read up to there */
	size_t pass_bytes;
	uint64_t cur_pass_ns;
	uint64_t lost; /* samples no memory was found for */

	/* The session's own: */
	struct chunk *cur; /* being taken */
	uint64_t taken_ns;
};

static size_t entry_size(size_t len)
{
	return sizeof(struct entry) + ((len + 7) & ~(size_t)7);
}

/* Under lock: a chunk made ready for filling, counted as held. */
static struct chunk *chunk_ready(struct fetch *f, struct chunk *c)
{
	c->next = NULL;
	c->used = c->off = 0;
	c->pass_end = false;
	f->held++;
	if (f->held * CHUNK_BYTES > f->st.peak_bytes)
		f->st.peak_bytes = f->held * CHUNK_BYTES;
	return c;
}

/* Under lock: a free chunk of the pool or the spares; NULL: malloc one. */
static struct chunk *chunk_get(struct fetch *f)
{
	struct chunk *c = f->spare;

	if (!c && f->pool_next < f->pool_n) {
		c = (struct chunk *)((char *)f->pool + f->pool_next++ * sizeof(*c));
		c->pooled = true;
		return chunk_ready(f, c);
	}
	if (!c)
		return NULL;
	f->spare = c->next;
	if (!c->pooled)
		f->nspare--;
	return chunk_ready(f, c);
}

/* Under lock: c given back; returned when it is for the caller to free (unlocked). */
static struct chunk *chunk_put(struct fetch *f, struct chunk *c)
{
	f->held--;
	if (!c->pooled && f->nspare >= SPARE_MAX)
		return c;
	if (!c->pooled)
		f->nspare++;
	c->next = f->spare;
	f->spare = c;
	return NULL;
}

/* The pool of nbytes (rounded down to chunks), its first POOL_READY_BYTES present. */
static void make_pool(struct fetch *f, size_t nbytes)
{
	size_t n = nbytes / sizeof(struct chunk), ready;
	long psz = sysconf(_SC_PAGESIZE);

	if (n > f->max_chunks)
		n = f->max_chunks;
	if (n < 2)
		return;
	f->pool = mmap(NULL, n * sizeof(struct chunk), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->pool == MAP_FAILED) {
		f->pool = NULL;
		return;
	}
	f->pool_n = n;
	ready = n * sizeof(struct chunk);
	if (ready > POOL_READY_BYTES)
		ready = POOL_READY_BYTES;
	/* MADV_POPULATE_WRITE is 5.14's; writing a byte a page does it anywhere. */
	for (size_t off = 0; off < ready; off += psz > 0 ? (size_t)psz : 4096)
		((volatile char *)f->pool)[off] = 0;
}

/* Under lock: the fill chunk joins the queue (an empty one is kept). */
static void publish_fill(struct fetch *f)
{
	struct chunk *c = f->fill;

	if (!c || !c->used)
		return;
	if (f->tail)
		f->tail->next = c;
	else
		f->head = c;
	f->tail = c;
	f->fill = NULL;
}

/* What a sample of len bytes takes in the ring: its 8-byte header, rounded up to 8. */
static uint64_t ring_size(size_t len)
{
	return (len + 8 + 7) & ~(uint64_t)7;
}

/* libbpf's callback, on the thread: the sample is consumed whatever this returns. */
static int push(void *ctx, void *data, size_t len)
{
	struct fetch *f = ctx;
	size_t need = entry_size(len);
	struct entry *e;

	if (need > CHUNK_BYTES) {
		f->lost++;
		return 0;
	}
	if (!f->fill || CHUNK_BYTES - f->fill->used < need) {
		pthread_mutex_lock(&f->lock);
		publish_fill(f);
		/* Past the bound one chunk more holds this sample; the pass then ends. */
		if (f->held >= f->max_chunks)
			f->over = true;
		if (!f->fill)
			f->fill = chunk_get(f);
		pthread_mutex_unlock(&f->lock);
		if (!f->fill) {
			struct chunk *c = malloc(sizeof(*c));

			if (!c) {
				f->lost++;
				f->over = true;
				return -EAGAIN;
			}
			c->pooled = false;
			pthread_mutex_lock(&f->lock);
			f->fill = chunk_ready(f, c);
			pthread_mutex_unlock(&f->lock);
		}
	}
	e = (struct entry *)(f->fill->data + f->fill->used);
	e->len = (uint32_t)len;
	e->pad = 0;
	memcpy(e + 1, data, len);
	f->fill->used += need;
	f->pass_bytes += len;
	if (f->over)
		return -EAGAIN;
	/*
	 * A read ends where the ring ended when it began: libbpf would read on
	 * as long as records keep coming, and a read that never ends
	 * publishes no time up to which all was read (the formatting waits
	 * on it) and answers no sync. libbpf stores the consumer position
	 * after this callback: this sample ends at that one plus its size.
	 */
	if (f->cons_pos &&
	    __atomic_load_n(f->cons_pos, __ATOMIC_ACQUIRE) + ring_size(len) >= f->pass_end_pos) {
		f->pass_done = true;
		return -EAGAIN;
	}
	return 0;
}

static void drain_fd(int fd)
{
	uint64_t v;

	while (read(fd, &v, sizeof(v)) == sizeof(v))
		;
}

static void kick(int fd)
{
	uint64_t one = 1;

	/* Only fails with the counter at its maximum: a wake-up is pending anyway. */
	if (write(fd, &one, sizeof(one)) < 0) {
	}
}

static int consume(struct fetch *f)
{
	return f->rb ? ring_buffer__consume(f->rb) : f->src.consume(f->src.ctx, push, f);
}

/*
 * Reading comes before formatting: a formatting thread that falls behind
 * costs memory, a reading thread that does the kernel drops records. Both
 * are SCHED_BATCH (they never preempt a traced task when they wake up);
 * this one is given a larger share of the CPU where it may be (root, or
 * CAP_SYS_NICE). Measured on 7.3 under a traced pread loop: at the same
 * weight, a read of 13 MiB got 0.61 s of CPU in 3.0 s and the ring filled.
 */
#define READER_NICE (-5)

/*
 * One read of the ring, up to where its producer was when the read began
 * (nothing when full: memory is at its bound). 0, or the error that ends
 * the thread. The longest gap between reads and the longest read go to
 * the stats (-v): a reading thread held up is what lets the ring fill.
 */
static int read_pass(struct fetch *f, bool full, struct fetch_stats *ps)
{
	uint64_t cpu0 = thread_cpu_ns(), last = f->cur_pass_ns, took;
	int n;

	f->cur_pass_ns = mono_ns();
	if (last && f->cur_pass_ns - last > ps->max_gap_ns) {
		ps->max_gap_ns = f->cur_pass_ns - last;
		ps->max_gap_end_ns = f->cur_pass_ns;
	}
	f->pass_bytes = 0;
	f->over = full;
	f->pass_done = false;
	if (f->prod_pos)
		f->pass_end_pos = __atomic_load_n(f->prod_pos, __ATOMIC_ACQUIRE);
	n = full ? 0 : consume(f);
	took = mono_ns() - f->cur_pass_ns;
	if (took > ps->max_consume_ns) {
		ps->max_consume_ns = took;
		ps->max_consume_bytes = f->pass_bytes;
		ps->max_consume_cpu_ns = thread_cpu_ns() - cpu0;
	}
	return n < 0 && !f->over && !f->pass_done ? n : 0;
}

/* Under lock: what a read found joins the queue; sync req is answered. */
static void end_pass(struct fetch *f, uint64_t req, const struct fetch_stats *ps)
{
	publish_fill(f);
	if (f->over) {
		/* The ring still holds records: this read is not whole. */
		f->st.full_waits++;
	} else {
		/*
		 * Once the newest chunk is taken, so is all the ring held when
		 * this read began (a taker that lags never sees the queue
		 * empty, and learns it from the chunk).
		 */
		if (f->tail) {
			f->tail->pass_end = true;
			f->tail->pass_ns = f->cur_pass_ns;
		}
		f->pass_ns = f->cur_pass_ns;
	}
	f->sync_done = req;
	f->sync_whole = !f->over;
	f->st.max_gap_ns = ps->max_gap_ns;
	f->st.max_gap_end_ns = ps->max_gap_end_ns;
	f->st.max_consume_ns = ps->max_consume_ns;
	f->st.max_consume_bytes = ps->max_consume_bytes;
	f->st.max_consume_cpu_ns = ps->max_consume_cpu_ns;
	f->st.lost = f->lost;
	pthread_cond_broadcast(&f->cv);
}

static void *run(void *arg)
{
	struct fetch *f = arg;
	struct fetch_stats ps = { 0 };
	int wait_ms = 0, err = 0;

	/* Not allowed: the shares stay equal. */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), READER_NICE)) {
	}
	for (;;) {
		struct epoll_event ev[2];
		uint64_t req;
		bool quit, full, some;

		pthread_mutex_lock(&f->lock);
		full = f->held >= f->max_chunks;
		pthread_mutex_unlock(&f->lock);
		/* Memory full: look again soon, the session frees chunks as it takes them. */
		if (epoll_wait(f->ep_fd, ev, 2, full ? FAST_MS : wait_ms) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		drain_fd(f->ctl_fd);
		pthread_mutex_lock(&f->lock);
		req = f->sync_req;
		quit = f->quit;
		full = f->held >= f->max_chunks;
		pthread_mutex_unlock(&f->lock);
		err = read_pass(f, full, &ps);
		if (err)
			break;
		pthread_mutex_lock(&f->lock);
		/* The session waits for records, or a poll period (fetch__wait). */
		some = f->tail != NULL || (f->fill && f->fill->used);
		end_pass(f, req, &ps);
		pthread_mutex_unlock(&f->lock);
		if (some) {
			settle__lru();
			kick(f->ready_fd);
		}
		if (quit)
			break;
		wait_ms = f->pass_bytes > f->ring_bytes / FAST_SHARE ? FAST_MS : f->poll_ms;
	}
	pthread_mutex_lock(&f->lock);
	f->quit = true;
	f->err = err;
	f->st.cpu = cpu_mark();
	/* Nobody waits for a sync that will never come. */
	f->sync_done = f->sync_req;
	f->sync_whole = true;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->lock);
	kick(f->ready_fd);
	return NULL;
}

/* A bound on records waiting in memory: a quarter of what is available, 1 GiB at most. */
static size_t default_bound(void)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	size_t b = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz / 4 : (64u << 20);

	return b < (1ul << 30) ? b : (1ul << 30);
}

static void free_chunks(struct chunk *c)
{
	struct chunk *n;

	for (; c; c = n) {
		n = c->next;
		if (!c->pooled)
			free(c);
	}
}

static void release(struct fetch *f)
{
	free_chunks(f->head);
	free_chunks(f->spare);
	if (f->fill)
		f->fill->next = NULL;
	free_chunks(f->fill);
	if (f->cur)
		f->cur->next = NULL;
	free_chunks(f->cur);
	if (f->pool)
		munmap(f->pool, f->pool_n * sizeof(struct chunk));
	if (f->cons_pos) {
		munmap((void *)f->cons_pos, f->page_size);
		munmap((void *)f->prod_pos, f->page_size);
	}
	ring_buffer__free(f->rb);
	if (f->ep_fd >= 0)
		close(f->ep_fd);
	if (f->ctl_fd >= 0)
		close(f->ctl_fd);
	if (f->ready_fd >= 0)
		close(f->ready_fd);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/*
 * The ring's consumer and producer pages, read-only (the kernel allows
 * that of any part of a ring buffer map); without them reads are not
 * bounded, which only delays the formatting under a steady flow.
 */
static void map_positions(struct fetch *f, int fd)
{
	long psz = sysconf(_SC_PAGESIZE);
	void *c, *p;

	if (psz <= 0)
		return;
	c = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
	p = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, psz);
	if (c == MAP_FAILED || p == MAP_FAILED) {
		if (c != MAP_FAILED)
			munmap(c, (size_t)psz);
		if (p != MAP_FAILED)
			munmap(p, (size_t)psz);
		return;
	}
	f->cons_pos = c;
	f->prod_pos = p;
	f->page_size = (size_t)psz;
}

/* A fetch, its thread not started yet; NULL (errno). */
static struct fetch *fetch_new(size_t max_bytes, int poll_ms)
{
	struct fetch *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->ep_fd = f->ctl_fd = f->ready_fd = -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->poll_ms = poll_ms;
	f->max_chunks = (max_bytes ? max_bytes : default_bound()) / CHUNK_BYTES;
	if (f->max_chunks < 2)
		f->max_chunks = 2;
	f->ep_fd = epoll_create1(EPOLL_CLOEXEC);
	f->ctl_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	f->ready_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return f;
}

/* Watches wake_fd (edge-triggered, or none: -1) and ctl_fd, starts the thread: 0 or -errno. */
static int fetch_go(struct fetch *f, int wake_fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	sigset_t all, old;
	int err;

	if (f->ep_fd < 0 || f->ctl_fd < 0 || f->ready_fd < 0)
		return -errno;
	/* Edge-triggered: the ring wakes the thread only when forced (see records.bpf.h). */
	ev.data.fd = wake_fd;
	if (wake_fd >= 0 && epoll_ctl(f->ep_fd, EPOLL_CTL_ADD, wake_fd, &ev))
		return -errno;
	ev.events = EPOLLIN;
	ev.data.fd = f->ctl_fd;
	if (epoll_ctl(f->ep_fd, EPOLL_CTL_ADD, f->ctl_fd, &ev))
		return -errno;
	/* Signals (Ctrl-C, -d's alarm) are the session thread's to take. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&f->thread, NULL, run, f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	f->started = true;
	return 0;
}

struct fetch *fetch__start(int ringbuf_fd, size_t max_bytes, int poll_ms)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info);
	struct fetch *f = fetch_new(max_bytes, poll_ms);
	int err;

	if (!f)
		return NULL;
	f->ring_bytes = !bpf_obj_get_info_by_fd(ringbuf_fd, &info, &ilen) ? info.max_entries :
									      (8u << 20);
	make_pool(f, f->ring_bytes);
	f->rb = ring_buffer__new(ringbuf_fd, push, f, NULL);
	map_positions(f, ringbuf_fd);
	err = f->rb ? fetch_go(f, ringbuf_fd) : -errno;
	if (err) {
		release(f);
		errno = -err;
		return NULL;
	}
	return f;
}

struct fetch *fetch__start_source(const struct fetch_source *src, size_t max_bytes, int poll_ms)
{
	struct fetch *f = fetch_new(max_bytes, poll_ms);
	int err;

	if (!f)
		return NULL;
	f->src = *src;
	f->ring_bytes = src->ring_bytes;
	make_pool(f, f->ring_bytes);
	err = fetch_go(f, src->wake_fd);
	if (err) {
		release(f);
		errno = -err;
		return NULL;
	}
	return f;
}

int fetch__wait(struct fetch *f, int timeout_ms)
{
	struct pollfd p = { .fd = f->ready_fd, .events = POLLIN };
	bool some;
	int err;

	pthread_mutex_lock(&f->lock);
	some = f->head != NULL;
	err = f->err;
	pthread_mutex_unlock(&f->lock);
	if (some || (f->cur && f->cur->off < f->cur->used))
		return 1;
	if (err)
		return err;
	if (poll(&p, 1, timeout_ms) < 0)
		return errno == EINTR ? -EINTR : -errno;
	drain_fd(f->ready_fd);
	/* The thread says when each read ended, whether it found anything or not. */
	pthread_mutex_lock(&f->lock);
	some = f->head != NULL;
	pthread_mutex_unlock(&f->lock);
	return some ? 1 : 0;
}

bool fetch__sync(struct fetch *f)
{
	uint64_t req;
	bool whole;

	pthread_mutex_lock(&f->lock);
	req = ++f->sync_req;
	pthread_mutex_unlock(&f->lock);
	kick(f->ctl_fd);
	pthread_mutex_lock(&f->lock);
	while (f->sync_done < req)
		pthread_cond_wait(&f->cv, &f->lock);
	whole = f->sync_whole;
	pthread_mutex_unlock(&f->lock);
	return whole;
}

/* The next chunk to take from, the finished one given back; NULL: none waits. */
static struct chunk *next_chunk(struct fetch *f)
{
	struct chunk *c = f->cur, *unused = NULL;

	pthread_mutex_lock(&f->lock);
	if (c) {
		if (c->pass_end)
			f->taken_ns = c->pass_ns;
		unused = chunk_put(f, c);
	}
	c = f->head;
	if (c) {
		f->head = c->next;
		if (!f->head)
			f->tail = NULL;
	} else if (f->pass_ns > f->taken_ns) {
		/* Nothing waits: what the latest whole read found is taken. */
		f->taken_ns = f->pass_ns;
	}
	pthread_mutex_unlock(&f->lock);
	free(unused);
	f->cur = c;
	return c;
}

long fetch__take(struct fetch *f, int (*fn)(void *ctx, void *data, size_t len), void *ctx)
{
	long n = 0;

	for (;;) {
		struct chunk *c = f->cur;
		struct entry *e;
		int err;

		if ((!c || c->off >= c->used) && !(c = next_chunk(f)))
			return n;
		e = (struct entry *)(c->data + c->off);
		c->off += entry_size(e->len);
		n++;
		err = fn(ctx, e + 1, e->len);
		if (err == -EAGAIN)
			return n;
		if (err < 0)
			return err;
	}
}

uint64_t fetch__taken_ns(struct fetch *f)
{
	uint64_t t;

	pthread_mutex_lock(&f->lock);
	t = f->taken_ns;
	pthread_mutex_unlock(&f->lock);
	return t;
}

void fetch__stop(struct fetch *f, struct fetch_stats *st)
{
	if (!f)
		return;
	if (f->started) {
		pthread_mutex_lock(&f->lock);
		f->quit = true;
		pthread_mutex_unlock(&f->lock);
		kick(f->ctl_fd);
		pthread_join(f->thread, NULL);
	}
	if (st)
		*st = f->st;
	release(f);
}
