#!/usr/bin/env bash
# A header edit must rebuild exactly the objects that include it, directly,
# through other headers, or through a BPF skeleton whose program includes
# it (bpfgraph.h -> graph.bpf.o -> graph.skel.h -> user objects).
#   tests/build/header-deps.sh [HEADER...]
# The expected set comes from the sources' #include lines (not from the
# .d files: those are under test). Two checks, after one make:
# - every header (include/*.h user/*/*.h bpf/*.h): the headers each
#   object's .d file names (through a generated skeleton, its BPF
#   object's too) are exactly those its source includes. Make rebuilds an
#   object when a prerequisite its .d names changes: this is what a touch
#   would rebuild, without a rebuild per header.
# - the headers given, else TOUCH (a BPF header, whose rebuild goes
#   through the skeleton, and a user one): touch, make again, and compare
#   the objects whose mtime changed, so that the .d files are shown to be
#   what make reads.
# Prints one PASS/FAIL line at the end; exit 0 or 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-build}
MAKE=${MAKE:-make}
# Rebuilds in parallel: which objects a touch rebuilds does not depend on
# the order they are built in. A rebuild per header took most of twenty
# minutes of make check on two CPUs: the static check covers every header.
JOBS=${JOBS:-$(nproc)}
TOUCH=${TOUCH:-bpf/state.bpf.h user/hook/tier.h}
ARCH=${ARCH:-x86}
name=header_deps
# Where quoted and angle includes of project files are found (Makefile -I).
incdirs=(include user/* bpf "$OUTPUT" "vmlinux/$ARCH")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
problems=()

# Object built from a source, as the Makefile names it.
object_of() {
	case "$1" in
	bpf/*.bpf.c) local b=${1#bpf/}; echo "$OUTPUT/${b%.c}.o" ;;
	user/*.c) local b=${1#user/}; echo "$OUTPUT/user/${b%.c}.o" ;;
	esac
}

sources() { ls bpf/*.bpf.c user/*/*.c 2>/dev/null || true; }

# Project files FILE includes directly, in REPLY (space-separated); system
# headers are not found in incdirs and drop out. Generated skeletons
# resolve into $OUTPUT even if not generated yet.
direct_includes() {
	local f=$1 inc d dir path
	REPLY=
	dir=$(dirname "$f")
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^">]*\)[">].*/\1/p' "$f"); do
		for d in "$dir" "${incdirs[@]}"; do
			if [ -f "$d/$inc" ] || [[ "$inc" == *.skel.h && "$d" == "$OUTPUT" ]]; then
				path=$d/$inc
				REPLY+=" ${path#./}"
				break
			fi
		done
	done
}

