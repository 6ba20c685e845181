/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What plan.c and callees.c share. */
#ifndef BG_PLAN_INT_H
#define BG_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* A function's code read at most (bytes), and the call targets kept of it. */
#define MAX_CODE (64 * 1024)
#define MAX_TARGETS 4096

/* s's code into buf (MAX_CODE bytes at most; *len: how much): 0 or -errno. */
int plan_read_code(const struct plan_opts *o, const struct ksym *s, uint8_t *buf, size_t *len);
/*
 * What s calls, up to max into out: its direct callees first (*ndirect of
 * them), then what it calls through tables in kernel data (operation
 * tables with look_through, for a function no hook may enter; static
 * calls' tables). code: MAX_CODE bytes, targets: MAX_TARGETS, the caller's
 * buffers. The count, or -errno when decoding fails.
 */
int plan_callees_of(const struct plan_opts *o, const struct ksym *s, bool look_through,
		    uint8_t *code, uint64_t *targets, const struct ksym **out, size_t max,
		    int *ndirect);

#endif
