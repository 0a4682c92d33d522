#!/bin/sh
# The README's main job: build the QEMU aarch64 firmware and boot it: the
# boot-time NPU self-test on every core of the (virtual) RK3588 NPU, on a
# network rknpu-bm builds itself, checked against a CPU reference. Needs
# nothing outside the repository. Installs missing packages first
# (SKIP_DEPS=1 skips that).
set -eu
cd "$(dirname "$0")/.."
[ "${SKIP_DEPS:-0}" = 1 ] || sh scripts/install-deps.sh
dir=${BUILD_ROOT:-build}/main-aarch64
[ -f "$dir/build.ninja" ] || meson setup "$dir" --cross-file boards/qemu-virt/aarch64.ini >/dev/null
ninja -C "$dir" examples/platform_report.elf examples/selftest.elf >/dev/null
sh scripts/qemu-run.sh qemu-system-aarch64 cortex-a76 "$dir/examples/platform_report.elf" || exit 1
exec sh scripts/qemu-run.sh qemu-system-aarch64 cortex-a76 "$dir/examples/selftest.elf"
