#!/bin/sh
# With tracefs and debugfs unmounted (see the directive; mounts.txt and
# tracefs.state record that they really were), as in a container:
# - by default bpfgraph still takes function_graph as its ftrace net for
#   the command's first call, through a tracefs mount of its own that no
#   directory holds (trace: -v says so, and the first call is drawn
#   deeper than the plan goes);
# - with --wide=off it needs no tracefs at all: its plan comes from
#   /proc/kallsyms, /sys/kernel/btf and /proc/kcore, its hooks are BPF's
#   (bare);
# - the dry run lists callees.
# Nothing is mounted afterwards, and the top instance, read through a
# mount of the scenario's own before and after, is as it was found.
# The traces use --callee-depth=1 (55 functions instead of ~100:
# attaching costs seconds under TCG); the dry run the default plan.
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

top_instance() { # FILE: the top instance's settings, read through a mount made and undone here
	mkdir -p /tmp/notracefs.mnt
	if mount -t tracefs nodev /tmp/notracefs.mnt; then
		for f in current_tracer tracing_on trace_clock set_graph_function set_ftrace_pid \
			options/function-fork options/funcgraph-irqs options/overwrite; do
			printf '%s: %s\n' "$f" "$(tr '\n' ' ' </tmp/notracefs.mnt/$f 2>&1)"
		done >"$1"
		umount /tmp/notracefs.mnt
	else
		echo "cannot mount tracefs to read it" >"$1"
	fi
}
top_instance tracefs.before
progress "bpfgraph -v --callee-depth=1 -G do_sys_openat2 -- wl openmiss 2"
run_cmd trace bpfgraph -v --callee-depth=1 -G do_sys_openat2 -- /bin/wl openmiss 2
progress "bpfgraph --wide=off --callee-depth=1 -G do_sys_openat2 -- wl openmiss 2"
run_cmd bare bpfgraph --wide=off --callee-depth=1 -G do_sys_openat2 -- /bin/wl openmiss 2
progress "bpfgraph --dry-run -G do_sys_openat2"
run_cmd dry bpfgraph --dry-run -G do_sys_openat2
# Still unmounted afterwards: nothing mounted it behind our back.
grep -E ' (tracefs|debugfs) ' /proc/mounts >mounts.after
top_instance tracefs.after
exit 0
