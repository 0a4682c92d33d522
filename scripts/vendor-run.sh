#!/bin/sh
# Run an armhf program linked against Rockchip's runtime (librknnrt 1.6.0,
# ../shared/vendor-runtime) under qemu-arm, with the stand-in for the rknpu
# kernel driver preloaded: the runtime sees an RK3588 or RK3566 NPU and its
# submissions execute on rknpu-bm's virtual NPU (tests/vendor/rknpu_standin.c,
# docs/testing.md "Rockchip's runtime side by side"). Nothing is created
# under /dev.
#   scripts/vendor-run.sh [--soc rk3588|rk3566] [--log FILE] PROGRAM [ARGS...]
# --log FILE: the submissions as JSON lines (boards/host/submit_log.h), the
#             bytes the CPU wrote between them in FILE.bin; both start empty.
# Build a client with:
#   arm-linux-gnueabihf-gcc -I ../shared/vendor-runtime/include client.c \
#       -L ../shared/vendor-runtime -lrknnrt -o client
# Env: RKNPU_STANDIN=path of a built stand-in (default: built in BUILD_DIR,
#      default build/host); RKNPU_STANDIN_ARENA_MB (DMA memory, default 768).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
vendor=$(cd "$root/.." && pwd)/shared/vendor-runtime
soc=rk3588
log=""
usage() { echo "usage: $0 [--soc rk3588|rk3566] [--log FILE] PROGRAM [ARGS...]" >&2; exit 2; }
fail() { echo "vendor-run: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
    --soc) [ $# -ge 2 ] || usage; soc=$2; shift 2 ;;
    --log) [ $# -ge 2 ] || usage; log=$2; shift 2 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || usage
case $soc in rk3588 | rk3566 | rk3568) ;; *) fail "--soc $soc: rk3588, rk3566 or rk3568" ;; esac
[ -f "$vendor/librknnrt.so" ] ||
    fail "missing ../shared/vendor-runtime/librknnrt.so (Rockchip's runtime; see ../shared/vendor-runtime/README.md)"
sh "$root/scripts/install-vendor-deps.sh" >&2 || fail "could not install qemu-user and the armhf compiler"

standin=${RKNPU_STANDIN:-}
if [ -z "$standin" ]; then
    build=${BUILD_DIR:-$root/build/host}
    if [ ! -f "$build/build.ninja" ]; then
        meson setup "$build" "$root" >"$build.setup.log" 2>&1 ||
            { tail -n 20 "$build.setup.log" >&2; fail "meson setup $build"; }
    fi
    ninja -C "$build" tests/vendor/librknpu_standin.so >"$build/vendor-standin.log" 2>&1 ||
        { tail -n 30 "$build/vendor-standin.log" >&2; fail "could not build the stand-in"; }
    standin=$build/tests/vendor/librknpu_standin.so
fi
[ -f "$standin" ] || fail "no stand-in at $standin"

set -- -L /usr/arm-linux-gnueabihf -E "LD_LIBRARY_PATH=$vendor" -E "LD_PRELOAD=$standin" \
    -E "RKNPU_STANDIN_SOC=$soc" "$@"
if [ -n "$log" ]; then
    case $log in /*) ;; *) log=$PWD/$log ;; esac
    : >"$log" && : >"$log.bin" || fail "cannot write $log"
    set -- -E "RKNPU_SUBMIT_LOG=$log" "$@"
fi
exec qemu-arm "$@"
