#!/bin/sh
# bpfgraph's filters and output options on do_sys_openat2, one run each:
#   depth    -D 2                      (--callee-depth=2: depth 2 exists)
#   c61      --compat=6.1 (--wide=off)
#   tail     --compat=6.1 -O funcgraph-tail (--callee-depth=2 --wide=off
#            --no-discovery)
#   abstime  -O funcgraph-abstime      (uptime before/after in abstime.window)
#   nocpu    -O nofuncgraph-cpu
#   c613     --compat=6.13             (also the reference for thresh)
#   hex      -O funcgraph-retval-hex
#   nodisc   --no-discovery -v (default --callee-depth: path_init calls
#            __rcu_read_lock at depth 3)
#   sleep    -G hrtimer_nanosleep on wl sleep 300; nosleep: the same with
#            -O nosleep-time
#   thresh   -t T, T = median duration of the c613 run (thresh.value)
#   pid      -p PID -d 3 -O funcgraph-proc, two looping wl (pid.pids)
#   comm     -n wlother -d 3 -O funcgraph-proc, wl and wlother (comm.pids)
# Attaching and detaching cost seconds under TCG, so runs whose option does
# not need depth use --callee-depth=1, and all but pid use
# -O nofuncgraph-irqs (the interrupt entries and their callees are 45 of
# the 55 functions of --callee-depth=1). Each run is NAME.out/.err/.rc;
# times.txt has the guest uptime around each run.
# bench-timeout: 600
set -u
. /bench/lib/guest.sh

G="-G do_sys_openat2"
CHEAP="--callee-depth=1 -O nofuncgraph-irqs"
DEEP="--callee-depth=2 -O nofuncgraph-irqs"
# The runs whose checks want a return value on every call ask for them:
# where the kernel has no kprobe.session (6.1) the ftrace net records the
# first call by default, and function_graph there has no return values
# (docs/kernels.md, "The ftrace net"); asked for, they are on every call.
RET="-O funcgraph-retval"

run() { # NAME bpfgraph-args...: bpfgraph on wl openmiss 3
	_n=$1
	shift
	progress "$_n: bpfgraph $*"
	_t0=$(up)
	run_cmd "$_n" bpfgraph "$@" -- /bin/wl openmiss 3
	echo "$_n $_t0 $(up) rc=$(cat "$_n.rc")" >>times.txt
}

# wl arguments: N times "open a missing file, sleep 100 ms" (~N/10 s).
loop_args() {
	_a=
	_i=0
	while [ "$_i" -lt "$1" ]; do
		_a="$_a openmiss 1 sleep 100"
		_i=$((_i + 1))
	done
	echo "$_a"
}

: >times.txt
run depth $DEEP $RET $G -D 2
# Without a return value asked for, 6.1's ftrace net would record the
# first call and the functions it met (over 200) be linked, then released
# for minutes: --wide=off keeps these two to their plan, and
# --no-discovery the second (its depth-2 plan's callers came to 238).
run c61 $CHEAP --wide=off $G --compat=6.1
run tail $DEEP --wide=off --no-discovery $G --compat=6.1 -O funcgraph-tail
before=$(up)
run abstime $CHEAP $RET $G -O funcgraph-abstime
echo "$before $(up)" >abstime.window
run nocpu $CHEAP $RET $G -O nofuncgraph-cpu
run c613 $CHEAP $RET $G --compat=6.13
run hex $CHEAP $G -O funcgraph-retval-hex
run nodisc -O nofuncgraph-irqs $G -v --no-discovery

# sleep-time: a 300 ms nanosleep under hrtimer_nanosleep, with the time
# switched out counted (the default) and without (-O nosleep-time).
for n in sleep nosleep; do
	o=
	[ $n = nosleep ] && o="-O nosleep-time"
	progress "$n: bpfgraph -G hrtimer_nanosleep $o"
	t0=$(up)
	# shellcheck disable=SC2086
	# --no-pause: stopping the command for discovery would interrupt the
	# sleep (-ERESTART_RESTARTBLOCK) and restart it elsewhere.
	run_cmd $n bpfgraph $CHEAP --no-pause -G hrtimer_nanosleep $o -- /bin/wl sleep 300
	echo "$n $t0 $(up) rc=$(cat $n.rc)" >>times.txt
done

# Threshold: the median of the durations bpfgraph printed for the same
# plan and workload, so that some calls pass and some do not.
thresh=$(sed -n 's/^ *[0-9]*) [ +!#*@$] \([0-9][0-9]*\)[.0-9]* us .*/\1/p' c613.out |
	sort -n | awk '{ v[NR] = $1 } END { m = NR ? v[int((NR + 1) / 2)] : 50; print m < 1 ? 1 : m }')
echo "$thresh" >thresh.value
run thresh $CHEAP $G -t "$thresh"

# -p: two copies of the same looping workload, only the first is traced.
# Interrupt entries stay on here: the pid filter must hold for them too.
args=$(loop_args 600)
/bin/wl $args &
pid_a=$!
/bin/wl $args &
pid_b=$!
echo "$pid_a $pid_b" >pid.pids
progress "pid: bpfgraph -p $pid_a -d 3 (other wl: $pid_b)"
t0=$(up)
run_cmd pid bpfgraph --callee-depth=1 $G -p "$pid_a" -d 3 -O funcgraph-proc
echo "pid $t0 $(up) rc=$(cat pid.rc)" >>times.txt
# Both must still be looping: the other one ran (and opened) all along.
alive=
kill -0 "$pid_a" 2>/dev/null && alive="$alive $pid_a"
kill -0 "$pid_b" 2>/dev/null && alive="$alive $pid_b"
echo "$alive" >pid.alive
kill "$pid_a" "$pid_b" 2>/dev/null
wait "$pid_a" "$pid_b" 2>/dev/null

# -n: the same program under two names.
cp /bin/wl /tmp/wlother
/bin/wl $args &
pid_w=$!
/tmp/wlother $args &
pid_o=$!
echo "$pid_w $pid_o" >comm.pids
progress "comm: bpfgraph -n wlother -d 3 (wl: $pid_w, wlother: $pid_o)"
t0=$(up)
run_cmd comm bpfgraph $CHEAP $G -n wlother -d 3 -O funcgraph-proc
echo "comm $t0 $(up) rc=$(cat comm.rc)" >>times.txt
alive=
kill -0 "$pid_w" 2>/dev/null && alive="$alive $pid_w"
kill -0 "$pid_o" 2>/dev/null && alive="$alive $pid_o"
echo "$alive" >comm.alive
kill "$pid_w" "$pid_o" 2>/dev/null
wait "$pid_w" "$pid_o" 2>/dev/null
rm -f /tmp/wlother
exit 0