# Every project file FILE includes, transitively, in REPLY; a skeleton
# counts as including whatever its BPF program includes. Called in this
# shell, not in a command substitution, so that its cache is kept.
declare -A closure_cache direct_cache
closure() {
	local f=$1
	if [ -z "${closure_cache[$f]+x}" ]; then
		local -A seen=()
		local queue=("$f") cur inc skel i=0
		while [ $i -lt ${#queue[@]} ]; do
			cur=${queue[i]}
			i=$((i + 1))
			if [[ "$cur" == "$OUTPUT"/*.skel.h ]]; then
				skel=${cur#"$OUTPUT"/}
				[ -f "bpf/${skel%.skel.h}.bpf.c" ] && queue+=("bpf/${skel%.skel.h}.bpf.c")
				continue
			fi
			[ -f "$cur" ] || continue
			if [ -z "${direct_cache[$cur]+x}" ]; then
				direct_includes "$cur"
				direct_cache[$cur]=$REPLY
			fi
			for inc in ${direct_cache[$cur]}; do
				[ -n "${seen[$inc]+x}" ] && continue
				seen[$inc]=1
				queue+=("$inc")
			done
		done
		closure_cache[$f]="${!seen[*]}"
	fi
	REPLY=${closure_cache[$f]}
}

mtimes() { # OBJECT... -> "path mtime" lines
	local o
	for o in "$@"; do
		if [ -e "$o" ]; then echo "$o $(stat -c %.9Y "$o")"; else echo "$o missing"; fi
	done
}

# Objects are built directly: this test is about dependency tracking, and a
# link failure elsewhere must not hide (or fake) its result.
build() {
	"$MAKE" --no-print-directory -j"$JOBS" OUTPUT="$OUTPUT" "${objects[@]}" >"$log" 2>&1 || {
		echo "FAIL $name: make failed:"
		tail -n 20 "$log" | sed 's/^/    /'
		exit 1
	}
}

check_header() {
	local h=$1 src before after o exp changed
	local -A expect=()
	for src in $(sources); do
		closure "$src"
		[[ " $REPLY " == *" $h "* ]] && expect[$(object_of "$src")]=1
	done
	before=$(mtimes "${objects[@]}")
	sleep 1 # a coarse-mtime file system must still see the touch as newer
	touch "$h"
	build
	after=$(mtimes "${objects[@]}")
	for o in "${objects[@]}"; do
		changed=0
		[ "$(grep "^$o " <<<"$before")" != "$(grep "^$o " <<<"$after")" ] && changed=1
		exp=0
		[ -n "${expect[$o]+x}" ] && exp=1
		if [ $exp = 1 ] && [ $changed = 0 ]; then
			problems+=("touching $h did not rebuild $o (its source includes $h)")
		elif [ $exp = 0 ] && [ $changed = 1 ]; then
			problems+=("touching $h rebuilt $o, whose source does not include $h")
		fi
	done
	echo "  $h: ${#expect[@]} of ${#objects[@]} objects depend on it"
}

# Project headers make would rebuild OBJECT for: the prerequisites its .d
# names, and through a generated skeleton those of its BPF object.
dep_headers() { # OBJECT
	local d=${1%.o}.d f
	[ -f "$d" ] || return 1
	for f in $(sed -n '1,/^$/p' "$d" | sed 's/\\$//; s/^[^ ]*: *//'); do
		case "$f" in
		"$OUTPUT"/*.skel.h) dep_headers "${f%.skel.h}.bpf.o" ;;
		*.h) echo "$f" ;;
		esac
	done
}

# Every header, every object: .d against the sources' includes.
static_check() { # HEADER...
	local src o h deps want
	local -A tested=()
	for h in "$@"; do tested[$h]=1; done
	for src in $(sources); do
		o=$(object_of "$src")
		if ! deps=" $(dep_headers "$o" | sort -u | tr '\n' ' ')"; then
			problems+=("$o has no .d file: a header edit would not rebuild it")
			continue
		fi
		closure "$src"
		want=" $REPLY "
		for h in "$@"; do
			if [[ "$want" == *" $h "* && "$deps" != *" $h "* ]]; then
				problems+=("$o: its .d lacks $h (its source includes it)")
			elif [[ "$want" != *" $h "* && "$deps" == *" $h "* ]]; then
				problems+=("$o: its .d names $h, which its source does not include")
			fi
		done
	done
	echo "  .d files of ${#objects[@]} objects against ${#tested[@]} headers"
}

main() {
	local headers=() touch=("$@") src h
	objects=()
	for src in $(sources); do objects+=("$(object_of "$src")"); done
	[ ${#objects[@]} -gt 0 ] || { echo "FAIL $name: no sources"; exit 1; }
	for h in include/*.h user/*/*.h bpf/*.h; do [ -f "$h" ] && headers+=("$h"); done
	[ ${#touch[@]} -gt 0 ] || read -r -a touch <<<"$TOUCH"
	build
	static_check "${headers[@]}"
	for h in "${touch[@]}"; do check_header "$h"; done
	if [ ${#problems[@]} -gt 0 ]; then
		printf '    %s\n' "${problems[@]}"
		echo "FAIL $name: ${#problems[@]} wrong rebuild(s) over ${#headers[@]} headers"
		exit 1
	fi
	echo "PASS $name: ${#headers[@]} headers' .d entries, ${#touch[@]} touched and rebuilt, ${#objects[@]} objects"
}

main "$@"
