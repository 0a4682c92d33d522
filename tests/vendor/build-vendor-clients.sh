#!/bin/sh
# Build the armhf programs that run Rockchip's runtime beside ours, against
# its own headers and librknnrt.so (../shared/vendor-runtime):
#   OUTDIR/diff_client   the differential client (tests/vendor/diff_client*.c)
#   OUTDIR/bench_client  the CPU time of each API call (tests/vendor/bench_client.c)
#   OUTDIR/rknpu-run     tools/rknpu_run.c, unchanged, on the vendor API
#                        (tests/vendor/shim stands in for rknpu_bm.h)
#   tests/vendor/build-vendor-clients.sh OUTDIR
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
vendor=$(cd "$root/.." && pwd)/shared/vendor-runtime
out=$1
fail() { echo "build-vendor-clients: $*" >&2; exit 1; }
[ -f "$vendor/librknnrt.so" ] || fail "missing ../shared/vendor-runtime/librknnrt.so"
[ -f "$vendor/include/rknn_api.h" ] || fail "missing ../shared/vendor-runtime/include/rknn_api.h"
command -v arm-linux-gnueabihf-gcc >/dev/null 2>&1 ||
    fail "arm-linux-gnueabihf-gcc not found (scripts/install-vendor-deps.sh)"
mkdir -p "$out"
cc="arm-linux-gnueabihf-gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$vendor/include"
link="-L$vendor -lrknnrt -ldl -lm"
v=$root/tests/vendor
# shellcheck disable=SC2086
$cc -I"$v" "$v/diff_client.c" "$v/diff_client_matmul.c" "$v/diff_shim.c" "$v/client_common.c" $link \
    -o "$out/diff_client"
# shellcheck disable=SC2086
$cc -I"$v" "$v/bench_client.c" "$v/diff_shim.c" "$v/client_common.c" $link -o "$out/bench_client"
# shellcheck disable=SC2086
$cc -I"$v/shim" -I"$root/tools" "$root/tools/rknpu_run.c" "$v/vendor_rknpu_bm.c" $link \
    -o "$out/rknpu-run"
