/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * trace-cmd data files ("trace.dat", trace-cmd.dat.v6(5) and .v7(5)):
 * what the writer (out_tracecmd.c) and the reader (user/record/tcdat.c)
 * share. A file is the kernel's tracefs metadata (header_page,
 * header_event, event formats, kallsyms, saved_cmdlines) followed by
 * per-CPU ring buffer pages copied as the kernel lays them out.
 *
 * bpfgraph writes version 6, little-endian, 8-byte longs, 4096-byte
 * pages, and ftrace's funcgraph_entry and funcgraph_exit events in the
 * layout of kernels 6.5 to 6.12 with CONFIG_FUNCTION_GRAPH_RETVAL
 * (kernel/trace/trace_entries.h, packed struct ftrace_graph_ent and
 * ftrace_graph_ret):
 *   funcgraph_entry (ID 11, 20 bytes): common fields (u16 type, u8 flags,
 *     u8 preempt_count, s32 pid), u64 func @8, s32 depth @16
 *   funcgraph_exit (ID 10, 48 bytes): common fields, u64 func @8,
 *     u64 retval @16, s32 depth @24, u32 overrun @28, u64 calltime @32,
 *     u64 rettime @40
 * One funcgraph_entry per call, one funcgraph_exit per return: a leaf
 * call is the two back to back, as the kernel records it.
 *
 * What function_graph text shows and trace.dat has no place for goes in
 * one option of bpfgraph's own (TCDAT_OPT_BPFGRAPH), text lines a reader
 * that does not know it skips (trace-cmd says "unknown option"):
 *   "bpfgraph 1"           the first line, the option's version
 *   "flags 0x%x"           BG_O_* of the trace
 *   "dialect %u"           enum bg_dialect
 *   "cpus %u"              nr_cpu_ids (the CPU column's width)
 *   "header %u"            the "# tracer" block
 *   "ret ADDR KIND SIZE[ TYPE]"  a function's return type (KIND: enum
 *                          bg_ret_kind, SIZE bytes, TYPE its C spelling)
 * and a funcgraph_exit whose return was missed (BG_RF_NOEXIT, no value)
 * has overrun 1.
 */
#ifndef BG_TCDAT_LAYOUT_H
#define BG_TCDAT_LAYOUT_H

#include "ftpage.h"

#define TCDAT_MAGIC "\x17\x08\x44tracing"
#define TCDAT_MAGIC_LEN 10
#define TCDAT_PAGE_SIZE 4096
#define TCDAT_PAGE_HDR 16 /* u64 time_stamp, local_t commit */
#define TCDAT_PAGE_DATA (TCDAT_PAGE_SIZE - TCDAT_PAGE_HDR)

/* The kernel's ring buffer pages, as tracefs hands them out (ftpage.h). */
#define TCDAT_TYPE_PADDING FTP_TYPE_PADDING
#define TCDAT_TYPE_TIME_EXTEND FTP_TYPE_TIME_EXTEND
#define TCDAT_TYPE_TIME_STAMP FTP_TYPE_TIME_STAMP
#define TCDAT_TYPE_DATA_MAX FTP_TYPE_DATA_MAX
#define TCDAT_TS_BITS FTP_TS_BITS
#define TCDAT_MISSED_EVENTS FTP_MISSED_EVENTS
#define TCDAT_MISSED_STORED FTP_MISSED_STORED
#define TCDAT_COMMIT_MASK FTP_COMMIT_MASK

/* ftrace's event IDs (enum trace_type, kernel/trace/trace.h) */
#define TCDAT_ID_GRAPH_RET 10
#define TCDAT_ID_GRAPH_ENT 11
#define TCDAT_ENTRY_SIZE 20
#define TCDAT_EXIT_SIZE 48

/* trace-cmd's option IDs (trace-cmd.dat.v6(5), .v7(5)) */
#define TCDAT_OPT_DONE 0
#define TCDAT_OPT_TRACECLOCK 4
#define TCDAT_OPT_UNAME 5
#define TCDAT_OPT_CPUCOUNT 8
#define TCDAT_OPT_VERSION 9
#define TCDAT_OPT_BUFFER 3
#define TCDAT_OPT_HEADER_INFO 16
#define TCDAT_OPT_FTRACE_EVENTS 17
#define TCDAT_OPT_EVENT_FORMATS 18
#define TCDAT_OPT_KALLSYMS 19
#define TCDAT_OPT_PRINTK 20
#define TCDAT_OPT_CMDLINES 21
#define TCDAT_OPT_BUFFER_TEXT 22
/* bpfgraph's own, far above trace-cmd's */
#define TCDAT_OPT_BPFGRAPH 0x4267
#define TCDAT_BPFGRAPH_VERSION 1

/*
 * Addresses for functions that have none (read from text), far below
 * where any kernel puts its text (0xffffffff8... on x86-64).
 */
#define TCDAT_SYNTH_BASE 0xffff000000000000ULL
#define TCDAT_SYNTH_STEP 16

#endif
