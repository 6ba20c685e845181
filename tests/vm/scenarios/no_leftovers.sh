#!/bin/sh
# After bpfgraph exits, nothing of it is left in the kernel: no program
# named bg_*, no extra link, map or pin, no function still hooked, the
# tracer and the kprobe optimizer's setting as they were.
# Snapshots: before (baseline), during (once bg_ programs show up), after.
# Then --wait-detach, which releases the hooks itself: it must exit 0.
# bench-timeout: 600
set -u
. /bench/lib/guest.sh

snap() { # LABEL
	bpftool prog show >"$1.progs" 2>&1
	bpftool link show >"$1.links" 2>&1
	bpftool map show >"$1.maps" 2>&1
	cat $T/enabled_functions >"$1.ftrace" 2>&1
	find /sys/fs/bpf -mindepth 1 >"$1.pins" 2>&1
}
objects() { grep -c '^[0-9]*: ' "$1" || true; }
# Programs, links, maps, hooked functions and pins, as one comparable line.
# bpftool stops listing at an object caught half-created or half-freed
# (EAGAIN on a link not yet settled): count its errors, so that a
# truncated list never passes for a clean one.
tally() { # LABEL
	echo "progs=$(objects "$1.progs") links=$(objects "$1.links") maps=$(objects "$1.maps")" \
		"hooked=$(wc -l <"$1.ftrace") pins=$(wc -l <"$1.pins")" \
		"bg_progs=$(grep -c 'name bg_' "$1.progs")" \
		"errors=$(cat "$1.progs" "$1.links" "$1.maps" | grep -c '^Error')" \
		"optprobes=$(cat /proc/sys/debug/kprobes-optimization 2>/dev/null || echo none)" \
		"tracer=$(cat $T/current_tracer)"
}

# The baseline without the hooks of a trace before this one still being
# released (a background process; on 6.1 a trampoline at a time): taken
# meanwhile, it held that trace's programs, which were gone by the end.
wait_released
snap before
tally before >before.tally
# --callee-depth=1: a few dozen functions leave as much behind as
# hundreds would, and on 6.1 each takes a third of a second to release.
progress "bpfgraph -d 2 --callee-depth=1 -G do_sys_openat2, workload: wl openmiss 3 in a loop"
bpfgraph -d 2 --callee-depth=1 -G do_sys_openat2 >trace.txt 2>stderr.txt &
pid=$!
# Keep the complete sample (no bpftool error) with the most hooked
# functions seen while bg_ programs were loaded: the proof that this check
# sees bpfgraph's objects at all.
best=-1
while kill -0 $pid 2>/dev/null; do
	wl openmiss 3
	snap probe
	tally probe >probe.tally
	hooked=$(wc -l <probe.ftrace)
	if grep -q 'name bg_' probe.progs && grep -q 'errors=0' probe.tally &&
		[ "$hooked" -gt "$best" ]; then
		[ $best -ge 0 ] || progress "bg_ programs visible: $(cat probe.tally)"
		best=$hooked
		for f in progs links maps ftrace pins tally; do
			mv "probe.$f" "during.$f"
		done
	fi
	usleep 100000
done
wait $pid
echo $? >rc
exited=$(up)
# Programs and links are freed after RCU grace periods, not at close(),
# and bpfgraph leaves their release to a background process after 1.5 s
# (per-function hooks on 6.1: seconds to a minute): give the
# kernel up to 240 s (guest time) to settle back to the baseline.
deadline=$(($(date +%s) + 240))
settled=never
while :; do
	snap after
	tally after >after.tally
	if cmp -s before.tally after.tally; then
		settled=$(up)
		break
	fi
	[ "$(date +%s)" -lt $deadline ] || break
	usleep 200000
done
echo "$exited $settled" >settle.time

# --wait-detach: bpfgraph releases every hook itself before it exits,
# then frees what it held (a build once wrote into the BPF object after
# destroying it, and died of SIGSEGV at exit).
progress "bpfgraph --wait-detach -d 2 --callee-depth=1 -G do_sys_openat2"
bpfgraph --wait-detach -d 2 --callee-depth=1 -G do_sys_openat2 >wtrace.txt 2>wstderr.txt &
pid=$!
while kill -0 $pid 2>/dev/null; do
	wl openmiss 3
	usleep 100000
done
wait $pid
echo $? >wrc
snap wafter
tally wafter >wafter.tally
