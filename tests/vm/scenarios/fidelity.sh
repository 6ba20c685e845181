#!/bin/sh
# The fidelity suite's public cases (tests/vm/lib/fidelity.sh runs them):
# CI runs them on every kernel.
# bench-timeout: 1500
# bench-clock: icount
set -u
. /bench/lib/guest.sh
. /bench/lib/fidelity.sh

run_case openat do_sys_openat2 openmiss 1
run_case read vfs_read read 1
run_case tcp tcp_sendmsg tcp 1
# UDP's lookup calls one of two functions named compute_score (8
# arguments): traced by kprobe, never by a trampoline built by name.
run_case udp udp_sendmsg udp 1
oracle_cases
