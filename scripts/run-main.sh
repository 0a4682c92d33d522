#!/bin/sh
# The README's main job: build the QEMU aarch64 firmware and boot it.
# Today it boots the platform report; the NPU self-test replaces it once the
# driver lands. Installs missing packages first (SKIP_DEPS=1 skips that).
set -eu
cd "$(dirname "$0")/.."
[ "${SKIP_DEPS:-0}" = 1 ] || sh scripts/install-deps.sh
dir=${BUILD_ROOT:-build}/main-aarch64
[ -f "$dir/build.ninja" ] || meson setup "$dir" --cross-file boards/qemu-virt/aarch64.ini >/dev/null
ninja -C "$dir" examples/platform_report.elf >/dev/null
exec sh scripts/qemu-run.sh qemu-system-aarch64 cortex-a76 "$dir/examples/platform_report.elf"
