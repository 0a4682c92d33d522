#!/bin/sh
# Install what rknpu-bm needs on Debian 12, only if something is missing.
# Idempotent; uses --no-install-recommends. Run as root (or with sudo).
set -eu
PKGS="meson ninja-build gcc g++ pkg-config python3 python3-numpy python3-onnx
      gcc-aarch64-linux-gnu picolibc-aarch64-linux-gnu
      gcc-arm-none-eabi libnewlib-arm-none-eabi picolibc-arm-none-eabi
      qemu-system-arm clang libclang-rt-14-dev clang-format gcovr libpng-dev libjpeg62-turbo-dev
      u-boot-tools u-boot-qemu mtools fdisk"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "install-deps: installing:$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
# picolibc's postinst copies its specs into gcc's directory only if the
# compiler was there first; check that the cross compilers find them.
for cc in aarch64-linux-gnu-gcc arm-none-eabi-gcc; do
    spec=$($cc -print-file-name=picolibc.specs)
    if [ ! -f "$spec" ]; then
        echo "install-deps: $cc does not find picolibc.specs; reinstalling picolibc"
        pkg=picolibc-aarch64-linux-gnu
        [ "$cc" = arm-none-eabi-gcc ] && pkg=picolibc-arm-none-eabi
        ${SUDO:-} apt-get install -y -qq --reinstall --no-install-recommends $pkg
    fi
done
# The float reference (ONNX model + CPU evaluator) for the PP-OCRv4 checks.
sh "$(dirname "$0")/install-ref-deps.sh"
# Rockchip's runtime under qemu-arm, beside ours (scripts/vendor-run.sh).
sh "$(dirname "$0")/install-vendor-deps.sh"
