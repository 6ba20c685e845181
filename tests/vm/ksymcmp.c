// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Runs in the QEMU guest (tests/vm/scenarios/ksyms_kcore.sh): the symbol
 * table read from kernel memory (ksyms__load_kcore()) against the one
 * read from /proc/kallsyms (ksyms__load()), symbol by symbol: address,
 * type, name, module, extent, the kept data symbols. Symbols of the
 * pseudo-modules /proc/kallsyms lists after the modules ([bpf],
 * [__builtin__ftrace], [__builtin__kprobes]) are left out of the
 * comparison, as the kernel-memory reader does not read them, and so is
 * the extent of a symbol whose next address is one of theirs (kprobes'
 * instruction pages, BPF programs and trampolines lie among the modules).
 * Prints "KEY value" lines; exit 0 when it could compare, whatever it
 * found.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kbtf.h"
#include "ksyms.h"
#include "ktext.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int pseudo(const struct ksym *s)
{
	return s && s->module && (!strcmp(s->module, "bpf") || !strncmp(s->module, "__builtin__", 11));
}

static int same_module(const struct ksym *x, const struct ksym *y)
{
	if (!x->module || !y->module)
		return x->module == y->module;
	return !strcmp(x->module, y->module);
}

static void show(const char *what, const struct ksym *s)
{
	printf("%s %llx %c %s %u %s\n", what, (unsigned long long)s->addr, s->type, s->name, s->size,
	       s->module ? s->module : "-");
}

/* Both tables are sorted by address, then as kallsyms lists them. */
static void compare(const struct ksyms *a, const struct ksyms *b)
{
	size_t i = 0, j = 0, na = ksyms__count(a), nb = ksyms__count(b);
	size_t same = 0, diff = 0, only_a = 0, only_b = 0, mods = 0;
	const char *last_mod = NULL;

	while (i < na || j < nb) {
		const struct ksym *x = i < na ? ksyms__at(a, i) : NULL;
		const struct ksym *y = j < nb ? ksyms__at(b, j) : NULL;

		if (pseudo(x)) {
			i++;
			continue;
		}
		if (x && y && x->addr == y->addr && !strcmp(x->name, y->name)) {
			/* The extent runs to the next address (aliases such as cleanup_module share x's). */
			size_t k = i + 1;
			const struct ksym *next;
			int size_ok;

			while (k < na && ksyms__at(a, k)->addr == x->addr)
				k++;
			next = k < na ? ksyms__at(a, k) : NULL;
			size_ok = x->size == y->size || pseudo(next);

			if (x->type != y->type || !same_module(x, y) || !size_ok) {
				if (diff++ < 10) {
					show("differs-kallsyms", x);
					show("differs-kcore", y);
				}
			} else {
				same++;
			}
			if (y->module && (!last_mod || strcmp(last_mod, y->module))) {
				mods++;
				last_mod = y->module;
			}
			i++;
			j++;
		} else if (x && (!y || x->addr < y->addr ||
				 (x->addr == y->addr && strcmp(x->name, y->name) < 0))) {
			if (only_a++ < 10)
				show("only-kallsyms", x);
			i++;
		} else {
			if (only_b++ < 10)
				show("only-kcore", y);
			j++;
		}
	}
	printf("same %zu\ndiffer %zu\nonly_kallsyms %zu\nonly_kcore %zu\nmodule_runs %zu\n", same,
	       diff, only_a, only_b, mods);
	for (int d = 0; d < KSYMS_DATA_NR; d++)
		printf("data %d %llx %llx\n", d, (unsigned long long)ksyms__data(a, (enum ksyms_data)d),
		       (unsigned long long)ksyms__data(b, (enum ksyms_data)d));
}

int main(void)
{
	double t0, t1, t2;
	struct ksyms *a, *b;
	struct ktext *kt;
	struct kbtf *kb;

	t0 = now();
	a = ksyms__load(NULL);
	t1 = now();
	if (!a) {
		printf("error /proc/kallsyms: %s\n", strerror(errno));
		return 1;
	}
	kb = kbtf__load(NULL);
	kt = ktext__open(NULL);
	if (!kb || !kt) {
		printf("error BTF or /proc/kcore: %s\n", strerror(errno));
		return 1;
	}
	t2 = now();
	b = ksyms__load_kcore(kt, kbtf__btf(kb, NULL));
	if (!b) {
		printf("error kernel memory: %s\n", strerror(errno));
		return 1;
	}
	printf("seconds kallsyms %.3f kcore %.3f\n", t1 - t0, now() - t2);
	printf("source %s\n", ksyms__source(b));
	compare(a, b);
	ksyms__free(a);
	ksyms__free(b);
	ktext__close(kt);
	kbtf__free(kb);
	return 0;
}
