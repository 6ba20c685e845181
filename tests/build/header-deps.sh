#!/usr/bin/env bash
# A header edit must rebuild exactly the objects that include it, directly,
# through other headers, or through a BPF skeleton whose program includes
# it (bpfgraph.h -> graph.bpf.o -> graph.skel.h -> user objects).
#   tests/build/header-deps.sh [HEADER...]   (default: include/*.h user/*/*.h bpf/*.h)
# For each header: make, touch the header, make again (same OUTPUT), then
# compare the objects whose mtime changed with the set computed from the
# sources' #include lines (not from the .d files: those are under test).
# Prints one PASS/FAIL line at the end; exit 0 or 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-build}
MAKE=${MAKE:-make}
# Rebuilds in parallel: which objects a touch rebuilds does not depend on
# the order they are built in, and one by one the 49 headers' rebuilds
# (a bpf/ header recompiles every user object that includes the 6 MB
# skeleton) took 24 minutes of make check on two CPUs.
JOBS=${JOBS:-$(nproc)}
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

# Project files FILE includes directly; system headers are not found in
# incdirs and drop out. Generated skeletons resolve into $OUTPUT even if
# not generated yet.
direct_includes() {
	local f=$1 inc d
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^">]*\)[">].*/\1/p' "$f"); do
		for d in "$(dirname "$f")" "${incdirs[@]}"; do
			if [ -f "$d/$inc" ] || [[ "$inc" == *.skel.h && "$d" == "$OUTPUT" ]]; then
				echo "$d/$inc" | sed 's|^\./||'
				break
			fi
		done
	done
}

# Every project file FILE includes, transitively; a skeleton counts as
# including whatever its BPF program includes.
declare -A closure_cache
closure() {
	local f=$1
	if [ -z "${closure_cache[$f]+x}" ]; then
		local -A seen=()
		local queue=("$f") cur inc skel
		while [ ${#queue[@]} -gt 0 ]; do
			cur=${queue[0]}
			queue=("${queue[@]:1}")
			if [[ "$cur" == "$OUTPUT"/*.skel.h ]]; then
				skel=${cur#"$OUTPUT"/}
				[ -f "bpf/${skel%.skel.h}.bpf.c" ] && queue+=("bpf/${skel%.skel.h}.bpf.c")
				continue
			fi
			[ -f "$cur" ] || continue
			for inc in $(direct_includes "$cur"); do
				[ -n "${seen[$inc]+x}" ] && continue
				seen[$inc]=1
				queue+=("$inc")
			done
		done
		closure_cache[$f]="${!seen[*]}"
	fi
	echo "${closure_cache[$f]}"
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
		[[ " $(closure "$src") " == *" $h "* ]] && expect[$(object_of "$src")]=1
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

main() {
	local headers=("$@") src h
	objects=()
	for src in $(sources); do objects+=("$(object_of "$src")"); done
	[ ${#objects[@]} -gt 0 ] || { echo "FAIL $name: no sources"; exit 1; }
	if [ ${#headers[@]} -eq 0 ]; then
		for h in include/*.h user/*/*.h bpf/*.h; do [ -f "$h" ] && headers+=("$h"); done
	fi
	build
	for h in "${headers[@]}"; do check_header "$h"; done
	if [ ${#problems[@]} -gt 0 ]; then
		printf '    %s\n' "${problems[@]}"
		echo "FAIL $name: ${#problems[@]} wrong rebuild(s) over ${#headers[@]} headers"
		exit 1
	fi
	echo "PASS $name: ${#headers[@]} headers, ${#objects[@]} objects"
}

main "$@"
