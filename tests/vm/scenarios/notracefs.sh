#!/bin/sh
# bpfgraph needs neither tracefs nor debugfs: its plan comes from
# /proc/kallsyms, /sys/kernel/btf and /proc/kcore, its hooks are BPF
# trampolines. Both file systems are unmounted for this scenario (see the
# directive); mounts.txt and tracefs.state record that they really were.
# The trace uses --callee-depth=1 (55 functions instead of ~100: attaching
# costs seconds under TCG); the dry run uses the default plan.
# bench-tracefs: off
# bench-timeout: 300
set -u
. /bench/lib/guest.sh

grep -E ' (tracefs|debugfs) ' /proc/mounts >mounts.txt
state=
for f in /sys/kernel/tracing/trace /sys/kernel/debug/tracing/trace; do
	if [ -e "$f" ]; then state="$state present:$f"; else state="$state absent:$f"; fi
done
echo "$state" >tracefs.state
progress "tracefs/debugfs:$state"

progress "bpfgraph --callee-depth=1 -G do_sys_openat2 -- wl openmiss 2"
run_cmd trace bpfgraph --callee-depth=1 -G do_sys_openat2 -- /bin/wl openmiss 2
progress "bpfgraph --dry-run -G do_sys_openat2"
run_cmd dry bpfgraph --dry-run -G do_sys_openat2
# Still unmounted afterwards: nothing mounted it behind our back.
grep -E ' (tracefs|debugfs) ' /proc/mounts >mounts.after
exit 0
