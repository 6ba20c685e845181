#!/bin/sh
# --inherit: the tasks a traced one creates are traced too. wl forkmiss 2
# forks a child that starts a thread; each opens a missing file twice
# (its -v line on stderr names the three: "forkmiss: parent P child C
# thread T"). Only do_sys_openat2 is hooked (--callee-depth=0
# --no-discovery -O nofuncgraph-irqs), so that a run costs 2-3 guest
# seconds under TCG; -O funcgraph-proc gives each call's leaf line its task.
#   inherit    --inherit -- sh -c 'wl -v openmiss 1 forkmiss 2; true': wl is
#              sh's child, the child and its thread wl's (three levels)
#   noinherit  the same without --inherit on wl itself: its own call only
#   pid        -p P --inherit on a stopped wl, let go once bpfgraph is
#              ready; pid.map: the traced set once wl has exited (empty:
#              every task left it at its exit), the map of this bpfgraph
#              (pid.maps lists every bg_pids map: an earlier run's, still
#              held by its background releaser, keeps its command's pid)
# Each run is NAME.txt (the trace), NAME.err (bpfgraph's and wl's stderr),
# NAME.rc; times.txt has the guest seconds of each.
# bench-timeout: 240
set -u
. /bench/lib/guest.sh

ARGS="-G do_sys_openat2 --callee-depth=0 --no-discovery -O funcgraph-proc -O nofuncgraph-irqs"

t0=$(up)
progress "inherit: bpfgraph --inherit -- sh -c 'wl -v openmiss 1 forkmiss 2; true'"
# shellcheck disable=SC2086 # $ARGS is words
bpfgraph $ARGS --inherit -o inherit.txt -- /bin/sh -c '/bin/wl -v openmiss 1 forkmiss 2; true' \
	>inherit.out 2>inherit.err
echo $? >inherit.rc
echo "inherit $(since "$t0")" >>times.txt

t0=$(up)
progress "noinherit: bpfgraph -- wl -v openmiss 1 forkmiss 2"
# shellcheck disable=SC2086
bpfgraph $ARGS -o noinherit.txt -- /bin/wl -v openmiss 1 forkmiss 2 >noinherit.out 2>noinherit.err
echo $? >noinherit.rc
echo "noinherit $(since "$t0")" >>times.txt

wait_released
t0=$(up)
progress "pid: bpfgraph -p P --inherit on a stopped wl"
/bin/wl --stop -v openmiss 1 forkmiss 2 >pid.wl.out 2>pid.wl.err &
wp=$!
wait_stopped $wp || echo "wl $wp did not stop" >>pid.err
# shellcheck disable=SC2086
bpfgraph -v $ARGS -p $wp --inherit -o pid.txt 2>pid.err &
bp=$!
i=0
while ! grep -q '^bpfgraph: ready after' pid.err && [ $i -lt 600 ] && kill -0 $bp 2>/dev/null; do
	usleep 50000
	i=$((i + 1))
done
kill -CONT $wp
wait $wp
echo $? >pid.wl.rc
# wl and its child have exited: nothing of them is left in the set.
bpftool map show name bg_pids >pid.maps 2>&1
# The newest is this bpfgraph's (ids only grow; the guest's bpftool does
# not name the processes holding a map).
id=$(awk '/^[0-9]+:/ && $1 + 0 > id { id = $1 + 0 } END { if (id) print id }' pid.maps)
if [ -n "$id" ]; then
	bpftool map dump id "$id" >pid.map 2>&1
else
	echo "no bg_pids map in bpftool's list (pid.maps)" >pid.map
fi
kill -INT $bp
wait $bp
echo $? >pid.rc
echo "pid $(since "$t0")" >>times.txt
wait_released
exit 0
