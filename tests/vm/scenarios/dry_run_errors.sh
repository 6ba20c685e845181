#!/bin/sh
# The plan and the refusals, on the bench kernel (nothing gets attached):
#   dry      bpfgraph --dry-run -G do_sys_openat2
#   nomatch  bpfgraph -G no_such_function_xyz -- true
#   clone    bpfgraph -G CLONE -- true, CLONE a compiler clone (.part.0 /
#            .isra.0, no BTF) named once in /proc/kallsyms (clone.name)
#   depth    bpfgraph -G do_sys_openat2 -D 999
# bench-timeout: 120
set -u
. /bench/lib/guest.sh

progress "dry run"
run_cmd dry bpfgraph --dry-run -G do_sys_openat2
run_cmd nomatch bpfgraph -G no_such_function_xyz -- true

# getname_flags.part.0 where this kernel has it, else the first core-kernel
# clone whose name is unique (a shared name is refused for another reason).
clone=getname_flags.part.0
if ! grep -q ' [tT] getname_flags\.part\.0$' /proc/kallsyms; then
	clone=$(awk 'NF == 3 && $2 ~ /^[tT]$/ && $3 ~ /\.(part|isra)\.[0-9]+$/ { n[$3]++; if (!($3 in first)) { first[$3] = NR; order[++k] = $3 } }
		END { for (i = 1; i <= k; i++) if (n[order[i]] == 1) { print order[i]; exit } }' /proc/kallsyms)
fi
echo "$clone" >clone.name
grep " $clone\$" /proc/kallsyms >clone.kallsyms
progress "clone: $clone"
run_cmd clone bpfgraph -G "$clone" -- true
run_cmd depth bpfgraph -G do_sys_openat2 -D 999
exit 0
