#!/bin/sh
# Rockchip's runtime and rknpu-bm side by side (docs/testing.md): the
# differential client (tests/vendor/diff_client.c), one source built for
# both, asks each runtime the same questions on every model in
# ../shared/models and runs the matmul grid on RK3588 and RK3566; Rockchip's
# runtime runs under qemu-arm over the kernel-driver stand-in, so both
# execute on rknpu-bm's virtual NPU. tests/tools/vendor_diff.py compares the
# answers, the bytes left in the NPU's input buffers, the outputs, the
# matmul conversions, the submissions (task by task, addresses normalised)
# and the DMA memory, and prints per model and area the number of
# differences and the first few, then "vendor-diff: N differences".
# The script fails when the comparison itself cannot be made (a missing
# file, rknpu-bm's client failing, the comparator failing), when the
# virtual NPU fails the vendor runtime (a submission it cannot execute, a
# matmul result of the vendor's off the CPU reference: a defect of the
# virtual NPU), and when a difference is neither a deliberate divergence
# docs/compat.md §3 lists nor open parity work within the ceilings of
# tests/vendor/parity-backlog.txt (tests/tools/vendor_backlog.py drafts it
# from a report).
#   scripts/vendor-diff.sh [--full] [OUTDIR]
# --full: everything on every model (every core mask; every zero-copy
# output binding and rknn_dup_context on the real networks too) and the full
# matmul grid (M up to 1024, K up to 8192, N up to 4096); default (CI): the
# real networks --light with mask 7 on PP-OCR only, and a reduced grid. VENDOR_DIFF_ONLY=PATTERN limits the runs to models (or matmul_SOC)
# whose name matches the shell pattern. OUTDIR (default build/vendor-diff) keeps everything; the full report
# is OUTDIR/vendor-diff-report.txt.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$root/.." && pwd)/shared
models=$shared/models
full=0
[ "${1:-}" = "--full" ] && { full=1; shift; }
out=${1:-$root/build/vendor-diff}
build=${BUILD_DIR:-$root/build/host}
jobs=${VENDOR_DIFF_JOBS:-2}
fail() { echo "vendor-diff: FAIL: $*"; exit 1; }

[ -d "$models" ] || fail "missing $models"
[ -f "$shared/vendor-runtime/librknnrt.so" ] || fail "missing $shared/vendor-runtime/librknnrt.so"
sh "$root/scripts/install-vendor-deps.sh" || fail "could not install the armhf tools"
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" >"$out.setup.log" 2>&1 || fail "meson setup $build"
fi
ninja -C "$build" tests/vendor/diff_client tests/vendor/librknpu_standin.so tools/rknn-inspect \
    >"$build/vendor-diff-build.log" 2>&1 ||
    { tail -n 30 "$build/vendor-diff-build.log"; fail "could not build the host side"; }
rm -rf "$out"
mkdir -p "$out/armhf" "$out/inputs"
sh "$root/tests/vendor/build-vendor-clients.sh" "$out/armhf" || fail "could not build the armhf clients"
export RKNPU_STANDIN="$build/tests/vendor/librknpu_standin.so"

# YOLOv8n's input: a COCO picture letterboxed to 640x640 as Ultralytics does.
yolo_in=$out/inputs/coco_000000000285_640.bin
/usr/bin/python3 "$root/tests/tools/letterbox.py" "$models/yolov8n_rk3566/coco_000000000285.jpg" \
    "$yolo_in" || fail "could not letterbox the YOLOv8n picture (python3-pil)"

soc_of() { case $(basename "$1") in rk3566_* | rk3568_*) echo rk3566 ;; *) echo rk3588 ;; esac; }
# inputs_of MODEL -> the client's --input arguments for the model's family
inputs_of() {
    case $(basename "$1") in
    *multiple_input_demo*) echo "--input $models/multiple_input_demo/input1.bin --input $models/multiple_input_demo/input2.bin" ;;
    *dual_residual_custom*) echo "--custom-op --input $models/dual_residual_custom/input_0_nhwc.npy --input $models/dual_residual_custom/input_1_nhwc.npy" ;;
    *ppocrv4_det*) echo "--input $models/ppocrv4_det/test1_nhwc_u8.npy" ;;
    *yolov8n*) echo "--input $yolo_in" ;;
    *) echo "" ;;
    esac
}
# The two real networks are the slow ones under emulation: in CI they run
# --light (native zero-copy outputs, no dup) with one multi-core mask
# (PP-OCR on all three cores); --full runs everything on every model.
is_big() { case $(basename "$1") in *ppocrv4_det* | *yolov8n*) return 0 ;; esac; return 1; }
masks_of() {
    if [ $full = 1 ] || ! is_big "$1"; then echo "0 1 2 3 7"; return; fi
    [ "$(soc_of "$1")" = rk3588 ] && echo "7"
}

