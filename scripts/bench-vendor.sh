#!/bin/sh
# Speed against Rockchip's runtime, side by side (rknpu-bench --vendor runs
# this): tests/vendor/bench_client.c built for armhf twice, against
# librknnrt 1.6.0 (../shared/vendor-runtime) and against rknpu-bm's host
# board (boards/host/armhf-linux.ini), both run under qemu-arm on this
# machine, one after the other, on every shared model. The virtual NPU runs
# dry in both (it checks and completes every job without computing) and its
# remaining time is subtracted from the timed runs, so every figure is CPU
# time the runtime itself spends. Each figure is the median over RUNS
# processes of the median of REPS repetitions in each.
#   scripts/bench-vendor.sh [OUTDIR]
# Prints per model a table (figure, ours, vendor in microseconds, ratio) and
# one line per figure: BENCH vendor_ratio_<figure>_<model> <ours/vendor>
# ("n/a" with the reason when a runtime crashed or refused the case).
# Env: BENCH_VENDOR_RUNS (default 3), BENCH_VENDOR_REPS (default 5),
#      BENCH_VENDOR_ONLY=PATTERN (models whose file name matches).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$root/.." && pwd)/shared
models=$shared/models
out=${1:-$root/build/bench-vendor}
runs=${BENCH_VENDOR_RUNS:-3}
reps=${BENCH_VENDOR_REPS:-5}
only=${BENCH_VENDOR_ONLY:-*}
build=$out/armhf-linux
fail() { echo "bench-vendor: FAIL: $*"; exit 1; }

[ -d "$models" ] || fail "missing $models"
[ -f "$shared/vendor-runtime/librknnrt.so" ] || fail "missing $shared/vendor-runtime/librknnrt.so"
sh "$root/scripts/install-vendor-deps.sh" || fail "could not install the armhf tools"
mkdir -p "$out"
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" --cross-file "$root/boards/host/armhf-linux.ini" \
        --buildtype=release >"$build.setup.log" 2>&1 ||
        { tail -n 20 "$build.setup.log"; fail "meson setup $build"; }
fi
ninja -C "$build" tests/vendor/bench_client tests/vendor/librknpu_standin.so >"$build.build.log" 2>&1 ||
    { tail -n 30 "$build.build.log"; fail "could not build rknpu-bm's armhf client"; }
sh "$root/tests/vendor/build-vendor-clients.sh" "$out/vendor" >"$out/vendor.build.log" 2>&1 ||
    { tail -n 30 "$out/vendor.build.log"; fail "could not build the vendor's armhf client"; }
export RKNPU_STANDIN="$build/tests/vendor/librknpu_standin.so"

for m in "$models"/*.rknn; do
    name=$(basename "$m" .rknn)
    # shellcheck disable=SC2254 # a pattern on purpose
    case $name in $only) ;; *) continue ;; esac
    case $name in rk3566_* | rk3568_*) soc=rk3566 ;; *) soc=rk3588 ;; esac
    case $name in *dual_residual_custom*) set -- --custom-op ;; *) set -- ;; esac
    mkdir -p "$out/$name"
    r=1
    while [ $r -le "$runs" ]; do
        # one process of each runtime per round, alternating, so a slow
        # moment of the machine falls on both
        env -u RKNPU_LOG_LEVEL qemu-arm -L /usr/arm-linux-gnueabihf "$build/tests/vendor/bench_client" \
            "$m" "$reps" "$@" >"$out/$name/rknpu-bm.$r.txt" 2>"$out/$name/rknpu-bm.$r.log" ||
            fail "rknpu-bm's client failed on $name (see $out/$name/rknpu-bm.$r.log)"
        sh "$root/scripts/vendor-run.sh" --soc $soc "$out/vendor/bench_client" "$m" "$reps" "$@" \
            >"$out/$name/vendor.$r.txt" 2>"$out/$name/vendor.$r.log" ||
            echo "bench-vendor: the vendor's client ended with an error on $name (run $r)"
        r=$((r + 1))
    done
done
/usr/bin/python3 "$root/tests/tools/bench_vendor_report.py" "$out" || fail "the report"
