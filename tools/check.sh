#!/usr/bin/env bash
# The test orchestrator behind `make check` and `make unit`.
#   tools/check.sh [--unit-only | --san-only | --fuzz-only]
# 1. tools/deps.sh (installs missing Debian packages)
# 2. every $OUTPUT/tests/test_* cmocka program (built by make); each
#    cmocka test counts
# 3. tests/host/package.sh: make install/uninstall and make deb (one test)
# 4. unless --unit-only:
#    - the same programs built with ASan + UBSan, $OUTPUT/san/tests/test_*
#      (each cmocka test counts; --san-only runs just these)
#    - fuzz smoke: each $OUTPUT/fuzz/fuzz_* on its corpus in tests/fuzz/
#      plus FUZZ_SECONDS (45) of fuzzing (one test each; --fuzz-only)
#    - tests/build/header-deps.sh (one test)
#    - tests/build/layers.sh (one test: no folder of user/ includes a later one)
#    - tests/build/sizes.sh (one test: files <= 800 lines, functions <= 80,
#      one owner of the BPF skeleton)
#    - tests/host/tracecmd.sh (one test, also with --unit-only): Debian's
#      trace-cmd report on trace.dat files bpfgraph wrote
#    - tests/host/refuse.sh when the host refuses fentry (one test; SKIP,
#      not counted, when the host allows it)
#    - the QEMU bench: all scenarios on Debian's 6.1 but those of
#      BG_VM_KERNEL_ONLY (one test each; BG_SCENARIOS="a b" picks some),
#      the scenarios of BG_VM_KERNEL_SCENARIOS on each newer kernel of
#      BG_VM_KERNELS (default "6.12 7.3"; "" for none) and those of
#      BG_VM_KERNEL_ONLY and BG_VM_KERNEL_ALSO on theirs, and the
#      hook-tier bench's default tiers (for a COMMAND and with -p) on
#      BG_TIERS_KERNEL (6.12; "" for none) against TIERS_GUARD (one
#      test): one boot per kernel and
#      clock, BG_VM_GUESTS (the host's CPUs) at once; then one fidelity
#      table with a column per kernel
#    Without --unit-only, everything after step 2 but header-deps and the
#    QEMU bench runs as one job among the bench's guests, its output
#    printed after theirs.
# Last line, always: "N passed, N failed"; exit 1 if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export OUTPUT=${OUTPUT:-build}
# Limits of the hook-tier guard (tests/bench/tiers.check): start and stop
# in guest seconds, the added time per traced call (the call's own CPU
# time) as a multiple of function_graph's, and what the default tier adds
# above the floor (empty programs on its hooks), in the same unit. Set
# about 1.5x above what the default tier with -p (kprobe.session and the
# wide net) measured on 6.12 (start 4.3-7.1 s, stop 0.85 s, 2.3x, 1.3x
# above a floor of 1.0x), to catch a regression; the same limits hold
# the default for a COMMAND (the ftrace net), but for the floor, measured
# for the wide net's hooks only. Issue #19's targets (2 s, 2 s, 0.5x)
# are tighter and missed today, the per-call one below the floor: the
# table prints both.
TIERS_GUARD_DEFAULT="start=11 stop=3 call=3.5 over=2 reader=0.5 drops=0"
passed=0
failed=0
failures=()

section() { printf '\n== %s\n' "$*"; }
count_pass() { passed=$((passed + ${1:-1})); }
count_fail() { # N WHAT
	failed=$((failed + $1))
	failures+=("$2")
}

