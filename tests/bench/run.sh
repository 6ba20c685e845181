#!/usr/bin/env bash
# The performance bench (issue #6) in one command:
#   tests/bench/run.sh [--short | --tiers | --start | --mem | --profile | --ablate | --hits]
# Builds bpfgraph, the bench's workload timer (bwl) and baseline loop
# (ldlink) into $OUTPUT (default build), boots the QEMU bench once
# (tests/vm/run.sh) with tests/bench/perf.sh as the scenario and prints
# the table (tests/bench/perf.check). --short: smaller counts, no
# 1000-function set (about 10 minutes). --tiers: the hook tiers the
# booted kernel has side by side instead (tests/bench/tiers.sh and
# tiers.check; BG_VM_KERNEL picks the kernel, TIERS_GUARD the limits;
# TIERS_FLOORS=tramp adds the floor on trampolines, lean a recorder at
# its leanest on them).
# --start: where the default tier's start goes, step by step
# (tests/bench/start.sh and start.check; START_FUNC, START_RUNS).
# --mem: what a trace takes from the machine's memory, one boot per CPU
# count in MEM_SMP (default "1 16"; tests/bench/mem.sh and mem.check).
# --profile: where the steady state of a traced loop spends its time, by
# function, from perf sampling every CPU of the guest (the host's perf,
# Debian's linux-perf, copied in; tests/bench/profile.sh and
# profile.check; PROF_FUNC, PROF_OP, PROF_NCALL, PROF_SECS, PROF_SKIP,
# PROF_OPTS).
# --ablate: what each piece of the programs' work costs a traced call:
# bpfgraph built once per part in ABL_PARTS with that part left out
# (-DBG_ABLATE_<PART>, into $OUTPUT/ablate; the BPF objects and user space
# both get it: icalls and callsites are parts of user space's), the same
# loop traced by each
# and by the usual build in one boot (tests/bench/ablate.sh and
# ablate.check; ABL_PARTS, ABL_FUNC, ABL_NCALL, ABL_ROUNDS, ABL_OPTS).
# ABL_AGAINST=REV adds the same loop under bpfgraph built at git revision
# REV (a worktree in $OUTPUT/ablate/rev), as part "rev": a change's
# before and after in one boot ("rev - base" is what the change saved).
# ABL_PARTS="" leaves only base (and rev); unset, the default parts.
# --hits: which hooked functions an unrelated task's pipe loop calls in
# the steady state of a traced loop, and whether the traced calls ever
# showed them (tests/bench/hits.sh and hits.check; HITS_FUNC, HITS_OP,
# HITS_NPIPE, HITS_NCOUNT).
# Environment: OUTPUT, BENCH_SKIP="unrel-bg sub-args sub-kprobes sub-work"
# (steps to leave out: bpfgraph on the unrelated workload; the in-subtree
# runs with -O funcgraph-args, with --kprobes, the per-work trampolines),
# BENCH_ONLY="getpid openat unrel tp ss" (steps to run; default all),
# BENCH_STRICT=1 (exit 1 when a target is missed),
# and tests/vm/run.sh's BG_VM_* variables.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
export OUTPUT=${OUTPUT:-build}
short=0
script=perf
case "${1:-}" in
--short) short=1 ;;
--tiers) script=tiers ;;
--start) script=start ;;
--mem) script=mem ;;
--profile)
	script=profile
	command -v perf >/dev/null || {
		echo "tests/bench/run.sh --profile: no perf on this host (apt-get install linux-perf)" >&2
		exit 2
	}
	export BG_VM_TOOLS="${BG_VM_TOOLS:-} perf"
	;;
--ablate) script=ablate ;;
--hits) script=hits ;;
"") ;;
*) echo "usage: tests/bench/run.sh [--short | --tiers | --start | --mem | --profile | --ablate | --hits]" >&2; exit 2 ;;
esac

make -s OUTPUT="$OUTPUT" "$OUTPUT/bpfgraph" "$OUTPUT/vm/wl"
make -s -f tests/bench/Makefile OUTPUT="$OUTPUT"

# The ablation builds: the guest gets them at the same absolute path.
abl_parts=${ABL_PARTS-emit batch stage fold callers hide lazy}
abl_bin=
if [ $script = ablate ]; then
	mkdir -p "$OUTPUT/ablate/bin"
	abl_bin=$(cd "$OUTPUT/ablate/bin" && pwd)
	cp "$OUTPUT/bpfgraph" "$abl_bin/bpfgraph-base"
	tools="$abl_bin/bpfgraph-base"
	for p in $abl_parts; do
		echo "bench: building bpfgraph without '$p' (-DBG_ABLATE_${p^^})" >&2
		make -s OUTPUT="$OUTPUT/ablate/$p" EXTRA_BPF_CFLAGS="-DBG_ABLATE_${p^^}" \
			EXTRA_CFLAGS="-DBG_ABLATE_${p^^}" \
			"$OUTPUT/ablate/$p/bpfgraph" >/dev/null
		cp "$OUTPUT/ablate/$p/bpfgraph" "$abl_bin/bpfgraph-$p"
		tools="$tools $abl_bin/bpfgraph-$p"
	done
	if [ -n "${ABL_AGAINST:-}" ]; then
		wt=$OUTPUT/ablate/rev
		echo "bench: building bpfgraph at $ABL_AGAINST (part 'rev')" >&2
		git worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
		git worktree add --detach "$wt" "$ABL_AGAINST" >/dev/null
		(cd "$wt" && make -s OUTPUT=build build/bpfgraph >/dev/null)
		cp "$wt/build/bpfgraph" "$abl_bin/bpfgraph-rev"
		git worktree remove --force "$wt"
		tools="$tools $abl_bin/bpfgraph-rev"
		abl_parts="$abl_parts rev"
	fi
	export BG_VM_TOOLS="${BG_VM_TOOLS:-} $tools"
