#!/bin/sh
# --first-calls: the ftrace net (function_graph) records a command's first
# N traced calls, not only the first, then bpfgraph's hooks take over.
# Five failed opens, the first three by function_graph; --callee-depth=1
# keeps the plan small (6.1 links it a trampoline at a time). Also: the
# option is refused without a command.
#   calls.out/.err/.rc   bpfgraph -v --first-calls=3 -- wl openmiss 5
#   nocmd.out/.err/.rc   bpfgraph --first-calls=2 -p 1 (a usage error)
# bench-timeout: 300
set -u
. /bench/lib/guest.sh

progress "bpfgraph -v --first-calls=3 --callee-depth=1 -G do_sys_openat2 -- wl openmiss 5"
run_cmd calls bpfgraph -v --first-calls=3 --callee-depth=1 -G do_sys_openat2 -- /bin/wl openmiss 5
progress "bpfgraph --first-calls=2 -G do_sys_openat2 -p 1"
run_cmd nocmd bpfgraph --first-calls=2 -G do_sys_openat2 -p 1
# The hooks' release (a background process; on 6.1 a trampoline at a
# time) over before the next scenario, whose baseline it would be.
wait_released
exit 0
