#!/bin/sh
# check-uboot-qemu.sh BOARD - the QEMU disk image (make-image.sh BOARD)
# booted by Debian's U-Boot for QEMU with nothing typed: U-Boot must find
# and run boot.scr, the self-test must PASS on the UART, the firmware must
# report the time since U-Boot started it and power QEMU off through PSCI,
# at EL1 and at EL2 (HYP on armv7). Then the same firmware built with
# -Don_exit=uboot must come back to U-Boot, which runs boot.cmd's next line.
#   BOARD: qemu-virt-aarch64 or qemu-virt-armv7
set -u
cd "$(dirname "$0")/.."
board=$1
root=${BUILD_ROOT:-build}
arch=${board#qemu-virt-}
failed=0
check() { # LOG TEXT...: every TEXT (an extended regex) on the console
    log=$1; shift
    for want in "$@"; do
        grep -qE "$want" "$log" || { echo "  missing: $want"; return 1; }
    done
}
boot() { # NAME LEVEL IMAGE [qemu-uboot-boot options]
    name=$1 level=$2 image=$3; shift 3
    log=$root/uboot-$board-$name.log
    sh scripts/qemu-uboot-boot.sh "$arch" "$image" "$@" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && check "$log" "^Found U-Boot script /boot.scr" \
        "^rknpu selftest: PASS " \
        "^boot: exit status 0, [0-9]+ us since U-Boot started the firmware \(entered at EL$level\)"; then
        runs=$(grep -c "^rknpu selftest: PASS" "$log")
        if [ "$runs" -eq 1 ]; then
            echo "$board $name: OK: $(grep -E '^rknpu selftest: PASS|^boot: exit' "$log" | tr -s '\r\n' ' ')"
            return 0
        fi
        echo "  the firmware ran $runs times for one bootm"
    fi
    echo "$board $name: FAIL (exit $rc), console:"; tail -n 25 "$log"
    failed=1
    return 1
}
sh scripts/make-image.sh "$board" || exit 1
img=$root/images/$board.img
boot el1 1 "$img" && check "$log" "^boot: power off \(PSCI SYSTEM_OFF\)" || failed=1
boot el2 2 "$img" --el2 && check "$log" "^boot: power off \(PSCI SYSTEM_OFF\)" || failed=1

sh scripts/make-image.sh "$board" -Don_exit=uboot || exit 1
img=$root/images/$board-custom.img
returned="rknpu-bm: the firmware returned to U-Boot"
boot return-el1 1 "$img" --until "$returned" && check "$log" "^boot: returning to U-Boot" || failed=1
if [ "$arch" = aarch64 ]; then
    boot return-el2 2 "$img" --el2 --until "$returned" && check "$log" "^boot: returning to U-Boot" || failed=1
fi
[ $failed -eq 0 ] && echo "check-uboot-qemu: $board: OK"
exit $failed
