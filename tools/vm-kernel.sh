#!/usr/bin/env bash
# Fetch a Debian cloud kernel for the QEMU bench, once, and print where it is.
#   tools/vm-kernel.sh            print  vmlinuz=... modules=... kver=...
#   tools/vm-kernel.sh --refresh  re-resolve the package, fetch if newer
#   tools/vm-kernel.sh --list     the series this script knows
# The output is shell assignments: eval "$(tools/vm-kernel.sh)".
#
# BG_VM_KERNEL chooses the series (default 6.1):
#   6.1    Debian 12's kernel: the linux-image-cloud-amd64 metapackage
#   6.12   the 6.12 LTS that bookworm's own lists carry
#          (linux-image-6.12.*+deb12-cloud-amd64, the highest)
#   7.3    (or any other X.Y) the highest linux-image-X.Y.*-cloud-amd64
#          in bookworm's lists, else in trixie-backports and sid, reached
#          through a private apt list in the cache that leaves the
#          system's sources alone; nothing from there is installed, only
#          downloaded and unpacked (dpkg -x).
#
# Cache: ${BPFGRAPH_VM_CACHE:-$HOME/.cache/bpfgraph-vm}/SERIES/root, laid
# out as boot/vmlinuz-KVER, boot/config-KVER and lib/modules/KVER whatever
# the package's own layout (trixie's kernels split image, modules and base
# files into three packages under usr/lib/modules). Once cached, no network
# and no apt: a bench that changes kernel under a developer's feet is worse
# than a slightly old one.
set -euo pipefail

base=${BPFGRAPH_VM_CACHE:-$HOME/.cache/bpfgraph-vm}
series=${BG_VM_KERNEL:-6.1}
cache=$base/$series
newer_suites=(trixie-backports sid)

die() { echo "vm-kernel: $*" >&2; exit 1; }

case $series in
[0-9]*.[0-9]*) ;;
*) die "BG_VM_KERNEL must be a kernel series such as 6.1, 6.12 or 7.3, not '$series'" ;;
esac

maybe_sudo() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Newest vmlinuz already unpacked in the cache, if any.
cached_vmlinuz() {
	{ ls -1 "$cache"/root/boot/vmlinuz-* 2>/dev/null || true; } | sort -V | tail -n1
}

print_paths() {
	local vmlinuz=$1 kver
	kver=${vmlinuz##*/vmlinuz-}
	[ -d "$cache/root/lib/modules/$kver" ] || die "no modules for $kver in $cache/root"
	printf 'vmlinuz=%q\nmodules=%q\nkver=%q\nkconfig=%q\n' "$vmlinuz" \
		"$cache/root/lib/modules/$kver" "$kver" "$cache/root/boot/config-$kver"
}

# apt with the system's lists, or with the private one of newer suites.
sys_apt() { "$@"; }
new_apt() {
	local cmd=$1
	shift
	"$cmd" -o Dir::Etc::sourcelist="$base/apt/sources.list" \
		-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$base/apt/lists" \
		-o Dir::Cache="$base/apt/cache" -o Dir::State::status=/dev/null "$@"
}

update_new_lists() {
	local s
	mkdir -p "$base/apt/lists/partial" "$base/apt/cache/archives/partial"
	for s in "${newer_suites[@]}"; do
		echo "deb http://deb.debian.org/debian $s main"
	done >"$base/apt/sources.list"
	echo "vm-kernel: updating a private package list for ${newer_suites[*]}" >&2
	new_apt apt-get -qq -o APT::Sandbox::User=root update >&2 ||
		die "apt-get update of ${newer_suites[*]} failed"
}

# Highest kernel version of the series known to apt ($1: sys_apt or new_apt),
# e.g. 6.12.117+deb12-cloud-amd64, or nothing.
highest_kver() {
	"$1" apt-cache search --names-only "^linux-(image|binary)-${series//./\\.}[.-].*-cloud-amd64\$" 2>/dev/null |
		sed -n 's/^linux-\(image\|binary\)-\([^ ]*-cloud-amd64\) .*/\2/p' |
		{ grep -v -- '-unsigned$' || true; } | sort -uV | tail -n1
}

# "APT KVER": where the series comes from and its version.
resolve() {
	local kver pkg
	if [ "$series" = 6.1 ]; then
		# Debian 12's own kernel: follow its metapackage (-50, -56, ...).
		pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
			sed -n 's/^ *Depends: linux-image-\(6\.1\.[0-9].*-cloud-amd64\)$/\1/p' | head -n1)
		[ -n "$pkg" ] && { echo "sys_apt $pkg"; return; }
	fi
	kver=$(highest_kver sys_apt)
	[ -n "$kver" ] && { echo "sys_apt $kver"; return; }
	update_new_lists
	kver=$(highest_kver new_apt)
	[ -n "$kver" ] && { echo "new_apt $kver"; return; }
	return 1
}

