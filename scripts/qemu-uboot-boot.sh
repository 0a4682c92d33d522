#!/bin/sh
# qemu-uboot-boot.sh ARCH IMAGE|TFTP_DIR [--el2] [--until TEXT] - boot a disk
# image from make-image.sh the way a board boots it: Debian's U-Boot for
# QEMU (u-boot-qemu: qemu_arm64 or qemu_arm) is the machine's firmware, the
# image is a virtio disk, and nothing is typed: distro boot has to find
# boot.scr by itself. Given make-image's BOARD.tftp directory instead, the
# machine has no disk but a network whose DHCP and TFTP server (QEMU's user
# network) serve that directory: distro boot's dhcp step fetches
# boot.scr.uimg. The serial console is printed when QEMU has stopped.
#   ARCH     aarch64 (Cortex-A76) or armv7 (Cortex-A7)
#   --el2    start at EL2 (HYP on armv7), as boards do: virt,virtualization=on
#   --until TEXT
#            for firmware that returns to U-Boot (which then stays up):
#            stop QEMU once TEXT is on the console; succeed if it was
# Without --until, succeed only if QEMU powered off by itself.
# Env: TIMEOUT seconds (default 120).
set -u
[ $# -ge 2 ] || { echo "usage: $0 aarch64|armv7 IMAGE [--el2] [--until TEXT]" >&2; exit 2; }
arch=$1 image=$2
shift 2
machine=virt until=""
while [ $# -gt 0 ]; do
    case $1 in
    --el2) machine=virt,virtualization=on ;;
    --until) until=$2; shift ;;
    *) echo "qemu-uboot-boot: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
case $arch in
aarch64) qemu=qemu-system-aarch64 cpu=cortex-a76 uboot=/usr/lib/u-boot/qemu_arm64/u-boot.bin ;;
armv7) qemu=qemu-system-arm cpu=cortex-a7 uboot=/usr/lib/u-boot/qemu_arm/u-boot.bin ;;
*) echo "qemu-uboot-boot: ARCH is aarch64 or armv7" >&2; exit 2 ;;
esac
[ -f "$uboot" ] || { echo "qemu-uboot-boot: $uboot missing (apt-get install u-boot-qemu)" >&2; exit 1; }
if [ -d "$image" ]; then
    media="-netdev user,id=net,tftp=$image -device virtio-net-device,netdev=net"
elif [ -f "$image" ]; then
    media="-nic none -drive if=none,file=$image,format=raw,id=disk -device virtio-blk-device,drive=disk"
else
    echo "qemu-uboot-boot: $image missing (scripts/make-image.sh)" >&2; exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# -snapshot: U-Boot may write its environment; the image stays as built.
"$qemu" -M $machine -cpu $cpu -m 512M -display none -monitor none \
    -serial file:"$log" -bios "$uboot" -snapshot $media </dev/null &
pid=$!
limit=$(( ${TIMEOUT:-120} * 2 ))
status=""
for _ in $(seq "$limit"); do
    if [ -n "$until" ] && grep -qF "$until" "$log"; then
        kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
        status=0
        break
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"; status=$?
        [ -z "$until" ] || status=1 # it stopped, and TEXT never came
        break
    fi
    sleep 0.5
done
if [ -z "$status" ]; then
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    cat "$log"
    echo "qemu-uboot-boot: no ${until:+'$until' and no }power-off within ${TIMEOUT:-120} s"
    exit 1
fi
cat "$log"
exit $status
