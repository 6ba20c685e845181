#!/bin/sh
# What a trace takes from the machine's memory (issue #31 item 5), guest
# side, on as many CPUs as the boot has (tests/bench/run.sh --mem boots
# once per count in MEM_SMP): for each case, the lowest MemAvailable and
# the highest VmallocUsed while bpfgraph traces a command that opens a
# missing file 20 times, against what they were before, and what is left
# taken once the hooks are released. The kernel's return-hook pools
# (fprobe's rethook, an objpool per link) are vmalloc'd, so VmallocUsed
# shows them apart from the rest. Results as "KEY value..." lines in
# results.txt; tests/bench/mem.check prints the table.
# bench-timeout: 1800
set -u
. /bench/lib/guest.sh
PATH=/tmp/bb:$PATH
R=$OUT/results.txt
: >"$R"
res() { echo "$*" >>"$R"; }
mi() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# Free pages held in the per-CPU lists (KiB): MemAvailable leaves them
# out, and on 7.3 they grew by 17 MiB over a first trace in a boot and
# stayed there, free memory taken from no one.
pcp() { awk '/^ *count:/ { s += $2 } END { print s * 4 }' /proc/zoneinfo; }

res "kernel $(uname -r)"
res "cpus online $(nproc) possible $(cat /sys/devices/system/cpu/possible)"

# Samples MemAvailable and VmallocUsed every 50 ms into NAME.samples
# until NAME.stop exists.
sampler() { # NAME
	while [ ! -e "$1.stop" ]; do
		echo "$(mi MemAvailable) $(mi VmallocUsed) $(pcp)" >>"$1.samples"
		usleep 50000
	done
}

# mem_case NAME BPFGRAPH-ARGS...: one trace of "wl openmiss 20".
mem_case() {
	name=$1
	shift
	progress "$name: bpfgraph $*"
	wait_released
	sync
	echo 3 >/proc/sys/vm/drop_caches
	usleep 500000
	a0=$(mi MemAvailable)
	v0=$(mi VmallocUsed)
	p0=$(pcp)
	rm -f "$name.samples" "$name.stop"
	sampler "$name" &
	sp=$!
	bpfgraph -v "$@" -G do_sys_openat2 -o "$name.txt" -- wl openmiss 20 2>"$name.err"
	echo $? >"$name.rc"
	t=$(released_after 600)
	touch "$name.stop"
	wait $sp
	usleep 500000
	a1=$(mi MemAvailable)
	v1=$(mi VmallocUsed)
	p1=$(pcp)
	amin=$(awk 'NR == 1 || $1 < m { m = $1 } END { print m + 0 }' "$name.samples")
	# The same with the per-CPU lists' free pages counted as available.
	fmin=$(awk 'NR == 1 || $1 + $3 < m { m = $1 + $3 } END { print m + 0 }' "$name.samples")
	vmax=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$name.samples")
	# -v: the net's size, and what bpfgraph reckons its return hooks take.
	net=$(sed -n 's/^bpfgraph: wide net: \([0-9]*\) functions (from.*/\1/p' "$name.err" | head -n 1)
	full=$(sed -n 's/^bpfgraph: wide net: the kernel.s return hooks for \([0-9]*\) of them take about \([0-9.]*\) MiB.*/\1 \2/p' "$name.err" | head -n 1)
	ready=$(sed -n 's/^bpfgraph: ready after \([0-9.]*\) s.*/\1/p' "$name.err" | head -n 1)
	res "$name rc $(cat "$name.rc") avail0_kb $a0 avail_min_kb $amin avail_after_kb $a1 vmalloc0_kb $v0 vmalloc_max_kb $vmax vmalloc_after_kb $v1 pcp0_kb $p0 pcp_after_kb $p1 availpcp_min_kb $fmin released_s $t lines $(grep -c . "$name.txt" 2>/dev/null || echo 0) net ${net:-0} full $(echo "${full:-- -}" | cut -d' ' -f1) model_mib $(echo "${full:-- -}" | cut -d' ' -f2) ready_s ${ready:--}"
}

# The default for a command (the ftrace net where tracefs is free), the
# wide net where the kernel has one (the default with -p; asked for by
# --wide=session for a command), then without a net: the difference is
# the net's.
mem_case default
mem_case wide --wide=session
mem_case nonet --wide=off
# The wide net whole, whatever it takes (--wide-mem=0: the kernel's limit only).
mem_case whole --wide=session --wide-mem=0
res "done"
