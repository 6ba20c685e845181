// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ldlink: the attach baseline. A plain sequential loop that loads one
 * trivial tracing program per function and links it, then closes the
 * links: what any fentry tool pays at least, to compare bpfgraph's
 * attach and detach rates with.
 *
 *   ldlink [-m MODE] [-p WORK] [-o FILE] NAMES-FILE [-- CMD [ARG]...]
 *     entry  one fentry program and link per function (default)
 *     both   fexit then fentry per function, as bpfgraph does
 *     session        one kprobe.session link (6.10+) for all functions, its
 *                    program empty and asking for every call's return: the
 *                    hooks a traced call meets inside bpfgraph's graphs
 *     session-entry  the same, asking for no return: the hooks the rest
 *                    of the machine meets (bpfgraph's programs return 1
 *                    outside a graph)
 *     multi-entry    one kprobe.multi link (5.18+), entries only: as
 *                    bpfgraph hooks __rcu_read_lock/unlock once its wide
 *                    net is closed
 *     WORK   what each program does (ldlink.bpf.c): none (default), ktime,
 *            storage, ring, all, or lean (a minimal recorder of CMD's calls)
 *     CMD    run while attached: the cost of bare trampolines and empty
 *            programs on the same functions, the floor of any fentry tool
 * Writes one line of key=value timings (seconds): loads, first and
 * second link per function, first and second close per function.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "ldlink.skel.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct timing {
	double load, link[2], close[2];
	int funcs, failed;
};

struct tmpl {
	const struct bpf_insn *insns;
	size_t cnt;
	enum bpf_attach_type type;
	const char *name;
};

static int read_names(const char *path, char ***names)
{
	char line[256], **v = NULL;
	int n = 0, cap = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\r\n")] = 0;
		if (!line[0])
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				exit(1);
		}
		v[n++] = strdup(line);
	}
	fclose(f);
	*names = v;
	return n;
}

/* Load one clone of t for btf_id and link it: the link fd or -errno. */
static int load_and_link(const struct tmpl *t, int btf_id, struct timing *tm, int nth)
{
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = t->type,
		    .attach_btf_id = btf_id);
	double t0 = now_s(), t1;
	int pfd, lfd, err;

	pfd = bpf_prog_load(BPF_PROG_TYPE_TRACING, t->name, "GPL", t->insns, t->cnt, &po);
	if (pfd < 0)
		return -errno;
	t1 = now_s();
	tm->load += t1 - t0;
	lfd = bpf_link_create(pfd, 0, t->type, NULL);
	err = -errno;
	tm->link[nth] += now_s() - t1;
	close(pfd);
	return lfd < 0 ? err : lfd;
}

/* BPF_TRACE_KPROBE_SESSION: libbpf 1.1 does not know it. */
#define LDL_ATTACH_KPROBE_SESSION 56

/*
 * The kprobe.multi modes: one empty program of attach type type
 * (BPF_TRACE_KPROBE_MULTI or a session, where returning 0 asks for the
 * call's return too) linked to every name at once. The link's fd, or
 * -errno; *load_s gets the program's load time.
 */
static int multi_link(char **names, int n, unsigned int type, int ret, double *load_s)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = ret },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = (enum bpf_attach_type)type);
	union bpf_attr attr;
	double t0 = now_s();
	int pfd, lfd, err;

	pfd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "bl_multi", "GPL", insns, 2, &po);
	if (pfd < 0)
		return -errno;
	*load_s = now_s() - t0;
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = (__u32)pfd;
	attr.link_create.attach_type = type;
	attr.link_create.kprobe_multi.cnt = (__u32)n;
	attr.link_create.kprobe_multi.syms = (__u64)(uintptr_t)names;
	lfd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	err = -errno;
	close(pfd);
	return lfd < 0 ? err : lfd;
}

