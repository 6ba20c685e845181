#!/bin/sh
# trace-cmd's data file of a kernel function_graph run. One ring buffer,
# of three failed opens and a loopback TCP send (deeper graphs, softirq
# work), read four times: the kernel's own text (`cat trace`, which
# consumes nothing) with default options (fg.txt), with funcgraph-retval
# (rv.txt, 6.5+), with funcgraph-proc and -abstime (proc.txt), with
# funcgraph-tail and nofuncgraph-cpu (tail.txt); then `trace-cmd extract`
# drains the same per-CPU buffers into fg.dat. So the texts and the file
# hold the same events. The check reads fg.dat with the host's bpfgraph.
# Here trace-cmd also reads the trace.dat bpfgraph writes from fg.dat.
# bench-timeout: 120
set -u
. /bench/lib/guest.sh
command -v trace-cmd >/dev/null || { echo "no trace-cmd in the guest" >missing; exit 0; }
trace-cmd --version >tracecmd.version 2>&1
t0=$(up)
progress "capture: openmiss 2, tcp 1"
oracle_capture -o fg.txt -v rv.txt=funcgraph-retval \
	-v proc.txt=funcgraph-proc,funcgraph-abstime \
	-v tail.txt=funcgraph-tail,nofuncgraph-cpu -x fg.dat \
	"do_sys_openat2 __sys_sendto" -- wl --stop openmiss 2 tcp 1
echo "capture $(since "$t0")" >secs.txt
t0=$(up)
# vmlinux's text addresses with more than one name ("ADDR NAME NAME..."):
# trace-cmd report prints one of them, which one depending on the whole
# symbol table (the modules loaded by then), bg.dat holds the kernel's.
awk '$2 ~ /^[tT]$/ && NF == 3 { n[$1] = n[$1] " " $3; c[$1]++ }
	END { for (a in c) if (c[a] > 1) print a n[a] }' /proc/kallsyms >aliases.txt
run_cmd bgdat bpfgraph report -i fg.dat --format=trace-cmd -o bg.dat
run_cmd bgrep trace-cmd report -i bg.dat
run_cmd fgrep trace-cmd report -i fg.dat
echo "reports $(since "$t0")" >>secs.txt