# Sum cmocka's summary lines; a program that dies without saying how many
# tests failed counts as one failure.
run_unit() { # [DIR [WHAT]]
	local dir=${1:-$OUTPUT/tests} what=${2:-unit tests} t log rc np nf
	local tests=()
	for t in "$dir"/test_*; do
		[ -f "$t" ] && [ -x "$t" ] && tests+=("$t")
	done
	section "$what (${#tests[@]} programs)"
	[ ${#tests[@]} -gt 0 ] || { echo "no unit test programs in $dir"; return 0; }
	log=$(mktemp)
	for t in "${tests[@]}"; do
		rc=0
		timeout 300 "$t" >"$log" 2>&1 || rc=$?
		cat "$log"
		np=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\..*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
		nf=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s).*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
		count_pass "$np"
		if [ "$nf" -gt 0 ]; then
			count_fail "$nf" "$what: $(basename "$t"): $nf test(s)"
		elif [ $rc -ne 0 ]; then
			count_fail 1 "$what: $(basename "$t"): exited $rc without a cmocka summary"
		elif [ "$np" -eq 0 ]; then
			count_fail 1 "$what: $(basename "$t"): no cmocka summary"
		fi
	done
	rm -f "$log"
}

# A finding of ASan or UBSan aborts the program; leaks fail it at exit.
run_unit_san() {
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		run_unit "$OUTPUT/san/tests" "unit tests under ASan+UBSan"
}

# Each fuzzer runs its corpus, then fuzzes for FUZZ_SECONDS; new inputs go
# to a scratch directory, crash inputs to $OUTPUT/fuzz/artifacts/. A
# single allocation over 128 MB is a finding (-malloc_limit_mb).
run_fuzz_smoke() {
	local secs=${FUZZ_SECONDS:-45} f name log work rc dict
	local fuzzers=()
	for f in "$OUTPUT"/fuzz/fuzz_*; do
		[ -f "$f" ] && [ -x "$f" ] && fuzzers+=("$f")
	done
	section "fuzz smoke (${#fuzzers[@]} fuzzers, ${secs}s each)"
	if [ ${#fuzzers[@]} -eq 0 ]; then
		count_fail 1 "fuzz: no fuzzers in $OUTPUT/fuzz"
		return 0
	fi
	mkdir -p "$OUTPUT/fuzz/artifacts"
	for f in "${fuzzers[@]}"; do
		name=$(basename "$f")
		name=${name#fuzz_}
		work=$(mktemp -d)
		log=$OUTPUT/fuzz/$name.log
		dict=()
		[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
		rc=0
		timeout $((secs + 120)) "$f" "${dict[@]}" -max_total_time="$secs" \
			-max_len=16384 -timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=128 \
			-print_final_stats=1 -artifact_prefix="$OUTPUT/fuzz/artifacts/$name-" \
			"$work" "tests/fuzz/corpus/$name" >"$log" 2>&1 || rc=$?
		rm -rf "$work"
		grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done)' "$log" || true
		if [ $rc -eq 0 ]; then
			echo "PASS fuzz_$name"
			count_pass 1
		else
			tail -n 40 "$log"
			echo "FAIL fuzz_$name (exit $rc; log $log)"
			count_fail 1 "fuzz: $name"
		fi
	done
}

# A script printing PASS/FAIL/SKIP lines and exiting 0 / non-zero / 77.
run_one() { # WHAT CMD...
	local what=$1 rc=0
	shift
	"$@" || rc=$?
	case $rc in
	0) count_pass 1 ;;
	77) ;;
	*) count_fail 1 "$what" ;;
	esac
}

# One test per scenario: passed if RESULTS (run.sh's label.results) says so.
# A scenario without a verdict line failed too: the why is run.sh's last
# line (LOG), where it ended before judging (the kernel could not be
# fetched, say).
count_vm_results() { # RESULTS LOG WHAT NAME...
	local results=$1 log=$2 what=$3 s why told=
	shift 3
	for s in "$@"; do
		if grep -qx "PASS $s" "$results" 2>/dev/null; then
			count_pass 1
			continue
		fi
		# Under pipefail a grep without a match (1) or without a file (2)
		# would end this script here, before any summary.
		why=$({ grep "^FAIL $s"$'\t' "$results" 2>/dev/null || true; } | head -n1 | cut -f2-)
		if [ -z "$why" ] && [ ! -f "$results" ]; then
			why="tests/vm/run.sh gave no verdicts: $({ tail -n1 "$log" 2>/dev/null || true; } | cut -c1-200)"
			if [ -z "$told" ]; then
				told=1
				echo "$what: tests/vm/run.sh gave no verdicts; the end of $log:"
				tail -n 8 "$log" 2>/dev/null | sed 's/^/    /' || true
				df -h "$OUTPUT" 2>/dev/null | sed 's/^/    /' || true
			fi
		fi
		count_fail 1 "$what: $s${why:+ ($why)}"
	done
}

# Where tests/vm/run.sh keeps a kernel series' results and logs.
vm_dir() {
	case $1 in
	6.1) echo "$OUTPUT/vm" ;;
	*) echo "$OUTPUT/vm/$1" ;;
	esac
}

