#!/usr/bin/env bash
# On a host kernel that refuses fentry programs, bpfgraph must say so and
# point to the QEMU bench, and exit 1 (runtime failure), not crash or hang:
#   bpfgraph -G do_sys_openat2 -- true
# Whether the host refuses is decided by an independent probe (a 2-insn
# fentry program loaded and attached with libbpf), not by bpfgraph itself.
# Exit: 0 pass, 1 fail, 77 skip (host allows fentry, or cannot tell).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-build}
bin=${BG_BPFGRAPH:-$OUTPUT/bpfgraph}
probe=$OUTPUT/tests/host/fentry-probe
name=refuse_host

pass() { echo "PASS $name${1:+: $1}"; exit 0; }
fail() { echo "FAIL $name: $1"; exit 1; }
skip() { echo "SKIP $name: $1"; exit 77; }

build_probe() {
	[ "$probe" -nt "$0" ] && return 0
	mkdir -p "$(dirname "$probe")"
	# Embedded here: it is this test's private helper, not part of bpfgraph.
	cc -O2 -Wall -x c -o "$probe" - -lbpf <<'C'
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
/* exit 0: fentry loads and attaches; 1: refused (EPERM/EACCES); 2: cannot tell */
int main(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *btf = btf__load_vmlinux_btf();
	int id, fd, link;

	if (!btf) {
		printf("no kernel BTF: %s\n", strerror(errno));
		return 2;
	}
	id = btf__find_by_name_kind(btf, "do_sys_openat2", BTF_KIND_FUNC);
	if (id < 0) {
		printf("do_sys_openat2 not in BTF\n");
		return 2;
	}
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "bg_probe", "GPL", insns, 2, &opts);
	if (fd < 0) {
		printf("fentry load: %s\n", strerror(errno));
		return errno == EPERM || errno == EACCES ? 1 : 2;
	}
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		printf("fentry attach: %s\n", strerror(errno));
		return errno == EPERM || errno == EACCES ? 1 : 2;
	}
	printf("fentry allowed\n");
	close(link);
	close(fd);
	return 0;
}
C
}

main() {
	local why rc=0 out err
	[ "$(id -u)" -eq 0 ] || skip "not root: cannot tell a refusing kernel from missing privileges"
	[ -x "$bin" ] || fail "$bin not built"
	build_probe || fail "could not build the fentry probe"
	why=$("$probe") || rc=$?
	case $rc in
	0) skip "this host allows fentry ($why): the refusal path cannot be tested here" ;;
	1) ;;
	*) skip "cannot tell whether the host allows fentry: $why" ;;
	esac
	out=$(mktemp) err=$(mktemp)
	trap 'rm -f "$out" "$err"' EXIT
	rc=0
	timeout 60 "$bin" -G do_sys_openat2 -- true >"$out" 2>"$err" || rc=$?
	local msg="host kernel refuses fentry ($why); bpfgraph -G do_sys_openat2 -- true"
	[ $rc -ne 124 ] || fail "$msg: hung (killed after 60 s)"
	[ $rc -ne 0 ] || fail "$msg: exited 0, expected 1"
	[ $rc -eq 1 ] || fail "$msg: exited $rc, expected 1 (runtime failure); stderr: $(cat "$err")"
	grep -qi 'fentry' "$err" || fail "$msg: stderr does not mention fentry: $(cat "$err")"
	grep -Eqi 'make demo|qemu|(^|[^a-z])vm([^a-z]|$)|virtual machine' "$err" ||
		fail "$msg: stderr does not point to the QEMU bench / make demo: $(cat "$err")"
	[ "$(grep -c . "$err")" -le 3 ] ||
		fail "$msg: explanation should take one or two lines, got $(grep -c . "$err"):
$(cat "$err")"
	[ ! -s "$out" ] || fail "$msg: printed on stdout: $(head -c 300 "$out")"
	pass "$(grep -i -m1 fentry "$err")"
}

main "$@"
