#!/bin/sh
# bpfgraph record --tee prints the live trace while it writes the record
# file; bpfgraph report of that file must print the same bytes. Twice:
# default options (live.txt / report.txt), and funcgraph-proc,
# funcgraph-abstime in the 6.13 dialect (live2.txt / report2.txt). Then
# json, chrome, folded and svg from the first recording, svg straight
# from live tracing, a report with overridden options, and a report of a
# recording cut in the middle. Last, report of text: bpfgraph's live text
# and the kernel's own function_graph of the same workload (the oracle)
# in every format.
# bench-timeout: 400
set -u
. /bench/lib/guest.sh

# Return values asked for: the checks want one on every call, which the
# ftrace net's first call (6.1) has not by default (docs/kernels.md).
G="-G do_sys_openat2 --callee-depth=1 -O nofuncgraph-irqs -O funcgraph-retval"

progress "record --tee (default options)"
run_cmd record bpfgraph record --tee -o t.bgr $G -- /bin/wl openmiss 3
mv record.out live.txt
progress "record --tee (proc, abstime, 6.13)"
run_cmd record2 bpfgraph record --tee -o t2.bgr $G \
	-O funcgraph-proc,funcgraph-abstime --compat=6.13 -- /bin/wl openmiss 3
mv record2.out live2.txt
progress "report"
run_cmd report bpfgraph report -i t.bgr
run_cmd report2 bpfgraph report -i t2.bgr
run_cmd override bpfgraph report -i t.bgr -O funcgraph-proc,funcgraph-abstime --compat=6.13
run_cmd json bpfgraph report -i t.bgr --format=json
# do_sys_openat2's return type as this kernel's BTF names it (long int on
# 6.x, int on 7.x): what the JSON's ret_type must say.
bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | awk '/^\[/ {
	id = $1; gsub(/[][]/, "", id)
	# A name may hold spaces (long int): the text between the quotes.
	n = ""
	if (match($0, /\047[^\047]*\047/)) n = substr($0, RSTART + 1, RLENGTH - 2)
	name[id] = n
	for (i = 3; i <= NF; i++) {
		if ($i ~ /^type_id=/) t[id] = substr($i, 9)
		if ($i ~ /^ret_type_id=/) r[id] = substr($i, 13)
	}
	if ($2 == "FUNC" && n == "do_sys_openat2") f = id
} END { if (f != "") print name[r[t[f]]] }' >ret_type.txt
run_cmd chrome bpfgraph report -i t.bgr --format=chrome -o t.chrome.json
run_cmd folded bpfgraph report -i t.bgr --format=folded
run_cmd count bpfgraph report -i t.bgr --format=folded --folded-weight=count
run_cmd svg bpfgraph report -i t.bgr --format=svg -o t.svg
run_cmd countsvg bpfgraph report -i t.bgr --format=svg --folded-weight=count
progress "live svg"
run_cmd livesvg bpfgraph --format=svg $G -- /bin/wl openmiss 3
progress "report of text"
for f in text json chrome folded svg; do
	run_cmd "txt_$f" bpfgraph report -i live.txt --format=$f
done
oracle_capture -o oracle.txt do_sys_openat2 -- wl --stop openmiss 3
for f in text json chrome folded svg; do
	run_cmd "ora_$f" bpfgraph report -i oracle.txt --format=$f
done
# A writer killed mid-way: the first half of the file.
size=$(wc -c <t.bgr)
head -c $((size / 2)) t.bgr >cut.bgr
run_cmd cut bpfgraph report -i cut.bgr
ls -l t.bgr t2.bgr >sizes.txt
