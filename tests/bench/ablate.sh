#!/bin/sh
# Where a traced call's cost goes inside bpfgraph's programs (issue #31),
# guest side, on the instruction clock: the same COMMAND (bwl, ABL_NCALL
# failed opens, -G ABL_FUNC) traced by bpfgraph built as usual ("base")
# and by builds that each leave one piece of the programs' work out
# (tests/bench/run.sh --ablate builds them with -DBG_ABLATE_<PART>; their
# output is wrong by design, only their cost counts). The difference of
# the traced task's CPU per call to the base build's, in the same boot,
# is what that piece costs. Rounds alternate the builds (ABL_ROUNDS);
# ABL_OPTS (default --no-discovery) keeps the hooked set the same in
# every run: with discovery, a build that makes fewer records finds fewer
# functions and the difference mixes both. Results for
# tests/bench/ablate.check: "run PART ROUND CPU_NS CALLS RECORDS FUNCS".
#   ABL_BIN    where the builds are: ABL_BIN/bpfgraph-PART (base too)
#   ABL_PARTS  the parts, as -DBG_ABLATE_<PART> names them (lower case)
# bench-clock: icount
# bench-timeout: 3000
set -u
. /bench/lib/guest.sh
PATH=/tmp/bb:$PATH
R=$OUT/results.txt
: >"$R"
res() { echo "$*" >>"$R"; }
cpu_of() { sed -n 's/.* cpu_ns=\([0-9]*\).*/\1/p' "$1" | head -n 1; }
F=${ABL_FUNC:-do_sys_openat2}
N=${ABL_NCALL:-300}
res "kernel $(uname -r)"
res "func $F ncall $N rounds ${ABL_ROUNDS:-2} opts ${ABL_OPTS---no-discovery}"
bwl -o none.call openmiss "$N"
res "none $(cpu_of none.call)"
r=1
while [ "$r" -le "${ABL_ROUNDS:-2}" ]; do
	for p in base $ABL_PARTS; do
		b=$ABL_BIN/bpfgraph-$p
		[ -x "$b" ] || { res "error no $b in the guest"; exit 1; }
		progress "round $r: $p"
		# shellcheck disable=SC2086 # ABL_OPTS: options, word-split
		"$b" -v ${ABL_OPTS---no-discovery} -o /tmp/abl.txt -G "$F" -- \
			bwl -o "$p.$r.call" openmiss "$N" 2>"$p.$r.err"
		recs=$(sed -n 's/.* \([0-9]*\) records, .*/\1/p' "$p.$r.err" | head -n 1)
		funcs=$(sed -n 's/^bpfgraph: \([0-9]*\) functions attached.*/\1/p' "$p.$r.err" | head -n 1)
		calls=$(sed -n 's/.* calls=\([0-9]*\).*/\1/p' "$p.$r.call" | head -n 1)
		res "run $p $r $(cpu_of "$p.$r.call") ${calls:-0} ${recs:-0} ${funcs:-0}"
		rm -f /tmp/abl.txt
		wait_released
	done
	r=$((r + 1))
done
res "done"
