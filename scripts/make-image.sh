#!/bin/sh
# make-image.sh BOARD [MESON_OPTION...] - a bootable disk image for U-Boot's
# distro boot: build/images/BOARD.img, an MBR disk with one FAT16 partition
# (from 16 MiB, so a U-Boot written to the card's first sectors fits in
# front of it) holding the firmware as a U-Boot standalone image
# (rknpu.uimg: load address and entry from the ELF), boot.scr compiled by
# mkimage from boards/BOARD/boot.cmd, and README.txt. Also
# build/images/BOARD.tftp/: the firmware and boot.scr.uimg (from
# boards/BOARD/netboot.cmd) to serve over TFTP for network boot.
# No root and no loop mounts: sfdisk and mtools work on the plain file.
#   BOARD: qemu-virt-aarch64 qemu-virt-armv7 rk3588 rk3568
#   MESON_OPTION: e.g. -Dmodel=my.rknn -Dinputs=in.bin (the image runs the
#   linked model instead of the self-test), -Don_exit=uboot (return to
#   U-Boot instead of powering off). With options the firmware is built in
#   BUILD_ROOT/BOARD-custom, configured afresh each time, and the image is
#   build/images/BOARD-custom.img.
# Env: BUILD_ROOT (default build; the firmware is built in BUILD_ROOT/BOARD).
set -eu
cd "$(dirname "$0")/.."
boards="qemu-virt-aarch64 qemu-virt-armv7 rk3588 rk3568"
[ $# -ge 1 ] || { echo "usage: $0 BOARD [MESON_OPTION...] (BOARD: $boards)" >&2; exit 2; }
board=$1
shift
root=${BUILD_ROOT:-build}
case $board in
qemu-virt-aarch64) cross="boards/qemu-virt/aarch64.ini boards/qemu-virt-aarch64/uboot.ini"
    prefix=aarch64-linux-gnu- arch=arm64 ;;
qemu-virt-armv7) cross="boards/qemu-virt/armv7-picolibc.ini boards/qemu-virt-armv7/uboot.ini"
    prefix=arm-none-eabi- arch=arm ;;
rk3588 | rk3568) cross=boards/$board/aarch64.ini prefix=aarch64-linux-gnu- arch=arm64 ;;
*) echo "make-image: no image for board '$board' (boards: $boards)" >&2; exit 2 ;;
esac
for tool in mkimage mformat mcopy sfdisk; do
    command -v $tool >/dev/null 2>&1 ||
        { echo "make-image: $tool not found (sh scripts/install-deps.sh)" >&2; exit 1; }
done

# The board's build dir (scripts/check-boot-image.sh builds the same one):
# configured once, then rebuilt incrementally. Options: a dir of their own.
fw=$root/$board
program=selftest
if [ $# -gt 0 ]; then
    fw=$root/$board-custom
    rm -rf "$fw"
    for opt in "$@"; do
        case $opt in -Dmodel=*) program=model_demo ;; esac
    done
fi
out=$root/images/${fw##*/}.img
stage=$root/images/${fw##*/}.files
mkdir -p "$root/images"
rm -rf "$stage"
if [ ! -f "$fw/build.ninja" ]; then
    for f in $cross; do set -- "$@" --cross-file "$f"; done
    meson setup "$fw" "$@" >"$fw.setup.log" 2>&1 || { tail -n 30 "$fw.setup.log"; exit 1; }
fi
ninja -C "$fw" examples/$program.elf >"$fw.build.log" 2>&1 || { tail -n 30 "$fw.build.log"; exit 1; }
mkdir -p "$stage"
elf=$fw/examples/$program.elf
${prefix}objcopy -O binary "$elf" "$stage/rknpu.bin"
base=$(${prefix}readelf -lW "$elf" | awk '$1 == "LOAD" { print $4; exit }')
entry=$(${prefix}readelf -h "$elf" | awk '/Entry point/ { print $4 }')
mkimage -A $arch -O u-boot -T standalone -C none -a "$base" -e "$entry" \
    -n "rknpu-bm $program" -d "$stage/rknpu.bin" "$stage/rknpu.uimg" >/dev/null
rm "$stage/rknpu.bin"
mkimage -A $arch -O linux -T script -C none -n "rknpu-bm $board" \
    -d "boards/$board/boot.cmd" "$stage/boot.scr" >/dev/null
what="the boot-time NPU self-test; its result line"
[ $program = selftest ] || what="the linked model ($program); its outputs"
cat >"$stage/README.txt" <<TXT
rknpu-bm boot image for $board ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))

rknpu.uimg the firmware ($program) as a U-Boot standalone image:
           $what
           and the time since U-Boot started it appear on the serial console
boot.scr   U-Boot script compiled from boards/$board/boot.cmd:
           load rknpu.uimg and start it with bootm
Write the whole image to a card with scripts/flash-sd.sh, or to eMMC
with scripts/flash-maskrom.sh. docs/boards.md has the steps.
TXT

# The same firmware for network boot: a directory to serve over TFTP.
tftp=$root/images/${fw##*/}.tftp
rm -rf "$tftp"
mkdir -p "$tftp"
cp "$stage/rknpu.uimg" "$tftp/"
mkimage -A $arch -O linux -T script -C none -n "rknpu-bm $board netboot" \
    -d "boards/$board/netboot.cmd" "$tftp/boot.scr.uimg" >/dev/null

# 16 MiB in front, a 32 MiB FAT16 partition (type 0x0e, LBA, bootable).
start=32768 sectors=65536
rm -f "$out"
dd if=/dev/zero of="$out" bs=512 count=0 seek=$((start + sectors)) 2>/dev/null
printf 'label: dos\nstart=%d, size=%d, type=e, bootable\n' $start $sectors |
    sfdisk --quiet "$out"
part="$out@@$((start * 512))"
mformat -i "$part" -T $sectors -h 64 -s 32 -v RKNPU ::
mcopy -i "$part" "$stage/rknpu.uimg" "$stage/boot.scr" "$stage/README.txt" ::
echo "make-image: $out ($(wc -c <"$out") bytes, $program from $fw): $(cd "$stage" && ls | tr '\n' ' ')"
echo "make-image: $tftp/ for network boot: $(cd "$tftp" && ls | tr '\n' ' ')"
