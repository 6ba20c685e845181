// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel symbols read from kernel memory (/proc/kcore) instead of
 * /proc/kallsyms: the kernel formats every line of that file with
 * sprintf(), about 0.5 s of guest time for 200 000 symbols under the
 * bench's emulation, a quarter of a trace's start (docs/performance.md,
 * "Where start goes"). The tables behind it are in memory, and kcore's
 * VMCOREINFO note (what crash dump tools read) gives their addresses:
 *
 * - vmlinux: kallsyms_num_syms, kallsyms_names (per symbol a length, one
 *   byte or two when the first has its top bit set, then that many token
 *   numbers), kallsyms_token_table and _index (a token's text; the
 *   first character of a symbol's text is its type), kallsyms_offsets
 *   and, on kernels that have it, kallsyms_relative_base. How an offset
 *   becomes an address has changed between kernels; no version is
 *   checked: each way is tried against the addresses VMCOREINFO gives for
 *   other symbols (SYMBOL(init_uts_ns) and the like), and the one they
 *   all agree with is taken.
 * - modules: the list at the "modules" symbol, each module's
 *   struct mod_kallsyms (symtab, num_symtab, strtab, typetab), with the
 *   field offsets from the kernel's BTF.
 *
 * The order is /proc/kallsyms' (vmlinux by address, then each module's
 * symbols, newest module first); what /proc/kallsyms adds after the
 * modules (BPF programs and trampolines, ftrace's and kprobes' pages) is
 * not read: nothing at start looks for it. Any doubt (a table that does
 * not decode, an offset rule the anchors do not confirm) and the caller
 * reads /proc/kallsyms instead.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "ksyms.h"
#include "ksyms_int.h"
#include "ktext.h"

#define VMCOREINFO_MAX (16 * 1024)
#define MAX_ANCHORS 32
#define NAME_MAX_LEN 512 /* KSYM_NAME_LEN */
#define TEXT_MAX (NAME_MAX_LEN + 1) /* a symbol's type and name */

struct anchor {
	const char *name;
	uint64_t addr;
	long idx; /* the vmlinux symbol of that name, -1: not seen */
};

struct core {
	struct ktext *kt;
	uint32_t nsyms;
	uint64_t names, offsets, base;
	bool has_base;
	uint16_t tindex[256];
	char *ttable;
	size_t ttable_len;
	int32_t *offs;
	struct anchor anchor[MAX_ANCHORS];
	int nanchor;
	uint64_t anchor_first[4]; /* the anchors' first bytes, a bit each */
	uint64_t modules; /* the module list's head, 0: not seen */
};

/* VMCOREINFO's "SYMBOL(name)=hex" value, 0 when it has none. */
static uint64_t info_symbol(const char *info, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = info; (p = strstr(p, "SYMBOL(")); p++)
		if (!strncmp(p + 7, name, n) && p[7 + n] == ')' && p[8 + n] == '=')
			return strtoull(p + 9 + n, NULL, 16);
	return 0;
}

/* Every other SYMBOL() of VMCOREINFO: what the chosen offset rule must give. */
static void find_anchors(struct core *c, char *info)
{
	for (char *p = info; (p = strstr(p, "SYMBOL(")) && c->nanchor < MAX_ANCHORS; p++) {
		char *end = strchr(p, ')');

		if (!end || end[1] != '=')
			continue;
		*end = 0;
		if (strncmp(p + 7, "kallsyms_", 9)) {
			c->anchor_first[(uint8_t)p[7] >> 6] |= 1ull << ((uint8_t)p[7] & 63);
			c->anchor[c->nanchor].name = p + 7;
			c->anchor[c->nanchor].addr = strtoull(end + 2, NULL, 16);
			c->anchor[c->nanchor++].idx = -1;
		}
		p = end;
	}
}

static int read_u32(struct ktext *kt, uint64_t addr, uint32_t *v)
{
	return ktext__read(kt, addr, v, sizeof(*v));
}

