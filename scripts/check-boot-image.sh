#!/bin/sh
# check-boot-image.sh BOARD - make build/images/BOARD.img and check it the
# way U-Boot will read it: an MBR with one bootable FAT partition, the
# firmware, a boot.scr that decodes to the checked-in boards/BOARD/boot.cmd,
# and the address boot.cmd loads to and jumps to equal to the firmware's
# link address and ELF entry.
set -eu
cd "$(dirname "$0")/.."
board=$1
root=${BUILD_ROOT:-build}
sh scripts/make-image.sh "$board"
img=$root/images/$board.img
elf=$root/$board/examples/selftest.elf
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
for f in rknpu.bin boot.scr README.txt; do
    mcopy -i "$fat" "::$f" "$work/$f" || fail "$f is not on the FAT partition"
done
aarch64-linux-gnu-objcopy -O binary "$elf" "$work/expected.bin"
cmp -s "$work/rknpu.bin" "$work/expected.bin" || fail "rknpu.bin is not the firmware built from $elf"
# boot.scr: a legacy U-Boot script image (64-byte header, the length of
# each part, a zero word) whose one part is boot.cmd byte for byte
dumpimage -l "$work/boot.scr" | grep -q "Script" || fail "boot.scr is not a U-Boot script image"
dd if="$work/boot.scr" of="$work/boot.cmd" bs=1 skip=72 2>/dev/null
cmp -s "$work/boot.cmd" "boards/$board/boot.cmd" || fail "boot.scr does not decode to boards/$board/boot.cmd"
# the addresses: load and go in boot.cmd, link base and entry of the ELF
load=$(awk '$1 == "load" { print $4 }' "boards/$board/boot.cmd")
go=$(awk '$1 == "go" { print $2 }' "boards/$board/boot.cmd")
entry=$(aarch64-linux-gnu-readelf -h "$elf" | awk '/Entry point/ { print $4 }')
base=$(aarch64-linux-gnu-readelf -lW "$elf" | awk '$1 == "LOAD" { print $3; exit }')
echo "boot.cmd: load $load, go $go; firmware: entry $entry, first segment at $base"
[ $((load)) -eq $((base)) ] || fail "boot.cmd loads to $load, the firmware is linked at $base"
[ $((go)) -eq $((entry)) ] || fail "boot.cmd jumps to $go, the firmware's entry is $entry"
echo "check-boot-image: $board: OK ($img)"
