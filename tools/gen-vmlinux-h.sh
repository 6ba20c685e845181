#!/usr/bin/env bash
# Regenerate vmlinux/<arch>/vmlinux.h from a kernel's BTF.
#   tools/gen-vmlinux-h.sh [BTF-SOURCE] [OUT]
# BTF-SOURCE: a raw BTF file (/sys/kernel/btf/vmlinux, the default), a
# vmlinux ELF, or a compressed bzImage (vmlinuz: gzip, xz, zstd or lz4),
# which is unpacked first. The committed header was made from the QEMU
# bench kernel (Debian linux-image-6.1.0-56-cloud-amd64, 6.1.192-2):
#   tools/gen-vmlinux-h.sh ~/.cache/bpfgraph-vm/root/boot/vmlinuz-*
# The programs are CO-RE, so the header's kernel only has to have the
# types and fields they use.
set -euo pipefail
src=${1:-/sys/kernel/btf/vmlinux}
out=${2:-vmlinux/x86/vmlinux.h}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

unpack_bzimage() {
	# Find the compressed payload by its magic and try each decompressor.
	python3 - "$1" "$tmp" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
magics = {'gz': b'\x1f\x8b\x08', 'xz': b'\xfd7zXZ\x00', 'zst': b'\x28\xb5\x2f\xfd',
          'lz4': b'\x02\x21\x4c\x18'}
for ext, m in magics.items():
    i = d.find(m)
    while i >= 0:
        open(f"{sys.argv[2]}/payload.{ext}.{i}", 'wb').write(d[i:])
        i = d.find(m, i + 1)
        break
PY
	for f in "$tmp"/payload.*; do
		case "$f" in
		*.gz.*) gzip -dc "$f" >"$tmp/vmlinux" 2>/dev/null || true ;;
		*.xz.*) xz -dc "$f" >"$tmp/vmlinux" 2>/dev/null || true ;;
		*.zst.*) zstd -dcq "$f" >"$tmp/vmlinux" 2>/dev/null || true ;;
		*.lz4.*) lz4 -dcq "$f" >"$tmp/vmlinux" 2>/dev/null || true ;;
		esac
		if [ -s "$tmp/vmlinux" ] && head -c4 "$tmp/vmlinux" | grep -q ELF; then
			return 0
		fi
	done
	echo "gen-vmlinux-h: no ELF payload found in $1" >&2
	return 1
}

case "$(head -c4 "$src" | od -An -tx1 | tr -d ' ')" in
7f454c46) btf="$src" ;;
9feb0100) btf="$src" ;; # raw BTF (magic 0xeb9f, version 1)
*) unpack_bzimage "$src"; btf="$tmp/vmlinux" ;;
esac
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c >"$tmp/vmlinux.h"
mv "$tmp/vmlinux.h" "$out"
echo "gen-vmlinux-h: wrote $out from $src ($(wc -l <"$out") lines)" >&2
