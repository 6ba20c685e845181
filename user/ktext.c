// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "ktext.h"

struct kseg {
	uint64_t vaddr, size, off;
};

struct ktext {
	int fd;
	struct kseg *segs;
	size_t nsegs;
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

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
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
	free(kt->segs);
	free(kt);
}

int ktext__read(struct ktext *kt, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; i < kt->nsegs; i++) {
		const struct kseg *s = &kt->segs[i];
		ssize_t r;

		if (addr < s->vaddr || addr + len > s->vaddr + s->size)
			continue;
		r = pread(kt->fd, buf, len, (off_t)(s->off + (addr - s->vaddr)));
		if (r < 0)
			return -errno;
		return (size_t)r == len ? 0 : -EIO;
	}
	return -ERANGE;
}

static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* Offset of the fentry site (after an optional endbr64), or -1. */
static int fentry_site(const uint8_t *code, size_t len)
{
	size_t off = 0;

	if (len >= 4 && !memcmp(code, endbr64, 4))
		off = 4;
	if (len < off + 5)
		return -1;
	if (!memcmp(code + off, nop5, 5) || code[off] == 0xe8)
		return (int)off;
	return -1;
}

static int is_branch(unsigned int id)
{
	return id == X86_INS_CALL || id == X86_INS_JMP;
}

int kcode__scan(const uint8_t *code, size_t len, uint64_t addr, uint64_t *targets,
		size_t max, struct kcode_info *info)
{
	const uint8_t *p = code;
	uint64_t pc = addr;
	size_t left = len;
	int site = fentry_site(code, len);
	csh h;
	cs_insn *insn;

	memset(info, 0, sizeof(*info));
	info->fentry_site = site >= 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -EINVAL;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(h);
	if (!insn) {
		cs_close(&h);
		return -ENOMEM;
	}
	while (left) {
		if (!cs_disasm_iter(h, &p, &left, &pc, insn)) {
			/* Data or padding in the text: skip a byte and resync. */
			p++, left--, pc++;
			continue;
		}
		if (!is_branch(insn->id) || insn->detail->x86.op_count != 1 ||
		    insn->detail->x86.operands[0].type != X86_OP_IMM)
			continue;
		if (site >= 0 && insn->address == addr + (uint64_t)site)
			continue;
		uint64_t t = (uint64_t)insn->detail->x86.operands[0].imm;

		if (t >= addr && t < addr + len)
			continue;
		if (info->ncalls < max)
			targets[info->ncalls] = t;
		info->ncalls++;
	}
	cs_free(insn, 1);
	cs_close(&h);
	return 0;
}
