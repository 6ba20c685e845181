#!/bin/sh
# --kprobes: every function by kprobe and kretprobe, the -G one included,
# no fentry program loaded. The same failed open as the fidelity suite's
# openat case, against the kernel's function_graph in the same boot.
# bench-timeout: 600
# bench-clock: icount
set -u
. /bench/lib/guest.sh
wl_args=""
for i in 1 2 3 4 5 6; do wl_args="$wl_args openmiss 1 sleep 300"; done
progress "--kprobes -G do_sys_openat2"
# The plan as --dry-run prints it, written by the run (--plan-file).
# shellcheck disable=SC2086
bpfgraph --kprobes -vv --plan-file=plan.txt -G do_sys_openat2 -- /bin/wl $wl_args >kp.txt 2>kp.err
echo $? >kp.rc
# Twice: the kernel's own run varies too (a reschedule inside
# __cond_resched in one capture only was seen in CI); the check scores
# against the capture bpfgraph matches better, as the fidelity suite does.
progress "oracle, twice"
# shellcheck disable=SC2086
oracle_capture -o oracle.txt -a oracle2.txt do_sys_openat2 -- wl --stop $wl_args
