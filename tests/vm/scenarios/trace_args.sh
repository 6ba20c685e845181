#!/bin/sh
# funcgraph-args: bpfgraph's argument text beside the kernel's own
# function_graph with funcgraph-args on the same workloads, where the
# kernel has the option (CONFIG_FUNCTION_TRACE_ARGS: Debian's 7.3). Where
# it has not (6.1, 6.12) only bpfgraph runs, and the check looks at its
# text alone. The host side (trace_args.check) compares the argument text
# of matching calls: pointers as "a pointer", everything else exactly.
# bench-timeout: 1500
# bench-clock: icount
set -u
. /bench/lib/guest.sh

if [ -e $T/options/funcgraph-args ]; then
	echo yes >kernel_args.txt
else
	echo no >kernel_args.txt
fi
# binfmt_misc (the module case, below) mounted for the whole scenario: a
# mount changes the mount table's sequence count, which path walks pass
# as an argument (__legitimize_mnt), and the kernel's runs of the cases
# come after all of bpfgraph's.
STATUS=/proc/sys/fs/binfmt_misc/status
module=no
if [ "$(cat kernel_args.txt)" = yes ] && grep -q '^binfmt_misc ' /proc/modules; then
	module=yes
	mount -t binfmt_misc none /proc/sys/fs/binfmt_misc
fi

run_case() { # NAME FUNC HOOK WL-CMD... (bpfgraph's other options: $extra)
	name=$1 func=$2 hook=$3
	shift 3
	# The first call and a warm one: argument text does not depend on
	# what was attached by then, only on which calls show.
	wl_args=$(repeat 2 200 "$@")
	echo "$name" >>cases.txt
	# The kernel's runs come after all of bpfgraph's, under one
	# function_graph (the end of this script).
	printf '%s %s %s\n' "$name" "$func" "$wl_args" >>oracle.cases
	wait_released
	progress "$name: bpfgraph -O funcgraph-args --hook=$hook ${extra:-}-G $func -- wl $wl_args"
	# shellcheck disable=SC2086
	timeout -k 60 500 bpfgraph -O funcgraph-args --hook="$hook" ${extra:-} -G "$func" -- /bin/wl $wl_args \
		>"$name.bpfgraph.txt" 2>"$name.bpfgraph.err"
	echo $? >"$name.bpfgraph.rc"
}

# kprobe.multi where the kernel has it (6.12, 7.3), fentry on 6.1
run_case openat do_sys_openat2 auto openmiss 1
# Without the kernel's text to compare with, one workload per tier shows
# that bpfgraph's own text is well formed (6.1, 6.12: minutes saved).
if [ "$(cat kernel_args.txt)" = yes ]; then
	run_case read vfs_read auto read 1
	run_case tcp tcp_sendmsg auto tcp 1
fi
# The trampoline tier too, where auto did not pick it: fentry-multi where
# the kernel has tracing_multi links (one link pair; per-function fentry
# takes a minute to attach on 7.3), fentry elsewhere. Both read the
# arguments from the trampoline's frame, which the wide net does not
# change: without it (and its 20-odd seconds of guest time on 7.3), the
# first call shows fewer calls to compare.
tramp=fentry
bpfgraph --hook=fentry-multi --dry-run --callee-depth=0 -G do_sys_openat2 >/dev/null 2>&1 &&
	tramp=fentry-multi
extra="--wide=off "
run_case openat_fentry do_sys_openat2 $tramp openmiss 1
extra=

# A module's function (binfmt_misc.ko, loaded by the bench's /init): its
# prototype is in the module's BTF, where the kernel finds it too.
if [ $module = yes ]; then
	echo module >>cases.txt
	progress "module: bpfgraph -O funcgraph-args -G bm_status_read -- cat $STATUS"
	timeout -k 60 300 bpfgraph -O funcgraph-args --callee-depth=1 -G bm_status_read \
		-o module.bpfgraph.txt -- cat $STATUS >module.bpfgraph.out 2>module.bpfgraph.err
	echo $? >module.bpfgraph.rc
fi

# Both options, in the newest dialect and in 6.15's (the return address
# replaces the arguments there).
progress "retaddr: bpfgraph -O funcgraph-args,funcgraph-retaddr"
timeout -k 60 300 bpfgraph -O funcgraph-args,funcgraph-retaddr -G do_sys_openat2 \
	-- /bin/wl openmiss 2 >retaddr.txt 2>retaddr.err
echo $? >retaddr.rc
# The 6.15 dialect's check needs the entry function's line only.
timeout -k 60 300 bpfgraph -O funcgraph-args,funcgraph-retaddr --compat=6.15 \
	--wide=off --no-discovery --callee-depth=1 \
	-G do_sys_openat2 -- /bin/wl openmiss 1 >retaddr615.txt 2>retaddr615.err
echo $? >retaddr615.rc

# --args-detail (bpfgraph's own): the missing file's path as a string and
# open_how's members, read at do_sys_openat2's entry. Without the wide net
# and discovery (call-site probes, functions attached while tracing): the
# check needs only the entry function, and without them the case takes
# 22 s of guest time on 7.3's instruction clock instead of 50 s.
progress "detail: bpfgraph -O funcgraph-args --args-detail=strings,fields"
timeout -k 60 300 bpfgraph -O funcgraph-args --args-detail=strings,fields --wide=off \
	--no-discovery --callee-depth=1 -G do_sys_openat2 -- /bin/wl openmiss 2 >detail.txt 2>detail.err
echo $? >detail.rc

# The kernel's own runs of the cases, with funcgraph-args, under one
# function_graph: enabling and disabling it patches every function of the
# kernel, a capture's most host time under the emulator.
if [ "$(cat kernel_args.txt)" = yes ]; then
	oracle_open -O funcgraph-args
	while read -r name func wl_args <&9; do
		progress "$name: oracle with funcgraph-args"
		# shellcheck disable=SC2086
		oracle_take -o "$name.oracle.txt" "$func" -- wl --stop $wl_args
	done 9<oracle.cases
	if [ $module = yes ]; then
		progress "module: oracle with funcgraph-args"
		oracle_take -o module.oracle.txt bm_status_read -- \
			sh -c "kill -STOP \$\$; exec cat $STATUS"
	fi
	oracle_close
fi
[ $module = no ] || umount /proc/sys/fs/binfmt_misc
