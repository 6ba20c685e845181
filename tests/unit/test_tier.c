// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The hook tier and the first call's net, from what is asked and what the kernel has (tier.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "run.h"
#include "tier.h"

/* Debian's 6.1: no fprobe at all. */
static const struct caps k61 = { .kprobe_multi = { 0 }, .kprobe_session = { 0 } };
/* 6.12: kprobe.multi and kprobe.session, no tracing_multi. */
static const struct caps k612 = { .kprobe_multi = { 1 }, .kprobe_session = { 1 } };
/* 7.x: all three. */
static const struct caps k73 = { .kprobe_multi = { 1 }, .kprobe_session = { 1 },
				  .tracing_multi = { 1 } };

static struct tier choose(const struct caps *c, enum bg_hook hook, enum bg_wide wide, bool ft)
{
	struct tier_request r = { .hook = hook, .wide = wide, .ftnet_ok = ft };
	struct tier t;

	assert_int_equal(tier__choose(&t, &r, c), 0);
	assert_non_null(t.wide_why);
	/* Never both nets. */
	assert_false(t.wide && t.ftnet);
	return t;
}

/* A COMMAND with tracefs free: function_graph records its first call on every kernel. */
static void test_default_takes_ftnet_for_a_command(void **state)
{
	const struct caps *ks[] = { &k61, &k612, &k73 };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct tier t = choose(ks[i], BG_HOOK_AUTO, BG_WIDE_FIRST, true);

		assert_true(t.ftnet);
		assert_false(t.wide);
	}
}

/* No COMMAND, or tracefs taken: the wide net where the kernel has kprobe.session. */
static void test_default_without_ftnet(void **state)
{
	struct tier t;

	(void)state;
	t = choose(&k612, BG_HOOK_AUTO, BG_WIDE_FIRST, false);
	assert_true(t.wide);
	assert_int_equal(t.hook, BG_HOOK_KMULTI);
	t = choose(&k73, BG_HOOK_AUTO, BG_WIDE_FIRST, false);
	assert_true(t.wide);
	t = choose(&k61, BG_HOOK_AUTO, BG_WIDE_FIRST, false);
	assert_false(t.wide);
	assert_false(t.ftnet);
	assert_int_equal(t.hook, BG_HOOK_FENTRY);
}

/* --wide=session: the kprobe.session net even for a COMMAND; none where the kernel lacks it. */
static void test_session_asked(void **state)
{
	struct tier t;

	(void)state;
	t = choose(&k612, BG_HOOK_AUTO, BG_WIDE_SESSION, true);
	assert_true(t.wide);
	assert_false(t.ftnet);
	t = choose(&k61, BG_HOOK_AUTO, BG_WIDE_SESSION, true);
	assert_false(t.wide);
	assert_false(t.ftnet);
}

/* off and --no-discovery: no net of either kind; ftrace: only where it fits. */
static void test_off_and_ftrace(void **state)
{
	struct tier_request r = { .hook = BG_HOOK_AUTO, .wide = BG_WIDE_FIRST,
				  .no_discovery = true, .ftnet_ok = true };
	struct tier t;

	(void)state;
	t = choose(&k612, BG_HOOK_AUTO, BG_WIDE_OFF, true);
	assert_false(t.wide || t.ftnet);
	assert_int_equal(tier__choose(&t, &r, &k612), 0);
	assert_false(t.wide || t.ftnet);
	t = choose(&k612, BG_HOOK_AUTO, BG_WIDE_FTRACE, true);
	assert_true(t.ftnet);
	/* Asked for where it cannot be: no net, said so, never the other one. */
	t = choose(&k612, BG_HOOK_AUTO, BG_WIDE_FTRACE, false);
	assert_false(t.wide || t.ftnet);
	assert_non_null(strstr(t.wide_why, "none"));
}

/*
 * Without a COMMAND (-p, system-wide) the ftrace net is the default only
 * where the kernel has no wide net that draws the first call whole
 * (whole_net false: no kprobe.session links, or the net bounded);
 * --wide=ftrace asks for it there too (then tracefs decides: not this
 * test's to say).
 */
static void test_ftnet_fits_without_a_command(void **state)
{
	struct bg_opts o = { .wide = BG_WIDE_FIRST };
	char why[256] = "";

	(void)state;
	assert_false(run__ftnet_fits(&o, true, true, why, sizeof(why)));
	assert_non_null(strstr(why, "kprobe.session net records the first call"));
	why[0] = 0;
	(void)run__ftnet_fits(&o, true, false, why, sizeof(why));
	assert_null(strstr(why, "kprobe.session net"));
	o.wide = BG_WIDE_FTRACE;
	(void)run__ftnet_fits(&o, true, true, why, sizeof(why));
	assert_null(strstr(why, "kprobe.session net"));
	/* What function_graph cannot follow is refused either way. */
	o.inherit = true;
	assert_false(run__ftnet_fits(&o, true, true, why, sizeof(why)));
	assert_non_null(strstr(why, "--inherit"));
}

/*
 * fentry-multi takes the ftrace net as the others do (its batch is made
 * once the first call is over), and the kprobe.session net without it.
 */
static void test_fentry_multi(void **state)
{
	struct tier t;

	(void)state;
	t = choose(&k73, BG_HOOK_TMULTI, BG_WIDE_FIRST, true);
	assert_true(t.ftnet);
	assert_false(t.wide);
	t = choose(&k73, BG_HOOK_TMULTI, BG_WIDE_FIRST, false);
	assert_false(t.ftnet);
	assert_true(t.wide);
	t = choose(&k61, BG_HOOK_FENTRY, BG_WIDE_FIRST, true);
	assert_true(t.ftnet);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_takes_ftnet_for_a_command),
		cmocka_unit_test(test_default_without_ftnet),
		cmocka_unit_test(test_session_asked),
		cmocka_unit_test(test_off_and_ftrace),
		cmocka_unit_test(test_ftnet_fits_without_a_command),
		cmocka_unit_test(test_fentry_multi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
