// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpfgraph.h"
#include "functab.h"
#include "icall.h"
#include "ksyms.h"
#include "ktext.h"
#include "links.h"

#define ICALL_MAX_CODE (64 * 1024)
#define ICALL_MAX_SITES 256

struct icall {
	struct bpf_program *prog;
	struct ktext *kt;
	uint64_t thunks[BG_REG_NR];
	struct linkvec links;
	uint8_t *code;
	/* icall__wrap: functions probed at their call sites */
	struct bpf_program *wentry, *wexit;
	uint64_t waddr[ICALL_MAX_WRAP];
	uint32_t widx[ICALL_MAX_WRAP];
	size_t nwrap;
	uint64_t wck; /* added to the cookies of the call-site probes (icall__set_ck) */
	bool no_indirect;
	/*
	 * The kernel refused a kprobe in a function without an fentry site:
	 * without CONFIG_KPROBE_EVENTS_ON_NOTRACE it refuses them all, so
	 * the others are not even tried.
	 */
	bool notrace_refused;
	struct icall_stats st;
	int verbose;
	FILE *err;
};

static const char *const reg_names[BG_REG_NR] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

struct icall *icall__new(struct bpf_program *prog, const struct ksyms *ks, struct ktext *kt,
			 int verbose, FILE *err)
{
	struct icall *ic = calloc(1, sizeof(*ic));

	if (!ic)
		return NULL;
	ic->code = malloc(ICALL_MAX_CODE);
	if (!ic->code) {
		free(ic);
		errno = ENOMEM;
		return NULL;
	}
	ic->prog = prog;
	ic->kt = kt;
	ic->verbose = verbose;
	ic->err = err;
	kcode__thunks(ks, ic->thunks);
	return ic;
}

void icall__set_ck(struct icall *ic, uint64_t ck)
{
	ic->wck = ck;
}

int icall__wrap(struct icall *ic, struct bpf_program *entry, struct bpf_program *exit,
		uint64_t addr, uint32_t idx)
{
	for (size_t i = 0; i < ic->nwrap; i++)
		if (ic->waddr[i] == addr)
			return 0;
	if (ic->nwrap == ICALL_MAX_WRAP)
		return -E2BIG;
	ic->wentry = entry;
	ic->wexit = exit;
	ic->waddr[ic->nwrap] = addr;
	ic->widx[ic->nwrap++] = idx;
	return 0;
}

static struct bpf_link *kprobe_at(struct icall *ic, struct bpf_program *prog, uint64_t addr,
				  uint64_t cookie)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = cookie);

	/*
	 * The bytes the probe replaces, kept first: the code read after it
	 * (a caller's callees found late) decodes as built. Without them that
	 * code holds an int3 or a jump where a call was, and the callee it
	 * named is never found (lru_add's folio_mapping on 6.12).
	 */
	if (ic->kt)
		ktext__keep(ic->kt, addr);
	/* No name: the offset is the absolute address (one symbol of
	 * several with that name would be ambiguous). */
	ko.offset = addr;
	return bpf_program__attach_kprobe_opts(prog, NULL, &ko);
}

/*
 * Whether another probe of f's goes at offset off: the entry of a call
 * site (csites, those kprobed) or an indirect call's (isites, ni of them).
 */
static bool probed_at(const struct kcode_csite *cs, int n, const struct kcode_isite *is, int ni,
		      uint32_t off)
{
	for (int i = 0; i < n; i++)
		if (cs[i].plain && cs[i].off == off)
			return true;
	for (int i = 0; i < ni; i++)
		if (is[i].usable && is[i].probe_off == off)
			return true;
	return false;
}

/*
 * The exit probe of call site cs in f, or NULL with BG_CK_TAIL or
 * BG_CK_LAZY added to *ck: a tail jump's callee returns for f (bg_exit
 * closes both); a site refused after the call (a jump label or a BUG's
 * ud2 there) has its frame closed by the task's next event, as the
 * wrapped functions call nothing traced. So has a site whose next
 * instruction holds another probe of ours (shared: two calls in a row,
 * `call __rcu_read_lock; call __rcu_read_lock`): the kernel runs the
 * handlers of one address newest first, so the second call's entry
 * would come before the first one's exit and nest in it. That entry is
 * the next event, at the very address of the return. And so has a site
 * whose next instruction a jump lands on (cs->join: `if (x)
 * rcu_read_lock();`): a probe there would also run where the call was
 * skipped, an exit without its entry, or one that closes an outer call.
 */
