#!/usr/bin/env bash
# The test orchestrator behind `make check` and `make unit`.
#   tools/check.sh [--unit-only]
# 1. tools/deps.sh (installs missing Debian packages)
# 2. every $OUTPUT/tests/test_* cmocka program (built by make); each
#    cmocka test counts
# 3. unless --unit-only:
#    - tests/build/header-deps.sh (one test)
#    - tests/host/refuse.sh when the host refuses fentry (one test; SKIP,
#      not counted, when the host allows it)
#    - the QEMU bench: all scenarios in one boot (one test each);
#      BG_SCENARIOS="a b" picks some
# Last line, always: "N passed, N failed"; exit 1 if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export OUTPUT=${OUTPUT:-build}
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
run_unit() {
	local t log rc np nf
	local tests=()
	for t in "$OUTPUT"/tests/test_*; do
		[ -f "$t" ] && [ -x "$t" ] && tests+=("$t")
	done
	section "unit tests (${#tests[@]} programs)"
	[ ${#tests[@]} -gt 0 ] || { echo "no unit test programs in $OUTPUT/tests"; return 0; }
	log=$(mktemp)
	for t in "${tests[@]}"; do
		rc=0
		timeout 300 "$t" >"$log" 2>&1 || rc=$?
		cat "$log"
		np=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\..*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
		nf=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s).*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
		count_pass "$np"
		if [ "$nf" -gt 0 ]; then
			count_fail "$nf" "$(basename "$t"): $nf test(s)"
		elif [ $rc -ne 0 ]; then
			count_fail 1 "$(basename "$t"): exited $rc without a cmocka summary"
		elif [ "$np" -eq 0 ]; then
			count_fail 1 "$(basename "$t"): no cmocka summary"
		fi
	done
	rm -f "$log"
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

vm_scenarios() {
	local s
	if [ -n "${BG_SCENARIOS:-}" ]; then
		for s in $BG_SCENARIOS; do basename "$s" .sh; done
	else
		for s in tests/vm/scenarios/*.sh; do [ -e "$s" ] && basename "$s" .sh; done
	fi
}

# One boot for all scenarios; each scenario is one test. A scenario with
# no verdict (the guest hung, the kernel could not be fetched) failed.
run_vm() {
	local results=$OUTPUT/vm/bench.results s rc=0
	local names
	mapfile -t names < <(vm_scenarios)
	section "QEMU bench (${#names[@]} scenarios)"
	[ ${#names[@]} -gt 0 ] || return 0
	rm -f "$results"
	tests/vm/run.sh --label bench "${names[@]}" || rc=$?
	for s in "${names[@]}"; do
		if grep -qx "PASS $s" "$results" 2>/dev/null; then
			count_pass 1
		else
			count_fail 1 "vm: $s"
		fi
	done
	[ $rc -ne 3 ] || echo "check: the guest did not finish; see the messages above"
}

main() {
	local unit_only=0
	case "${1:-}" in
	--unit-only) unit_only=1 ;;
	"") ;;
	*) echo "usage: $0 [--unit-only]" >&2; exit 2 ;;
	esac
	if ! tools/deps.sh "$([ $unit_only = 1 ] && echo build || echo all)"; then
		count_fail 1 "tools/deps.sh could not install the packages"
		finish
	fi
	run_unit
	if [ $unit_only = 0 ]; then
		section "build dependencies"
		run_one header_deps tests/build/header-deps.sh
		section "host"
		run_one refuse_host tests/host/refuse.sh
		run_vm
	fi
	finish
}

finish() {
	echo
	if [ ${#failures[@]} -gt 0 ]; then
		printf 'failed: %s\n' "${failures[@]}"
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] || exit 1
	exit 0
}

main "$@"
