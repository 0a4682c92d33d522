#!/bin/sh
# A client written like the vendor's examples (tests/install/vendor_client.c),
# built with clang -fsanitize=address,undefined against the INSTALLED
# library of an ASan+UBSan build dir, found through pkg-config only, and run
# on every sample model of the two kinds it knows, for both SoCs, with no
# environment variable (the SoC comes from the model). Zero sanitizer reports
# allowed. The library itself must be instrumented: ASan checks only the
# accesses of instrumented code, so a library read of the model buffer the
# client freed after rknn_init is caught only that way.
#   check-vendor-client.sh BUILD_DIR SOURCE_DIR
# BUILD_DIR: configured with CC=clang -Db_sanitize=address,undefined
# -Db_lundef=false and built (scripts/run-host-sanitize.sh makes one).
# Called by scripts/run-host-sanitize.sh (check vendor-client).
set -u
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 1
src=$(cd "$2" && pwd) || exit 1
models=$src/../shared/models
fail() { echo "vendor-client: FAIL: $*"; exit 1; }

command -v clang >/dev/null 2>&1 || fail "clang not found (scripts/install-deps.sh)"
command -v pkg-config >/dev/null 2>&1 || fail "pkg-config not found (scripts/install-deps.sh)"
# The install must be the instrumented library, not a plain one.
sanitize=$(meson introspect --buildoptions "$build" 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="b_sanitize"][0])') ||
    fail "cannot read b_sanitize of $build (not a meson build dir?)"
case $sanitize in
*address*undefined* | *undefined*address*) ;;
*) fail "$build is built with b_sanitize=$sanitize, needs address,undefined" ;;
esac

stage=$build/vendor-client-install
rm -rf "$stage"
meson install -C "$build" --destdir "$stage" >"$stage.log" 2>&1 ||
    { tail -n 20 "$stage.log"; fail "meson install into $stage"; }
pc=$(find "$stage" -name rknpu-bm.pc | head -n 1)
[ -n "$pc" ] || fail "rknpu-bm.pc not installed under $stage"
export PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_SYSROOT_DIR=$stage
flags=$(pkg-config --cflags --libs rknpu-bm) || fail "pkg-config --cflags --libs rknpu-bm"
echo "pkg-config: $flags"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
# shellcheck disable=SC2086
clang -std=c11 -Wall -Wextra -Werror $san "$src/tests/install/vendor_client.c" $flags \
    -o "$stage/vendor_client" || fail "clang could not build tests/install/vendor_client.c"

# The independent reference of multiple_input_demo: test.onnx in numpy.
for f in multiple_input_demo/test.onnx multiple_input_demo/input1.bin \
         multiple_input_demo/input2.bin dual_residual_custom/input_0_nhwc.npy \
         dual_residual_custom/input_1_nhwc.npy; do
    [ -f "$models/$f" ] || fail "missing $models/$f"
done
ref=$stage/mid_reference.f32
/usr/bin/python3 "$src/tests/tools/onnx_ref.py" "$models/multiple_input_demo" "$ref" ||
    fail "tests/tools/onnx_ref.py could not compute the reference"

export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
# One client run: LABEL LOG then the client's arguments. No RKNPU_* variable:
# what an application on a fresh machine sees (the SoC comes from the model).
client_run() {
    label=$1 log=$2
    shift 2
    env -u RKNPU_LOG_LEVEL "$stage/vendor_client" "$@" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^vendor_client: OK' "$log" &&
       ! grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' "$log"; then
        echo "vendor-client: $label: OK ($(grep -c '^run ' "$log") run checks)"
    else
        echo "vendor-client: $label: FAIL (exit status $rc, log $log):"
        head -n 40 "$log"
        return 1
    fi
}
for soc in rk3588 rk3566; do
    for kind in multiple_input_demo dual_residual_custom; do
        model=$models/${soc}_$kind.v6.rknn
        if [ ! -f "$model" ]; then
            echo "vendor-client: FAIL: missing $model"; status=1; continue
        fi
        set -- "$model" "$kind" "$models/$kind"
        [ "$kind" = multiple_input_demo ] && set -- "$@" "$ref"
        client_run "${soc}_$kind" "$stage/${soc}_$kind.log" "$@" || status=1
    done
done
# The container-4 detector on both COCO pictures: letterboxed by Pillow as
# the vendor's YOLOv8 demo does (640x640, aspect kept, grey 114), judged by
# the class each picture shows (COCO 21 bear, 11 stop sign). The two runs
# (about 80 s each under the sanitizers) go side by side, one per core, each
# printing its verdict into a file read after both finish.
yolo=$models/rk3566_yolov8n.v4.rknn
pids=""
for pic in 000000000285:21 000000000724:11; do
    name=${pic%%:*}
    jpg=$models/yolov8n_rk3566/coco_$name.jpg
    if [ ! -f "$yolo" ] || [ ! -f "$jpg" ]; then
        echo "vendor-client: FAIL: missing $yolo or $jpg"; status=1; continue
    fi
    /usr/bin/python3 "$src/tests/tools/letterbox.py" "$jpg" "$stage/yolo_$name.bin" ||
        fail "letterboxing $jpg (python3-pil)"
    client_run "yolov8n $name" "$stage/yolov8n_$name.log" "$yolo" yolov8n \
        "$stage/yolo_$name.bin" "${pic##*:}" >"$stage/yolov8n_$name.verdict" &
    pids="$pids $!:$name"
done
for entry in $pids; do
    wait "${entry%%:*}" || status=1
    cat "$stage/yolov8n_${entry#*:}.verdict"
done
# The matmul API the way the vendor's matmul demo uses it (the same
# installed library and flags): the demo's types (its numbers), layouts,
# M < 4, N beyond one task; N a multiple of B's native kernel group (16 fp16, 32
# int8, 64 int4 on RK3588), as Rockchip's runtime refuses the rest (api.md §1.3).
# shellcheck disable=SC2086
clang -std=c11 -Wall -Wextra -Werror $san "$src/tests/install/vendor_matmul_client.c" $flags \
    -o "$stage/vendor_matmul_client" || fail "clang could not build tests/install/vendor_matmul_client.c"
for args in "2 33 64 96 0 0" "2 3 8192 32 1 1" "1 33 96 4128 1 0" "1 1 32 16 0 0" "4 5 64 48 0 1" \
    "5 4 64 32 1 0" "7 3 96 128 0 0" "10 4 64 64 0 0" "10 5 96 128 1 1" "11 33 64 64 1 0"; do
    log=$stage/matmul_$(echo "$args" | tr ' ' '_').log
    # shellcheck disable=SC2086
    env -u RKNPU_LOG_LEVEL "$stage/vendor_matmul_client" $args >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^vendor_matmul_client: OK' "$log" &&
       ! grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' "$log"; then
        echo "vendor-client: matmul $args: OK"
    else
        echo "vendor-client: matmul $args: FAIL (exit status $rc, log $log):"
        head -n 40 "$log"
        status=1
    fi
done
[ $status -eq 0 ] && echo "vendor-client: OK" || echo "vendor-client: FAILED"
exit $status
