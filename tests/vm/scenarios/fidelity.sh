#!/bin/sh
# The fidelity suite: for each case, the kernel's own function_graph and
# bpfgraph on the same workload in the same boot. The host side compares
# them with `bpfgraph diff` and prints recall and precision per case.
# Cases are "entry function : workload"; nothing here is tuned to them.
# bench-timeout: 900
set -u
. /bench/lib/guest.sh

run_case() { # NAME FUNC WL-ARGS...
	name=$1 func=$2
	shift 2
	progress "$name: bpfgraph -G $func -- wl $*"
	bpfgraph --dry-run -G "$func" >"$name.plan.txt" 2>&1
	bpfgraph -G "$func" -- /bin/wl "$@" >"$name.bpfgraph.txt" 2>"$name.bpfgraph.err"
	echo $? >"$name.bpfgraph.rc"
	progress "$name: oracle"
	oracle_capture -o "$name.oracle.txt" "$func" -- wl --stop "$@"
}

run_case openat do_sys_openat2 openmiss 3
run_case read vfs_read read 3
run_case tcp tcp_sendmsg tcp 3
