#!/usr/bin/env bash
# The source layout's one rule (docs/layout.md): a folder of user/ includes
# headers of its own, of include/, and of the folders listed before it in
# LAYERS, never of one after it. A header a later folder needs moves down
# (or splits), so that graph/ and out/ know nothing of the live session
# and text/ nothing of the kernel.
#   tests/build/layers.sh     prints each include that breaks the rule and
#                             one PASS/FAIL line; exit 0 or 1
# Generated BPF skeletons (*.skel.h) are left out: which files may open
# the BPF object is a rule of its own.
set -euo pipefail
cd "$(dirname "$0")/../.."
LAYERS=(common kernel plan hook graph out record session live text cmd)

rank() { # FOLDER: its place in LAYERS, or nothing
	local i
	for i in "${!LAYERS[@]}"; do
		[ "${LAYERS[$i]}" = "$1" ] && { echo "$i"; return; }
	done
}

# Every folder of user/ must have a place: a new one is placed on purpose.
bad=0
declare -A home
for d in user/*/; do
	d=${d#user/}
	d=${d%/}
	if [ -z "$(rank "$d")" ]; then
		echo "layers: user/$d/ has no place in LAYERS (tests/build/layers.sh, docs/layout.md)"
		bad=1
	fi
	for h in user/"$d"/*.h; do
		[ -e "$h" ] && home[$(basename "$h")]=$d
	done
done

for f in user/*/*.c user/*/*.h; do
	from=$(basename "$(dirname "$f")")
	rf=$(rank "$from")
	[ -n "$rf" ] || continue
	while read -r inc; do
		to=${home[$inc]:-}
		[ -n "$to" ] || continue # include/, system, skeleton
		rt=$(rank "$to")
		if [ "$rt" -gt "$rf" ]; then
			echo "layers: $f includes $inc of user/$to/, a folder after user/$from/"
			bad=1
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

if [ $bad = 0 ]; then
	echo "PASS layers"
else
	echo "FAIL layers"
fi
exit $bad
