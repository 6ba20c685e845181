#!/bin/sh
# More of the fidelity suite (tests/vm/lib/fidelity.sh runs them), across
# subsystems: memory mappings and their faults, file writes, metadata
# and directories, futexes, signals, fork, the sleep path, packet
# receive in softirq, timers, a failed exec (every binary format tried,
# binfmt_misc's among them), epoll, a page given back by madvise (which
# drains the CPU's LRU batch, where bpfgraph's own pages must not be;
# removals: fidelity_munmap), splice, inotify, a memfd truncated, a
# thread started (its first call takes a cached task stack, as the
# kernel's run does, where bpfgraph's own tasks must not have left the
# cache empty), /proc/self/stat read (__lock_task_sighand, a name
# the tracer's deny list once took for lockdep's),
# and the TCP send once more under the wide net bounded as --wide-mem
# bounds it on 16 CPUs (6.10-6.13: return hooks for an eighth of the
# net, lazy frames unwound deep; elsewhere the wide net whole, as with
# -p or system-wide; its first call scores what the bound costs).
# CI runs it on 6.12
# and 7.3 (tools/check.sh's BG_VM_KERNEL_SCENARIOS), not on 6.1, where it
# takes 35-60 minutes of guest time: BG_VM_TIMEOUT=3600 BG_VM_KERNEL=6.1
# tests/vm/run.sh fidelity_more (run.sh's default limit, 900 s of host
# time, ends it halfway).
# bench-timeout: 7200
# bench-default: off
# bench-clock: icount
set -u
. /bench/lib/guest.sh
. /bench/lib/fidelity.sh

run_case mmap vm_mmap_pgoff mmap 1
run_case fault handle_mm_fault fault 4
run_case mprotect do_mprotect_pkey mprotect 1
run_case write vfs_write write 1
run_case stat vfs_statx stat 1
run_case readdir iterate_dir readdir 1
run_case futex do_futex futex 1
run_case kill __x64_sys_kill kill 1
run_case fork kernel_clone fork 1
run_case sleep do_nanosleep usleep 100
run_case udprecv ip_rcv udp 1
run_case timer __x64_sys_timerfd_settime timer 1
run_case execfail __x64_sys_execveat execfail 1
run_case epoll __x64_sys_epoll_wait epoll 1
run_case madvise do_madvise madvise 1
run_case_any splice "splice 1" do_splice
run_case inotify __x64_sys_inotify_add_watch inotify 1
run_case_any truncate "truncate 1" do_sys_ftruncate do_ftruncate
run_case_any thread "thread 1" __do_sys_clone3 __x64_sys_clone3
run_case_any procstat "procstat 1" do_task_stat proc_tgid_stat
# Once the net is narrowed a thread of bpfgraph's hands the rcu pair over
# to probes at its call sites (seconds of code reading and probing under
# emulation, longer than the twelve calls: "the trace ended while their
# call sites were being probed"); on the bench's one CPU its runs
# preempted the traced calls at their next preemption point, drawing
# the scheduler in (7.3 warm precision 0.880 and 0.936 in two CI runs).
# The warm calls are the steady state's: after a pause for it.
hook_opt0=$hook_opt
hook_opt="$hook_opt --wide=session --wide-mem=850K"
settle=15000
run_case tcpbound tcp_sendmsg tcp 1
settle=0
hook_opt=$hook_opt0
oracle_cases
