#!/bin/sh
# check-uboot-qemu.sh BOARD - the QEMU disk image (make-image.sh BOARD)
# booted by Debian's U-Boot for QEMU with nothing typed: U-Boot must find
# and run boot.scr, the self-test must PASS on the UART, the firmware must
# report the time since U-Boot started it and power QEMU off through PSCI,
# at EL1 and at EL2 (HYP on armv7); and over the network (netboot.cmd from
# QEMU's DHCP/TFTP). Then the same firmware built with -Don_exit=uboot must
# come back to U-Boot, which runs boot.cmd's next line. On aarch64 an image
# built with -Dmodel (the vendor's multiple_input_demo from ../shared) must
# run the model.
#   BOARD: qemu-virt-aarch64 or qemu-virt-armv7
set -u
cd "$(dirname "$0")/.."
board=$1
root=${BUILD_ROOT:-build}
arch=${board#qemu-virt-}
failed=0
pass="^rknpu selftest: PASS "
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
    found="^Found U-Boot script /boot.scr"
    [ -d "$image" ] && found="^## Executing script"
    if [ $rc -eq 0 ] && check "$log" "$found" "$pass" \
        "^boot: exit status 0, [0-9]+ us since U-Boot started the firmware \(entered at EL$level\)"; then
        runs=$(grep -c "$pass" "$log")
        if [ "$runs" -eq 1 ]; then
            echo "$board $name: OK: $(grep -E "$pass|^boot: exit" "$log" | tr -s '\r\n' ' ')"
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
# the same firmware over the network: no disk, DHCP and TFTP only
boot netboot 1 "$root/images/$board.tftp" && check "$log" "^Filename 'boot.scr.uimg'" \
    "^boot: power off \(PSCI SYSTEM_OFF\)" || failed=1

sh scripts/make-image.sh "$board" -Don_exit=uboot || exit 1
img=$root/images/$board-custom.img
returned="rknpu-bm: the firmware returned to U-Boot"
boot return-el1 1 "$img" --until "$returned" && check "$log" "^boot: returning to U-Boot" || failed=1
if [ "$arch" = aarch64 ]; then
    boot return-el2 2 "$img" --el2 --until "$returned" && check "$log" "^boot: returning to U-Boot" || failed=1
fi
# an image of the user's model (-Dmodel): here the vendor's two-input sample
if [ "$arch" = aarch64 ]; then
    models=$(cd .. && pwd)/shared/models
    set -- "$models/rk3588_multiple_input_demo.v6.rknn" \
        "$models/multiple_input_demo/input1.bin" "$models/multiple_input_demo/input2.bin"
    for f in "$@"; do [ -f "$f" ] || { echo "check-uboot-qemu: missing input file $f"; exit 1; }; done
    sh scripts/make-image.sh "$board" -Dmodel="$1" -Dinputs="$2,$3" || exit 1
    pass="^model demo: OK "
    boot model 1 "$root/images/$board-custom.img" &&
        check "$log" "^boot: power off \(PSCI SYSTEM_OFF\)" || failed=1
    # its printed output against the float ONNX model (the e2e bounds)
    ref=$root/uboot-model-reference.f32
    if /usr/bin/python3 tests/tools/onnx_ref.py "$models/multiple_input_demo" "$ref" >/dev/null &&
        /usr/bin/python3 tests/tools/check_printout.py model-demo "$ref" -- cat "$log" >"$ref.log"; then
        grep "^demo:" "$ref.log"
    else
        grep -E "^(demo:|FAIL)" "$ref.log"; failed=1
    fi
fi
[ $failed -eq 0 ] && echo "check-uboot-qemu: $board: OK"
exit $failed
