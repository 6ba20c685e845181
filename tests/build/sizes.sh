#!/usr/bin/env bash
# The codebase stays in rooms a reader can hold (docs/layout.md):
# - no source file of user/ or bpf/ over MAX_LINES lines;
# - no function over MAX_FUNC lines, from its signature to its closing
#   brace (kernel style: the body's braces at column 0);
# - exactly one file includes the generated BPF skeleton (the object's
#   one owner, user/hook/bpfobj.c).
#   tests/build/sizes.sh     prints each breach and one PASS/FAIL line
set -euo pipefail
cd "$(dirname "$0")/../.."
MAX_LINES=${MAX_LINES:-800}
MAX_FUNC=${MAX_FUNC:-80}
bad=0
files=$(ls user/*/*.[ch] bpf/*.[ch] 2>/dev/null)

for f in $files; do
	n=$(wc -l <"$f")
	if [ "$n" -gt "$MAX_LINES" ]; then
		echo "sizes: $f has $n lines (at most $MAX_LINES): split it by role"
		bad=1
	fi
done

# A function: a line at column 0 that is not a comment, declaration or
# preprocessor line, then "{" alone at column 0, then "}" at column 0.
long=$(awk -v max="$MAX_FUNC" '
	FNR == 1 { sig = ""; open = 0 }
	/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { sig = $0; sigline = FNR }
	/^\{/ && sig != "" { open = 1; next }
	/^\}/ && open {
		n = FNR - sigline + 1
		if (n > max) printf "sizes: %s:%d: %d lines (at most %d): %s\n", FILENAME, sigline, n, max, sig
		open = 0; sig = ""
	}' $files)
if [ -n "$long" ]; then
	echo "$long"
	bad=1
fi

owners=$(grep -l '#include[[:space:]]*"[^"]*\.skel\.h"' $files || true)
if [ "$(echo "$owners" | grep -c .)" -ne 1 ]; then
	echo "sizes: the BPF skeleton must have one includer (user/hook/bpfobj.c), found:" $owners
	bad=1
fi

if [ $bad = 0 ]; then
	echo "PASS sizes: files <= $MAX_LINES lines, functions <= $MAX_FUNC, one skeleton owner"
else
	echo "FAIL sizes"
fi
exit $bad
