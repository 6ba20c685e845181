# Host-side helpers for tests/vm/scenarios/*.check (bash). Source it:
#   . "$(dirname "$0")/../lib/check.sh"; dir=$1
# A check collects every problem with `problem`, then calls `verdict`,
# which prints them and exits 1 (or exits 0 when there were none).

problems=()
notes=()

# The host's bpfgraph, for the checks that run its diff: BG_BPFGRAPH, else
# the one in OUTPUT (the build directory: relative to the repository, or
# absolute).
host_bpfgraph() {
	local out=${OUTPUT:-build}
	[[ $out = /* ]] || out=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/$out
	echo "${BG_BPFGRAPH:-$out/bpfgraph}"
}

problem() { problems+=("$*"); }
note() { notes+=("$*"); }

verdict() {
	local n
	for n in "${notes[@]+"${notes[@]}"}"; do echo "note: $n"; done
	if [ ${#problems[@]} -eq 0 ]; then
		return 0
	fi
	for n in "${problems[@]}"; do echo "$n"; done
	exit 1
}

# need FILE...: every file must exist (empty is fine).
need() {
	local f ok=0
	for f in "$@"; do
		[ -e "$f" ] || { problem "missing result file $f"; ok=1; }
	done
	return $ok
}

# Exit code recorded by the guest in FILE; a missing file reads as "none".
rc_of() { cat "$1" 2>/dev/null || echo none; }

# The first lines of a file, indented, to show in a failure message.
excerpt() { # FILE [N]
	sed -n "1,${2:-8}p" "$1" | sed 's/^/      | /'
}

FG_HEADER='# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |'

# fg_header_problems FILE: the 4 header lines of the default options.
fg_header_problems() {
	local got
	got=$(head -n 4 "$1")
	[ "$got" = "$FG_HEADER" ] && return 0
	problem "$(basename "$1"): header differs from function_graph's (default options):
$(diff <(echo "$FG_HEADER") <(echo "$got") | sed 's/^/      /')"
}

# fg_parse FILE: one line per event line of function_graph text (after the
# header): "LINENO DEPTH KIND NAME RET" with KIND enter|leaf|exit|banner,
# NAME "-" for a bare "}", RET the printed return value or "-". A line
# that is not valid function_graph text gives "LINENO - bad - -" followed by
# the line itself after a tab. CPU column width W = digits of the last
# possible CPU (docs/function-graph-format.md, "CPU column").
fg_parse() { # FILE W
	awk -v W="$2" '
	function badline() { printf "%d - bad - -\t%s\n", NR, $0 }
	BEGIN {
		name = "[A-Za-z0-9_.$]+( \\[[A-Za-z0-9_]+\\])?"
		val = "(-?[0-9]+|0x[0-9a-f]+)"
	}
	/^#/ && !body { next }
	{ body = 1 }
	# Context-switch banner: rule, tasks, rule, empty line
	# ("CPU column", "Context switches").
	$0 == " ------------------------------------------" { print NR, 0, "banner", "-", "-"; next }
	$0 == "" { print NR, 0, "banner", "-", "-"; next }
	/ => / { print NR, 0, "banner", "-", "-"; next }
	{
		if (!match($0, /^ +[0-9]+\) /)) { badline(); next }
		if (RLENGTH != W + 3) { badline(); next }
		rest = substr($0, RLENGTH + 1)
		dur = substr(rest, 1, 17)
		txt = substr(rest, 18)
		empty = (dur == "              |  ")
		if (!empty && dur !~ /^[ +!#*@$] [0-9]+(\.[0-9]+)? us +\|  $/) { badline(); next }
		match(txt, /^ */)
		if (RLENGTH % 2) { badline(); next }
		depth = RLENGTH / 2
		txt = substr(txt, RLENGTH + 1)
		ret = "-"
		if (txt ~ ("^" name "\\(\\) \\{$")) {
			if (!empty) { badline(); next }
			sub(/\(\) \{$/, "", txt); kind = "enter"
		} else if (txt ~ ("^" name "\\(\\);( /\\* = " val " \\*/)?$")) {
			if (empty) { badline(); next }
			if (txt ~ /\/\*/) { ret = txt; sub(/.*= /, "", ret); sub(/ \*\/$/, "", ret) }
			sub(/\(\);.*$/, "", txt); kind = "leaf"
		} else if (txt ~ ("^\\}( /\\* " name "( = " val ")? \\*/)?$")) {
			if (empty) { badline(); next }
			if (txt ~ / = /) { ret = txt; sub(/.* = /, "", ret); sub(/ \*\/$/, "", ret) }
			if (txt == "}") txt = "-"
			else { sub(/^\} \/\* /, "", txt); sub(/( = .*)? \*\/$/, "", txt) }
			kind = "exit"
		} else { badline(); next }
		gsub(/ /, "_", txt)   # " [module]" stays one field
		print NR, depth, kind, txt, ret
	}' "$1"
}

