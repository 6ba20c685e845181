#!/bin/sh
# The plan and the refusals, on the bench kernel:
#   dry      bpfgraph --dry-run -G do_sys_openat2
#   nomatch  bpfgraph -G no_such_function_xyz -- true
#   clone    bpfgraph --dry-run -G CLONE, CLONE a compiler clone (.part.0 /
#            .isra.0, no BTF) named once in /proc/kallsyms (clone.name):
#            planned as a graph entry by kprobe; getname_flags.part.0 is
#            also traced (clonerun) on a failed open
#   dup      bpfgraph --dry-run -G DUP, DUP a text symbol vmlinux names twice
#            (dup.name): each one by kprobe, never a trampoline by name
#   notrace  bpfgraph -G do_syscall_64 -- true (noinstr: no fentry site)
#   depth    bpfgraph -G do_sys_openat2 -D 999
# bench-timeout: 400
set -u
. /bench/lib/guest.sh

progress "dry run"
run_cmd dry bpfgraph --dry-run -G do_sys_openat2
run_cmd nomatch bpfgraph -G no_such_function_xyz -- true

# getname_flags.part.0 where this kernel has it, else the first core-kernel
# clone whose name is unique (a shared name is refused for another reason).
clone=getname_flags.part.0
if ! grep -q ' [tT] getname_flags\.part\.0$' /proc/kallsyms; then
	# One with an fentry site (in available_filter_functions): notrace
	# clones (7.3's tdg_vm_rd.isra.0) are refused for that reason.
	clone=$(awk 'FILENAME != "/proc/kallsyms" { if (NF == 1) ftr[$1] = 1; next }
		NF == 3 && $2 ~ /^[tT]$/ && $3 ~ /\.(part|isra)\.[0-9]+$/ && $3 !~ /^__(pfx|cfi|pi)_/ { n[$3]++; if (!($3 in first)) { first[$3] = NR; order[++k] = $3 } }
		END { for (i = 1; i <= k; i++) if (n[order[i]] == 1 && (order[i] in ftr)) { print order[i]; exit } }' \
		$T/available_filter_functions /proc/kallsyms)
fi
echo "$clone" >clone.name
grep " $clone\$" /proc/kallsyms >clone.kallsyms
progress "clone: $clone"
run_cmd clone bpfgraph --dry-run -G "$clone"
if [ "$clone" = getname_flags.part.0 ]; then
	progress "clonerun: $clone"
	# Its plan only: what a net and discovery would add (177 functions on
	# 6.1) is not this case's and took a minute to release there.
	run_cmd clonerun bpfgraph --callee-depth=1 --wide=off --no-discovery -G "$clone" -- /bin/wl openmiss 2
fi
# A name two vmlinux functions share (static functions of two files):
# compute_score (6.1 has two) where the kernel has it twice. Not the
# __pfx_/__cfi_ padding symbols before functions (kernels with call
# padding, 6.12 and later) nor the __pi_ aliases: those are no functions.
dup=compute_score
[ "$(grep -c ' [tT] compute_score$' /proc/kallsyms)" -ge 2 ] ||
	# One with an fentry site: 7.3's first shared name, __cpuid, is
	# notrace in every copy and refused for that reason.
	dup=$(awk 'FILENAME != "/proc/kallsyms" { if (NF == 1) ftr[$1] = 1; next }
		NF == 3 && $2 ~ /^[tT]$/ && $3 !~ /\./ && $3 !~ /^__(pfx|cfi|pi)_/ && ($3 in ftr) { n[$3]++; if (n[$3] == 2) { print $3; exit } }' \
		$T/available_filter_functions /proc/kallsyms)
echo "$dup" >dup.name
grep " $dup\$" /proc/kallsyms >dup.kallsyms
progress "dup: $dup"
run_cmd dup bpfgraph --dry-run --callee-depth=0 -G "$dup"
run_cmd notrace bpfgraph -G do_syscall_64 -- true
run_cmd depth bpfgraph -G do_sys_openat2 -D 999
exit 0
