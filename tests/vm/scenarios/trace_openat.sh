#!/bin/sh
# bpfgraph on do_sys_openat2 for three failed opens, and the kernel's own
# function_graph on the same workload in the same boot, for comparison.
# bench-timeout: 300
set -u
. /bench/lib/guest.sh
progress "bpfgraph -G do_sys_openat2 -- wl openmiss 3"
bpfgraph -G do_sys_openat2 -- /bin/wl openmiss 3 >trace.txt 2>stderr.txt
echo $? >rc
progress "oracle"
oracle_capture -o oracle.txt do_sys_openat2 -- wl --stop openmiss 3