/* The tables' addresses, count, tokens and offsets. 0 or -errno. */
static int read_tables(struct core *c, char *info)
{
	uint64_t tt, ti, ns;
	size_t max = 0;
	int err;

	c->names = info_symbol(info, "kallsyms_names");
	c->offsets = info_symbol(info, "kallsyms_offsets");
	tt = info_symbol(info, "kallsyms_token_table");
	ti = info_symbol(info, "kallsyms_token_index");
	ns = info_symbol(info, "kallsyms_num_syms");
	c->base = info_symbol(info, "kallsyms_relative_base");
	if (!c->names || !c->offsets || !tt || !ti || !ns)
		return -ENOENT;
	if (c->base) {
		err = ktext__read(c->kt, c->base, &c->base, sizeof(c->base));
		if (err)
			return err;
		c->has_base = true;
	}
	err = read_u32(c->kt, ns, &c->nsyms);
	if (!err)
		err = ktext__read(c->kt, ti, c->tindex, sizeof(c->tindex));
	if (err)
		return err;
	if (!c->nsyms || c->nsyms > (1u << 24))
		return -EINVAL;
	for (int i = 0; i < 256; i++)
		if (c->tindex[i] > max)
			max = c->tindex[i];
	/* The last token's text ends within a name's length of its start. */
	c->ttable_len = max + NAME_MAX_LEN;
	c->ttable = malloc(c->ttable_len + 1);
	c->offs = malloc((size_t)c->nsyms * sizeof(*c->offs));
	if (!c->ttable || !c->offs)
		return -ENOMEM;
	err = ktext__read(c->kt, tt, c->ttable, c->ttable_len);
	if (!err)
		err = ktext__read(c->kt, c->offsets, c->offs, (size_t)c->nsyms * sizeof(*c->offs));
	c->ttable[c->ttable_len] = 0;
	return err;
}

/* Offset rules: absolute per-CPU (positive absolute, negative from the base), from the base, from the entry. */
enum rule { RULE_ABS_PERCPU, RULE_BASE, RULE_SELF, RULE_NR };

static uint64_t address(const struct core *c, enum rule r, uint32_t i)
{
	int32_t o = c->offs[i];

	switch (r) {
	case RULE_ABS_PERCPU:
		return o >= 0 ? (uint64_t)(int64_t)o : c->base - 1 - (uint64_t)(int64_t)o;
	case RULE_BASE:
		return c->base + (uint32_t)o;
	default:
		return c->offsets + 4ull * i + (uint64_t)(int64_t)o;
	}
}

/*
 * The rule most anchors agree with: at least three, and no more than one
 * in four against it (a SYMBOL() line may give a variable's value rather
 * than its address: mem_section's does). -1 when none is that clear.
 */
static int choose_rule(const struct core *c)
{
	int best = -1, best_good = 0;

	for (int r = c->has_base ? 0 : RULE_SELF; r < RULE_NR; r++) {
		int good = 0, bad = 0;

		for (int a = 0; a < c->nanchor; a++) {
			if (c->anchor[a].idx < 0)
				continue;
			if (address(c, (enum rule)r, (uint32_t)c->anchor[a].idx) == c->anchor[a].addr)
				good++;
			else
				bad++;
		}
		if (good >= 3 && good >= 3 * bad && good > best_good) {
			best = r;
			best_good = good;
		}
	}
	return best;
}

/* One symbol's text from its tokens: the type, then the name. Its length, or -EINVAL. */
static int expand(const struct core *c, const uint8_t *tok, size_t len, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		const char *t;

		if (c->tindex[tok[i]] >= c->ttable_len)
			return -EINVAL;
		t = c->ttable + c->tindex[tok[i]];
		while (*t) {
			if (n >= TEXT_MAX)
				return -EINVAL;
			out[n++] = *t++;
		}
	}
	out[n] = 0;
	return (int)n;
}

static void see_anchor(struct core *c, const char *name, uint32_t i)
{
	if (!(c->anchor_first[(uint8_t)name[0] >> 6] & 1ull << ((uint8_t)name[0] & 63)))
		return;
	for (int a = 0; a < c->nanchor; a++)
		if (c->anchor[a].idx < 0 && !strcmp(c->anchor[a].name, name))
			c->anchor[a].idx = i;
}

/*
 * vmlinux's symbols, kept ones added with their index for an address
 * (set by set_addresses() once the rule is known). 0 or -errno.
 */
