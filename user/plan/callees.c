// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a function calls, for the plan and for live discovery: its direct
 * calls and tail jumps, decoded from its code, then what it calls through
 * tables in kernel data (kops.h): operation tables named by code no probe
 * may enter, static calls' tables named by code with an indirect call.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "kops.h"
#include "ksyms.h"
#include "ktext.h"
#include "plan.h"
#include "plan_int.h"

/*
 * The functions s calls directly (or tail-jumps to), up to max, using the
 * caller's buffers: code (MAX_CODE bytes), targets (MAX_TARGETS). Code
 * that cannot be read has no callees; -errno when decoding fails.
 */
static int callees_of(const struct plan_opts *o, const struct ksym *s, uint8_t *code,
		      uint64_t *targets, const struct ksym **out, size_t max, size_t *len,
		      bool *indirect)
{
	struct kcode_info ci;
	size_t n = 0;
	int err;

	*indirect = false;
	if (!o->kt || plan_read_code(o, s, code, len)) {
		*len = 0;
		return 0;
	}
	err = kcode__scan(code, *len, s->addr, o->ks, targets, MAX_TARGETS, &ci);
	if (err)
		return err;
	*indirect = ci.nindirect > 0;
	for (size_t k = 0; k < ci.ncalls && k < MAX_TARGETS; k++) {
		const struct ksym *t = ksyms__find_addr(o->ks, targets[k]);

		if (o->ops && kops__is_thunk(o->ops, targets[k]))
			*indirect = true;
		if (t && t->addr == targets[k] && n < max)
			out[n++] = t;
	}
	return (int)n;
}

/* The kernel functions that targets[0..n) start (up to max into out): how many. */
static int starts_of(const struct plan_opts *o, const uint64_t *targets, int n,
		     const struct ksym **out, size_t max)
{
	int k = 0;

	for (int i = 0; i < n && i < MAX_TARGETS && (size_t)k < max; i++) {
		const struct ksym *t = ksyms__find_addr(o->ks, targets[i]);

		if (t && t->addr == targets[i])
			out[k++] = t;
	}
	return k;
}

/*
 * What code no probe may enter calls through the operation tables it names
 * (kops.h): nothing at run time would show those calls. code: its len
 * bytes, as callees_of() read them. Up to max into out; their count or
 * -errno.
 */
static int ops_callees(const struct plan_opts *o, const struct ksym *s, const uint8_t *code,
		       size_t len, uint64_t *targets, const struct ksym **out, size_t max)
{
	int n;

	if (!len)
		return 0;
	n = kops__targets(o->ops, code, len, s->addr, targets, MAX_TARGETS);
	return n < 0 ? n : starts_of(o, targets, n, out, max);
}

/*
 * What code calls through tables of static calls it names (kops.h): the
 * LSM hook tables a security_* function walks, calling each module's hook
 * through a pointer. Where the wide net met that function but not those
 * calls (a path the first call skipped), nothing else would show them
 * once it is closed. Arguments as for ops_callees(); indirect: whether
 * the code calls through a pointer at all (callees_of()).
 */
static int stub_callees(const struct plan_opts *o, const struct ksym *s, const uint8_t *code,
			size_t len, bool indirect, uint64_t *targets, const struct ksym **out,
			size_t max)
{
	int n;

	if (!len || !o->ops || !indirect)
		return 0;
	n = kops__stub_targets(o->ops, code, len, s->addr, targets, MAX_TARGETS);
	return n < 0 ? 0 : starts_of(o, targets, n, out, max);
}

int plan_callees_of(const struct plan_opts *o, const struct ksym *s, bool look_through,
		    uint8_t *code, uint64_t *targets, const struct ksym **out, size_t max,
		    int *ndirect)
{
	bool indirect;
	size_t len;
	int n = callees_of(o, s, code, targets, out, max, &len, &indirect);

	*ndirect = n;
	if (n < 0)
		return n;
	if (look_through && o->ops) {
		int m = ops_callees(o, s, code, len, targets, out + n, max - (size_t)n);

		n = m < 0 ? n : n + m;
	}
	return n + stub_callees(o, s, code, len, indirect, targets, out + n, max - (size_t)n);
}

int plan__callees(const struct plan_opts *o, const struct ksym *s, const struct ksym **out,
		  size_t max)
{
	uint8_t *code = malloc(MAX_CODE);
	uint64_t *targets = malloc(MAX_TARGETS * sizeof(*targets));
	int n = -ENOMEM, ndirect;

	if (code && targets)
		n = plan_callees_of(o, s, false, code, targets, out, max, &ndirect);
	free(code);
	free(targets);
	return n;
}