/* tgid: where the lean programs read whose calls they record (NULL: none). */
static int run_cmd(char **argv, volatile __u32 *tgid)
{
	int status, go[2];
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (pid == 0) {
		/* Until the parent has named it: its first calls recorded too. */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "ldlink: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	if (tgid)
		*tgid = (__u32)pid;
	c = 'g';
	if (write(go[1], &c, 1) != 1)
		return -1;
	close(go[1]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	const char *mode = "entry", *outpath = NULL, *work = "none";
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	struct timing tm = {};
	struct ldlink_bpf *skel;
	struct tmpl t[2];
	struct btf *btf;
	char **names = NULL;
	int *links, opt, n, both, multi, cmd_rc = 0;
	char **cmd = NULL;
	double t0;
	FILE *out;

	while ((opt = getopt(argc, argv, "+m:o:p:")) != -1) {
		if (opt == 'm')
			mode = optarg;
		else if (opt == 'p')
			work = optarg;
		else if (opt == 'o')
			outpath = optarg;
		else
			return 2;
	}
	both = !strcmp(mode, "both");
	multi = !strcmp(mode, "session") || !strcmp(mode, "session-entry") ||
		!strcmp(mode, "multi-entry");
	for (int i = optind + 1; i < argc; i++) {
		if (!strcmp(argv[i], "--") && i + 1 < argc) {
			cmd = argv + i + 1;
			argc = i;
			break;
		}
	}
	if (optind + 1 != argc || (!both && !multi && strcmp(mode, "entry")) ||
	    (multi && strcmp(work, "none"))) {
		fprintf(stderr, "usage: ldlink [-m entry|both|session|session-entry|multi-entry] "
			"[-p WORK] [-o FILE] NAMES-FILE [-- CMD [ARG]...] (-p: entry and both "
			"only)\n");
		return 2;
	}
	n = read_names(argv[optind], &names);
	if (n <= 0) {
		fprintf(stderr, "ldlink: no names in %s\n", argv[optind]);
		return 1;
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (multi) {
		int lfd;

		t0 = now_s();
		if (!strcmp(mode, "multi-entry"))
			lfd = multi_link(names, n, BPF_TRACE_KPROBE_MULTI, 0, &tm.load);
		else
			lfd = multi_link(names, n, LDL_ATTACH_KPROBE_SESSION,
					 !strcmp(mode, "session-entry"), &tm.load);
		if (lfd < 0) {
			fprintf(stderr, "ldlink: %s link over %d functions: %s\n", mode, n,
				strerror(-lfd));
			return 1;
		}
		tm.link[0] = now_s() - t0 - tm.load;
		tm.funcs = n;
		if (cmd)
			cmd_rc = run_cmd(cmd, NULL);
		t0 = now_s();
		close(lfd);
		tm.close[0] = now_s() - t0;
		out = outpath ? fopen(outpath, "a") : stdout;
		if (!out)
			return 1;
		fprintf(out, "mode=%s funcs=%d load_s=%.3f link_s=%.3f close_s=%.3f\n", mode,
			tm.funcs, tm.load, tm.link[0], tm.close[0]);
		return cmd_rc ? 1 : 0;
	}
	btf = btf__load_vmlinux_btf();
	skel = ldlink_bpf__open();
	if (!btf || !skel)
		return 1;
	{
		struct bpf_program *p;
		char en[64], ex[64];

		snprintf(en, sizeof(en), strcmp(work, "none") ? "bl_entry_%s" : "bl_entry", work);
		snprintf(ex, sizeof(ex), strcmp(work, "none") ? "bl_exit_%s" : "bl_exit", work);
		bpf_object__for_each_program(p, skel->obj) {
			const char *pn = bpf_program__name(p);

			bpf_program__set_attach_target(p, 0, names[0]);
			bpf_program__set_autoload(p, !strcmp(pn, en) || !strcmp(pn, ex));
		}
		if (ldlink_bpf__load(skel)) {
			fprintf(stderr, "ldlink: cannot load the templates\n");
			return 1;
		}
		/* Order as bpfgraph's: fexit first, then fentry (both mode). */
		p = bpf_object__find_program_by_name(skel->obj, ex);
		if (!p || !bpf_program__insns(p)) {
			fprintf(stderr, "ldlink: no program for -p %s\n", work);
			return 2;
		}
		t[0] = (struct tmpl){ bpf_program__insns(p), bpf_program__insn_cnt(p),
				      BPF_TRACE_FEXIT, "bl_exit" };
		p = bpf_object__find_program_by_name(skel->obj, en);
		t[1] = (struct tmpl){ bpf_program__insns(p), bpf_program__insn_cnt(p),
				      BPF_TRACE_FENTRY, "bl_entry" };
	}
	links = calloc(2 * n, sizeof(int));
	if (!links)
		return 1;
	t0 = now_s();
	for (int i = 0; i < n; i++) {
		int id = btf__find_by_name_kind(btf, names[i], BTF_KIND_FUNC);

		links[2 * i] = links[2 * i + 1] = -1;
		if (id <= 0) {
			tm.failed++;
			continue;
		}
		for (int k = both ? 0 : 1, nth = 0; k < 2; k++, nth++) {
			int lfd = load_and_link(&t[k], id, &tm, nth);

			if (lfd < 0) {
				tm.failed++;
				break;
			}
			links[2 * i + k] = lfd;
		}
		tm.funcs += links[2 * i + 1] >= 0;
	}
	double attach = now_s() - t0;

	if (cmd)
		cmd_rc = run_cmd(cmd, strcmp(work, "lean") ? NULL : &skel->bss->bl_tgid);

	/* Close as bpfgraph does: entry link (index 1 here) first. */
	t0 = now_s();
	for (int i = 0; i < n; i++) {
		int order[2] = { 2 * i + 1, 2 * i }, nth = 0;

		for (int k = 0; k < 2; k++) {
			double c0 = now_s();

			if (links[order[k]] < 0)
				continue;
			close(links[order[k]]);
			tm.close[nth++] += now_s() - c0;
		}
	}
	double detach = now_s() - t0;

	out = outpath ? fopen(outpath, "a") : stdout;
	if (!out)
		return 1;
	fprintf(out, "mode=%s work=%s funcs=%d failed=%d attach_s=%.3f load_s=%.3f link1_s=%.3f "
		     "link2_s=%.3f detach_s=%.3f close1_s=%.3f close2_s=%.3f\n",
		mode, work, tm.funcs, tm.failed, attach, tm.load, tm.link[0], tm.link[1], detach,
		tm.close[0], tm.close[1]);
	ldlink_bpf__destroy(skel);
	btf__free(btf);
	return cmd_rc ? 1 : 0;
}