static int decode_names(struct core *c, struct ksyms *ks, uint32_t *first_kept)
{
	struct ktext_window win = { 0 };
	uint64_t at = c->names;
	uint8_t tok[2 + TEXT_MAX];
	char text[TEXT_MAX + 1];
	int err = 0;

	*first_kept = (uint32_t)ks->n;
	for (uint32_t i = 0; i < c->nsyms && !err; i++) {
		size_t len, hdr = 1;
		int n;

		err = ktext__read_ahead(c->kt, &win, at, tok, 2);
		if (err)
			break;
		len = tok[0];
		if (len & 0x80) {
			len = (len & 0x7f) | (size_t)tok[1] << 7;
			hdr = 2;
		}
		if (!len || len > sizeof(tok) - 2) {
			err = -EINVAL;
			break;
		}
		err = ktext__read_ahead(c->kt, &win, at + hdr, tok, len);
		at += hdr + len;
		n = err ? err : expand(c, tok, len, text);
		if (n < 2) {
			err = n < 0 ? n : -EINVAL;
			break;
		}
		see_anchor(c, text + 1, i);
		if (!strcmp(text + 1, "modules"))
			c->modules = i + 1; /* an index + 1 until the rule is known */
		if (ksyms_is_text(text[0]))
			err = ksyms_add_sym(ks, i, text[0], text + 1, -1);
		else
			ksyms_keep_named(ks, i + 1, text + 1);
	}
	ktext__window_free(&win);
	return err;
}

/* Indexes become addresses, by the rule the anchors chose. */
static int set_addresses(struct core *c, struct ksyms *ks, uint32_t from)
{
	int r = choose_rule(c);

	if (r < 0)
		return -EINVAL;
	for (size_t k = from; k < ks->n; k++)
		ks->syms[k].addr = address(c, (enum rule)r, (uint32_t)ks->syms[k].addr);
	for (int d = 0; d < KSYMS_DATA_NR; d++)
		if (ks->data[d])
			ks->data[d] = address(c, (enum rule)r, (uint32_t)(ks->data[d] - 1));
	if (c->modules)
		c->modules = address(c, (enum rule)r, (uint32_t)(c->modules - 1));
	return 0;
}

/* The offsets, in bytes, of what the module walk reads, from BTF. */
struct mod_layout {
	long list, name, state, kallsyms;
	long symtab, num_symtab, strtab, typetab;
};

static long member_off(const struct btf *btf, const char *type, const char *member)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	const struct btf_member *m;

	if (!t)
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return btf_member_bitfield_size(t, i) ? -1 : (long)(btf_member_bit_offset(t, i) / 8);
	return -1;
}

static int mod_layout(const struct btf *btf, struct mod_layout *l)
{
	l->list = member_off(btf, "module", "list");
	l->name = member_off(btf, "module", "name");
	l->state = member_off(btf, "module", "state");
	l->kallsyms = member_off(btf, "module", "kallsyms");
	l->symtab = member_off(btf, "mod_kallsyms", "symtab");
	l->num_symtab = member_off(btf, "mod_kallsyms", "num_symtab");
	l->strtab = member_off(btf, "mod_kallsyms", "strtab");
	l->typetab = member_off(btf, "mod_kallsyms", "typetab");
	return l->list < 0 || l->name < 0 || l->state < 0 || l->kallsyms < 0 || l->symtab < 0 ||
			       l->num_symtab < 0 || l->strtab < 0 || l->typetab < 0 ?
		       -ENOENT :
		       0;
}

#define MODULE_STATE_UNFORMED 3 /* enum module_state: not in kallsyms yet */
#define MODULE_NAME_BYTES 56 /* MODULE_NAME_LEN on 64-bit kernels */
#define MAX_MODULES 8192
#define MAX_MODULE_SYMS (1u << 22)

struct elf64_sym {
	uint32_t st_name;
	uint8_t st_info, st_other;
	uint16_t st_shndx;
	uint64_t st_value, st_size;
};

/* One module's kallsyms table (struct mod_kallsyms at kp). 0 or -errno. */
static int one_module(struct ktext *kt, const struct mod_layout *l, uint64_t kp, const char *name,
		      struct ksyms *ks)
{
	uint8_t mk[64];
	uint64_t symtab, strtab, typetab;
	uint32_t num, maxname = 0;
	struct elf64_sym *sym = NULL;
	char *types = NULL, *strs = NULL;
	size_t slen;
	long moff;
	int err;

