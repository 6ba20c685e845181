// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Kernel text read from /proc/kcore (or an ELF file): see ktext.h; decoding it is kcode.c. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktext.h"

struct kseg {
	uint64_t vaddr, size, off;
};

struct ktext {
	int fd;
	/*
	 * /proc/kcore copies kernel memory through one page per open file
	 * (open_kcore(): the bounce buffer that hardened usercopy wants), and
	 * readers of one descriptor are not kept apart: two threads reading
	 * at once get each other's bytes (the wide net's list, read in a
	 * thread while the plan reads code, lost functions and could name an
	 * address that is no ftrace site: docs/kernels.md, "The wide net").
	 * Every read of fd holds this lock.
	 */
	pthread_mutex_t lock;
	struct kseg *segs;
	size_t nsegs;
	/*
	 * The bytes our own kprobes replace (ktext__keep()), as they were, in
	 * address order: every read shows them, so code decoded after a probe
	 * went in is the code as compiled (under lock).
	 */
	struct ktext_kept *kept;
	size_t nkept, capkept;
	uint64_t note_off, note_size; /* the PT_NOTE segment, size 0: none */
};

struct ktext_kept {
	uint64_t addr;
	uint8_t bytes[KTEXT_KEEP];
};

static int load_segments(struct ktext *kt)
{
	Elf *elf;
	size_t n, i;
	int err = 0;

	elf_version(EV_CURRENT);
	elf = elf_begin(kt->fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		elf = elf_begin(kt->fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n))
		return -EINVAL;
	kt->segs = calloc(n ? n : 1, sizeof(*kt->segs));
	if (!kt->segs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_NOTE && !kt->note_size) {
			kt->note_off = ph.p_offset;
			kt->note_size = ph.p_filesz;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		kt->segs[kt->nsegs++] = (struct kseg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
out:
	elf_end(elf);
	return err;
}

struct ktext *ktext__open(const char *path)
{
	struct ktext *kt = calloc(1, sizeof(*kt));
	int err;

	if (!kt)
		return NULL;
	pthread_mutex_init(&kt->lock, NULL);
	kt->fd = open(path ? path : "/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (kt->fd < 0) {
		err = -errno;
		free(kt);
		errno = -err;
		return NULL;
	}
	err = load_segments(kt);
	if (err) {
		ktext__close(kt);
		errno = -err;
		return NULL;
	}
	return kt;
}

void ktext__close(struct ktext *kt)
{
	if (!kt)
		return;
	if (kt->fd >= 0)
		close(kt->fd);
	pthread_mutex_destroy(&kt->lock);
	free(kt->kept);
	free(kt->segs);
	free(kt);
}

static ssize_t read_at(struct ktext *kt, void *buf, size_t len, uint64_t off)
{
	ssize_t r;

	pthread_mutex_lock(&kt->lock);
	r = pread(kt->fd, buf, len, (off_t)off);
	if (r < 0)
		r = -errno;
	pthread_mutex_unlock(&kt->lock);
	return r;
}

/* The first kept range that may end past addr (under lock). */
static size_t kept_from(const struct ktext *kt, uint64_t addr)
{
	size_t lo = 0, hi = kt->nkept;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (kt->kept[mid].addr + KTEXT_KEEP <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* buf holds [addr, addr+len): the kept bytes put back over it. */
static void put_kept(struct ktext *kt, uint64_t addr, uint8_t *buf, size_t len)
{
	/*
	 * Nothing kept (the plan's scans, before any probe): no lock for each
	 * of tens of thousands of reads. A keep under way is missed as if
	 * the read had come first.
	 */
	if (!__atomic_load_n(&kt->nkept, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&kt->lock);
	for (size_t i = kept_from(kt, addr); i < kt->nkept && kt->kept[i].addr < addr + len; i++) {
		const struct ktext_kept *k = &kt->kept[i];
		uint64_t lo = k->addr > addr ? k->addr : addr;
		uint64_t hi = k->addr + KTEXT_KEEP < addr + len ? k->addr + KTEXT_KEEP : addr + len;

		memcpy(buf + (lo - addr), k->bytes + (lo - k->addr), hi - lo);
	}
	pthread_mutex_unlock(&kt->lock);
}

static int read_text(struct ktext *kt, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; i < kt->nsegs; i++) {
		const struct kseg *s = &kt->segs[i];
		ssize_t r;

		if (addr < s->vaddr || addr + len > s->vaddr + s->size)
			continue;
		r = read_at(kt, buf, len, s->off + (addr - s->vaddr));
		if (r < 0)
			return (int)r;
		return (size_t)r == len ? 0 : -EIO;
	}
	return -ERANGE;
}

int ktext__read(struct ktext *kt, uint64_t addr, void *buf, size_t len)
{
	int err = read_text(kt, addr, buf, len);

	if (!err)
		put_kept(kt, addr, buf, len);
	return err;
}

int ktext__keep(struct ktext *kt, uint64_t addr)
{
	struct ktext_kept k = { .addr = addr };
	size_t at;
	int err;

	/* Read as it is now, with what is kept already put back. */
	err = ktext__read(kt, addr, k.bytes, sizeof(k.bytes));
	if (err)
		return err;
	pthread_mutex_lock(&kt->lock);
	at = kept_from(kt, addr);
	while (at < kt->nkept && kt->kept[at].addr < addr)
		at++;
	if (at < kt->nkept && kt->kept[at].addr == addr)
		goto out; /* kept before: the first copy holds */
	if (kt->nkept == kt->capkept) {
		size_t cap = kt->capkept ? kt->capkept * 2 : 256;
		struct ktext_kept *n = realloc(kt->kept, cap * sizeof(*n));

		if (!n) {
			err = -ENOMEM;
			goto out;
		}
		kt->kept = n;
		kt->capkept = cap;
	}
	memmove(&kt->kept[at + 1], &kt->kept[at], (kt->nkept - at) * sizeof(k));
	kt->kept[at] = k;
	__atomic_store_n(&kt->nkept, kt->nkept + 1, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&kt->lock);
	return err;
}

/* ELF notes are 4-byte aligned: name and descriptor padded to it. */
#define NOTE_ALIGN(x) (((x) + 3) & ~(size_t)3)

int ktext__note(struct ktext *kt, const char *name, char *buf, size_t cap)
{
	size_t size = kt->note_size, at = 0, want = strlen(name) + 1;
	char *notes;
	int err = -ENOENT;

	/* /proc/kcore's notes are a few KiB: a bound against a corrupt header. */
	if (!size || size > (1u << 20) || !cap)
		return -ENOENT;
	notes = malloc(size);
	if (!notes)
		return -ENOMEM;
	if (read_at(kt, notes, size, kt->note_off) != (ssize_t)size) {
		free(notes);
		return -EIO;
	}
	while (at + sizeof(Elf64_Nhdr) <= size) {
		Elf64_Nhdr nh;
		size_t desc;

		memcpy(&nh, notes + at, sizeof(nh));
		desc = at + sizeof(nh) + NOTE_ALIGN(nh.n_namesz);
		if (nh.n_namesz > size || nh.n_descsz > size || desc + nh.n_descsz > size)
			break;
		if (nh.n_namesz == want && !memcmp(notes + at + sizeof(nh), name, want)) {
			size_t n = nh.n_descsz < cap - 1 ? nh.n_descsz : cap - 1;

			memcpy(buf, notes + desc, n);
			buf[n] = 0;
			err = (int)n;
			break;
		}
		at = desc + NOTE_ALIGN(nh.n_descsz);
	}
	free(notes);
	return err;
}

int ktext__read_ahead(struct ktext *kt, struct ktext_window *w, uint64_t addr, void *buf,
		      size_t len)
{
	if (addr >= w->lo && addr + len <= w->hi && addr + len > addr) {
		memcpy(buf, w->buf + (addr - w->lo), len);
		put_kept(kt, addr, buf, len);
		return 0;
	}
	if (!w->buf && !(w->buf = malloc(KTEXT_WINDOW)))
		return ktext__read(kt, addr, buf, len);
	w->lo = w->hi = 0;
	for (size_t i = 0; i < kt->nsegs; i++) {
		const struct kseg *s = &kt->segs[i];
		uint64_t n;
		ssize_t r;

		if (addr < s->vaddr || addr >= s->vaddr + s->size)
			continue;
		n = s->vaddr + s->size - addr;
		if (n > KTEXT_WINDOW)
			n = KTEXT_WINDOW;
		r = read_at(kt, w->buf, n, s->off + (addr - s->vaddr));
		if (r > 0) {
			w->lo = addr;
			w->hi = addr + (uint64_t)r;
		}
		break;
	}
	if (addr + len <= w->hi) {
		memcpy(buf, w->buf, len);
		put_kept(kt, addr, buf, len);
		return 0;
	}
	/* The end of a segment, or a window that could not be read: as asked. */
	return ktext__read(kt, addr, buf, len);
}

void ktext__window_free(struct ktext_window *w)
{
	free(w->buf);
	*w = (struct ktext_window){ 0 };
}
