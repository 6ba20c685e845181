#!/bin/sh
# Where bpfgraph's start goes (issue #19), guest side, on the instruction
# clock: the kernel's own cost of what bpfgraph reads (/proc/kallsyms,
# the ftrace list, BTF), a dry run (symbols, BTF and the plan), and
# START_RUNS runs of the default tier with -v, whose "ready after" and
# "wide net" lines say how long each step took. The first read of
# /proc/kallsyms in a boot costs more than the next ones: the references
# are read twice, and the runs come after them. function_graph's own
# start for scale. START_OPTS: more options for the runs (--wide=session
# times the wide net, the start of -p and system-wide traces). Results as
# "KEY value..." lines in results.txt for tests/bench/start.check.
# bench-clock: icount
# bench-timeout: 900
set -u
. /bench/lib/guest.sh
R=$OUT/results.txt
: >"$R"
F=${START_FUNC:-do_sys_openat2}
N=${START_RUNS:-2}
T=/sys/kernel/tracing

res() { echo "$*" >>"$R"; }
timed() { # KEY COMMAND...: the command's guest time, its output dropped
	_k=$1
	shift
	_s=$(up)
	"$@" >/dev/null 2>&1
	res "$_k $(since "$_s")"
}

res "kernel $(uname -r)"
res "func $F runs $N"
res "opts ${START_OPTS:-}"
res "kallsyms_lines $(wc -l </proc/kallsyms)"
for i in 1 2; do
	timed "read_kallsyms_$i" cat /proc/kallsyms
done
if [ -r $T/available_filter_functions_addrs ]; then
	res "ftrace_lines $(wc -l <$T/available_filter_functions_addrs)"
	timed read_ftrace_list cat $T/available_filter_functions_addrs
fi
timed read_btf cat /sys/kernel/btf/vmlinux
timed dry_run bpfgraph --dry-run -G "$F"

progress "function_graph"
oracle_reset
echo "$F" >$T/set_graph_function
s=$(up)
echo function_graph >$T/current_tracer
res "fg_start $(since "$s")"
echo nop >$T/current_tracer
oracle_reset

i=1
while [ "$i" -le "$N" ]; do
	progress "bpfgraph run $i"
	wait_released
	s=$(up)
	# shellcheck disable=SC2086
	bpfgraph ${START_OPTS:-} -v -G "$F" -- /bin/wl openmiss 1 >run$i.txt 2>run$i.err
	rc=$?
	res "run$i total $(since "$s") rc $rc"
	# bpfgraph: ready after 3.73 s: kernel symbols, BTF and text 0.66 s,
	# hook probes and plan 0.78 s, programs and links 2.29 s (loading the
	# programs 0.90 s, the wide net 1.21 s of it)
	sed -n 's/^bpfgraph: ready after \([0-9.]*\) s: kernel symbols, BTF and text \([0-9.]*\) s, hook probes and plan \([0-9.]*\) s, programs and links \([0-9.]*\) s (loading the programs \([0-9.]*\) s, the wide net \([0-9.]*\) s of it).*/ready \1 kernel \2 plan \3 progs \4 load \5 net_attach \6/p' \
		run$i.err | sed "s/^/run$i /" >>"$R"
	sed -n '/^bpfgraph: wide net: [0-9]* functions (from /{
		s/^bpfgraph: wide net: \([0-9]*\) functions (from \([^;]*\);.*, \([0-9.]*\) s to list, \([0-9.]*\) s to attach$/net_funcs \1 net_list \3 net_source \2/
		s/net_source kernel text.*/net_source text/
		s/net_source ftrace.s records.*/net_source records/
		s/net_source \/.*/net_source ftrace/
		p
	}' run$i.err | sed "s/^/run$i /" >>"$R"
	i=$((i + 1))
done
res "done"
