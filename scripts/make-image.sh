#!/bin/sh
# make-image.sh BOARD - a bootable disk image for U-Boot's distro boot:
# build/images/BOARD.img, an MBR disk with one FAT16 partition (from 16 MiB,
# so a U-Boot written to the card's first sectors fits in front of it)
# holding the firmware (rknpu.bin: the boot-time self-test), boot.scr
# compiled by mkimage from boards/BOARD/boot.cmd, and README.txt.
# No root and no loop mounts: sfdisk and mtools work on the plain file.
#   BOARD: rk3588 (so far; the QEMU and RK3568 images are not made yet)
# Env: BUILD_ROOT (default build; the firmware is built in BUILD_ROOT/BOARD).
set -eu
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 BOARD (rk3588)" >&2; exit 2; }
board=$1
root=${BUILD_ROOT:-build}
case $board in
rk3588) cross=boards/rk3588/aarch64.ini prefix=aarch64-linux-gnu- ;;
*) echo "make-image: no image for board '$board' yet (rk3588)" >&2; exit 2 ;;
esac
for tool in mkimage mformat mcopy sfdisk; do
    command -v $tool >/dev/null 2>&1 ||
        { echo "make-image: $tool not found (sh scripts/install-deps.sh)" >&2; exit 1; }
done

# the board's build dir (scripts/check-rk3588-image.sh builds the same one):
# configured once, then rebuilt incrementally
fw=$root/$board
out=$root/images/$board.img
stage=$root/images/$board.files
mkdir -p "$root/images"
rm -rf "$stage"
if [ ! -f "$fw/build.ninja" ]; then
    meson setup "$fw" --cross-file "$cross" >"$fw.setup.log" 2>&1 || { tail -n 30 "$fw.setup.log"; exit 1; }
fi
ninja -C "$fw" examples/selftest.elf >"$fw.build.log" 2>&1 || { tail -n 30 "$fw.build.log"; exit 1; }
mkdir -p "$stage"
${prefix}objcopy -O binary "$fw/examples/selftest.elf" "$stage/rknpu.bin"
mkimage -A arm64 -O linux -T script -C none -n "rknpu-bm $board" \
    -d "boards/$board/boot.cmd" "$stage/boot.scr" >/dev/null
cat >"$stage/README.txt" <<TXT
rknpu-bm boot image for $board ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))

rknpu.bin  the firmware: the boot-time NPU self-test; its result line
           and the time it took appear on the serial console
boot.scr   U-Boot script compiled from boards/$board/boot.cmd:
           load rknpu.bin and jump to it
Write the whole image to a card with scripts/flash-sd.sh, or to eMMC
with scripts/flash-maskrom.sh. docs/boards.md has the steps.
TXT

# 16 MiB in front, a 32 MiB FAT16 partition (type 0x0e, LBA, bootable).
start=32768 sectors=65536
rm -f "$out"
dd if=/dev/zero of="$out" bs=512 count=0 seek=$((start + sectors)) 2>/dev/null
printf 'label: dos\nstart=%d, size=%d, type=e, bootable\n' $start $sectors |
    sfdisk --quiet "$out"
part="$out@@$((start * 512))"
mformat -i "$part" -T $sectors -h 64 -s 32 -v RKNPU ::
mcopy -i "$part" "$stage/rknpu.bin" "$stage/boot.scr" "$stage/README.txt" ::
echo "make-image: $out ($(wc -c <"$out") bytes): $(cd "$stage" && ls | tr '\n' ' ')"
