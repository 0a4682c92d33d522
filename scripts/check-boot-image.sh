#!/bin/sh
# check-boot-image.sh BOARD - make build/images/BOARD.img and check it the
# way U-Boot will read it: an MBR with one bootable FAT partition; the
# firmware as a standalone uImage whose data is the ELF's binary and whose
# load address and entry are the ELF's; a boot.scr that decodes to the
# checked-in boards/BOARD/boot.cmd; and boot.cmd staging the uImage where it
# overlaps neither the firmware's memory nor its DMA carve-out.
set -eu
cd "$(dirname "$0")/.."
board=$1
root=${BUILD_ROOT:-build}
sh scripts/make-image.sh "$board"
img=$root/images/$board.img
elf=$root/$board/examples/selftest.elf
case $board in
qemu-virt-armv7) prefix=arm-none-eabi- arch="ARM" ;;
*) prefix=aarch64-linux-gnu- arch="AArch64" ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-boot-image: $board: $*"; exit 1; }

# the partition table: one bootable FAT partition
sfdisk -J "$img" >"$work/table.json"
part=$(/usr/bin/python3 - "$work/table.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["partitiontable"]
p = t["partitions"]
assert t["label"] == "dos", t["label"]
assert len(p) == 1, "%d partitions" % len(p)
assert p[0]["type"] in ("c", "e", "b", "6"), "type %s is not FAT" % p[0]["type"]
assert p[0].get("bootable"), "not bootable"
print(p[0]["start"] * 512)
PY
) || fail "partition table: $(cat "$work/table.json")"
fat="$img@@$part"

# the files U-Boot loads
for f in rknpu.uimg boot.scr README.txt; do
    mcopy -i "$fat" "::$f" "$work/$f" || fail "$f is not on the FAT partition"
done

# rknpu.uimg: a legacy uImage (64-byte header) of a standalone program for
# this architecture, the ELF's binary as its data, the ELF's addresses
dumpimage -l "$work/rknpu.uimg" >"$work/uimg.txt" || fail "rknpu.uimg is not a uImage"
grep -q "Image Type: *$arch U-Boot Standalone Program (uncompressed)" "$work/uimg.txt" ||
    fail "rknpu.uimg is not an uncompressed $arch standalone program: $(cat "$work/uimg.txt")"
${prefix}objcopy -O binary "$elf" "$work/expected.bin"
dd if="$work/rknpu.uimg" of="$work/data.bin" bs=64 skip=1 2>/dev/null
cmp -s "$work/data.bin" "$work/expected.bin" || fail "rknpu.uimg's data is not the firmware built from $elf"
load=0x$(awk '/Load Address:/ { print $3 }' "$work/uimg.txt")
entry=0x$(awk '/Entry Point:/ { print $3 }' "$work/uimg.txt")
elf_entry=$(${prefix}readelf -h "$elf" | awk '/Entry point/ { print $4 }')
elf_base=$(${prefix}readelf -lW "$elf" | awk '$1 == "LOAD" { print $4; exit }')
sym() { ${prefix}nm "$elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
ram_end=$(sym __stack); dma=$(sym __dma_carveout_start); dma_end=$(sym __dma_carveout_end)
echo "rknpu.uimg: load $load, entry $entry; firmware: first segment $elf_base, entry $elf_entry"
[ $((load)) -eq $((elf_base)) ] || fail "rknpu.uimg loads to $load, the firmware is linked at $elf_base"
[ $((entry)) -eq $((elf_entry)) ] || fail "rknpu.uimg's entry is $entry, the firmware's is $elf_entry"

# nothing on a board answers semihosting: the firmware must not use it
${prefix}nm "$elf" | grep -qi semihost && fail "the firmware uses semihosting"

# boot.scr: a legacy U-Boot script image (64-byte header, the length of
# each part, a zero word) whose one part is boot.cmd byte for byte
dumpimage -l "$work/boot.scr" | grep -q "Script" || fail "boot.scr is not a U-Boot script image"
dd if="$work/boot.scr" of="$work/boot.cmd" bs=1 skip=72 2>/dev/null
cmp -s "$work/boot.cmd" "boards/$board/boot.cmd" || fail "boot.scr does not decode to boards/$board/boot.cmd"

# boot.cmd loads rknpu.uimg to a staging address and runs bootm there;
# bootm copies it to [load, +size): the staged copy must not overlap the
# firmware's image and RAM [base, __stack) or its carve-out.
stage=$(awk '$1 == "load" && $5 == "rknpu.uimg" { print $4 }' "boards/$board/boot.cmd")
bootm=$(awk '$1 == "bootm" { print $2 }' "boards/$board/boot.cmd")
grep -q '^setenv autostart yes' "boards/$board/boot.cmd" || fail "boot.cmd does not set autostart (bootm would only load)"
[ -n "$stage" ] && [ "$stage" = "$bootm" ] || fail "boot.cmd loads rknpu.uimg to '$stage' but runs bootm at '$bootm'"
size=$(wc -c <"$work/rknpu.uimg")
stage_end=$((stage + size))
echo "boot.cmd: rknpu.uimg staged at [$stage, $(printf 0x%x $stage_end)); firmware [$elf_base, $ram_end), carve-out [$dma, $dma_end)"
overlaps() { [ $(($1)) -lt $(($4)) ] && [ $(($3)) -lt $(($2)) ]; }
overlaps "$stage" "$stage_end" "$elf_base" "$ram_end" && fail "the staged rknpu.uimg overlaps the firmware"
overlaps "$stage" "$stage_end" "$dma" "$dma_end" && fail "the staged rknpu.uimg overlaps the DMA carve-out"
echo "check-boot-image: $board: OK ($img)"