	if (l->typetab + 8 > (long)sizeof(mk) || l->symtab + 8 > (long)sizeof(mk) ||
	    l->strtab + 8 > (long)sizeof(mk) || l->num_symtab + 4 > (long)sizeof(mk))
		return -EINVAL;
	err = ktext__read(kt, kp, mk, sizeof(mk));
	if (err)
		return err;
	memcpy(&symtab, mk + l->symtab, 8);
	memcpy(&strtab, mk + l->strtab, 8);
	memcpy(&typetab, mk + l->typetab, 8);
	memcpy(&num, mk + l->num_symtab, 4);
	if (!num)
		return 0;
	if (num > MAX_MODULE_SYMS)
		return -EINVAL;
	sym = malloc((size_t)num * sizeof(*sym));
	types = malloc(num);
	err = !sym || !types ? -ENOMEM : ktext__read(kt, symtab, sym, (size_t)num * sizeof(*sym));
	if (!err)
		err = ktext__read(kt, typetab, types, num);
	for (uint32_t i = 0; !err && i < num; i++)
		if (sym[i].st_name > maxname)
			maxname = sym[i].st_name;
	/* The last name ends within a name's length of its start. */
	slen = (size_t)maxname + NAME_MAX_LEN;
	if (!err && !(strs = malloc(slen + 1)))
		err = -ENOMEM;
	if (!err)
		err = ktext__read(kt, strtab, strs, slen);
	if (!err) {
		strs[slen] = 0;
		moff = ksyms_strs_add(ks, name);
		err = moff < 0 ? (int)moff : 0;
	}
	for (uint32_t i = 0; !err && i < num; i++)
		if (ksyms_is_text(types[i]) && strs[sym[i].st_name])
			err = ksyms_add_sym(ks, sym[i].st_value, types[i], strs + sym[i].st_name, moff);
	free(sym);
	free(types);
	free(strs);
	return err;
}

/* The module list at head, in its order (kallsyms'). 0 or -errno. */
static int walk_modules(struct ktext *kt, const struct btf *btf, uint64_t head, struct ksyms *ks)
{
	struct mod_layout l;
	uint64_t cur, next, kp;
	char name[MODULE_NAME_BYTES + 1];
	int32_t state;
	int err = mod_layout(btf, &l), n = 0;

	if (!err)
		err = ktext__read(kt, head, &cur, sizeof(cur));
	while (!err && cur != head) {
		uint64_t mod = cur - (uint64_t)l.list;

		if (++n > MAX_MODULES)
			return -ELOOP;
		err = ktext__read(kt, cur, &next, sizeof(next));
		if (!err)
			err = ktext__read(kt, mod + (uint64_t)l.name, name, MODULE_NAME_BYTES);
		if (!err)
			err = ktext__read(kt, mod + (uint64_t)l.state, &state, sizeof(state));
		if (!err)
			err = ktext__read(kt, mod + (uint64_t)l.kallsyms, &kp, sizeof(kp));
		name[MODULE_NAME_BYTES] = 0;
		/* A module freed under the walk reads as anything: give up on it. */
		if (!err && (state < 0 || state > MODULE_STATE_UNFORMED))
			err = -EINVAL;
		if (!err && state != MODULE_STATE_UNFORMED && kp)
			err = one_module(kt, &l, kp, name, ks);
		cur = next;
	}
	return err;
}

struct ksyms *ksyms__load_kcore(struct ktext *kt, const struct btf *btf)
{
	struct core c = { .kt = kt };
	struct ksyms *ks = NULL;
	char *info = malloc(VMCOREINFO_MAX);
	uint32_t from = 0;
	int err = -ENOMEM;

	if (!kt || !btf) {
		err = -ENOENT;
		goto out;
	}
	if (!info || !(ks = calloc(1, sizeof(*ks))))
		goto out;
	err = ktext__note(kt, "VMCOREINFO", info, VMCOREINFO_MAX);
	if (err >= 0)
		err = read_tables(&c, info);
	if (!err) {
		find_anchors(&c, info);
		err = decode_names(&c, ks, &from);
	}
	if (!err)
		err = set_addresses(&c, ks, from);
	if (!err && !c.modules)
		err = -ENOENT;
	if (!err)
		err = walk_modules(kt, btf, c.modules, ks);
	if (!err) {
		ks->source = "kernel memory (/proc/kcore)";
		err = ksyms_finish(ks);
	}
out:
	free(info);
	free(c.ttable);
	free(c.offs);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}
