#!/bin/sh
# flash-maskrom.sh [--dry-run] IMAGE --loader SPL_LOADER.bin - write a
# firmware image to a board's eMMC over USB in maskrom mode with
# rkdeveloptool (Debian 12: apt-get install rkdeveloptool).
#
# Steps, each checked: a device in maskrom mode is present (rkdeveloptool
# ld), the SPL loader is downloaded into it (db), the image is written from
# sector 0 (wl 0), the board is reset (rd). SPL_LOADER.bin is the board's
# "rkXXXX_spl_loader_*.bin" (built from rkbin, or from the vendor's
# release; docs/boards.md). --dry-run prints the commands instead.
#
# Exit status: 0 written, 1 a step failed (the message says what to do),
# 2 usage.
set -u

usage() {
    echo "usage: $0 [--dry-run] IMAGE --loader SPL_LOADER.bin" >&2
    exit 2
}
die() {
    echo "flash-maskrom: $*" >&2
    exit 1
}

dry=0 image= loader=
while [ $# -gt 0 ]; do
    case $1 in
    --dry-run) dry=1 ;;
    --loader) [ $# -ge 2 ] || usage; loader=$2; shift ;;
    -h | --help) usage ;;
    -*) echo "flash-maskrom: unknown option $1" >&2; usage ;;
    *) [ -z "$image" ] || usage; image=$1 ;;
    esac
    shift
done
[ -n "$image" ] && [ -n "$loader" ] || usage
[ -f "$image" ] && [ -s "$image" ] || die "$image is not a non-empty file"
[ -f "$loader" ] && [ -s "$loader" ] || die "$loader is not a non-empty file (the SoC's rkXXXX_spl_loader_*.bin from rkbin)"

if [ $dry -eq 1 ]; then
    echo "rkdeveloptool ld"
    echo "rkdeveloptool db $loader"
    echo "rkdeveloptool wl 0 $image"
    echo "rkdeveloptool rd"
    exit 0
fi
command -v rkdeveloptool >/dev/null 2>&1 ||
    die "rkdeveloptool not found (apt-get install --no-install-recommends rkdeveloptool)"

# 1. A device, in maskrom mode.
list=$(rkdeveloptool ld 2>&1) || die "rkdeveloptool ld failed: $list"
case $list in
*Maskrom*) ;;
*Loader*)
    die "the board is in loader mode, not maskrom: power it off, hold the maskrom button" \
        "(or short the maskrom pins: docs/boards.md), power it on, release, and run this again" ;;
*)
    die "no Rockchip device in maskrom mode on USB ($list): connect the board's OTG port" \
        "(USB-C on most boards, USB-A to A on a ROCK 3A), hold the maskrom button (or short" \
        "the maskrom pins) while powering on; 'lsusb' should show 2207:xxxx" ;;
esac
echo "flash-maskrom: device in maskrom mode"

# 2. The loader, 3. the image, 4. reset.
out=$(rkdeveloptool db "$loader" 2>&1) ||
    die "downloading $loader failed ($out): is it this SoC's *_spl_loader_*.bin? Power-cycle into maskrom and retry"
echo "flash-maskrom: loader downloaded"
out=$(rkdeveloptool wl 0 "$image" 2>&1) ||
    die "writing $image failed ($out): check the USB cable (use a direct port), power-cycle into maskrom and retry"
echo "flash-maskrom: image written"
out=$(rkdeveloptool rd 2>&1) ||
    die "reset failed ($out): the image is written; power-cycle the board"
echo "flash-maskrom: board reset; it boots from eMMC (watch the serial console, docs/boards.md)"
