// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The --help text, printed from cli_opts[] and cli_trace_opts[] so that
 * it lists exactly what the parser accepts, and the --help and --version
 * options themselves.
 */
#include <stdio.h>
#include <string.h>

#include "cli_int.h"

static const char *const group_titles[G_NR] = {
	"Selection", "Filters", "Output", "Other",
};

static const char usage_head[] =
	"Usage: bpfgraph [OPTIONS] -G FUNC [-G FUNC]... [-- COMMAND [ARG]...]\n"
	"       bpfgraph record [OPTIONS] -G FUNC... -o FILE [-- COMMAND [ARG]...]\n"
	"       bpfgraph report -i FILE [OUTPUT OPTIONS]\n"
	"       bpfgraph diff|record|report [ARG]...\n"
	"\n"
	"Trace the kernel functions called below FUNC with BPF fentry/fexit\n"
	"programs and print them the way ftrace's function_graph tracer does.\n";

static const char usage_examples[] =
	"Examples:\n"
	"  bpfgraph -G do_sys_openat2 -- cat /etc/hostname\n"
	"  bpfgraph -G tcp_sendmsg -D 5 -t 10 -d 2.5\n"
	"  bpfgraph -G vfs_read -x 'security_*' -p 1234,1235 -O funcgraph-proc\n"
	"  bpfgraph -G do_sys_openat2 --compat=6.1 -O nofuncgraph-irqs -o out.txt\n"
	"  bpfgraph -G 'ext4_*' --callee-depth=0 --dry-run\n"
	"  bpfgraph record -o t.bgr -G do_sys_openat2 -- cat /etc/hostname\n"
	"  bpfgraph report -i t.bgr --format=chrome -o t.json\n"
	"  bpfgraph report -i trace.txt --format=svg -o t.svg\n";

#define LEFT_W 27 /* width of the "-G, --graph-function=GLOB" column */
#define HELP_COL (2 + LEFT_W + 2)

static void print_help_lines(FILE *f, const char *help, int col)
{
	const char *nl;

	while ((nl = strchr(help, '\n'))) {
		fprintf(f, "%.*s\n%*s", (int)(nl - help), help, col, "");
		help = nl + 1;
	}
	fprintf(f, "%s\n", help);
}

static void print_opt(FILE *f, const struct cli_opt *d)
{
	char left[64];
	int n;

	if (d->key < 256)
		n = snprintf(left, sizeof(left), "-%c, --%s", d->key, d->name);
	else
		n = snprintf(left, sizeof(left), "    --%s", d->name);
	if (d->arg)
		snprintf(left + n, sizeof(left) - (size_t)n, "=%s", d->arg);
	if (strlen(left) > LEFT_W)
		fprintf(f, "  %s\n%*s", left, HELP_COL, "");
	else
		fprintf(f, "  %-*s  ", LEFT_W, left);
	print_help_lines(f, d->help, HELP_COL);
}

static void print_trace_opts(FILE *f)
{
	size_t i;
	int n;

	fputs("Names for -O (tracefs options; prefix \"no\" turns one off):\n", f);
	for (i = 0; i < cli_nr_trace_opts; i++) {
		n = fprintf(f, "  %-22s%s", cli_trace_opts[i].name, cli_trace_opts[i].help);
		if (BG_O_DEFAULTS & cli_trace_opts[i].flag)
			fprintf(f, "%*s[on]", n < 58 ? 58 - n : 1, "");
		fputc('\n', f);
	}
	fputs("--compat=6.1 drops funcgraph-retval; --graph-opts verbose has no\n"
	      "latency-format columns.\n", f);
}

void cli__usage(FILE *f)
{
	size_t i;
	int g;

	fputs(usage_head, f);
	for (g = 0; g < G_NR; g++) {
		fprintf(f, "\n%s:\n", group_titles[g]);
		for (i = 0; i < cli_nr_opts; i++)
			if (cli_opts[i].group == (enum cli_group)g)
				print_opt(f, &cli_opts[i]);
		if (g == G_FILTER)
			fprintf(f, "  %-*s  %s\n%*s%s\n", LEFT_W, "-- COMMAND [ARG]...",
				"run COMMAND once attached, trace only",
				HELP_COL, "", "it, stop when it exits");
	}
	fputc('\n', f);
	cli_others_usage(f);
	fputc('\n', f);
	print_trace_opts(f);
	fputc('\n', f);
	fputs(usage_examples, f);
}

int cli_do_help(struct cli_ctx *c __maybe_unused,
		const struct cli_opt *d __maybe_unused, char *arg __maybe_unused)
{
	cli__usage(stdout);
	return 1;
}

int cli_do_version(struct cli_ctx *c __maybe_unused,
		   const struct cli_opt *d __maybe_unused, char *arg __maybe_unused)
{
	printf("bpfgraph %s\n", BG_VERSION);
	return 1;
}
