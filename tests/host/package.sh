#!/usr/bin/env bash
# Packaging, on the host (make unit and make check run it):
#   - make install DESTDIR=X, then make uninstall DESTDIR=X leaves no file
#     in X, with the default PREFIX and with another one;
#   - make deb builds $OUTPUT/bpfgraph_VERSION_ARCH.deb whose file list
#     (dpkg-deb -c) is exactly the binary, the compressed man page, the
#     bash completion, README and copyright under /usr/share/doc, all
#     owned by root, and whose control names the package, version and
#     architecture; the packaged binary runs (--version).
# Uses the built $OUTPUT/bpfgraph. Exit: 0 pass, 1 fail.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-build}
MAKE=${MAKE:-make}
name=package
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0

fail() {
	echo "FAIL $name: $1"
	bad=1
}

mk() { # quiet make with the test's OUTPUT
	"$MAKE" -s --no-print-directory OUTPUT="$OUTPUT" "$@" >"$work/make.log" 2>&1 ||
		{ cat "$work/make.log"; return 1; }
}

# install, then uninstall: DESTDIR holds no file afterwards.
roundtrip() { # LABEL MAKE-VARS...
	local label=$1 dest=$work/dest-$1 n
	shift
	mk install DESTDIR="$dest" "$@" || { fail "$label: make install failed"; return; }
	n=$(find "$dest" -type f | wc -l)
	[ "$n" -eq 3 ] || fail "$label: make install wrote $n files, not 3: $(find "$dest" -type f)"
	mk uninstall DESTDIR="$dest" "$@" || { fail "$label: make uninstall failed"; return; }
	n=$(find "$dest" ! -type d | wc -l)
	[ "$n" -eq 0 ] || fail "$label: make uninstall left $(find "$dest" ! -type d)"
}

roundtrip default
roundtrip prefix PREFIX=/opt/bg
[ -x "$work/dest-prefix/opt/bg/bin" ] && [ ! -e "$work/dest-prefix/usr" ] ||
	fail "PREFIX=/opt/bg: install did not go under /opt/bg"

version=$(cat VERSION)
arch=$(dpkg --print-architecture)
deb=$OUTPUT/bpfgraph_${version}_${arch}.deb
rm -f "$deb"
if ! mk deb; then
	fail "make deb failed"
elif [ ! -f "$deb" ]; then
	fail "make deb did not make $deb"
else
	dpkg-deb -c "$deb" >"$work/list"
	# files (not directories), as "mode owner path"
	awk '$1 !~ /^d/ { print $1, $2, $6 }' "$work/list" | sort >"$work/files"
	sort >"$work/want" <<WANT
-rw-r--r-- root/root ./usr/share/bash-completion/completions/bpfgraph
-rw-r--r-- root/root ./usr/share/doc/bpfgraph/README.md.gz
-rw-r--r-- root/root ./usr/share/doc/bpfgraph/copyright
-rw-r--r-- root/root ./usr/share/man/man1/bpfgraph.1.gz
-rwxr-xr-x root/root ./usr/bin/bpfgraph
WANT
	diff -u "$work/want" "$work/files" >"$work/diff" ||
		fail "dpkg-deb -c: unexpected file list: $(cat "$work/diff")"
	awk '$1 ~ /^d/ && ($1 != "drwxr-xr-x" || $2 != "root/root") { print }' "$work/list" |
		grep -q . && fail "directories not 0755 root/root: $(awk '$1 ~ /^d/' "$work/list")"
	[ "$(dpkg-deb -f "$deb" Package Version Architecture | tr '\n' ' ')" = \
		"Package: bpfgraph Version: $version Architecture: $arch " ] ||
		fail "control: $(dpkg-deb -f "$deb")"
	dpkg-deb -x "$deb" "$work/x"
	out=$("$work/x/usr/bin/bpfgraph" --version 2>&1) || true
	[ "$out" = "bpfgraph $version" ] || fail "the packaged binary says '$out'"
	zcat "$work/x/usr/share/man/man1/bpfgraph.1.gz" | cmp -s - man/bpfgraph.1 ||
		fail "the packaged man page is not man/bpfgraph.1"
	grep -q '^License: BSD-2-Clause' "$work/x/usr/share/doc/bpfgraph/copyright" ||
		fail "copyright lacks the license"
fi

[ $bad = 0 ] && echo "PASS $name"
exit $bad
