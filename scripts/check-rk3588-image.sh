#!/bin/sh
# Build the RK3588 firmware image and check its memory map from the ELF:
# entry at the U-Boot load address, carve-out 2 MiB aligned below 4 GiB and
# clear of the image, and a flat binary for `go 0x00400000`.
#   check-rk3588-image.sh BUILD_DIR
set -eu
dir=$1
cd "$(dirname "$0")/.."
rm -rf "$dir"
meson setup "$dir" --cross-file boards/rk3588/aarch64.ini >/dev/null
ninja -C "$dir" examples/platform_report.elf >/dev/null
elf=$dir/examples/platform_report.elf
sym() { aarch64-linux-gnu-nm "$elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
entry=$(aarch64-linux-gnu-readelf -h "$elf" | awk '/Entry point/ { print $4 }')
dma=$(sym __dma_carveout_start); dma_end=$(sym __dma_carveout_end); stack=$(sym __stack)
echo "entry $entry carve-out [$dma, $dma_end) stack top $stack"
[ $((entry)) -eq $((0x00400000)) ] || { echo "entry is not 0x00400000"; exit 1; }
[ $((dma % 0x200000)) -eq 0 ] || { echo "carve-out not 2 MiB aligned"; exit 1; }
[ $((dma_end)) -le $((0x100000000)) ] || { echo "carve-out above 4 GiB"; exit 1; }
[ $((dma)) -ge $((stack)) ] || { echo "carve-out overlaps the image"; exit 1; }
if aarch64-linux-gnu-nm "$elf" | grep -q ' semihost\|sys_semihost'; then
    echo "board image must not use semihosting"; exit 1
fi
aarch64-linux-gnu-objcopy -O binary "$elf" "$dir/platform_report.bin"
aarch64-linux-gnu-size "$elf"
echo "rk3588 image OK: $dir/platform_report.bin"
