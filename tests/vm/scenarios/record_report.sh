#!/bin/sh
# bpfgraph record --tee prints the live trace while it writes the record
# file; bpfgraph report of that file must print the same bytes. Twice:
# default options (live.txt / report.txt), and funcgraph-proc,
# funcgraph-abstime in the 6.13 dialect (live2.txt / report2.txt). Then
# json, chrome and folded from the first recording, a report with
# overridden options, and a report of a recording cut in the middle.
# bench-timeout: 400
set -u
. /bench/lib/guest.sh

G="-G do_sys_openat2 --callee-depth=1 -O nofuncgraph-irqs"

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
run_cmd chrome bpfgraph report -i t.bgr --format=chrome -o t.chrome.json
run_cmd folded bpfgraph report -i t.bgr --format=folded
run_cmd count bpfgraph report -i t.bgr --format=folded --folded-weight=count
# A writer killed mid-way: the first half of the file.
size=$(wc -c <t.bgr)
head -c $((size / 2)) t.bgr >cut.bgr
run_cmd cut bpfgraph report -i cut.bgr
ls -l t.bgr t2.bgr >sizes.txt
