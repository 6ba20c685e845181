// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kprobe optimizer's hold (user/hook/optprobe.h) as far as it can be
 * tried without changing the machine's setting: --no-optimizer-hold
 * (optprobe__forbid) makes every hold fail before the setting is read,
 * and what -v says of each result.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "optprobe.h"

static void test_forbidden(void **state)
{
	struct optprobe_hold a, b;

	(void)state;
	optprobe__forbid();
	assert_int_equal(optprobe__hold(&a), -EPERM);
	assert_false(a.held);
	assert_int_equal(optprobe__hold(&b), -EPERM);
	/* Nothing held: releases and the end change nothing, twice over. */
	optprobe__release(&a);
	optprobe__release(&a);
	optprobe__release(&b);
	optprobe__end();
	optprobe__end();
	assert_false(a.held);
}

static void test_text(void **state)
{
	(void)state;
	assert_string_equal(optprobe__text(0), "held off, then back on");
	assert_string_equal(optprobe__text(-ENOENT), "off or unknown");
	assert_string_equal(optprobe__text(-EPERM), "left alone as asked");
	assert_string_equal(optprobe__text(-EROFS), "left on: cannot change it");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forbidden),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
