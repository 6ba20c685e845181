#!/bin/sh
# The kernel's own function_graph on the bench kernel: the oracle that
# bpfgraph's output is compared with. Three failed opens of wl, pid-filtered.
# bench-timeout: 120
set -u
. /bench/lib/guest.sh
oracle_capture -o oracle.txt do_sys_openat2 -- wl --stop openmiss 3