# Scenarios that run on one newer kernel only, KERNEL:SCENARIO: trace_args
# compares bpfgraph's arguments with the kernel's own funcgraph-args,
# which Debian's 7.3 has; without it (6.1, 6.12) the scenario could only
# look at bpfgraph's text, which the unit tests' goldens cover, and its
# ten minutes on the instruction clock go where the comparison is.
# steady (tracing without a COMMAND under a steady load) on a kernel with
# the wide net, whose hand-over to links of their own it checks (6.1 has
# no net and nothing to hand over); 6.12's, as 7.3's tier is 6.12's and
# its run took six minutes of CI's hour there (BG_VM_KERNEL_ONLY="...
# 7.3:steady" runs it on both).
# wide_wait (the wide net closed when no traced call began) on 6.12, a
# kernel with the wide net; 7.3's is the same path, its 65 s of host
# clock left out of CI's hour (BG_VM_KERNEL_ALSO="... 7.3:wide_wait").
BG_VM_KERNEL_ONLY=${BG_VM_KERNEL_ONLY-7.3:trace_args 6.12:steady 6.12:wide_wait}
# Scenarios that run on 6.1 and also on one newer kernel, KERNEL:SCENARIO:
# stop_bounds on 6.12, where the default tier's wide net is what a stop
# under a load has to get past (6.1's net is function_graph, its own
# path; 7.3's tier is 6.12's).
# stop_outputs: signals in each phase, failing outputs and a second
# instance differ by hook tier, but CI's hour has no room for it on the
# newer kernels (about three minutes of 6.12's host clock, five of 7.3's;
# BG_VM_KERNEL_ALSO="... 6.12:stop_outputs" runs it there).
# tracecmd_dat on 7.3 too: the layouts of the function_graph events in a
# trace.dat are each kernel's (7.x: an 8-byte depth, args[]; 6.12's are
# 6.1's but for the return value, which Debian's kernels do not record);
# about 20-25 s of guest time each, which CI's hour has no room for on
# all three (BG_VM_KERNEL_ALSO="6.12:tracecmd_dat" runs it there).
# record_report passes on 7.3 too (return types from each kernel's BTF:
# do_sys_openat2 returns int on 7.x) but is left to 6.1 for CI's hour
# (about 150 s of 7.3's host clock): BG_VM_KERNEL_ALSO="... 7.3:record_report".
# ftnet_running on 6.12 too: the ftrace net without a command is 6.1's
# default, and 6.12's where the wide net would be bounded (3 CPUs or more;
# the scenario asks for it, --wide=ftrace), the plan then on
# kprobe.session links (about 150 s of 6.12's host clock; 7.3's path is
# the same, its 130 s left out of CI's hour: BG_VM_KERNEL_ALSO="...
# 7.3:ftnet_running").
# first_calls on 7.3 too (the stop probes' count on kprobe.session's
# kernels; 6.12's is the same path), and in 6.1's second boot.
BG_VM_KERNEL_ALSO=${BG_VM_KERNEL_ALSO-6.12:stop_bounds 7.3:tracecmd_dat 6.12:ftnet_running 7.3:first_calls}
# Scenarios of a kernel's host clock that boot apart from the others,
# KERNEL:SCENARIO: 6.1's host clock boot took 3 074 s in a CI run, against
# the 3 300 s one boot may take (BG_VM_TIMEOUT). Its slowest three (each
# fentry link is released on its own there, after a grace period) in a
# second boot keep both far from that limit; the second boot is a job like
# the others, so the total stays the same.
BG_VM_SECOND_BOOT=${BG_VM_SECOND_BOOT-6.1:stop_bounds 6.1:soak 6.1:no_leftovers 6.1:first_calls}
# The newer kernels and their scenarios, those that must pass on every
# kernel: the fidelity suite is the comparison with each kernel's own
# function_graph (on the instruction clock); dry_run_errors covers the
# plan and the refusals. Not
# trace_openat: on the host's clock its three calls are compared line for
# line with one function_graph run, and 7.3 (lazy preemption) switched the
# traced task out at the start of its first call in one of two CI runs,
# drawing the scheduler's calls into the graph that the kernel's run did
# not have.
# fidelity_more, twenty more entry functions, on the newer kernels only:
# about 16 minutes of guest time each there, an hour on 6.1 (each plan's
# trampolines linked one by one), which CI's hour has no room for.
BG_VM_KERNELS=${BG_VM_KERNELS-6.12 7.3}
BG_VM_KERNEL_SCENARIOS=${BG_VM_KERNEL_SCENARIOS:-fidelity fidelity_more dry_run_errors ksyms_kcore}
# The kernel of the hook-tier bench's short run ("": none).
BG_TIERS_KERNEL=${BG_TIERS_KERNEL-6.12}

