# shellcheck shell=sh
# The fidelity suite's guest side, sourced by the fidelity scenarios
# (fidelity.sh: the public cases, fidelity_more.sh: more subsystems):
# for each case, the kernel's own function_graph and bpfgraph on the same
# workload in the same boot. The host side (fidelity.check) compares
# them with `bpfgraph diff` and prints recall and precision per case.
# Cases are "entry function : workload"; nothing here is tuned to them.
# On the instruction clock (tests/vm/run.sh): guest time is what the
# guest's instructions cost, not what emulating them costs, so both
# tracers' runs meet the same timer ticks for the same work.
# A hook tier other than the default's (BG_FIDELITY_HOOK=fentry-multi...),
# and more options for bpfgraph (BG_FIDELITY_OPTS="--wide-mem=512K"), set
# by a scenario before it sources this file.
hook_opt="${BG_FIDELITY_HOOK:+--hook=$BG_FIDELITY_HOOK} ${BG_FIDELITY_OPTS:-}"

# The workload repeats its call with pauses: bpfgraph attaches untraced
# callers it meets while tracing (one level per call), so the later calls
# are the warm, complete ones; diff pairs each kernel invocation with the
# best matching one of bpfgraph. 12 calls: tcp_sendmsg's loopback path
# took 7 calls to converge (4-5 since callers are read from
# the kernel stack), and other entry functions may reach deeper chains.
# The top instance's settings the ftrace net changes (user/hook/ftnet.c),
# one line each: bpfgraph must leave them as it found them.
tracefs_state() { # FILE
	for f in current_tracer trace_clock tracing_on set_ftrace_pid set_graph_function \
		max_graph_depth options/function-fork options/funcgraph-irqs options/overwrite; do
		printf '%s: %s\n' "$f" "$(tr '\n' ' ' <"$T/$f" 2>&1)"
	done >"$1"
}

# settle: a pause (ms) after the first four calls, before the ones the
# check scores as warm (the last eight): set by a scenario for a case
# whose steady state begins with work bpfgraph does in the background.
run_case() { # NAME FUNC WL-CMD...
	name=$1 func=$2
	shift 2
	wl_args=$(repeat 12 300 "$@")
	[ "${settle:-0}" = 0 ] || wl_args="$(repeat 4 300 "$@")sleep $settle $(repeat 8 300 "$@")"
	echo "$name" >>cases.txt
	# The kernel's runs come after all of bpfgraph's (oracle_cases).
	printf '%s %s %s\n' "$name" "$func" "$wl_args" >>oracle.cases
	# The hooks of the case before released: their release would run
	# beside this case's calls.
	wait_released
	# The workload once untraced first: the boot's first call of its
	# kind makes what later ones find made (a slab for a new cache's
	# objects, a route, a neighbour entry), and the kernel's captures
	# all come after bpfgraph's run.
	/bin/wl "$@" >/dev/null 2>&1 || progress "$name: wl $* failed untraced"
	progress "$name: bpfgraph -G $func -- wl $wl_args"
	# A case whose run hangs (a workload that never returns) fails alone,
	# the others are still scored: SIGTERM after 600 s, SIGKILL 120 s on.
	tracefs_state "$name.tracefs.before"
	# shellcheck disable=SC2086
	timeout -k 120 600 bpfgraph $hook_opt -v --plan-file="$name.plan.txt" -G "$func" \
		-- /bin/wl $wl_args \
		>"$name.bpfgraph.txt" 2>"$name.bpfgraph.err"
	echo $? >"$name.bpfgraph.rc"
	tracefs_state "$name.tracefs.after"
}

# run_case with the first of FUNC... the kernel can trace (kernels
# rename functions: 6.12's do_sys_ftruncate is do_ftruncate in 7.x);
# none: the case is left out, which the log says.
run_case_any() { # NAME "WL-CMD" FUNC...
	_n=$1 _w=$2
	shift 2
	for _f; do
		if grep -qx "$_f" "$T/available_filter_functions"; then
			# shellcheck disable=SC2086 # the workload's words
			run_case "$_n" "$_f" $_w
			return 0
		fi
	done
	progress "$_n: left out, none of $* is traceable here"
}

# The kernel's own function_graph on every case's workload, twice: the
# kernel against itself, how much two runs of the workload differ
# (interrupts, softirq deferral, reschedules), is the ceiling of any
# comparison. All under one function_graph (oracle_open), after bpfgraph's
# runs, whose ftrace net needs tracefs's top instance free. A scenario
# calls it after its last run_case.
oracle_cases() {
	oracle_open
	while read -r name func wl_args <&9; do
		progress "$name: oracle, twice"
		# shellcheck disable=SC2086
		oracle_take -o "$name.oracle.txt" -a "$name.oracle2.txt" "$func" -- wl --stop $wl_args
	done 9<oracle.cases
	oracle_close
}
