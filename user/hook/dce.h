/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Dead code left out of per-function copies before the kernel sees them.
 *
 * A copy of a template (bg_entry, bg_exit: one per traced function where
 * each function needs a trampoline program of its own) holds every path
 * of the source; the read-only data switch most of them off, and the
 * verifier finds that out again for each copy, then removes the dead
 * instructions one range at a time (6.1: about 970 of an entry copy's
 * 2 130). The verifier's verdict is the same for every copy of a
 * template: the copies differ only in the function they attach to, and
 * no branch of the programs depends on that function's prototype. So one
 * copy is loaded with a line-info record per instruction; the records
 * the kernel keeps name the instructions it kept (dce__live()), and the
 * other copies go without the rest (dce__apply()).
 */
#ifndef BPFGRAPH_HOOK_DCE_H
#define BPFGRAPH_HOOK_DCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>

/*
 * One line-info record per instruction of insns into li (room for cnt),
 * the instruction's index + 1 as its line, none for the second half of a
 * 64-bit load; file and line text the empty string. Returns the count.
 */
size_t dce__linfo(const struct bpf_insn *insns, size_t cnt, struct bpf_line_info *li);

/*
 * Which instructions the kernel kept of a program loaded with
 * dce__linfo()'s records (prog_fd): live[i] for instruction i of the cnt
 * loaded. Returns how many, or -errno (the kernel gave no records, or
 * records that are not dce__linfo()'s).
 */
int dce__live(int prog_fd, size_t cnt, bool *live);

/*
 * insns without the instructions live[] leaves out, into out (room for
 * cnt): a conditional jump whose target is dead is left out too (it is
 * never taken), one whose next instruction is dead becomes a plain jump;
 * jumps and calls between functions are aimed again. newidx[i] gets
 * where instruction i went (for one left out: where the next one kept
 * went), newidx[cnt] the count. Returns the count written, or 0 (nothing
 * usable) when live[] does not fit the code: a kept instruction's
 * successor dead, a call into dead code, a function's address taken, an
 * offset that no longer fits.
 */
size_t dce__apply(const struct bpf_insn *insns, size_t cnt, const bool *live,
		  struct bpf_insn *out, uint32_t *newidx);

struct prog_src;
/*
 * s (bpfobj.h) without what the kernel left out of probe_fd, a copy of s
 * loaded with dce__linfo()'s records: s->dead says how many instructions,
 * s->full keeps s as it was (for a copy the kernel should refuse without
 * what was left out). 0, or -errno with s as it was (also when s was
 * rewritten before).
 */
int dce__rewrite(struct prog_src *s, int probe_fd);

#endif
