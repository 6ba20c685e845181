#!/usr/bin/env bash
# Fetch Debian's cloud kernel for the QEMU bench, once, and print where it is.
#   tools/vm-kernel.sh            print  vmlinuz=... modules=... kver=...
#   tools/vm-kernel.sh --refresh  re-resolve the metapackage, fetch if newer
# The output is shell assignments: eval "$(tools/vm-kernel.sh)".
# Cache: ${BPFGRAPH_VM_CACHE:-$HOME/.cache/bpfgraph-vm}; the package is
# unpacked (dpkg -x, no install) into $cache/root. Once cached, no network
# and no apt: the versioned package moves (-50, -56, ...) and a bench that
# changes kernel under a developer's feet is worse than a slightly old one.
set -euo pipefail

cache=${BPFGRAPH_VM_CACHE:-$HOME/.cache/bpfgraph-vm}
meta=linux-image-cloud-amd64

die() { echo "vm-kernel: $*" >&2; exit 1; }

# Newest vmlinuz already unpacked in the cache, if any.
cached_vmlinuz() {
	{ ls -1 "$cache"/root/boot/vmlinuz-* 2>/dev/null || true; } | sort -V | tail -n1
}

print_paths() {
	local vmlinuz=$1 kver
	kver=${vmlinuz##*/vmlinuz-}
	[ -d "$cache/root/lib/modules/$kver" ] || die "no modules for $kver in $cache/root"
	printf 'vmlinuz=%q\nmodules=%q\nkver=%q\n' "$vmlinuz" \
		"$cache/root/lib/modules/$kver" "$kver"
}

maybe_sudo() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The versioned package the metapackage points at, e.g.
# linux-image-6.1.0-56-cloud-amd64. A fresh machine may not know the
# metapackage until its package lists are updated.
resolve_pkg() {
	local pkg
	pkg=$(apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*-cloud-amd64\)$/\1/p' | head -n1)
	if [ -z "$pkg" ]; then
		echo "vm-kernel: $meta unknown, running apt-get update" >&2
		maybe_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 ||
			die "apt-get update failed"
		pkg=$(apt-cache depends "$meta" 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-[0-9].*-cloud-amd64\)$/\1/p' | head -n1)
	fi
	[ -n "$pkg" ] || die "cannot resolve $meta with apt-cache depends (is this Debian?)"
	echo "$pkg"
}

# Download and unpack into a temporary tree, then swap it in, so an
# interrupted fetch never leaves a half-unpacked cache behind.
fetch() {
	local pkg=$1 tmp deb
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "vm-kernel: downloading $pkg into $cache" >&2
	# The sandbox user _apt cannot write into a private cache dir.
	(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2) ||
		die "apt-get download $pkg failed"
	deb=$(ls -1 "$tmp"/*.deb | head -n1)
	dpkg -x "$deb" "$tmp/root" || die "dpkg -x $deb failed"
	ls "$tmp"/root/boot/vmlinuz-* >/dev/null 2>&1 || die "$deb has no /boot/vmlinuz-*"
	# Keep older unpacked kernels out of the way: one kernel per cache.
	rm -rf "$cache/root.old"
	[ -d "$cache/root" ] && mv "$cache/root" "$cache/root.old"
	mv "$tmp/root" "$cache/root"
	rm -rf "$cache/root.old"
	mv "$deb" "$cache/"
	rm -rf "$tmp"
	trap - EXIT
}

main() {
	local refresh=0 vmlinuz pkg
	case "${1:-}" in
	--refresh) refresh=1 ;;
	"") ;;
	*) echo "usage: $0 [--refresh]" >&2; exit 2 ;;
	esac
	vmlinuz=$(cached_vmlinuz)
	if [ -n "$vmlinuz" ] && [ $refresh -eq 0 ]; then
		print_paths "$vmlinuz"
		return
	fi
	command -v apt-get >/dev/null || die "apt-get not found: the bench needs a Debian host"
	pkg=$(resolve_pkg)
	if [ -z "$vmlinuz" ] || [ ! -e "$cache/root/boot/vmlinuz-${pkg#linux-image-}" ]; then
		fetch "$pkg"
	fi
	print_paths "$(cached_vmlinuz)"
}

main "$@"
