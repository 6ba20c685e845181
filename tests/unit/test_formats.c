// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JSON lines, Chrome Trace Event, folded, SVG and stat writers: the canned
 * records of tests/golden/formats/<case>.in rendered in each format
 * against the golden files next to them; jq (when installed) must parse
 * the JSON ones and find the structure the man page promises, xmllint the
 * SVG ones. tests/browser/svg.sh shows the SVG to a browser.
 */
#include <errno.h>
#include <unistd.h>

#include "golden.h"

#include "canned.h"
#include "render.h"

static const char *const cases[] = { "basic", "orphans" };

struct variant {
	enum bg_format format;
	bool count;
	const char *ext;
};

static const struct variant variants[] = {
	{ BG_FMT_JSON, false, "json" },
	{ BG_FMT_CHROME, false, "chrome.json" },
	{ BG_FMT_FOLDED, false, "folded" },
	{ BG_FMT_FOLDED, true, "count.folded" },
	{ BG_FMT_TEXT, false, "txt" },
	{ BG_FMT_SVG, false, "svg" },
	{ BG_FMT_SVG, true, "count.svg" },
	{ BG_FMT_STAT, false, "stat" },
};

static char *render_case(const char *name, const struct variant *v, size_t *len)
{
	char *rel, *path, *tok[16], *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	struct render_opts ro;
	struct render *r;
	struct rec_sink s;
	struct canned c;
	int n;

	assert_true(asprintf(&rel, "formats/%s.in", name) > 0);
	path = golden_path(rel);
	assert_int_equal(canned_open(&c, path), 0);
	canned_settings(&c, tok, &n);
	ro = (struct render_opts){ .out = m, .funcs = &c.ft, .format = v->format,
				   .flags = c.flags, .dialect = c.dialect,
				   .nr_cpu_ids = c.nr_cpu_ids, .header = c.header,
				   .folded_count = v->count };
	r = render__new(&ro);
	assert_non_null(r);
	s = render__sink(r);
	canned_play(&c, tok, n, &s);
	assert_false(c.unsupported);
	assert_int_equal(render__finish(r), 0);
	render__free(r);
	fclose(m);
	canned_free(&c);
	free(path);
	free(rel);
	return buf;
}

static void test_golden(void **state)
{
	char rel[128];
	size_t len;
	char *out;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t k = 0; k < sizeof(variants) / sizeof(variants[0]); k++) {
			out = render_case(cases[i], &variants[k], &len);
			snprintf(rel, sizeof(rel), "formats/%s.%s", cases[i], variants[k].ext);
			golden_check(rel, out, len);
			free(out);
		}
	}
}

static bool have_jq(void)
{
	return system("command -v jq >/dev/null 2>&1") == 0;
}

/* jq -e FILTER on tests/golden/formats/<file> must succeed. */
static void jq_ok(const char *file, const char *opts, const char *filter)
{
	char *cmd, *path = golden_path(file);

	assert_true(asprintf(&cmd, "jq %s -e '%s' '%s' >/dev/null", opts, filter, path) > 0);
	if (system(cmd) != 0)
		fail_msg("jq check failed: %s", cmd);
	free(cmd);
	free(path);
}

static void test_jq(void **state)
{
	if (!have_jq()) {
		fprintf(stderr, "jq not installed (tools/deps.sh build): skipped\n");
		skip();
	}
	/* every line an object with the documented fields and types */
	jq_ok("formats/basic.json", "-s",
	      "length == 11 and all(.[]; (.name|type) == \"string\" and"
	      " (.depth|type) == \"number\" and (.cpu|type) == \"number\" and"
	      " (.pid|type) == \"number\" and (.comm|type) == \"string\" and"
	      " (.ts|type) == \"number\" and (.dur|type) == \"number\" and"
	      " (.orphan|type) == \"boolean\" and (.unfinished|type) == \"boolean\")");
	jq_ok("formats/basic.json", "-s",
	      "map(select(.name == \"schedule\"))[0] | .ret == null and .retval == null");
	jq_ok("formats/basic.json", "-s",
	      "map(select(.name == \"do_sys_openat2\"))[0] | .ret == -2 and .retval == \"-2\""
	      " and .ret_type == \"long\" and .dur == 3000 and .ts == 1000000");
	jq_ok("formats/basic.json", "-s",
	      "map(select(.module == \"binfmt_misc\")) | length == 1");
	jq_ok("formats/basic.json", "-s", "map(select(.comm == \"we\\\"ird\\\\name\")) | length == 4");
	jq_ok("formats/orphans.json", "-s",
	      "(map(select(.orphan)) | length == 2) and (map(select(.unfinished)) | length == 2)");
	/* Chrome: complete events on per-task tracks, names as metadata */
	jq_ok("formats/basic.chrome.json", "",
	      ".traceEvents | map(select(.ph == \"X\")) | length == 11 and"
	      " all(.[]; (.ts|type) == \"number\" and (.dur|type) == \"number\" and"
	      " .pid == .tid and (.args.cpu|type) == \"number\")");
	jq_ok("formats/basic.chrome.json", "",
	      "[.traceEvents[] | select(.ph == \"M\" and .name == \"thread_name\") |"
	      " .args.name] | sort == [\"we\\\"ird\\\\name\", \"wl\"]");
	jq_ok("formats/basic.chrome.json", "",
	      ".traceEvents | map(select(.name == \"do_sys_openat2\" and .pid == 102))[0] |"
	      " .ts == 1000 and .dur == 3 and .args.retval == \"-2\"");
	jq_ok("formats/orphans.chrome.json", "", ".traceEvents | length > 0");
}