static struct bpf_link *site_exit(struct icall *ic, const struct bg_func *f,
				  const struct kcode_csite *cs, bool shared, uint64_t *ck)
{
	struct bpf_link *l;

	if (cs->tail) {
		*ck |= BG_CK_TAIL;
		return NULL;
	}
	if (shared || cs->join) {
		*ck |= BG_CK_LAZY;
		return NULL;
	}
	l = kprobe_at(ic, ic->wexit, f->addr + cs->off + cs->size, *ck);
	if (!l) {
		if (ic->verbose > 1)
			fprintf(ic->err, "bpfgraph: no probe after the call at %s+0x%x (%s): its "
				"return is taken at the next event\n", f->name, cs->off,
				strerror(errno));
		*ck |= BG_CK_LAZY;
	}
	return l;
}

/*
 * Kprobes around f's calls to wrapped functions: how many calls or -errno.
 * notrace: f has no fentry site (icall__probe_calls). isites: f's
 * indirect calls (ni), probed after this where they are followed: no
 * call site's exit goes at their address.
 */
static int probe_wrapped(struct icall *ic, const struct bg_func *f, size_t len, bool notrace,
			 const struct kcode_isite *isites, int ni)
{
	struct kcode_csite sites[ICALL_MAX_SITES];
	int n, stored, placed = 0, err;
	double t0;

	if (!ic->nwrap || (f->flags & BG_FN_CALLSITE))
		return 0;
	t0 = links__now();
	n = kcode__calls_to(ic->code, len, f->addr, ic->waddr, ic->nwrap, sites,
			    ICALL_MAX_SITES);
	ic->st.read_s += links__now() - t0;
	if (n <= 0)
		return n;
	ic->st.csites += n;
	/* What kcode__calls_to() and kcode__indirect() stored of what they counted. */
	stored = n < ICALL_MAX_SITES ? n : ICALL_MAX_SITES;
	ni = ni < ICALL_MAX_SITES ? ni : ICALL_MAX_SITES;
	if (notrace && ic->notrace_refused) {
		ic->st.cnotrace += n;
		return n;
	}
	for (int i = 0; i < stored; i++) {
		uint64_t at = f->addr + sites[i].off;
		uint64_t ck = ic->widx[sites[i].which] | BG_CK_CALLSITE | ic->wck;
		struct bpf_link *l[2];

		/* A prefixed call: 6.1 emulates a probed call as 5 bytes long. */
		if (!sites[i].plain) {
			ic->st.cunusable++;
			continue;
		}
		/* The exit first: no entry without its exit. */
		l[1] = site_exit(ic, f, &sites[i],
				 probed_at(sites, stored, isites, ni, sites[i].off + sites[i].size),
				 &ck);
		l[0] = kprobe_at(ic, ic->wentry, at, ck);
		if (!l[0] && notrace && errno == EINVAL) {
			/* trace_kprobe's "Could not probe notrace function". */
			ic->notrace_refused = true;
			ic->st.cnotrace += n - i;
			if (ic->verbose)
				fprintf(ic->err, "bpfgraph: the kernel refuses kprobes in functions "
					"without an fentry site (%s+0x%x; "
					"CONFIG_KPROBE_EVENTS_ON_NOTRACE is off): their calls "
					"to functions traced at call sites are not seen\n",
					f->name, sites[i].off);
			bpf_link__destroy(l[1]);
			break;
		}
		if (!l[0]) {
			ic->st.cfailed++;
			if (ic->verbose)
				fprintf(ic->err, "bpfgraph: cannot probe the call at %s+0x%x: %s\n",
					f->name, sites[i].off, strerror(errno));
			bpf_link__destroy(l[1]);
			continue;
		}
		if (ck & BG_CK_LAZY)
			ic->st.clazy++;
		if (l[1] && (err = linkvec__push(&ic->links, l[1]))) {
			bpf_link__destroy(l[0]);
			bpf_link__destroy(l[1]);
			return err;
		}
		if ((err = linkvec__push(&ic->links, l[0]))) {
			bpf_link__destroy(l[0]);
			return err;
		}
		placed++;
	}
	ic->st.cprobed += placed;
	return n;
}

