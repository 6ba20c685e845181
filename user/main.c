// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph: trace the call graph under kernel functions with fentry/fexit
 * programs and print it as ftrace's function_graph does.
 * main() is the list of steps: parse, plan, open, attach, run, report,
 * detach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "cli.h"
#include "graph.h"
#include "graph.skel.h"
#include "kbtf.h"
#include "ksyms.h"
#include "ktext.h"
#include "out_text.h"
#include "plan.h"
#include "session.h"

static int verbosity;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	/* libbpf's own messages sit one level below ours. */
	if ((level == LIBBPF_WARN && verbosity < 1) ||
	    (level == LIBBPF_INFO && verbosity < 2) ||
	    (level == LIBBPF_DEBUG && verbosity < 3))
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* Each function costs two link fds: lift the soft limit to the hard one. */
static void raise_nofile(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= r.rlim_max)
		return;
	r.rlim_cur = r.rlim_max;
	setrlimit(RLIMIT_NOFILE, &r);
}

struct kernel_info {
	struct ksyms *ks;
	struct kbtf *kb;
	struct ktext *kt;
};

static int load_kernel_info(struct kernel_info *ki, const struct bg_opts *o)
{
	ki->ks = ksyms__load(NULL);
	if (!ki->ks) {
		fprintf(stderr, "bpfgraph: cannot read /proc/kallsyms: %s\n", strerror(errno));
		return -errno;
	}
	if (ksyms__hidden(ki->ks)) {
		fprintf(stderr, "bpfgraph: kernel addresses are hidden (kptr_restrict): "
			"run as root\n");
		return -EPERM;
	}
	ki->kb = kbtf__load(NULL);
	if (!ki->kb) {
		fprintf(stderr, "bpfgraph: kernel BTF not found (/sys/kernel/btf/vmlinux): "
			"fentry needs a kernel built with CONFIG_DEBUG_INFO_BTF\n");
		return -ENOENT;
	}
	ki->kt = ktext__open(NULL);
	if (!ki->kt && o->callee_depth > 0)
		fprintf(stderr, "bpfgraph: cannot read kernel text (/proc/kcore: %s): "
			"callees are not discovered, only -G and -a functions are traced\n",
			strerror(errno));
	return 0;
}

static void free_kernel_info(struct kernel_info *ki)
{
	ksyms__free(ki->ks);
	kbtf__free(ki->kb);
	ktext__close(ki->kt);
}

static int make_plan(struct plan *p, const struct bg_opts *o, struct kernel_info *ki)
{
	struct plan_opts po = {
		.graph = o->graph.v, .n_graph = (int)o->graph.n,
		.allow = o->allow.v, .n_allow = (int)o->allow.n,
		.notrace = o->notrace.v, .n_notrace = (int)o->notrace.n,
		.callee_depth = ki->kt ? (int)o->callee_depth : 0,
		.max_funcs = (int)o->max_funcs,
		.irqs = !!(o->flags & BG_O_IRQS),
		.ks = ki->ks, .kb = ki->kb, .kt = ki->kt, .err = stderr,
	};

	return plan__build(p, &po);
}

static int configure_skel(struct graph_bpf *skel, const struct bg_opts *o)
{
	struct graph_bpf__rodata *ro = skel->rodata;

	ro->bg_max_depth = o->max_depth;
	ro->bg_thresh_ns = o->thresh_ns;
	ro->bg_self_tgid = getpid();
	ro->bg_filter_pid = o->nr_pids > 0 || o->command_argc > 0;
	ro->bg_filter_cpu = o->nr_cpus > 0;
	memcpy((void *)ro->bg_cpumask, o->cpus, sizeof(ro->bg_cpumask));
	ro->bg_filter_comm = o->comm[0] != 0;
	memcpy((void *)ro->bg_comm, o->comm, sizeof(ro->bg_comm));
	ro->bg_noirqs = !(o->flags & BG_O_IRQS);
	ro->bg_wakeup_bytes = o->buffer_size / 4;
	return bpf_map__set_max_entries(skel->maps.bg_events, o->buffer_size);
}

