#!/bin/sh
# Rockchip's runtime on rknpu-bm's virtual NPU must compute the right
# answers (docs/testing.md): its outputs for every shared model against the
# same independent references, with the same limits, our own runtime meets.
#   multiple_input_demo (RK3588 v6 and v2, RK3566 v6): within 1 quantisation
#     step of tests/tools/onnx_ref.py's float evaluation of test.onnx, and
#   dual_residual_custom (both SoCs): the custom op's formula, both through
#     tests/install/vendor_client.c built for armhf against Rockchip's headers;
#   PP-OCRv4 det: mean |d| <= 0.01 and IoU >= 0.97 of the text masks against
#     the float ONNX model (ppocr_ref.js, ppocr_compare.py);
#   YOLOv8n: the head tensors against Ultralytics' float model
#     (check_yolo_float.py) and the detections on both COCO pictures
#     (check_vendor_yolo.py);
# and a DMA error injected by the stand-in fails the submission and the run.
# (The matmul results are checked against a CPU reference by vendor-diff.sh.)
#   scripts/check-vendor-accuracy.sh [OUTDIR]   (default build/vendor-accuracy)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$root/.." && pwd)/shared
models=$shared/models
vendor=$shared/vendor-runtime
out=${1:-$root/build/vendor-accuracy}
build=${BUILD_DIR:-$root/build/host}
ref_dir=${RKNPU_REF_DIR:-$HOME/.cache/rknpu-bm/ref}
fail() { echo "vendor-accuracy: FAIL: $*"; exit 1; }
status=0
check() { # LABEL COMMAND...: run, keep the log, report
    label=$1
    shift
    log=$out/$(echo "$label" | tr ' /' '__').log
    if "$@" >"$log" 2>&1; then
        echo "vendor-accuracy: $label: OK"
    else
        echo "vendor-accuracy: $label: FAIL (log $log):"
        tail -n 25 "$log"
        status=1
    fi
}

[ -f "$vendor/librknnrt.so" ] || fail "missing $vendor/librknnrt.so"
sh "$root/scripts/install-vendor-deps.sh" || fail "could not install the armhf tools"
rm -rf "$out"
mkdir -p "$out/armhf"
sh "$root/tests/vendor/build-vendor-clients.sh" "$out/armhf" || fail "building the armhf clients"
arm-linux-gnueabihf-gcc -std=c11 -O2 -Wall -Wextra -Werror -I"$vendor/include" \
    "$root/tests/install/vendor_client.c" -L"$vendor" -lrknnrt -lm -o "$out/armhf/vendor_client" ||
    fail "building tests/install/vendor_client.c for armhf"
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" >"$out/setup.log" 2>&1 || fail "meson setup $build"
fi
ninja -C "$build" tests/vendor/librknpu_standin.so >"$out/build.log" 2>&1 || fail "building the stand-in"
export RKNPU_STANDIN="$build/tests/vendor/librknpu_standin.so"
vrun() { soc=$1; shift; sh "$root/scripts/vendor-run.sh" --soc "$soc" "$@"; }

# multiple_input_demo and dual_residual_custom, as a vendor-style client runs them
ref=$out/mid_reference.f32
/usr/bin/python3 "$root/tests/tools/onnx_ref.py" "$models/multiple_input_demo" "$ref" ||
    fail "tests/tools/onnx_ref.py could not compute the reference"
for m in rk3588_multiple_input_demo.v6 rk3566_multiple_input_demo.v6 rk3588_multiple_input_demo.v2; do
    check "$m" vrun "${m%%_*}" "$out/armhf/vendor_client" "$models/$m.rknn" multiple_input_demo \
        "$models/multiple_input_demo" "$ref"
done
for m in rk3588_dual_residual_custom.v6 rk3566_dual_residual_custom.v6; do
    check "$m" vrun "${m%%_*}" "$out/armhf/vendor_client" "$models/$m.rknn" dual_residual_custom \
        "$models/dual_residual_custom"
done

# A task the virtual NPU does not complete fails the submission with the
# virtual NPU's message, and the vendor runtime reports the failed run.
fault_log=$out/injected_fault.log
RKNPU_STANDIN_FAULT_AT_TASK=1 vrun rk3588 "$out/armhf/rknpu-run" \
    "$models/rk3588_multiple_input_demo.v6.rknn" --input "$models/multiple_input_demo/input1.bin" \
    --input "$models/multiple_input_demo/input2.bin" >"$fault_log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "SUBMIT 1 failed: core 0, tasks 0..1: injected fault at task 1" "$fault_log" &&
   grep -q "failed to submit" "$fault_log"; then
    echo "vendor-accuracy: injected DMA error: OK (the submission failed, rknpu-run exit $rc)"
else
    echo "vendor-accuracy: injected DMA error: FAIL (exit $rc, log $fault_log):"
    tail -n 20 "$fault_log"
    status=1
fi

# PP-OCRv4 det on test1 against the float model (both in the background: the
# vendor's run is emulated and long, the reference is native)
ocr=$out/ppocr
mkdir -p "$ocr/npu"
sh "$root/scripts/install-ref-deps.sh" >"$out/ref-deps.log" 2>&1 || fail "scripts/install-ref-deps.sh"
node "$root/tests/tools/ppocr_ref.js" --ref-dir "$ref_dir" --loops 1 \
    "$models/ppocrv4_det/test1_nhwc_u8.npy" "$ocr/reference.npy" >"$ocr/reference.log" 2>&1 &
ref_pid=$!
check "rk3588_ppocrv4_det run" vrun rk3588 "$out/armhf/rknpu-run" "$models/rk3588_ppocrv4_det.v6.rknn" \
    --input "$models/ppocrv4_det/test1_nhwc_u8.npy" --output-dir "$ocr/npu"
wait $ref_pid || { cat "$ocr/reference.log"; fail "ppocr_ref.js could not compute the reference"; }
check "rk3588_ppocrv4_det against the float model" /usr/bin/python3 \
    "$root/tests/tools/ppocr_compare.py" "$ocr/reference.npy" "$ocr/npu/output_0.npy"
grep -E '^(mean_abs_diff|max_abs_diff|iou) ' "$out/rk3588_ppocrv4_det_against_the_float_model.log"

# YOLOv8n (RK3566, container 4): heads against the float model, then detections
export VENDOR_ARMHF="$out/armhf" VENDOR_SOC=rk3566
check "rk3566_yolov8n heads against the float model" /usr/bin/python3 \
    "$root/tests/tools/check_yolo_float.py" "$root/tests/vendor/vendor-rknpu-run.sh" "$models" \
    "$out/yolo"
check "rk3566_yolov8n detections" /usr/bin/python3 "$root/tests/tools/check_vendor_yolo.py" \
    "$models" "$out/yolo"
grep -E 'IoU with the hand box' "$out/rk3566_yolov8n_detections.log" | head -n 4

[ $status -eq 0 ] && echo "vendor-accuracy: PASS" || echo "vendor-accuracy: FAIL"
exit $status
