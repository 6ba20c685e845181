#!/usr/bin/env bash
# Debian's trace-cmd reads what bpfgraph writes (--format=trace-cmd):
# for each golden text of one trace, trace-cmd report prints one
# funcgraph_entry line per call line of the text and one funcgraph_exit
# line per closing brace, both counted from the text alone.
#
# trace-cmd report prints a leaf call (an entry followed on its CPU by
# its own exit) as one funcgraph_entry line "f();", the exit folded in,
# as the kernel's printer does; so a leaf counts once, as an entry, and
# exits are the "}" lines. The text's "f() {" right before its "}"
# (nothing between) is such a pair too: it counts as one leaf.
# With -R (raw) every event prints: entries = call lines, exits = leaves
# plus closing braces.
# Exit: 0 pass, 1 fail, 77 skip (no trace-cmd).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-build}
bin=${BG_BPFGRAPH:-$OUTPUT/bpfgraph}
name=tracecmd_report

fail() { echo "FAIL $name: $1"; exit 1; }
command -v trace-cmd >/dev/null || { echo "SKIP $name: no trace-cmd (apt-get install trace-cmd)"; exit 77; }
[ -x "$bin" ] || fail "$bin not built"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for f in default proc abstime_proc retval_605 retval_613; do
	src=tests/golden/out_text/$f.out
	"$bin" report -i "$src" --format=trace-cmd -o "$tmp/$f.dat" || fail "$f: bpfgraph could not write it"
	# the text's lines after the duration column's '|'
	body=$(grep -v '^#' "$src" | grep '|' | sed 's/.*|  //')
	calls=$(grep -cE '\(\);|\) \{$' <<<"$body" || true)
	leaves=$(grep -c '();' <<<"$body" || true)
	braces=$(grep -c '^ *}' <<<"$body" || true)
	# "f() {" with its "}" right after: one leaf for every reader of a ring buffer
	pairs=$(awk '/\) \{$/ { open = 1; next } open && /\| *}( \/\*.*)?$/ { n++ } { open = 0 } END { print n + 0 }' "$src")
	trace-cmd report -i "$tmp/$f.dat" >"$tmp/$f.rep" 2>"$tmp/$f.err" || fail "$f: trace-cmd report failed: $(cat "$tmp/$f.err")"
	[ ! -s "$tmp/$f.err" ] || fail "$f: trace-cmd report said: $(cat "$tmp/$f.err")"
	ent=$(grep -c ' funcgraph_entry: ' "$tmp/$f.rep" || true)
	ext=$(grep -c ' funcgraph_exit: ' "$tmp/$f.rep" || true)
	[ "$ent" -eq "$calls" ] || fail "$f: $ent funcgraph_entry lines, $calls call lines"
	[ "$ext" -eq $((braces - pairs)) ] ||
		fail "$f: $ext funcgraph_exit lines, $braces closing braces ($pairs of them right after their '{')"
	trace-cmd report -R -i "$tmp/$f.dat" >"$tmp/$f.raw" 2>/dev/null || fail "$f: trace-cmd report -R failed"
	ent=$(grep -c ' funcgraph_entry: ' "$tmp/$f.raw" || true)
	ext=$(grep -c ' funcgraph_exit: ' "$tmp/$f.raw" || true)
	[ "$ent" -eq "$calls" ] || fail "$f: -R: $ent funcgraph_entry events, $calls call lines"
	[ "$ext" -eq $((leaves + braces)) ] || fail "$f: -R: $ext funcgraph_exit events, $leaves leaves + $braces braces"
	# names come from the file's kallsyms
	grep -q 'do_sys_openat2() {' "$tmp/$f.rep" || fail "$f: no function names in trace-cmd's report"
	n=$((n + 1))
done
# trace-cmd's own writer: version 7 of the same file, uncompressed and
# compressed with zstd (trace-cmd's default), reads back to the same text.
"$bin" report -i "$tmp/proc.dat" -o "$tmp/v6.txt" 2>/dev/null || fail "bpfgraph could not read its version 6 file"
trace-cmd convert -i "$tmp/proc.dat" -o "$tmp/v7.dat" --file-version 7 --compression none >/dev/null 2>&1 ||
	fail "trace-cmd convert to version 7 failed"
"$bin" report -i "$tmp/v7.dat" -o "$tmp/v7.txt" 2>/dev/null || fail "bpfgraph could not read trace-cmd's version 7 file"
cmp -s "$tmp/v6.txt" "$tmp/v7.txt" || fail "version 7 reads back unlike version 6"
trace-cmd convert -i "$tmp/proc.dat" -o "$tmp/z.dat" --file-version 7 --compression zstd >/dev/null 2>&1 ||
	fail "trace-cmd convert to version 7 with zstd failed"
"$bin" report -i "$tmp/z.dat" -o "$tmp/z.txt" 2>"$tmp/z.err" ||
	fail "bpfgraph could not read trace-cmd's zstd file: $(cat "$tmp/z.err")"
cmp -s "$tmp/v6.txt" "$tmp/z.txt" || fail "version 7 with zstd reads back unlike version 6"
echo "PASS $name: $n files, version 7 (uncompressed and zstd) by trace-cmd convert, trace-cmd $(trace-cmd --version 2>/dev/null | awk '/version/ { print $3; exit }')"