static int fill_pids(struct graph_bpf *skel, const struct bg_opts *o, pid_t child)
{
	int fd = bpf_map__fd(skel->maps.bg_pids);
	__u8 one = 1;

	for (size_t i = 0; i < o->nr_pids; i++)
		if (bpf_map_update_elem(fd, &o->pids[i], &one, BPF_ANY))
			return -errno;
	if (child > 0) {
		__u32 pid = child;

		if (bpf_map_update_elem(fd, &pid, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

struct output {
	FILE *f;
	struct graph *graph;
	struct out_text *text;
};

static int open_output(struct output *out, const struct bg_opts *o, struct functab *funcs)
{
	struct out_text_opts to = {
		.funcs = funcs, .flags = o->flags, .dialect = o->dialect,
		.nr_cpu_ids = (uint32_t)libbpf_num_possible_cpus(), .header = !o->no_header,
	};
	struct graph_opts go = { .funcs = funcs };

	out->f = o->output ? fopen(o->output, "we") : stdout;
	if (!out->f) {
		fprintf(stderr, "bpfgraph: cannot open '%s': %s\n", o->output, strerror(errno));
		return -errno;
	}
	to.out = out->f;
	out->text = out_text__new(&to);
	go.sink = (struct gsink){ out_text__emit, out->text };
	out->graph = out->text ? graph__new(&go) : NULL;
	if (!out->graph)
		return -ENOMEM;
	out_text__begin(out->text);
	/* Before COMMAND runs and writes to the same stdout. */
	fflush(out->f);
	return 0;
}

static void close_output(struct output *out)
{
	graph__free(out->graph);
	out_text__free(out->text);
	if (out->f && out->f != stdout)
		fclose(out->f);
	else if (out->f)
		fflush(out->f);
}

static void print_summary(const struct plan *p, const struct attach *a,
			  const struct session *s)
{
	fprintf(stderr,
		"bpfgraph: %u functions attached, %zu skipped, %u failed; %llu records, "
		"%llu dropped, %llu recursion misses, %llu nested in the tracer, "
		"%llu unmatched exits, %llu unmatched entries, %llu too deep; "
		"attach %.2f s, detach %.2f s\n",
		a->st.attached, p->nskipped, a->st.failed,
		(unsigned long long)s->st.records, (unsigned long long)s->st.drops,
		(unsigned long long)a->st.recursion_misses, (unsigned long long)s->st.nested,
		(unsigned long long)s->st.unmatched_exits, (unsigned long long)s->st.unwound,
		(unsigned long long)s->st.deep, a->st.attach_s, a->st.detach_s);
	if (s->st.drops)
		fprintf(stderr, "bpfgraph: %llu records were lost (ring buffer full): "
			"use a larger -b or trace fewer functions\n",
			(unsigned long long)s->st.drops);
}

/* -C must name at least one CPU this machine can have. */
static int check_cpus(const struct bg_opts *o)
{
	int ncpu = libbpf_num_possible_cpus();

	if (!o->nr_cpus || ncpu <= 0)
		return 0;
	for (int c = 0; c < ncpu; c++)
		if (cli__cpu_isset(o, c))
			return 0;
	fprintf(stderr, "bpfgraph: -C names no CPU of this machine (possible CPUs: 0-%d)\n",
		ncpu - 1);
	return -EINVAL;
}

static int trace(const struct bg_opts *o, struct plan *p)
{
	struct attach a = { .funcs = &p->funcs, .verbose = o->verbosity, .err = stderr,
			    .progress = isatty(STDERR_FILENO) };
	struct session s = { .go_fd = -1, .duration_ms = o->duration_ms };
	struct output out = {};
	int err;

	a.skel = graph_bpf__open();
	if (!a.skel) {
		fprintf(stderr, "bpfgraph: failed to open the BPF object: %s\n", strerror(errno));
		return -errno;
	}
	err = configure_skel(a.skel, o);
	if (!err && o->command_argc)
		err = session__spawn(&s, o->command);
	if (!err)
		err = attach__all(&a);
	if (!err)
		err = fill_pids(a.skel, o, s.child);
	if (!err)
		err = open_output(&out, o, &p->funcs);
	if (err) {
		session__abort(&s);
		attach__detach(&a);
		close_output(&out);
		return err;
	}
	s.ringbuf_fd = bpf_map__fd(a.skel->maps.bg_events);
	s.stats_fd = bpf_map__fd(a.skel->maps.bg_stats);
	s.sink = session__graph_sink(out.graph);
	a.skel->bss->bg_enabled = 1;
	if (s.child > 0)
		err = session__go(&s);
	if (!err)
		err = session__run(&s);
	session__read_stats(&s);
	attach__count_misses(&a);
	attach__detach(&a);
	close_output(&out);
	print_summary(p, &a, &s);
	if (!err && s.st.cmd_status > 0)
		fprintf(stderr, "bpfgraph: command exited with status %d\n",
			WIFEXITED(s.st.cmd_status) ? WEXITSTATUS(s.st.cmd_status) : 128 + WTERMSIG(s.st.cmd_status));
	return err;
}

int main(int argc, char **argv)
{
	struct bg_opts o;
	struct kernel_info ki = {};
	struct plan p = {};
	int err;

	err = cli__parse(&o, argc, argv, stderr);
	if (err)
		return cli__exit_status(err);
	verbosity = o.verbosity;
	libbpf_set_print(libbpf_print);
	if (o.cmd != BG_CMD_TRACE) {
		fprintf(stderr, "bpfgraph: '%s' is not implemented yet\n", o.sub_argv[0]);
		cli__free(&o);
		return BG_EXIT_FAILURE;
	}
	if (check_cpus(&o)) {
		cli__free(&o);
		return BG_EXIT_USAGE;
	}
	raise_nofile();
	err = load_kernel_info(&ki, &o);
	if (!err)
		err = make_plan(&p, &o, &ki);
	if (!err && o.dry_run)
		plan__print(&p, stdout);
	else if (!err)
		err = trace(&o, &p);
	plan__free(&p);
	free_kernel_info(&ki);
	cli__free(&o);
	return err ? BG_EXIT_FAILURE : BG_EXIT_OK;
}
