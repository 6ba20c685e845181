// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * render: the graph builder and the writer of a format behind one
 * object. What render__new() says when a writer cannot be made.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "render.h"

/*
 * No output file: every writer refuses with EINVAL, and render__new()
 * passes that on. It used to say ENOMEM whatever the writer said.
 */
static void test_new_errno(void **state)
{
	static const enum bg_format formats[] = { BG_FMT_TEXT, BG_FMT_JSON, BG_FMT_CHROME,
						  BG_FMT_FOLDED, BG_FMT_SVG };
	struct functab ft;

	functab__init(&ft);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct render_opts ro = { .out = NULL, .funcs = &ft, .format = formats[i] };

		errno = 0;
		assert_null(render__new(&ro));
		if (errno != EINVAL)
			fail_msg("%s: errno %d, expected EINVAL", render__format_name(formats[i]),
				 errno);
	}
	functab__free(&ft);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