# One task per line: NAME<TAB>SOC<TAB>client arguments; both runtimes run it.
tasks=$out/tasks.txt
: >"$tasks"
for m in "$models"/*.rknn; do
    name=$(basename "$m" .rknn)
    case $name in ${VENDOR_DIFF_ONLY:-*}) ;; *) continue ;; esac
    soc=$(soc_of "$m")
    args="$m $(inputs_of "$m")"
    [ $full = 0 ] && is_big "$m" && args="$args --light"
    printf '%s\t%s\t%s\n' "$name/main" "$soc" "$args" >>"$tasks"
    [ -n "$(inputs_of "$m")" ] || continue
    for k in $(masks_of "$m"); do
        printf '%s\t%s\t%s\n' "$name/core_mask$k" "$soc" "$args --core-mask $k" >>"$tasks"
    done
done
grid=ci
[ $full = 1 ] && grid=full
for soc in rk3588 rk3566; do
    case matmul_$soc in ${VENDOR_DIFF_ONLY:-*}) ;; *) continue ;; esac
    printf '%s\t%s\t%s\n' "matmul_$soc/grid" "$soc" "--matmul $grid" >>"$tasks"
done

# One client run per line of the queue (SIDE NAME SOC ARGS...), two at a
# time (VENDOR_DIFF_JOBS); the vendor side is the slow one (every
# instruction emulated), so the two real networks go first.
queue=$out/queue.txt
: >"$queue"
for pass in big small; do
    while IFS='	' read -r name soc args; do
        case $name in *ppocr* | *yolo*) big=big ;; *) big=small ;; esac
        [ "$big" = "$pass" ] || continue
        for side in vendor rknpu-bm; do
            echo "$side $name $soc $args" >>"$queue"
        done
    done <"$tasks"
done
t0=$(date +%s)
export out build root
# shellcheck disable=SC2016
xargs -P "$jobs" -L 1 sh -c '
    side=$1 name=$2 soc=$3; shift 3
    d=$out/$side/$name
    mkdir -p "$d"
    : >"$d/submit.jsonl"
    : >"$d/submit.jsonl.bin"
    if [ "$side" = vendor ]; then
        DIFF_CLIENT_SOC=$soc sh "$root/scripts/vendor-run.sh" --soc "$soc" --log "$d/submit.jsonl" \
            "$out/armhf/diff_client" "$d" "$@" >"$d/client.log" 2>&1
    else
        DIFF_CLIENT_SOC=$soc RKNPU_SUBMIT_LOG="$d/submit.jsonl" "$build/tests/vendor/diff_client" \
            "$d" "$@" >"$d/client.log" 2>&1
    fi
    echo "exit $?" >"$d/status"' sh <"$queue"
echo "vendor-diff: clients ran in $(( $(date +%s) - t0 )) s"

# rknpu-bm's client must always finish; the vendor's may crash (recorded).
status=0
manifest=$out/manifest.json
printf '[\n' >"$manifest"
sep=""
while IFS='	' read -r name soc args; do
    ours=$out/rknpu-bm/$name
    vendor=$out/vendor/$name
    if ! grep -q "exit 0" "$ours/status" 2>/dev/null || ! grep -q "finished" "$ours/report.tsv"; then
        echo "vendor-diff: FAIL: rknpu-bm's client did not finish $name:"
        tail -n 20 "$ours/client.log"
        status=1
    fi
    model=${name%%/*}
    case=${name#*/}
    rknn=""
    relocs=""
    for m in $args; do case $m in *.rknn) rknn=$m ;; esac; done
    if [ -n "$rknn" ]; then
        "$build/tools/rknn-inspect" "$rknn" --relocs --tasks >"$ours/relocs.txt" 2>/dev/null ||
            : >"$ours/relocs.txt"
        relocs=$ours/relocs.txt
    fi
    printf '%s{"model": "%s", "case": "%s", "rknn": "%s", "relocs_file": "%s", "ours": "%s", "vendor": "%s"}\n' \
        "$sep" "$model" "$case" "$rknn" "$relocs" "$ours" "$vendor" >>"$manifest"
    sep=","
done <"$tasks"
printf ']\n' >>"$manifest"
# --account: every difference is a deliberate divergence docs/compat.md §3
# lists, or open parity work tests/vendor/parity-backlog.txt bounds; in
# --full mode (more cases than the backlog was measured on) it only reports.
account=--account
[ $full -eq 1 ] && account=
/usr/bin/python3 "$root/tests/tools/vendor_diff.py" "$manifest" "$root/npu/hw/regs.def" \
    "$out/vendor-diff-report.txt" $account
case $? in
0) ;;
1) status=1; echo "vendor-diff: FAIL: the virtual NPU failed the vendor runtime (above)" ;;
3) status=1; echo "vendor-diff: FAIL: a difference neither docs/compat.md §3 nor" \
    "tests/vendor/parity-backlog.txt accounts for (above)" ;;
*) fail "the comparison did not run" ;;
esac
[ $status -eq 0 ] || fail "see above"
echo "vendor-diff: OK (every difference deliberate or within the parity backlog's ceilings)"
exit 0
