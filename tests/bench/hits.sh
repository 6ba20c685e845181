#!/bin/sh
# Which hooked functions an unrelated task pays for (issue #31), guest
# side, on the instruction clock. A COMMAND's loop (wl HITS_OP) is traced
# with -G HITS_FUNC until its steady state, whose hooks are read from
# tracefs's enabled_functions (every function with a hook, whoever owns
# it); a pipe loop in another task is timed with them and, once they
# are released, without. Then the same loop runs under the kernel's
# function tracer filtered to those functions, which counts each one's
# calls (bwl's own lines only). Results for tests/bench/hits.check:
# results.txt, hits.txt ("COUNT FUNCTION", the loop's calls of hooked
# functions) and shown.txt (the functions the traced calls showed).
# bench-clock: icount
# bench-timeout: 1500
set -u
. /bench/lib/guest.sh
PATH=/tmp/bb:$PATH
R=$OUT/results.txt
: >"$R"
T=/sys/kernel/tracing
F=${HITS_FUNC:-do_sys_openat2}
OP=${HITS_OP:-openmiss}
N=${HITS_NPIPE:-5000}
# The function tracer's lines for the count: a few thousand round trips' worth.
NC=${HITS_NCOUNT:-500}
res() { echo "$*" >>"$R"; }
ns_of() { sed -n 's/.* ns=\([0-9]*\).*/\1/p' "$1" | head -n 1; }

res "kernel $(uname -r)"
res "func $F op $OP npipe $N ncount $NC"
progress "bpfgraph -G $F -- wl $OP 50, then asleep while the hooks are read"
bpfgraph -v -o /tmp/hits.txt -G "$F" -- sh -c "wl $OP 50; sleep 20" 2>trace.err &
bp=$!
# The first call's pause and what discovery found are over by then.
sleep 12
sed 's/[[:space:]].*//' $T/enabled_functions | sort -u >hooked.txt
res "hooked $(wc -l <hooked.txt)"
bwl -o pipe.hooked pipe "$N"
res "pipe_hooked $(ns_of pipe.hooked)"
wait $bp
res "bpfgraph_rc $?"
# What the traced calls showed: "name();", "name() {".
sed -n 's/.*|[[:space:]]*\([A-Za-z0-9_.]*\)().*/\1/p' /tmp/hits.txt | sort -u >shown.txt
rm -f /tmp/hits.txt
wait_released
bwl -o pipe.none pipe "$N"
res "pipe_none $(ns_of pipe.none)"
progress "the pipe loop's calls of the $(wc -l <hooked.txt) hooked functions (function tracer)"
cat hooked.txt >$T/set_ftrace_filter 2>filter.err
res "filtered $(grep -c . $T/set_ftrace_filter)"
echo 40000 >$T/buffer_size_kb
echo function >$T/current_tracer
echo 1 >$T/tracing_on
bwl -o pipe.count pipe "$NC"
echo 0 >$T/tracing_on
res "pipe_count $(ns_of pipe.count) n $NC"
# "bwl-123 [000] ..... 1.2: vfs_write <-ksys_write": the field before "<-".
awk '/^#/ { next }
     $1 ~ /^bwl-/ { for (i = 2; i <= NF; i++) if ($i ~ /^<-/) { print $(i - 1); break } }' \
	$T/trace | sort | uniq -c | sort -rn >hits.txt
res "lost $(grep -h 'overrun:' $T/per_cpu/cpu*/stats | awk '{ s += $2 } END { print s + 0 }')"
echo nop >$T/current_tracer
echo >$T/set_ftrace_filter
res "done"