vm_scenarios() {
	local s n
	if [ -n "${BG_SCENARIOS:-}" ]; then
		for s in $BG_SCENARIOS; do basename "$s" .sh; done
	else
		for s in tests/vm/scenarios/*.sh; do
			[ -e "$s" ] || continue
			# "# bench-default: off": run by name only (tests/vm/run.sh)
			grep -q '^# *bench-default: *off' "$s" && continue
			n=$(basename "$s" .sh)
			[[ " $BG_VM_KERNEL_ONLY " == *":$n "* ]] || echo "$n"
		done
	fi
}

# The BG_VM_KERNEL_ONLY and BG_VM_KERNEL_ALSO scenarios of kernel $1.
kernel_only() {
	local e
	for e in $BG_VM_KERNEL_ONLY $BG_VM_KERNEL_ALSO; do
		[ "${e%%:*}" = "$1" ] && echo "${e#*:}"
	done
	return 0
}

# Every bench kernel fetched once, one after the other, before any boot:
# the boots side by side would otherwise fetch the same series at once
# on a fresh machine. A kernel that cannot be fetched is said here; its
# scenarios then fail with run.sh's own message.
fetch_kernels() {
	local k seen=" " out
	section "bench kernels (tools/vm-kernel.sh)"
	for k in 6.1 $BG_VM_KERNELS $BG_TIERS_KERNEL; do
		[[ "$seen" == *" $k "* ]] && continue
		seen+="$k "
		if out=$(BG_VM_KERNEL=$k tools/vm-kernel.sh 2>"$OUTPUT/vm-kernel-$k.log"); then
			echo "$k: $(printf '%s\n' "$out" | sed -n 's/^kver=//p')"
		else
			echo "$k: cannot be fetched: $(tail -n1 "$OUTPUT/vm-kernel-$k.log")"
		fi
	done
}

# A scenario's clock, as tests/vm/run.sh reads it: icount or real.
scenario_clock() {
	local c
	c=$(sed -n 's/^# bench-clock: *\([a-z]*\).*/\1/p' "tests/vm/scenarios/$1.sh" 2>/dev/null | head -n1)
	echo "${c:-real}"
}

