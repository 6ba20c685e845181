#!/bin/sh
# trace-cmd's data file of a kernel function_graph run: the kernel's own
# text (`trace`) and trace-cmd's trace.dat of the same ring buffer
# (oracle_capture -x: `cat trace` reads without consuming, then `trace-cmd
# extract` drains the per-CPU buffers into the file), so both hold the
# same events. The check reads the file with the host's bpfgraph.
#   fg:  three failed opens, default options
#   rv:  the same with funcgraph-retval (6.5+; skipped before)
#   tcp: a loopback TCP send with funcgraph-proc and funcgraph-abstime
#        (deeper graphs, softirq work, task and time columns)
# The host-side check also has trace-cmd read the file bpfgraph writes
# from fg.dat; here trace-cmd reads it too, as the guest's own.
# bench-timeout: 120
set -u
. /bench/lib/guest.sh
command -v trace-cmd >/dev/null || { echo "no trace-cmd in the guest" >missing; exit 0; }
trace-cmd --version >tracecmd.version 2>&1
uname -r >uname.txt
t0=$(up)
progress "fg: openmiss 3"
oracle_capture -o fg.txt -x fg.dat do_sys_openat2 -- wl --stop openmiss 3
echo "fg $(since "$t0")" >times
if grep -q funcgraph-retval $T/trace_options 2>/dev/null; then
	t0=$(up)
	progress "rv: openmiss 3, funcgraph-retval"
	oracle_capture -o rv.txt -x rv.dat -O funcgraph-retval do_sys_openat2 -- wl --stop openmiss 3
	echo "rv $(since "$t0")" >>times
fi
t0=$(up)
progress "tcp: tcp 1, funcgraph-proc funcgraph-abstime"
oracle_capture -o tcp.txt -x tcp.dat -O funcgraph-proc -O funcgraph-abstime \
	__sys_sendto -- wl --stop tcp 1
echo "tcp $(since "$t0")" >>times
# trace-cmd on the guest reads the file bpfgraph makes of fg.dat.
t0=$(up)
run_cmd bgdat bpfgraph report -i fg.dat --format=trace-cmd -o bg.dat
run_cmd bgrep trace-cmd report -i bg.dat
run_cmd fgrep trace-cmd report -i fg.dat
echo "reports $(since "$t0")" >>times