/* f's text (at most ICALL_MAX_CODE bytes) into ic->code; *len its length. */
static int read_text(struct icall *ic, const struct bg_func *f, size_t *len)
{
	*len = f->size ? f->size : 16;
	if (!ic->kt)
		return -ENOENT;
	if (*len > ICALL_MAX_CODE)
		*len = ICALL_MAX_CODE;
	return ktext__read(ic->kt, f->addr, ic->code, *len);
}

int icall__probe_calls(struct icall *ic, const struct bg_func *f)
{
	double t0 = links__now();
	size_t len;
	int err = read_text(ic, f, &len);

	if (err)
		return err;
	ic->st.read_s += links__now() - t0;
	err = probe_wrapped(ic, f, len, true, NULL, 0);
	ic->st.attach_s += links__now() - t0;
	return err;
}

int icall__probe(struct icall *ic, uint32_t idx, const struct bg_func *f)
{
	struct kcode_isite sites[ICALL_MAX_SITES];
	double t0 = links__now();
	int n, placed = 0, err;
	size_t len;

	if (!ic->kt)
		return -ENOENT;
	if (idx >= BG_IC_MAX_FUNCS)
		return -E2BIG;
	err = read_text(ic, f, &len);
	if (err) {
		if (ic->verbose > 1)
			fprintf(ic->err, "bpfgraph: cannot read the text of %s: %s\n", f->name,
				strerror(-err));
		return err;
	}
	/* Off: no indirect call is probed, so none needs finding. */
	n = ic->no_indirect ? 0 :
	    kcode__indirect(ic->code, len, f->addr, ic->thunks, sites, ICALL_MAX_SITES);
	ic->st.read_s += links__now() - t0;
	if (ic->verbose > 2)
		fprintf(ic->err, "bpfgraph: %s: %d indirect call sites in %zu bytes\n", f->name, n,
			len);
	if (n < 0)
		return n;
	err = probe_wrapped(ic, f, len, false, sites, ic->no_indirect ? 0 : n);
	if (err < 0 || ic->no_indirect) {
		ic->st.attach_s += links__now() - t0;
		return err < 0 ? err : 0;
	}
	ic->st.funcs++;
	ic->st.sites += n;
	for (int i = 0; i < n && i < ICALL_MAX_SITES; i++) {
		struct bpf_link *l;
		uint64_t ck;

		if (!sites[i].usable) {
			ic->st.unusable++;
			if (ic->verbose > 1)
				fprintf(ic->err, "bpfgraph: indirect %s at %s+0x%x: no safe place "
					"to read its target\n", sites[i].tail ? "jump" : "call",
					f->name, sites[i].off);
			continue;
		}
		ck = idx | (uint64_t)sites[i].reg << BG_IC_REG_SHIFT |
		     (sites[i].mode == KSITE_LOAD ? BG_IC_LOAD : 0) |
		     (uint64_t)(uint32_t)sites[i].disp << BG_IC_DISP_SHIFT;
		l = kprobe_at(ic, ic->prog, f->addr + sites[i].probe_off, ck);
		if (!l) {
			ic->st.failed++;
			if (ic->verbose)
				fprintf(ic->err, "bpfgraph: cannot probe the indirect call at "
					"%s+0x%x (at +0x%x): %s\n", f->name, sites[i].off,
					sites[i].probe_off, strerror(errno));
			continue;
		}
		if (ic->verbose > 1)
			fprintf(ic->err, "bpfgraph: indirect %s at %s+0x%x: target read at +0x%x "
				"from %s%s%s\n", sites[i].tail ? "jump" : "call", f->name,
				sites[i].off, sites[i].probe_off,
				sites[i].mode == KSITE_LOAD ? "memory at " : "",
				reg_names[sites[i].reg], sites[i].mode == KSITE_LOAD ? "+disp" : "");
		err = linkvec__push(&ic->links, l);
		if (err) {
			bpf_link__destroy(l);
			return err;
		}
		placed++;
	}
	ic->st.probes += placed;
	ic->st.attach_s += links__now() - t0;
	return placed;
}

void icall__set_indirect(struct icall *ic, bool on)
{
	ic->no_indirect = !on;
}

const struct icall_stats *icall__stats(const struct icall *ic)
{
	return &ic->st;
}

void icall__detach(struct icall *ic)
{
	if (!ic)
		return;
	ic->st.detach_s += linkvec__destroy_all(&ic->links);
}

void icall__free(struct icall *ic)
{
	if (!ic)
		return;
	icall__detach(ic);
	linkvec__free(&ic->links);
	free(ic->code);
	free(ic);
}
