#!/bin/sh
# Kills in every phase and a bounded stop (issue: nothing left stopped,
# nothing waits for minutes):
#   killattach  SIGKILL while attaching (--hook=fentry), a COMMAND
#               waiting to start
# (plans of --callee-depth=1: a few dozen functions are as good a test of
# what is left behind as hundreds, in a fraction of the time)
#   killtrace   SIGKILL while tracing a COMMAND that live discovery stops
#               (SIGSTOP) and continues
#   killrecord  the same for bpfgraph record
#   killrel     SIGKILL to the process that releases the hooks after a
#               trace (--hook=fentry: more than its 1.5 s of waiting)
#   dur         -d 5 --callee-depth=1 -G do_sys_openat2 under a load:
#               ends within a bound of 5 s after tracing began
#   broad       -d 5 -G vfs_read -G vfs_write --callee-depth=0 --wide=off
#               under the load (every read and write of the load is a
#               graph): the hooks take at most a bound; reading what was
#               recorded takes what it takes; lost records reported per
#               CPU. The two functions the load calls, not 'vfs_*': its
#               hundred functions added nothing to the records but
#               minutes of attaching under the load on 6.1 (fentry, one
#               function after another) and, with the wide net, on 6.12;
#               dur is the case for the default net's stop.
#   broadrec    the same as a recording with -b 64M
# Each: NAME.rc, NAME.err, NAME.time (guest seconds: start, the signal or
# the end of tracing, exit), NAME.wl (state letters of wl processes 1 s
# after), NAME.clean (kill cases: seconds from the exit until no bg_ program is left,
# -1: still there after 120 s). killtrace.T and killrecord.T: whether the
# command was seen stopped (T) before the kill.
# bench-timeout: 900
set -u
. /bench/lib/guest.sh

leftovers() { # NAME
	sleep 1
	wlstate >"$1.wl"
	released_after 120 >"$1.clean"
}
wait_loaded() { # PID
	i=0
	while ! loaded && [ $i -lt 1200 ] && kill -0 "$1" 2>/dev/null; do
		usleep 100000
		i=$((i + 1))
	done
}
# Waits until a wl process is seen stopped (live discovery attaching what
# it found), at most 60 s; NAME.T says whether it was.
wait_stopped() { # NAME
	i=0
	while [ $i -lt 1200 ]; do
		case " $(wlstate)" in *" T"*) echo yes >"$1.T"; return ;; esac
		usleep 50000
		i=$((i + 1))
	done
	echo no >"$1.T"
}

progress "killattach: SIGKILL while attaching, the COMMAND not started"
t0=$(up)
bpfgraph --hook=fentry --callee-depth=1 -G do_sys_openat2 -- /bin/wl openmiss 1 \
	>killattach.out 2>killattach.err &
pid=$!
wait_loaded $pid
usleep 500000
ts=$(up)
kill -KILL $pid
wait $pid
echo $? >killattach.rc
echo "$t0 $ts $(up)" >killattach.time
leftovers killattach

# A command live discovery keeps stopping while it attaches what it found.
killtracing() { # NAME BPFGRAPH-ARGS...
	name=$1
	shift
	progress "$name: SIGKILL while the command is traced (bpfgraph $*)"
	t0=$(up)
	bpfgraph "$@" --callee-depth=1 -G do_sys_openat2 -- /bin/wl openmiss 100000 \
		>$name.out 2>$name.err &
	pid=$!
	wait_loaded $pid
	wait_stopped $name
	ts=$(up)
	kill -KILL $pid
	wait $pid
	echo $? >$name.rc
	echo "$t0 $ts $(up)" >$name.time
	leftovers $name
}
killtracing killtrace
killtracing killrecord record -o /tmp/killrecord.bgr

progress "killrel: SIGKILL to the process releasing the hooks"
t0=$(up)
bpfgraph --hook=fentry --callee-depth=1 -d 1 -G do_sys_openat2 >killrel.out 2>killrel.err
echo $? >killrel.rc
te=$(up)
rel=$(sed -n 's/.*still being released by process \([0-9]*\).*/\1/p' killrel.err)
echo "${rel:-none}" >killrel.pid
[ -n "$rel" ] && kill -KILL "$rel" 2>/dev/null
echo "$t0 $te $te" >killrel.time
leftovers killrel

# A load on vfs_* functions from both CPUs.
load() {
	while :; do
		wl read 200 pipe 200 openmiss 20 >/dev/null 2>&1
	done
}
load &
l1=$!
load &
l2=$!
timed() { # NAME BPFGRAPH-ARGS...
	name=$1
	shift
	progress "$name: bpfgraph $* -d 5 under a load"
	t0=$(up)
	bpfgraph "$@" -v -d 5 >$name.out 2>$name.err
	echo $? >$name.rc
	te=$(up)
	# Tracing began once it was ready: -v says after how long.
	ready=$(sed -n 's/^bpfgraph: ready after \([0-9.]*\) s.*/\1/p' $name.err | head -n1)
	echo "$t0 $(awk -v a="$t0" -v r="${ready:-0}" 'BEGIN { printf "%.2f", a + r + 5 }') $te" >$name.time
	# Not waiting here for the release (a minute of vfs_* hooks on 6.1):
	# the kill cases measure it; the end of the scenario waits once.
	sleep 1
	wlstate >"$name.wl"
}
timed dur -o /tmp/dur.txt --callee-depth=1 -G do_sys_openat2
broad="--callee-depth=0 --wide=off -G vfs_read -G vfs_write"
# shellcheck disable=SC2086
timed broad -o /tmp/broad.txt $broad
# shellcheck disable=SC2086
timed broadrec record -b 64M -o /tmp/broad.bgr $broad
kill $l1 $l2
wait $l1 $l2 2>/dev/null
rm -f /tmp/dur.txt /tmp/broad.txt /tmp/broad.bgr /tmp/killrecord.bgr
# The next scenario starts from a kernel without our hooks.
wait_released
