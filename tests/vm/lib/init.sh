#!/bin/sh
# /init of the bench guest (busybox ash; no bash in the guest).
# Runs the scenarios listed in /bench/list ("NAME TIMEOUT TRACEFS" per
# line) one after the other, each in its own process group with its own
# time limit, and ships each scenario's output directory to the host over
# /dev/ttyS1 as soon as it is done, so that a later hang loses nothing.
# The channel carries only lines starting with BG- and base64 data between
# BG-BEGIN and BG-END; kernel messages go to ttyS0 only.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root
umask 022

T=/sys/kernel/tracing

# busybox-static has no mountpoint applet: ask /proc/mounts.
is_mounted() { grep -q "^[^ ]* $1 " /proc/mounts; }

mount_all() {
	[ -e /proc/mounts ] || mount -t proc proc /proc
	is_mounted /sys || mount -t sysfs sysfs /sys
	is_mounted /dev || mount -t devtmpfs devtmpfs /dev
	is_mounted /tmp || mount -t tmpfs tmpfs /tmp
	is_mounted /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	is_mounted $T || mount -t tracefs tracefs $T
	is_mounted /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
}

# debugfs auto-mounts tracefs at /sys/kernel/debug/tracing: both must go
# for a scenario that proves the tool works without tracefs.
umount_tracefs() {
	umount /sys/kernel/debug/tracing 2>/dev/null
	umount $T 2>/dev/null
	umount /sys/kernel/debug 2>/dev/null
	! is_mounted $T
}

# Undo whatever a scenario left in ftrace, so the next one starts clean.
reset_ftrace() {
	[ -w $T/current_tracer ] || return 0
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	echo >$T/set_graph_function
	echo >$T/set_graph_notrace
	echo >$T/set_ftrace_filter
	echo >$T/set_ftrace_pid
	echo 0 >$T/max_graph_depth
	echo >$T/trace
	echo 1 >$T/tracing_on
}

chan() { echo "$*" >&3; }

# Proof of life on ttyS2 for the host: user space still gets CPU time.
heartbeat() {
	stty -F /dev/ttyS2 raw -echo 2>/dev/null
	exec 3>&- 4>/dev/ttyS2
	while :; do
		echo "HB $(uptime_s)" >&4
		sleep 2
	done
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }

load_modules() {
	for ko in /lib/modules/*/bench/*.ko; do
		[ -e "$ko" ] || continue
		insmod "$ko" || chan "BG-PROGRESS warning: insmod $ko failed"
	done
}

# Every process asleep in the kernel (state D): pid, name, where it waits
# and its kernel stack, for a scenario that no SIGKILL could end.
dump_d_state() {
	for st in /proc/[0-9]*/stat; do
		d=${st%/stat}
		read -r line <"$st" 2>/dev/null || continue
		case ${line##*) } in
		D*)
			echo "pid ${d#/proc/} $(cat "$d/comm" 2>/dev/null) wchan=$(cat "$d/wchan" 2>/dev/null)"
			sed 's/^/    /' "$d/stack" 2>/dev/null
			;;
		esac
	done
}

# Kill the scenario's whole process group when its time is up: a stuck
# tracer child must not survive into the next scenario. One that even
# SIGKILL does not end within 30 s (asleep in the kernel) is left behind:
# the scenario fails with what it waits for (/tmp/stuck), the others run.
run_limited() {
	limit=$1
	shift
	rm -f /tmp/stuck
	setsid "$@" &
	pid=$!
	self=$$
	(
		sleep "$limit"
		echo timeout >/tmp/timed-out
		kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid"
		sleep 30
		read -r line <"/proc/$pid/stat" 2>/dev/null || exit 0
		case ${line##*) } in
		Z*) exit 0 ;;
		esac
		dump_d_state >/tmp/stuck
		kill -USR1 "$self"
	) &
	wd=$!
	trap ':' USR1
	wait "$pid"
	rc=$?
	trap - USR1
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	return $rc
}

send_results() {
	name=$1
	tar -C /out -czf /tmp/res.tgz "$name"
	sum=$(md5sum </tmp/res.tgz | cut -d' ' -f1)
	chan "BG-BEGIN $name"
	base64 /tmp/res.tgz >&3
	chan "BG-END $name $sum"
}

run_scenario() {
	name=$1 limit=$2 tracefs=$3
	out=/out/$name
	mkdir -p "$out"
	cat /sys/devices/system/cpu/possible >"$out/bench.cpus"
	uname -r >"$out/bench.kernel"
	rm -f /tmp/timed-out
	mount_all
	if [ "$tracefs" = off ] && ! umount_tracefs; then
		echo "bench: could not unmount tracefs" >"$out/bench-error"
	fi
	start=$(uptime_s)
	chan "BG-START $name $start"
	(cd "$out" && export OUT="$out" && run_limited "$limit" sh "/bench/scenarios/$name.sh" \
		>"$out/scenario.log" 2>&1 </dev/null)
	rc=$?
	end=$(uptime_s)
	echo $rc >"$out/scenario.rc"
	echo "$start $end" >"$out/scenario.time"
	if [ -e /tmp/timed-out ]; then
		echo "$limit" >"$out/scenario.timeout"
		chan "BG-TIMEOUT $name $limit"
	fi
	if [ -e /tmp/stuck ]; then
		cp /tmp/stuck "$out/scenario.stuck"
		chan "BG-PROGRESS $name: left behind asleep in the kernel: $(head -n1 /tmp/stuck)"
		cat /tmp/stuck >/dev/console
	fi
	# A copy on the console log, for whoever debugs a failure.
	echo "==== bench: scenario $name rc=$rc ($start .. $end) ====" >/dev/console
	tail -n 50 "$out/scenario.log" >/dev/console
	chan "BG-DONE-SCENARIO $name $rc $end"
	mount_all
	reset_ftrace
	send_results "$name"
}

main() {
	mount_all
	mkdir -p /dev/pts /out /root
	# Raw mode: no \n -> \r\n translation, no echo of what we write.
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	exec 3>/dev/ttyS1
	chan "BG-INIT $(uptime_s) $(uname -r)"
	# "quiet" kept the boot fast; from now on a lockup or oops must come
	# with its stack trace on the console log.
	echo 7 >/proc/sys/kernel/printk
	# The host sends an NMI to a guest that stopped beating: panic, with a
	# backtrace of every CPU (PANIC_PRINT_ALL_CPU_BT), instead of silence.
	echo 1 >/proc/sys/kernel/unknown_nmi_panic
	echo 64 >/proc/sys/kernel/panic_print
	heartbeat &
	ip link set lo up || ifconfig lo 127.0.0.1 up
	load_modules
	# What the bench offers, for the console log and for the lead.
	{
		echo "==== bench: $(uname -r), $(nproc) cpus, possible $(cat /sys/devices/system/cpu/possible)"
		grep -m1 '^flags' /proc/cpuinfo
		grep -m1 'model name' /proc/cpuinfo
		cat /proc/sys/net/core/bpf_jit_enable | sed 's/^/bpf_jit_enable=/'
	} >/dev/console 2>&1
	while read -r name limit tracefs; do
		[ -n "$name" ] || continue
		run_scenario "$name" "$limit" "$tracefs"
	done </bench/list
	chan "BG-ALLDONE $(uptime_s)"
	exec 3>&-
	sync
	poweroff -f
}

main "$@"
