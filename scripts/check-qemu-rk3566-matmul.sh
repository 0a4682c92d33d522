#!/bin/sh
# The matmul grid on QEMU firmware built for an RK356x SoC: the qemu-virt
# board with -Dsoc=rk3566 (8-byte atoms, one core, 8 CBUF banks), only
# tests/test_matmul (the other tests use RK3588 sample models).
#   check-qemu-rk3566-matmul.sh BUILD_DIR
set -eu
dir=$1
cd "$(dirname "$0")/.."
rm -rf "$dir"
meson setup "$dir" --cross-file boards/qemu-virt/aarch64.ini -Dsoc=rk3566 >"$dir.setup.log" 2>&1 ||
    { tail -n 30 "$dir.setup.log"; exit 1; }
ninja -C "$dir" tests/test_matmul.elf >"$dir.build.log" 2>&1 || { tail -n 30 "$dir.build.log"; exit 1; }
meson test -C "$dir" --no-rebuild --print-errorlogs matmul
