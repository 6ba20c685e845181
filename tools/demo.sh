#!/usr/bin/env bash
# make demo: show a real call graph in function_graph text.
#   bpfgraph -G do_sys_openat2 -- wl openmiss 3
# Runs on this host if its kernel allows fentry programs; otherwise says so
# in one line and runs the same trace in the QEMU bench (Debian's 6.1
# cloud kernel, fetched once into ~/.cache/bpfgraph-vm).
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
export OUTPUT
bin=$OUTPUT/bpfgraph
wl=$OUTPUT/vm/wl

die() { echo "demo: $*" >&2; exit 1; }

# The real thing: if it works here, that is the demo.
try_host() {
	"$bin" -G do_sys_openat2 -- "$wl" openmiss 3 >"$tmp/trace" 2>"$tmp/err"
}

run_in_vm() {
	local vm=$OUTPUT/vm rc=0 out
	# BG_VM_KERNEL=6.12 (or 7.3) makes the demo on that kernel.
	[ "${BG_VM_KERNEL:-6.1}" = 6.1 ] || vm=$OUTPUT/vm/$BG_VM_KERNEL
	out=$vm/out/demo
	tools/deps.sh vm
	BG_VM_TIMEOUT=${BG_VM_TIMEOUT:-300} tests/vm/run.sh --label demo --no-check \
		tests/vm/demo/demo.sh || rc=$?
	[ -f "$out/rc" ] || die "the guest returned no result (see $vm/demo.console.log)"
	if [ "$(cat "$out/rc")" != 0 ]; then
		cat "$out/stderr.txt" >&2
		die "bpfgraph failed in the guest (exit $(cat "$out/rc"))"
	fi
	cat "$out/trace.txt"
	[ $rc -eq 0 ] || die "the guest did not shut down cleanly (see above)"
}

main() {
	[ -x "$bin" ] || die "$bin missing: run make"
	[ -x "$wl" ] || die "$wl missing: run make $wl"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if try_host; then
		cat "$tmp/trace"
		return
	fi
	if ! grep -qi fentry "$tmp/err"; then
		cat "$tmp/err" >&2
		die "bpfgraph failed on this host, for another reason than fentry"
	fi
	echo "demo: this host's kernel refuses fentry programs, so the trace runs in the QEMU bench (Debian's 6.1 cloud kernel); bpfgraph said: $(grep -i -m1 fentry "$tmp/err" | sed 's/^bpfgraph: //')" >&2
	run_in_vm
}

main "$@"
