// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph report -i FILE [output options]: replays a recording through
 * the graph builder and writers of live tracing. The recorded output
 * options are the defaults; those given here override them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "record.h"
#include "render.h"

/* Recorded options, overridden by the ones set on this command line. */
static void merge_opts(struct render_opts *ro, const struct record_meta *m,
		       const struct bg_opts *o)
{
	uint32_t retval = BG_O_RETVAL | BG_O_RETVAL_HEX;

	ro->flags = (m->flags & ~o->flags_set) | (o->flags & o->flags_set);
	ro->dialect = o->dialect_set ? o->dialect : (enum bg_dialect)m->dialect;
	/* A 6.1 recording has return values off; a later dialect has them on. */
	if (m->dialect < BG_DIALECT_6_5 && ro->dialect >= BG_DIALECT_6_5 &&
	    !(o->flags_set & BG_O_RETVAL))
		ro->flags |= BG_O_RETVAL;
	if (ro->dialect < BG_DIALECT_6_5)
		ro->flags &= ~retval;
	ro->header = m->header && !o->no_header;
	ro->nr_cpu_ids = m->nr_cpu_ids;
	ro->format = o->format;
	ro->folded_count = o->folded_count;
}

static void print_info(const struct record_info *in, const char *path, int verbosity)
{
	const struct record_trailer *t = &in->trailer;

	if (verbosity > 0)
		fprintf(stderr, "bpfgraph: %s: recorded on %s (%s, %u CPUs): %s\n", path,
			in->meta.hostname ?: "?", in->meta.release ?: "?",
			in->meta.ncpus_online, in->meta.cmdline ?: "?");
	if (verbosity > 0 || t->drops)
		fprintf(stderr, "bpfgraph: %s: %" PRIu64 " records, %zu functions, %" PRIu64
			" dropped, %" PRIu64 " recursion misses, %" PRIu64 " unmatched exits, %"
			PRIu64 " unmatched entries\n", path, in->records, in->funcs.n, t->drops,
			t->recursion_misses, t->unmatched_exits, t->unmatched_entries);
}

static int replay(struct record_reader *r, const struct bg_opts *o, FILE *out)
{
	const struct record_info *in = record__info(r);
	struct render_opts ro = { .out = out, .funcs = &in->funcs };
	struct render *rd;
	struct rec_sink sink;
	int err;

	merge_opts(&ro, &in->meta, o);
	rd = render__new(&ro);
	if (!rd) {
		fprintf(stderr, "bpfgraph: out of memory\n");
		return -ENOMEM;
	}
	sink = render__sink(rd);
	err = record__replay(r, &sink);
	if (!err)
		err = render__finish(rd);
	render__free(rd);
	if (err == -EIO)
		fprintf(stderr, "bpfgraph: cannot write '%s': %s\n", o->output ?: "stdout",
			strerror(EIO));
	return err;
}

int cmd_report(int argc, char **argv)
{
	struct record_reader *r;
	struct bg_opts o;
	FILE *out;
	int err;

	err = cli__parse_cmd(&o, BG_CMD_REPORT, argc, argv, stderr);
	if (err)
		return cli__exit_status(err);
	r = record__open(o.input, stderr);
	out = r && o.output ? fopen(o.output, "we") : stdout;
	if (!out)
		fprintf(stderr, "bpfgraph: cannot open '%s': %s\n", o.output, strerror(errno));
	err = r && out ? replay(r, &o, out) : -EINVAL;
	if (out && out != stdout && fclose(out) && !err) {
		fprintf(stderr, "bpfgraph: cannot write '%s': %s\n", o.output, strerror(errno));
		err = -EIO;
	}
	if (r && !err)
		print_info(record__info(r), o.input, o.verbosity);
	record__close_reader(r);
	cli__free(&o);
	return err ? BG_EXIT_FAILURE : BG_EXIT_OK;
}
