#!/bin/sh
# Install what running Rockchip's armhf runtime beside ours needs (Debian 12):
# QEMU's user-mode emulator, the armhf Linux compiler (with its C library,
# the sysroot qemu-arm loads from), the C++ library librknnrt links, and the
# armhf C++ compiler a cross build of rknpu-bm's host board needs for its
# C++ header test (scripts/bench-vendor.sh).
# Idempotent; --no-install-recommends; root or sudo.
set -eu
PKGS="qemu-user gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf libc6-dev-armhf-cross libstdc++6-armhf-cross"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-vendor-deps: installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
