#!/bin/sh
# The fidelity suite (tests/vm/lib/fidelity.sh) on entry functions no
# other suite holds, across wl's workloads, by name only:
# BG_VM_TIMEOUT=3600 BG_VM_KERNEL=6.12 tests/vm/run.sh fidelity_explore
# (about 35 minutes of guest time on 6.12 and 7.3, over two hours on
# 6.1: BG_VM_TIMEOUT=12000 there).
# Not in CI: mremap, mlock, mincore, getcwd, netlink, rtnl and tcpclose
# miss the rcu pair called from functions where the kernel lets no
# kprobe in (the maple tree's, inlined path walks, the netdev walk), so
# their warm recall stays below the first call's; bpfmap misses more,
# waitid's first call races its child's exit (docs/tests.md, "More entry
# functions"). A name a kernel does not have leaves its case out.
# bench-timeout: 7200
# bench-default: off
# bench-clock: icount
set -u
. /bench/lib/guest.sh
. /bench/lib/fidelity.sh

run_case_any unix "unix 1" unix_stream_sendmsg
run_case_any rename "fsops 1" do_renameat2
run_case_any mkdir "fsops 1" do_mkdirat
run_case_any brk "brk 1" __x64_sys_brk
run_case_any poll "poll 1" do_sys_poll
run_case_any eventfd "eventfd 1" eventfd_write
run_case_any socket "socket 1" __sys_socket
run_case_any yield "yield 1" do_sched_yield
run_case_any getrandom "getrandom 1" __x64_sys_getrandom
run_case_any close "dup 1" __x64_sys_close
run_case_any pipe2 "pipe2 1" do_pipe2
run_case_any sendfile "sendfile 1" do_sendfile
run_case_any mremap "mremap 1" __do_sys_mremap __x64_sys_mremap
run_case_any mlock "mlock 1" do_mlock
run_case_any sigmask "sigmask 1" __x64_sys_rt_sigprocmask
run_case_any sigaction "sigaction 1" __x64_sys_rt_sigaction
run_case_any unlink "unlink 1" do_unlinkat
run_case_any fallocate "fallocate 1" vfs_fallocate
run_case_any uname "uname 1" __x64_sys_newuname
run_case_any itimer "itimer 1" do_setitimer
run_case_any prlimit "prlimit 1" do_prlimit
run_case_any affinity "affinity 1" sched_setaffinity
run_case_any wait "fork 1" kernel_wait4
run_case_any lock "lock 1" fcntl_setlk
run_case_any ptimer "ptimer 1" do_timer_create __x64_sys_timer_create
run_case_any msg "msg 1" do_msgsnd
run_case_any socketpair "socketpair 1" __sys_socketpair
run_case_any chmod "chmod 1" chmod_common
run_case_any shmfault "shmfault 1" shmem_fault
run_case_any ioctl "ioctl 1" do_vfs_ioctl
run_case_any sysfs "sysfs 1" kernfs_fop_read_iter
run_case_any copyrange "copyrange 1" vfs_copy_file_range
run_case_any flock "flock 1" __x64_sys_flock
run_case_any readlink "readlink 1" do_readlinkat
run_case_any access "access 1" do_faccessat
run_case_any xattr "xattr 1" path_getxattr filename_getxattr __x64_sys_getxattr
run_case_any prctl "prctl 1" __do_sys_prctl __x64_sys_prctl
run_case_any rusage "rusage 1" getrusage
run_case_any nullwrite "nullwrite 1" ksys_write
run_case_any signalfd "signalfd 1" do_signalfd4
run_case_any pidfd "pidfd 1" __x64_sys_pidfd_open pidfd_create
run_case_any connect "tcp 1" tcp_v4_connect
run_case_any accept "tcp 1" __sys_accept4 do_accept
run_case_any netrx "udp 1" net_rx_action
run_case_any bpfmap "bpfmap 1" map_create __sys_bpf
run_case_any fdpass "fdpass 1" unix_dgram_sendmsg
run_case_any fdrecv "fdpass 1" unix_dgram_recvmsg
run_case_any sockopt "sockopt 1" do_sock_setsockopt __sys_setsockopt
run_case_any utimes "utimes 1" do_utimes
run_case_any fsync "fsync 1" vfs_fsync_range
run_case_any mincore "mincore 1" __x64_sys_mincore
run_case_any getcwd "getcwd 1" __x64_sys_getcwd
run_case_any perfev "perfev 1" __do_sys_perf_event_open __x64_sys_perf_event_open
run_case_any netlink "netlink 1" netlink_sendmsg
run_case_any rtnl "netlink 1" rtnetlink_rcv_msg
run_case_any setuid "setuid 1" __sys_setresuid __x64_sys_setresuid
run_case_any sem "sem 1" __do_semtimedop do_semtimedop __x64_sys_semtimedop
run_case_any shm "shm 1" do_shmat __x64_sys_shmat
run_case_any memfd "memfd 1" __x64_sys_memfd_create
run_case_any epollctl "epollctl 1" do_epoll_ctl
run_case_any select "select 1" core_sys_select do_pselect.constprop.0 __x64_sys_pselect6
run_case_any statfs "statfs 1" user_statfs __x64_sys_statfs
run_case_any symlink "symlink 1" do_symlinkat __x64_sys_symlink
run_case_any chdir "chdir 1" __x64_sys_chdir
run_case_any tcpclose "tcpclose 1" tcp_close
run_case_any mq "mq 1" do_mq_open __x64_sys_mq_open
run_case_any capget "capget 1" __x64_sys_capget
run_case_any waitid "waitid 1" kernel_waitid
oracle_cases