# The bench's guest boots as jobs, "KERNEL CLOCK SCENARIO...": 6.1 runs
# every scenario but those of BG_VM_KERNEL_ONLY, each newer kernel of
# BG_VM_KERNELS those of BG_VM_KERNEL_SCENARIOS, and each kernel its own
# BG_VM_KERNEL_ONLY and BG_VM_KERNEL_ALSO ones; one boot per kernel and
# clock, and one more for BG_VM_SECOND_BOOT's (clock "real2").
vm_jobs() {
	local k
	vm_jobs_of 6.1 real icount real2
	for k in $BG_VM_KERNELS; do vm_jobs_of "$k" icount; done
	for k in $BG_VM_KERNELS; do vm_jobs_of "$k" real real2; done
}
# Seconds each boot took in a CI run on two CPUs, KERNEL:CLOCK:SECONDS
# ("tiers" for the hook-tier bench), to start the longest first: the two
# slots then end close together. A job not listed counts as short.
BG_VM_JOB_SECONDS=${BG_VM_JOB_SECONDS-7.3:icount:1442 6.1:real:1266 6.1:icount:1062 \
6.12:icount:925 6.1:real2:902 6.12:real:688 tiers:tiers:300 7.3:real:135}
job_seconds() { # KERNEL CLOCK
	local e
	for e in $BG_VM_JOB_SECONDS; do
		[ "${e%:*}" = "$1:$2" ] && { echo "${e##*:}"; return 0; }
	done
	echo 0
}
# The jobs on stdin (vm_jobs') and the hook-tier bench ("tiers tiers"),
# longest first.
vm_jobs_ordered() {
	local j k c
	{
		while read -r j; do
			read -r k c _ <<<"$j"
			echo "$(job_seconds "$k" "$c") $j"
		done
		[ -z "$BG_TIERS_KERNEL" ] || echo "$(job_seconds tiers tiers) tiers tiers"
	} | sort -s -k1,1nr | cut -d' ' -f2-
}
vm_jobs_of() { # KERNEL CLOCK...
	local k=$1 c s names extra pick
	shift
	if [ "$k" = 6.1 ]; then
		mapfile -t names < <(vm_scenarios)
	else
		read -r -a names <<<"$BG_VM_KERNEL_SCENARIOS"
	fi
	read -r -a extra <<<"$(kernel_only "$k" | tr '\n' ' ')"
	names+=("${extra[@]}")
	for c in "$@"; do
		pick=()
		for s in "${names[@]}"; do
			[ -n "$s" ] && [ "$(scenario_clock "$s")" = "${c%2}" ] || continue
			# real2: the host clock's second boot (BG_VM_SECOND_BOOT)
			if [[ " $BG_VM_SECOND_BOOT " == *" $k:$s "* ]]; then
				[ "$c" = real2 ] && pick+=("$s")
			else
				[ "$c" != real2 ] && pick+=("$s")
			fi
		done
		[ ${#pick[@]} -eq 0 ] || echo "$k $c ${pick[*]}"
	done
}

# tests/vm/run.sh's label of a clock's boots: their results files apart.
vm_label() {
	case $1 in
	icount) echo icount ;;
	real2) echo bench2 ;;
	*) echo bench ;;
	esac
}

# One job: a kernel's scenarios of one clock, in one boot (and the boots
# after a guest that died).
run_vm_job() { # KERNEL CLOCK SCENARIO...
	local k=$1 c=$2 label tag=$1 t0=$SECONDS rc=
	shift 2
	label=$(vm_label "$c")
	[ "$c" = real ] || tag="$k $c"
	rm -f "$(vm_dir "$k")/$label.results"
	# Timed whatever its scenarios' verdicts (set -e would end a failed one here).
	BG_VM_KERNEL=$k BG_VM_JOBS=1 BG_VM_TIMEOUT=${BG_VM_TIMEOUT:-3300} \
		tests/vm/run.sh --label "$label" "$@" 2>&1 |
		tee "$OUTPUT/vm-$k-$c.log" | sed -u "s/^/[$tag] /" || rc=$?
	echo "$k-$c $((SECONDS - t0))" >>"$OUTPUT/check-times"
	return "${rc:-0}"
}

