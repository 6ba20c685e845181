#!/bin/sh
# make demo, in the guest: the same trace as on a host that allows fentry.
# bench-timeout: 240
set -u
. /bench/lib/guest.sh
progress "bpfgraph -G do_sys_openat2 -- wl openmiss 3"
bpfgraph -G do_sys_openat2 -- wl openmiss 3 >trace.txt 2>stderr.txt
echo $? >rc
