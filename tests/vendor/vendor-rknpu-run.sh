#!/bin/sh
# tools/rknpu_run.c built against Rockchip's runtime (VENDOR_ARMHF/rknpu-run,
# made by tests/vendor/build-vendor-clients.sh), run with the command line of
# rknpu-run under scripts/vendor-run.sh --soc VENDOR_SOC (default rk3588):
# the checkers written for rknpu-run judge Rockchip's runtime the same way.
: "${VENDOR_ARMHF:?set VENDOR_ARMHF to the directory of the armhf rknpu-run}"
root=$(cd "$(dirname "$0")/../.." && pwd)
exec sh "$root/scripts/vendor-run.sh" --soc "${VENDOR_SOC:-rk3588}" "$VENDOR_ARMHF/rknpu-run" "$@"
