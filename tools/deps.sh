#!/usr/bin/env bash
# Install the Debian packages bpfgraph needs, only those that are missing.
#   tools/deps.sh build   compilers and libraries (make)
#   tools/deps.sh vm      the QEMU bench (make check, make demo)
#   tools/deps.sh browser headless Chromium for tests/browser (SVG flame graph)
#   tools/deps.sh all     all of them
# Quick when everything is present: one dpkg-query, no apt-get.
set -euo pipefail

# libclang-rt-dev: clang's libFuzzer and sanitizer runtimes (make fuzz);
# trace-cmd: reads what --format=trace-cmd writes (tests/host/tracecmd.sh).
build_pkgs=(make gcc clang llvm libbpf-dev libelf-dev zlib1g-dev libzstd-dev
	libcapstone-dev libcmocka-dev bpftool pkg-config jq libclang-rt-dev trace-cmd)
vm_pkgs=(qemu-system-x86 busybox-static cpio xz-utils zstd)
browser_pkgs=(chromium)

case "${1:-all}" in
build) want=("${build_pkgs[@]}") ;;
vm) want=("${vm_pkgs[@]}") ;;
browser) want=("${browser_pkgs[@]}") ;;
all) want=("${build_pkgs[@]}" "${vm_pkgs[@]}" "${browser_pkgs[@]}") ;;
*) echo "usage: $0 build|vm|browser|all" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have empty package lists.
$SUDO apt-get update -qq >&2 || true
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