/* Folded: self time adds up to the root calls' durations. */
static void test_folded_sums(void **state)
{
	const struct variant v = { BG_FMT_FOLDED, false, "folded" };
	size_t len;
	char *out = render_case("basic", &v, &len), *line, *save = NULL;
	uint64_t sum = 0;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		sum += strtoull(strrchr(line, ' ') + 1, NULL, 10);
	/* root calls: 3000 + 850 + 1000 ns */
	assert_int_equal(sum, 4850);
	free(out);
}

static bool have_xmllint(void)
{
	return system("command -v xmllint >/dev/null 2>&1") == 0;
}

static void test_svg_xml(void **state)
{
	static const char *const files[] = { "basic.svg", "basic.count.svg", "orphans.svg",
					     "orphans.count.svg" };
	char rel[64], *cmd, *path;

	if (!have_xmllint()) {
		fprintf(stderr, "xmllint not installed: skipped\n");
		skip();
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "formats/%s", files[i]);
		path = golden_path(rel);
		assert_true(asprintf(&cmd, "xmllint --noout '%s'", path) > 0);
		if (system(cmd) != 0)
			fail_msg("not well-formed XML: %s", path);
		free(cmd);
		free(path);
	}
}

static uint64_t attr_u64(const char *s, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(s, key);
	assert_non_null(p);
	return strtoull(p + strlen(key), NULL, 10);
}

/*
 * SVG: the root frame weighs what the folded stacks add up to, each frame
 * as much as the stacks through it, and frames nest inside their parents.
 */
static void test_svg_weights(void **state)
{
	const struct variant v = { BG_FMT_SVG, false, "svg" };
	const struct variant c = { BG_FMT_SVG, true, "count.svg" };
	size_t len;
	char *out = render_case("basic", &v, &len), *p;
	uint64_t prev_o = 0, prev_w = 0;
	unsigned int frames = 0;

	assert_int_equal(attr_u64(out, "data-total"), 4850);
	assert_non_null(strstr(out, "<title>all (4.850 us, 100.00%)</title>"));
	/* two root calls of 3000 and 1000 ns, with their children */
	assert_non_null(strstr(out, "<title>do_sys_openat2 (4.000 us, 82.47%)</title>"));
	assert_non_null(strstr(out, ">bm_status_read [binfmt_mi..</text>"));
	for (p = strstr(out, "<g class=\"f\""); p; p = strstr(p + 1, "<g class=\"f\"")) {
		uint64_t o = attr_u64(p, "data-o"), w = attr_u64(p, "data-w");

		assert_true(w > 0 && o + w <= 4850);
		prev_o = o;
		prev_w = w;
		frames++;
	}
	/* the root comes last, over everything */
	assert_int_equal(prev_o, 0);
	assert_int_equal(prev_w, 4850);
	assert_true(frames >= 5);
	free(out);
	out = render_case("basic", &c, &len);
	assert_int_equal(attr_u64(out, "data-total"), 11);
	assert_non_null(strstr(out, "data-unit=\"calls\""));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_jq),
		cmocka_unit_test(test_folded_sums),
		cmocka_unit_test(test_svg_xml),
		cmocka_unit_test(test_svg_weights),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