# Every guest of the bench, BG_VM_GUESTS at once (the host's CPUs: TCG
# runs a guest on one thread, and a third guest beside two slowed the
# host clock's scenarios), in the order of vm_jobs_ordered, the hook-tier
# bench's short run among them. Each scenario is one test; one without a
# verdict (the guest hung, the kernel could not be fetched) failed. Then
# one fidelity table with a column per kernel, and the tier bench's
# verdict.
run_vm_all() {
	local jobs=() order=() j k c f n=0 slots=${BG_VM_GUESTS:-$(nproc)}
	# Until fewer than slots jobs of this shell run.
	wait_slot() { while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do wait -n || true; done; }
	mapfile -t jobs < <(vm_jobs)
	mapfile -t order < <(printf '%s\n' "${jobs[@]}" | vm_jobs_ordered)
	for j in "${jobs[@]}"; do
		read -r -a f <<<"$j"
		n=$((n + ${#f[@]} - 2))
	done
	section "QEMU bench: $n scenarios in ${#jobs[@]} boots, $slots at once"
	for j in "${order[@]}"; do
		wait_slot
		if [ "$j" = "tiers tiers" ]; then
			{
				local t0=$SECONDS
				run_tiers_guard >"$OUTPUT/tiers-guard.log" 2>&1
				echo "tiers $((SECONDS - t0))" >>"$OUTPUT/check-times"
			} &
			continue
		fi
		# shellcheck disable=SC2086
		run_vm_job $j &
	done
	wait || true
	for j in "${jobs[@]}"; do
		read -r k c f <<<"$j"
		# shellcheck disable=SC2086
		count_vm_results "$(vm_dir "$k")/$(vm_label "$c").results" \
			"$OUTPUT/vm-$k-$c.log" "vm $k" $f
	done
	# shellcheck disable=SC2086
	fidelity_table 6.1 $BG_VM_KERNELS
	[ -n "$BG_TIERS_KERNEL" ] || return 0
	section "hook-tier bench, default tier on $BG_TIERS_KERNEL (tests/bench/run.sh --tiers)"
	tail -n 14 "$OUTPUT/tiers-guard.log"
	if grep -q '^tiers guard: PASS' "$OUTPUT/tiers-guard.log"; then
		count_pass 1
	elif grep -q '^tiers guard: SKIP' "$OUTPUT/tiers-guard.log"; then
		:
	else
		count_fail 1 "hook-tier bench on $BG_TIERS_KERNEL (log: $OUTPUT/tiers-guard.log)"
	fi
}

# Issue #19's short bench: start, stop and the added time per traced call
# of the default tier on BG_TIERS_KERNEL (default 6.12; empty: skipped)
# against limits (TIERS_GUARD): these catch a regression; the issue's
# targets (2 s, 2 s, 0.5x function_graph) are printed by the table too.
run_tiers_guard() {
	local k=$BG_TIERS_KERNEL
	if [ -z "$k" ]; then
		echo "tiers guard: SKIP (BG_TIERS_KERNEL is empty)"
		return 0
	fi
	if BG_VM_KERNEL=$k TIERS_ONLY="wide ftnet" TIERS_NCALL=${TIERS_NCALL:-100} \
		TIERS_NPIPE=${TIERS_NPIPE:-5000} TIERS_GUARD=${TIERS_GUARD:-$TIERS_GUARD_DEFAULT} \
		tests/bench/run.sh --tiers; then
		echo "tiers guard: PASS"
	else
		echo "tiers guard: FAIL"
	fi
}

# Warm and first-call recall/precision per case and kernel (fidelity.check's
# scores.txt, of both suites): "R/P" each, "-" where a kernel has no score.
fidelity_table() {
	local k c line cases=() scores=()
	for k in "$@"; do
		scores+=("$(fidelity_scores "$k")")
		while read -r c _; do
			[ -n "$c" ] || continue
			[[ " ${cases[*]} " == *" $c "* ]] || cases+=("$c")
		done <<<"${scores[-1]}"
	done
	[ ${#cases[@]} -gt 0 ] || return 0
	section "fidelity against each kernel's function_graph: warm calls R/P, first call R/P"
	line=$(printf '%-8s' case)
	for k in "$@"; do line+=$(printf ' | %-25s' "$k warm, first"); done
	echo "$line"
	for c in "${cases[@]}"; do
		line=$(printf '%-8s' "$c")
		for ((k = 0; k < ${#scores[@]}; k++)); do
			line+=$(awk -v c="$c" '$1 == c { printf " | %-25s", $2 "/" $3 ", " $4 "/" $5; found = 1 }
				END { if (!found) printf " | %-25s", "-" }' <<<"${scores[k]}")
		done
		echo "$line"
	done
}
# Both suites' scores, the public cases first (a missing file is no rows).
fidelity_scores() {
	local d
	d=$(vm_dir "$1")/out
	cat "$d/fidelity/scores.txt" "$d/fidelity_more/scores.txt" 2>/dev/null || true
}

main() {
	local unit_only=0 only=
	case "${1:-}" in
	--unit-only) unit_only=1 ;;
	--san-only | --fuzz-only) unit_only=1 only=${1#--} ;;
	"") ;;
	*) echo "usage: $0 [--unit-only | --san-only | --fuzz-only]" >&2; exit 2 ;;
	esac
	rm -f "$OUTPUT/check-times"
	if ! tools/deps.sh "$([ $unit_only = 1 ] && echo build || echo all)"; then
		count_fail 1 "tools/deps.sh could not install the packages"
		finish
	fi
	case $only in
	san-only) run_unit_san; finish ;;
	fuzz-only) run_fuzz_smoke; finish ;;
	esac
	# The bench kernels are fetched (network, then unpacking) while the
	# unit tests and header-deps run; their section is printed after.
	local fetch=
	if [ $unit_only = 0 ]; then
		fetch_kernels >"$OUTPUT/fetch-kernels.log" 2>&1 &
		fetch=$!
	fi
	run_unit
	if [ $unit_only = 1 ]; then
		run_host_rest 0
		finish
	fi
	# header-deps touches headers and rebuilds objects in $OUTPUT: before
	# the guests, and the binaries they take made again after it, so that
	# no make beside them (the tier bench's) links one while a guest is
	# given it.
	section "build dependencies"
	run_one header_deps tests/build/header-deps.sh
	make -s --no-print-directory OUTPUT="$OUTPUT" "$OUTPUT/bpfgraph" "$OUTPUT/vm/wl" ||
		count_fail 1 "make after header-deps"
	echo "host $SECONDS" >>"$OUTPUT/check-times"
	wait "$fetch" || true
	cat "$OUTPUT/fetch-kernels.log"
	# The rest of the host's tests as a job among the guests': it holds
	# one of run_vm_all's slots (a job of this shell) until it ends, the
	# longest guest on the other; on two CPUs that takes about half its
	# two to four minutes off CI's hour. Its output and verdicts come
	# after the guests'.
	rm -f "$OUTPUT/host-rest.count"
	(
		# shellcheck disable=SC2030
		passed=0 failed=0 failures=()
		run_host_rest 1
	) >"$OUTPUT/host-rest.log" 2>&1 &
	local rest=$!
	run_vm_all
	# run_vm_all's own wait may have taken it already.
	wait "$rest" 2>/dev/null || true
	host_rest_fold
	finish
}

# The host's tests after the unit tests; with 1 (beside the guests) also
# those of the whole run only, their counts then left in
# $OUTPUT/host-rest.count for host_rest_fold (run in a subshell that
# starts them from 0).
run_host_rest() { # ALL
	local t0=$SECONDS
	section "packaging (tests/host/package.sh)"
	run_one package tests/host/package.sh
	section "browser (SVG flame graph in headless Chromium)"
	run_one svg_browser tests/browser/svg.sh
	section "trace-cmd (trace.dat files bpfgraph writes, read by trace-cmd report)"
	run_one tracecmd_report tests/host/tracecmd.sh
	[ "$1" = 1 ] || return 0
	run_unit_san
	run_fuzz_smoke
	section "layers and sizes"
	run_one layers tests/build/layers.sh
	run_one sizes tests/build/sizes.sh
	section "host"
	run_one refuse_host tests/host/refuse.sh
	echo "host-rest $((SECONDS - t0))" >>"$OUTPUT/check-times"
	# shellcheck disable=SC2031
	{
		echo "$passed $failed"
		printf '%s\n' "${failures[@]}"
	} >"$OUTPUT/host-rest.count"
}

# run_host_rest's output and verdicts, after the guests'. Its counts lost
# (the job died) are a failure.
# shellcheck disable=SC2031
host_rest_fold() {
	local p f line
	cat "$OUTPUT/host-rest.log" 2>/dev/null || true
	if ! read -r p f <"$OUTPUT/host-rest.count" 2>/dev/null; then
		count_fail 1 "the host's tests beside the guests left no verdicts ($OUTPUT/host-rest.log)"
		return 0
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	# An if, not "[ ] &&": under set -e a loop whose last test fails
	# (the empty line of no failures) would end this script.
	while IFS= read -r line; do
		if [ -n "$line" ]; then
			failures+=("$line")
		fi
	done < <(tail -n +2 "$OUTPUT/host-rest.count")
}

# Where the time went, for CI's hour: "host" the seconds before the VM
# bench, then each boot's (KERNEL-CLOCK), the tier bench's and the host's
# tests beside them ("host-rest"), "all" the run.
finish() {
	echo
	[ ! -s "$OUTPUT/check-times" ] ||
		echo "seconds: $(tr '\n' ' ' <"$OUTPUT/check-times")all $SECONDS"
	if [ ${#failures[@]} -gt 0 ]; then
		printf 'failed: %s\n' "${failures[@]}"
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] || exit 1
	exit 0
}

main "$@"
