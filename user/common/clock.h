/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The clocks bpfgraph reads: the records' (monotonic), the boot clock the
 * kernel stamps BPF programs' loads with, and a thread's CPU time.
 */
#ifndef BG_COMMON_CLOCK_H
#define BG_COMMON_CLOCK_H

#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: the clock of the records' timestamps. */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* CLOCK_BOOTTIME in ns: bpf_prog_info's load_time. */
static inline uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The calling thread's CPU time in ns, 0 if it cannot be read. */
static inline uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The calling thread's CPU time in ns, all of it and the kernel's part
 * (getrusage()'s split of it, by the ticks that fell in each), and its
 * minor page faults; 0 for what cannot be read.
 */
struct cpu_mark {
	uint64_t all, sys, minflt;
};

static inline struct cpu_mark cpu_mark(void)
{
	struct cpu_mark m = { .all = thread_cpu_ns() };
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return m;
	m.sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_stime.tv_usec * 1000ULL;
	m.minflt = (uint64_t)ru.ru_minflt;
	return m;
}

#endif