fi

# The guest gets only what tests/vm/run.sh packs: the bench's two
# programs travel inside the scenario script, as a base64 tarball.
b=$OUTPUT/bench
name=$script
[ $short = 1 ] && name=perf-short
scen=$b/$name.sh
tar -C "$b" -czf "$b/payload.tgz" bwl ldlink
{
	sed -n '1,/^# bench-timeout/p' "$here/$script.sh"
	echo "BENCH_SHORT=$short BENCH_SKIP='${BENCH_SKIP:-}' BENCH_ONLY='${BENCH_ONLY:-}'"
	echo "TIERS_ONLY='${TIERS_ONLY:-}' TIERS_NCALL=${TIERS_NCALL:-200} TIERS_NPIPE=${TIERS_NPIPE:-20000}" \
		"TIERS_FLOORS='${TIERS_FLOORS:-}'"
	echo "START_FUNC='${START_FUNC:-do_sys_openat2}' START_RUNS=${START_RUNS:-2} START_OPTS='${START_OPTS:-}'"
	echo "PROF_FUNC='${PROF_FUNC:-do_sys_openat2}' PROF_OP='${PROF_OP:-openmiss}'" \
		"PROF_NCALL=${PROF_NCALL:-10000} PROF_SECS=${PROF_SECS:-1} PROF_SKIP=${PROF_SKIP:-20000000}" \
		"PROF_OPTS='${PROF_OPTS:-}'"
	echo "ABL_BIN='$abl_bin' ABL_PARTS='$abl_parts' ABL_FUNC='${ABL_FUNC:-do_sys_openat2}'" \
		"ABL_NCALL=${ABL_NCALL:-300} ABL_ROUNDS=${ABL_ROUNDS:-2}" \
		"$([ -z "${ABL_OPTS+set}" ] || printf "ABL_OPTS='%s'" "$ABL_OPTS")"
	echo "HITS_FUNC='${HITS_FUNC:-do_sys_openat2}' HITS_OP='${HITS_OP:-openmiss}'" \
		"HITS_NPIPE=${HITS_NPIPE:-5000} HITS_NCOUNT=${HITS_NCOUNT:-500}"
	echo 'mkdir -p /tmp/bb && base64 -d <<"BENCH_PAYLOAD" | gunzip | tar -x -f - -C /tmp/bb'
	base64 "$b/payload.tgz"
	echo 'BENCH_PAYLOAD'
	sed '1,/^# bench-timeout/d' "$here/$script.sh"
} >"$scen"
ln -sf "$here/$script.check" "$b/$name.check"

vm=$OUTPUT/vm
[ "${BG_VM_KERNEL:-6.1}" = 6.1 ] || vm=$OUTPUT/vm/$BG_VM_KERNEL
rc=0
if [ $script = mem ]; then
	# One boot per CPU count: the kernel's per-CPU pools are sized at
	# attach time by the CPUs it could ever have (its possible CPUs).
	dirs=()
	for n in ${MEM_SMP:-1 16}; do
		cp "$scen" "$b/mem$n.sh"
		ln -sf "$here/mem.check" "$b/mem$n.check"
		BG_VM_SMP=$n BG_VM_MEM=${BG_VM_MEM:-4096} BG_VM_CLOCK=real \
			BG_VM_TIMEOUT=${BG_VM_TIMEOUT:-3000} BG_VM_STALL=${BG_VM_STALL:-300} \
			tests/vm/run.sh --label "mem$n" --no-check "$b/mem$n.sh" || rc=$?
		dirs+=("$vm/out/mem$n")
	done
	"$here/mem.check" "${dirs[@]}" | tee "$b/mem.table.txt"
	exit "${PIPESTATUS[0]}"
fi
BG_VM_TIMEOUT=${BG_VM_TIMEOUT:-3000} BG_VM_STALL=${BG_VM_STALL:-180} \
	tests/vm/run.sh --label "$name" --no-check "$scen" || rc=$?
# tests/vm/run.sh keeps each kernel series' results apart (BG_VM_KERNEL).
out=$vm/out/$name
if [ ! -s "$out/results.txt" ]; then
	echo "bench: no results (guest exit $rc); see $vm/$name.console.log and $out/scenario.log" >&2
	exit 1
fi
BPFGRAPH=$OUTPUT/bpfgraph "$here/$script.check" "$out" | tee "$b/$name.table.txt"
