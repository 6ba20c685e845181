#!/bin/sh
# The kernel's symbols read from kernel memory (user/kernel/ksyms_kcore.c)
# against /proc/kallsyms, symbol by symbol (tests/vm/ksymcmp.c), with
# three modules loaded by the bench's /init; and bpfgraph's -vv line saying
# which source its dry run took.
# bench-clock: icount
# bench-timeout: 300
set -u
. /bench/lib/guest.sh

cut -d' ' -f1 /proc/modules >modules.txt
if [ -x /bin/ksymcmp ]; then
	ksymcmp >ksymcmp.txt 2>ksymcmp.err
	echo $? >ksymcmp.rc
fi
run_cmd dry bpfgraph -vv --dry-run --callee-depth=0 -G do_sys_openat2
exit 0
