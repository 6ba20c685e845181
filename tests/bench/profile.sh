#!/bin/sh
# Where the steady state's time goes, by function (issue #31), guest
# side, on the instruction clock: perf samples every CPU while a
# COMMAND's loop of PROF_NCALL calls (wl PROF_OP) is traced with
# -G PROF_FUNC (PROF_OPTS: more options) to a file, from the moment its
# output has grown past PROF_SKIP bytes (the first call's linking and what
# discovery found in the first calls over) for PROF_SECS guest seconds.
# Needs perf in the guest (tests/bench/run.sh --profile copies the
# host's). Results for
# tests/bench/profile.check: results.txt, and perf's report of the window
# by command, object and symbol in report.txt.
# bench-clock: icount
# bench-timeout: 1500
set -u
. /bench/lib/guest.sh
R=$OUT/results.txt
: >"$R"
F=${PROF_FUNC:-do_sys_openat2}
OP=${PROF_OP:-openmiss}
N=${PROF_NCALL:-10000}
S=${PROF_SECS:-1}
SKIP=${PROF_SKIP:-20000000}
res() { echo "$*" >>"$R"; }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }

res "kernel $(uname -r)"
res "func $F op $OP ncall $N secs $S skip $SKIP opts ${PROF_OPTS:-}"
command -v perf >/dev/null || { res "error no perf in the guest"; exit 1; }
progress "warm-up: bpfgraph -G $F -- wl $OP 20"
# shellcheck disable=SC2086
bpfgraph ${PROF_OPTS:-} -o /tmp/warm.txt -G "$F" -- wl "$OP" 20 2>warm.err
rm -f /tmp/warm.txt
wait_released
progress "bpfgraph -G $F -- wl $OP $N, perf over $S s of its loop"
# shellcheck disable=SC2086
bpfgraph ${PROF_OPTS:-} -v -o /tmp/trace.txt -G "$F" -- wl "$OP" 20 sleep 1000 "$OP" "$N" \
	2>trace.err &
bp=$!
# perf over the whole trace (its start takes seconds of its own, in which
# the loop would run on), its report over the window only.
perf record -a -F 4000 -o /tmp/perf.data -- \
	sh -c "while kill -0 $bp 2>/dev/null; do usleep 100000; done" >perf.out 2>&1 &
pp=$!
i=0
while [ "$(size /tmp/trace.txt)" -lt "$SKIP" ] && [ $i -lt 1200 ] && kill -0 $bp 2>/dev/null; do
	usleep 100000
	i=$((i + 1))
done
# With the wide net the steady state begins once the rcu pair's call-site
# kprobes are placed (a thread does it while the loop runs, seconds of
# text patching and decoding that would fill the window): until -v says so.
case " ${PROF_OPTS:-} " in
*" --wide=session "*)
	i=0
	while ! grep -q '^bpfgraph: __rcu_read_lock/unlock: ' trace.err && [ $i -lt 3000 ] &&
		kill -0 $bp 2>/dev/null; do
		usleep 100000
		i=$((i + 1))
	done
	res "rcu pair handed over after $i polls of 0.1 s"
	;;
esac
t1=$(up)
s1=$(size /tmp/trace.txt)
sleep "$S"
t2=$(up)
s2=$(size /tmp/trace.txt)
wait $bp
res "bpfgraph rc $? lines $(wc -l </tmp/trace.txt)"
wait $pp
# The window is the loop's only if the output still grew after it.
res "window from $t1 to $t2 bytes $s1 $s2 end $(size /tmp/trace.txt)"
rm -f /tmp/trace.txt
progress "perf report"
perf report -i /tmp/perf.data --time "$t1,$t2" --stdio --no-children --sort comm,dso,sym -g none \
	>report.txt 2>report.err
rm -f /tmp/perf.data
wait_released
res "done"