# fg_structure_problems PARSED LABEL: nesting must be consistent: an entry
# at depth d opens a frame, lines inside sit at d+1, the exit comes back at
# d; a named exit names the frame it closes; nothing is left open.
fg_structure_problems() {
	local out
	out=$(awk '
	$3 == "banner" || $3 == "bad" { next }
	{
		d = $2 + 0
		if ($3 == "enter") {
			if (d != sp) { printf "line %d: %s() { at depth %d, expected %d\n", $1, $4, d, sp; done = 1; exit }
			stack[sp++] = $4
		} else if ($3 == "leaf") {
			if (d != sp) { printf "line %d: %s(); at depth %d, expected %d\n", $1, $4, d, sp; done = 1; exit }
		} else {
			if (d != sp - 1) { printf "line %d: } at depth %d, expected %d\n", $1, d, sp - 1; done = 1; exit }
			if ($4 != "-" && $4 != stack[sp - 1]) { printf "line %d: } closes %s but %s is open\n", $1, $4, stack[sp - 1]; done = 1; exit }
			sp--
		}
	}
	END { if (!done && sp > 0) printf "%d frame(s) left open at the end, innermost %s\n", sp, stack[sp - 1] }' "$1")
	[ -z "$out" ] || problem "$2: bad nesting: $out"
}

# Lines fg_parse rejected, as a problem (at most 5 shown).
fg_bad_problems() { # PARSED LABEL
	local n
	n=$(grep -c ' bad ' "$1" || true)
	[ "$n" -eq 0 ] && return 0
	problem "$2: $n line(s) are not function_graph text, e.g.:
$(grep ' bad ' "$1" | head -n 5 | cut -f2 | sed 's/^/      |/')"
}

# Names of the calls (entries and leaves) at DEPTH, sorted, unique.
fg_names_at() { # PARSED DEPTH
	awk -v d="$2" '($3 == "enter" || $3 == "leaf") && $2 == d { print $4 }' "$1" | sort -u
}

# Call names (entries and leaves) anywhere in PARSED, sorted, unique.
fg_all_names() { # PARSED
	awk '$3 == "enter" || $3 == "leaf" { print $4 }' "$1" | sort -u
}

# "CHILD<PARENT" pairs of PARSED projected onto the names in COMMON: the
# parent of a call is its nearest enclosing frame whose name is in COMMON
# ("^" at the top). Calls under a frame matching IRQ_RE are left out:
# interrupts land anywhere. Sorted, unique.
fg_parent_pairs() { # PARSED COMMON IRQ_RE
	awk -v irq="$3" '
	NR == FNR { common[$1] = 1; next }
	$3 == "banner" || $3 == "bad" { next }
	{
		d = $2 + 0
		if ($3 == "exit") { if (sp > 0) sp--; next }
		sp = d
		inirq = 0; parent = "^"
		for (i = sp - 1; i >= 0; i--) {
			if (stack[i] ~ irq) inirq = 1
			if (parent == "^" && (stack[i] in common)) parent = stack[i]
		}
		if (!inirq && ($4 in common) && $4 !~ irq) print $4 "<" parent
		if ($3 == "enter") { stack[sp] = $4; sp++ }
	}' "$2" "$1" | sort -u
}

# CPU column width from the guest's possible-CPU list ("0-1" -> 1).
cpu_width() { # DIR
	local last
	last=$(sed 's/.*[-,]//' "$1/bench.cpus" 2>/dev/null || echo 1)
	echo ${#last}
}
