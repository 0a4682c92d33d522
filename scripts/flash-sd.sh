#!/bin/sh
# flash-sd.sh [--yes] [--to-file] IMAGE DEVICE - write a firmware image to
# an SD card (or eMMC in a USB reader) and read it back.
#
# DEVICE must be a whole removable block device (/dev/sdX, /dev/mmcblkN),
# none of whose partitions is mounted; anything else is refused. The script
# shows what it will overwrite and asks for "yes" unless --yes is given
# (without a terminal to ask on, --yes is required). After writing it syncs
# and compares the device's first IMAGE-size bytes with the image.
# --to-file writes into an existing regular file instead (for tests and
# for preparing a copy); the block-device checks are skipped then.
#
# Exit status: 0 written and verified, 1 refused or failed (the message
# says why), 2 usage.
set -u

usage() {
    echo "usage: $0 [--yes] [--to-file] IMAGE DEVICE" >&2
    exit 2
}
die() {
    echo "flash-sd: $*" >&2
    exit 1
}

yes=0 to_file=0
while [ $# -gt 0 ]; do
    case $1 in
    --yes) yes=1 ;;
    --to-file) to_file=1 ;;
    -h | --help) usage ;;
    -*) echo "flash-sd: unknown option $1" >&2; usage ;;
    *) break ;;
    esac
    shift
done
[ $# -eq 2 ] || usage
image=$1 dev=$2

[ -f "$image" ] || die "$image is not a file"
size=$(wc -c <"$image")
[ "$size" -gt 0 ] || die "$image is empty"

# What DEVICE is, and how many bytes it holds.
if [ $to_file -eq 1 ]; then
    [ -f "$dev" ] || die "--to-file: $dev is not an existing regular file"
    capacity=$(wc -c <"$dev")
    what="regular file $dev ($capacity bytes)"
else
    [ -b "$dev" ] || die "$dev is not a block device (pass --to-file to write into a file)"
    name=$(basename "$(readlink -f "$dev")")
    sys=/sys/class/block/$name
    [ -d "$sys" ] || die "$dev: no $sys (is it a block device of this machine?)"
    [ -e "$sys/partition" ] && die "$dev is a partition: give the whole card (e.g. /dev/sdb, /dev/mmcblk0)"
    [ "$(cat "$sys/removable" 2>/dev/null || echo 0)" = 1 ] ||
        case $name in
        mmcblk*) ;; # SD slots report removable 0; they are cards all the same
        *) die "$dev is not a removable disk: refusing (this is how system disks get erased)" ;;
        esac
    # Mounted: the device or any of its partitions in the mount table.
    real=$(readlink -f "$dev")
    mounted=$(awk '{print $1, $2}' /proc/mounts | while read -r m at; do
        case $(readlink -f "$m" 2>/dev/null || echo "$m") in
        "$real" | "$real"[0-9]* | "$real"p[0-9]*) echo "$m on $at" ;;
        esac
    done)
    [ -z "$mounted" ] || die "$dev is mounted ($mounted): unmount it first"
    capacity=$(($(cat "$sys/size") * 512))
    model=$(cat "$sys/device/model" 2>/dev/null | tr -s ' ' || true)
    what="$dev, ${model:-unknown model}, $capacity bytes"
fi
[ "$capacity" -ge "$size" ] || die "$image ($size bytes) does not fit $what"

echo "flash-sd: writing $image ($size bytes) to $what"
echo "flash-sd: everything at the start of it is overwritten"
if [ $yes -eq 0 ]; then
    [ -t 0 ] || die "no terminal to ask on: pass --yes to overwrite $dev"
    printf 'Type yes to continue: '
    read -r answer || answer=
    [ "$answer" = yes ] || die "not confirmed; nothing written"
fi

dd if="$image" of="$dev" bs=1M conv=notrunc,fsync 2>/dev/null || die "writing $dev failed"
sync
if [ $to_file -eq 0 ] && command -v blockdev >/dev/null 2>&1; then
    blockdev --flushbufs "$dev" 2>/dev/null || true # read back from the card, not the cache
fi
cmp -n "$size" "$image" "$dev" >/dev/null 2>&1 ||
    die "verification failed: $dev does not read back as $image (a bad card or reader?)"
echo "flash-sd: written and verified ($size bytes)"
