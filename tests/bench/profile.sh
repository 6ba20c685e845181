#!/bin/sh
# Where the steady state's time goes, by function (issue #31), guest
# side, on the instruction clock: perf samples every CPU while a
# COMMAND's loop of PROF_NCALL calls (wl PROF_OP) is traced with
# -G PROF_FUNC (PROF_OPTS: more options) to a file, from the moment its
# output has grown past PROF_SKIP bytes (the first call's linking and what
# discovery found in the first calls over) for PROF_SECS guest seconds.
# Needs perf in the guest (tests/bench/run.sh --profile copies the
# host's). Results for
# tests/bench/profile.check: results.txt, perf's report by command,
# object and symbol in report.txt, by object and source line in lines.txt.
# bench-clock: icount
# bench-timeout: 1500
set -u
. /bench/lib/guest.sh
R=$OUT/results.txt
: >"$R"
F=${PROF_FUNC:-do_sys_openat2}
OP=${PROF_OP:-openmiss}
N=${PROF_NCALL:-8000}
S=${PROF_SECS:-2}
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
i=0
while [ "$(size /tmp/trace.txt)" -lt "$SKIP" ] && [ $i -lt 1200 ] && kill -0 $bp 2>/dev/null; do
	usleep 100000
	i=$((i + 1))
done
s0=$(size /tmp/trace.txt)
perf record -a -g -F 4000 -o /tmp/perf.data -- sleep "$S" >perf.out 2>&1
res "window bytes $s0 $(size /tmp/trace.txt)"
wait $bp
res "bpfgraph rc $? lines $(wc -l </tmp/trace.txt)"
rm -f /tmp/trace.txt
progress "perf report"
perf report -i /tmp/perf.data --stdio --no-children --sort comm,dso,sym -g none \
	>report.txt 2>report.err
# The BPF programs' samples by source line (their line info, which perf
# keeps with each program it saw loaded).
perf report -i /tmp/perf.data --stdio --no-children --sort dso,srcline -g none \
	>lines.txt 2>lines.err
rm -f /tmp/perf.data
wait_released
res done