# Packages to fetch for KVER: bookworm has one linux-image package; trixie
# splits it into linux-binary (vmlinuz), linux-modules and linux-base
# (config), which linux-image then depends on.
packages_for() {
	local apt=$1 kver=$2
	if "$apt" apt-cache show "linux-binary-$kver" >/dev/null 2>&1; then
		echo "linux-binary-$kver linux-modules-$kver linux-base-$kver"
	else
		echo "linux-image-$kver"
	fi
}

# Download and unpack into a temporary tree, then swap it in, so an
# interrupted fetch never leaves a half-unpacked cache behind.
fetch() {
	local apt=$1 kver=$2 tmp deb pkgs
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	pkgs=$(packages_for "$apt" "$kver")
	echo "vm-kernel: downloading $pkgs into $cache" >&2
	# The sandbox user _apt cannot write into a private cache dir.
	# shellcheck disable=SC2086 # pkgs is a word list
	(cd "$tmp" && "$apt" apt-get download -q -o APT::Sandbox::User=root $pkgs >&2) ||
		die "apt-get download $pkgs failed"
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$tmp/root" || die "dpkg -x $deb failed"
	done
	normalize "$tmp/root" "$kver"
	[ -e "$tmp/root/boot/vmlinuz-$kver" ] || die "no vmlinuz for $kver in $pkgs"
	# One kernel per series: older unpacked ones go.
	rm -rf "$cache/root.old"
	[ -d "$cache/root" ] && mv "$cache/root" "$cache/root.old"
	mv "$tmp/root" "$cache/root"
	rm -rf "$cache/root.old" "$tmp"
	trap - EXIT
}

# usr/lib/modules/KVER/{vmlinuz,config} -> boot/, usr/lib -> lib.
normalize() {
	local r=$1 kver=$2 f
	if [ -d "$r/usr/lib/modules/$kver" ]; then
		mkdir -p "$r/boot" "$r/lib/modules"
		for f in vmlinuz config System.map; do
			[ -e "$r/usr/lib/modules/$kver/$f" ] &&
				mv "$r/usr/lib/modules/$kver/$f" "$r/boot/$f-$kver"
		done
		if [ ! -e "$r/boot/config-$kver" ]; then
			f=$(find "$r" -name "config-$kver" -print -quit)
			[ -z "$f" ] || mv "$f" "$r/boot/config-$kver"
		fi
		mv "$r/usr/lib/modules/$kver" "$r/lib/modules/$kver"
	fi
	mkdir -p "$r/lib/modules/$kver"
}

main() {
	local refresh=0 vmlinuz apt kver
	case "${1:-}" in
	--refresh) refresh=1 ;;
	--list) echo "6.1 6.12 7.3"; return ;;
	"") ;;
	*) echo "usage: $0 [--refresh|--list]" >&2; exit 2 ;;
	esac
	vmlinuz=$(cached_vmlinuz)
	if [ -n "$vmlinuz" ] && [ $refresh -eq 0 ]; then
		print_paths "$vmlinuz"
		return
	fi
	command -v apt-get >/dev/null || die "apt-get not found: the bench needs a Debian host"
	# One fetch at a time (the private apt lists are shared too): a second
	# caller waits, then finds its series cached (boots side by side).
	mkdir -p "$base"
	exec 9>"$base/.lock"
	flock 9
	vmlinuz=$(cached_vmlinuz)
	if [ -n "$vmlinuz" ] && [ $refresh -eq 0 ]; then
		print_paths "$vmlinuz"
		return
	fi
	if ! read -r apt kver < <(resolve); then
		echo "vm-kernel: no $series cloud kernel known, running apt-get update" >&2
		maybe_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 ||
			die "apt-get update failed"
		read -r apt kver < <(resolve) ||
			die "no Debian cloud kernel of series $series in bookworm, ${newer_suites[*]}"
	fi
	if [ ! -e "$cache/root/boot/vmlinuz-$kver" ]; then
		fetch "$apt" "$kver"
	fi
	print_paths "$(cached_vmlinuz)"
}

main "$@"
