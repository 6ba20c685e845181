#!/bin/sh
# A function of a module: binfmt_misc.ko (loaded by the bench's /init) has
# bm_status_read, the read handler of /proc/sys/fs/binfmt_misc/status.
# bpfgraph traces it under `cat` of that file; the kernel's function_graph
# traces the same (oracle.txt), for the " [binfmt_misc]" spelling.
# --callee-depth=1 keeps the attach time down; interrupts stay on, as in
# the oracle.
# bench-timeout: 300
set -u
. /bench/lib/guest.sh

STATUS=/proc/sys/fs/binfmt_misc/status
grep '^binfmt_misc ' /proc/modules >modules.txt
grep '\[binfmt_misc\]$' /proc/kallsyms | grep ' [tT] bm_' >kallsyms.txt
mount -t binfmt_misc none /proc/sys/fs/binfmt_misc
echo $? >mount.rc
progress "dry run of bm_*"
run_cmd dry bpfgraph --dry-run --callee-depth=0 -O nofuncgraph-irqs -G 'bm_*'
progress "bpfgraph -G bm_status_read -- cat $STATUS"
# -o: cat's own output (the status text) stays in trace.out. Return
# values asked for: the check wants one on each of the two reads, which the
# ftrace net's first call (6.1) has not by default (docs/kernels.md).
run_cmd trace bpfgraph -o trace.txt --callee-depth=1 -O funcgraph-retval -G bm_status_read \
	-- cat $STATUS
progress "oracle"
# sh stops itself; after SIGCONT it becomes cat (same pid): only
# bm_status_read is graphed, so the shell's own work is not in the trace.
oracle_capture -o oracle.txt bm_status_read -- sh -c "kill -STOP \$\$; exec cat $STATUS"
umount /proc/sys/fs/binfmt_misc
exit 0
