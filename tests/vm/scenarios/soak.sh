#!/bin/sh
# 12 start/stop cycles on one entry function with a load running (issue:
# nothing left, nothing degrades). After each cycle, once bpfgraph's
# programs are gone: objects of the kernel's BPF (programs, links, maps),
# functions hooked in ftrace, open descriptors (all processes) and kernel memory
# (Slab, Percpu, VmallocUsed in kB), one line of soak.tsv; soak.base is
# the same before the first cycle. SOAK_CYCLES overrides the count.
# --callee-depth=0: the entry function, the call-site probes in it and
# what live discovery adds in a second; every kind of object a trace
# makes, in a cycle short enough for 12 of them on 6.1 (a plan of
# --callee-depth=1 took 72 s a cycle there; 20 cycles took 490-550 s of
# CI's hour). soak.check's limits on Percpu, VmallocUsed and open files
# are on the growth from cycle 2 to the last: over 10 cycles instead of
# 18, a leak per cycle must be 1.8x larger to cross them.
# bench-timeout: 900
set -u
. /bench/lib/guest.sh

cycles=${SOAK_CYCLES:-12}
count() { grep -c '^[0-9]*: ' || true; }
mem() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# Descriptors open in all processes (fs/file-nr is a per-CPU counter read
# roughly: it moved by 32 from one reading to the next here).
openfds() {
	for d in /proc/[0-9]*/fd; do
		ls "$d" 2>/dev/null
	done | wc -l
}
snap() {
	echo "$(bpftool prog show 2>/dev/null | count)" \
		"$(bpftool link show 2>/dev/null | count)" \
		"$(bpftool map show 2>/dev/null | count)" \
		"$(wc -l <$T/enabled_functions)" \
		"$(openfds)" \
		"$(mem Slab) $(mem Percpu) $(mem VmallocUsed)"
}

load() {
	while :; do
		wl openmiss 50 read 50 >/dev/null 2>&1
		usleep 20000
	done
}
# A previous scenario's hooks may still be being released.
wait_released
load &
lp=$!
sleep 1
snap >soak.base
: >soak.tsv
i=1
while [ $i -le "$cycles" ]; do
	progress "cycle $i of $cycles: bpfgraph -d 1 --callee-depth=0 -G do_sys_openat2"
	bpfgraph -d 1 --callee-depth=0 -G do_sys_openat2 >soak.out 2>soak.$i.err
	echo $? >soak.$i.rc
	# What is left is released in the background: measured once it is done.
	released_after 60 >/dev/null
	# Programs and maps are freed after RCU grace periods.
	sleep 1
	echo "$i $(snap)" >>soak.tsv
	i=$((i + 1))
done
kill $lp
wait $lp 2>/dev/null
grep -c 'do_sys_openat2' soak.out >soak.lastcalls || true
