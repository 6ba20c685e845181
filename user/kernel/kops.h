/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Operation tables in kernel data: what code that no probe may enter
 * (notrace, such as the scheduler's __schedule) calls through pointers.
 *
 * Such code often names the tables it calls through: the scheduler
 * compares a task's class with &fair_sched_class and walks the classes,
 * laid out one after the other, from the first to the last. So the data
 * addresses a function's code names are tried as instances of the kernel's
 * structures (BTF) whose members are function pointers: an instance holds
 * in each such member nothing or the start of a kernel function, and
 * instances of the same structure that lie next to it are taken too. A
 * member and the function it points to must agree on the number of
 * arguments (BTF), which tells a table from another structure laid over
 * it (a larger one spanning two tables, one shifted by a member). The
 * targets are the members at the offsets the code's indirect calls load
 * their target from (all function pointer members where that is not
 * known). Nothing here names a structure.
 */
#ifndef BG_KOPS_H
#define BG_KOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kbtf;
struct ksyms;
struct ktext;
struct kops;

/* NULL + errno (no vmlinux BTF, out of memory). */
struct kops *kops__new(struct kbtf *kb, const struct ksyms *ks, struct ktext *kt);
void kops__free(struct kops *ko);
/*
 * The functions code (len bytes at addr) may call through the operation
 * tables it names: up to max into out (each once, starts of text symbols);
 * returns how many there are, or -errno.
 */
int kops__targets(struct kops *ko, const uint8_t *code, size_t len, uint64_t addr,
		  uint64_t *out, size_t max);

/*
 * The functions code (len bytes at addr) may call through tables of
 * static calls it names: a table whose slots hold, among other pointers,
 * a static call's trampoline (a jmp to the function the call is set to),
 * such as the LSM hook tables a security_* function walks when it calls
 * each module's hook through a pointer. For code with an indirect call
 * (kcode_info.nindirect, or a call to a retpoline thunk: kops__is_thunk());
 * a table is read up to its first empty slot. Up to max into out (each
 * once); returns how many there are, or -errno.
 */
int kops__stub_targets(struct kops *ko, const uint8_t *code, size_t len, uint64_t addr,
		       uint64_t *out, size_t max);
/* Whether addr is a retpoline thunk's: a call to it is an indirect call. */
bool kops__is_thunk(const struct kops *ko, uint64_t addr);

#endif
