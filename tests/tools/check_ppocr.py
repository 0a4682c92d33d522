#!/usr/bin/python3
"""check_ppocr.py - PP-OCRv4 text detection on the virtual NPU against the
float reference, through rknpu-run and through the C API.

usage: check_ppocr.py RKNPU_RUN TEST_E2E_PPOCR SHARED_MODELS_DIR WORK_DIR
                      [--ref-dir DIR] [--masks 1,3,7,2]

Images: ppocrv4_det/test1_nhwc_u8.npy, and the stop sign
yolov8n_rk3566/coco_000000000724.jpg prepared by ppocr_prepare.py with the
same recipe (uint8 [1,480,480,3] RGB NHWC).
Reference: node ppocr_ref.js (PaddleOCR's ONNX export on onnxruntime, CPU,
independent of this project; scripts/install-ref-deps.sh installs it).
Runs, per image: rknpu-run MODEL --input IMG --core-mask M for each mask,
and TEST_E2E_PPOCR (general and zero-copy API, the same masks; it checks
the per-core task split itself).
Every output is compared with ppocr_compare.py (mean |d| <= 0.01, IoU of the
masks at 0.3 >= 0.97); one line each. Outputs of different masks and APIs
should be identical: differences are reported, and fail only through the
comparison limits.

Default masks 1,3,7,2: one, two and three cores, then core 1 alone.
A missing model, image, tool or reference is a failure naming it, never a
skip. Exit status 0 when everything passed, 1 otherwise.
"""
import argparse
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from example_check import run  # noqa: E402  (status, output, seconds); never raises

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = "rk3588_ppocrv4_det.v6.rknn"
TEST1 = os.path.join("ppocrv4_det", "test1_nhwc_u8.npy")
STOP = os.path.join("yolov8n_rk3566", "coco_000000000724.jpg")
REF_ONNX = "ch_PP-OCRv4_det_infer.onnx"
ORT_MODULE = os.path.join("node_modules", "onnxruntime-node", "package.json")
INSTALL_HINT = "(sh scripts/install-ref-deps.sh installs it)"


def missing_inputs(tool, test, models, ref_dir):
    """FAIL lines for everything absent (all of them, not just the first)."""
    need = [(tool, "rknpu-run"), (test, "test_e2e_ppocr"),
            (os.path.join(models, MODEL), "model"),
            (os.path.join(models, TEST1), "image"), (os.path.join(models, STOP), "image")]
    need += [(os.path.join(HERE, f), "helper script")
             for f in ("ppocr_prepare.py", "ppocr_ref.js", "ppocr_compare.py")]
    fails = ["FAIL: missing %s %s" % (what, path) for path, what in need if not os.path.isfile(path)]
    if not shutil.which("node"):
        fails.append("FAIL: missing tool node (Node.js, for ppocr_ref.js) %s" % INSTALL_HINT)
    for f in (REF_ONNX, ORT_MODULE):
        if not os.path.isfile(os.path.join(ref_dir, f)):
            fails.append("FAIL: missing reference file %s %s" % (os.path.join(ref_dir, f),
                                                                 INSTALL_HINT))
    return fails


def parse_compare(out):
    vals = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("mean_abs_diff", "max_abs_diff", "iou"):
            vals[parts[0]] = float(parts[1])
    return vals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rknpu_run")
    ap.add_argument("test_e2e_ppocr")
    ap.add_argument("models")
    ap.add_argument("work")
    ap.add_argument("--ref-dir", default=os.environ.get(
        "RKNPU_REF_DIR", os.path.join(os.path.expanduser("~"), ".cache", "rknpu-bm", "ref")))
    # RKNPU_TEST_REDUCED (scripts/run-host-sanitize.sh): under ASan+UBSan the
    # virtual NPU is ~3x slower; one and three cores on test1 keep the memory
    # checks on every path at a third of the runs (the full set runs unsanitised).
    reduced = bool(os.environ.get("RKNPU_TEST_REDUCED"))
    ap.add_argument("--masks", default="1,7" if reduced else "1,3,7,2")
    a = ap.parse_args()
    tool, test, models, work, ref_dir = (os.path.abspath(p) for p in
                                         (a.rknpu_run, a.test_e2e_ppocr, a.models, a.work,
                                          a.ref_dir))
    masks = [int(m) for m in a.masks.split(",")]
    t_start = time.monotonic()

    fails = missing_inputs(tool, test, models, ref_dir)
    if fails:
        print("\n".join(fails))
        print("ppocr: FAIL")
        return 1
    model = os.path.join(models, MODEL)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    images = {"test1": os.path.join(models, TEST1), "stop": os.path.join(work, "stop_nhwc_u8.npy")}
    if reduced:
        print("RKNPU_TEST_REDUCED: test1 on masks %s only" % a.masks)
        del images["stop"]

    rc, out, _ = run([sys.executable, os.path.join(HERE, "ppocr_prepare.py"),
                      os.path.join(models, STOP), os.path.join(work, "stop_nhwc_u8.npy")])
    if rc != 0:
        print(out)
        print("FAIL: ppocr_prepare.py %s exited %d" % (os.path.join(models, STOP), rc))
        print("ppocr: FAIL")
        return 1

    # Every run is independent: two at a time (the longest first), each
    # writing its own files.
    jobs = {}  # name -> (argv, [outputs it makes: (label, path)])
    for img, path in images.items():
        d = os.path.join(work, img)
        os.makedirs(d)
        ref = os.path.join(d, "reference.npy")
        jobs["%s reference" % img] = (
            ["node", os.path.join(HERE, "ppocr_ref.js"), "--ref-dir", ref_dir, "--loops", "1",
             path, ref], [])
        jobs["%s test_e2e_ppocr" % img] = (
            [test, model, path, os.path.join(d, "capi"), a.masks],
            [("%-5s %-19s mask %d" % (img, "C API " + api, m),
              os.path.join(d, "capi_%s_m%d.npy" % (api.replace("-", ""), m)))
             for api in ("general", "zero-copy") for m in masks] +
            [("%-5s %-19s mask %d" % (img, "C API zero-copy-fp16", masks[0]),
              os.path.join(d, "capi_zerocopyfp16_m%d.npy" % masks[0]))])
        for m in masks:
            od = os.path.join(d, "rknpu-run_m%d" % m)
            os.makedirs(od)
            jobs["%s rknpu-run mask %d" % (img, m)] = (
                [tool, model, "--input", path, "--core-mask", str(m), "--output-dir", od],
                [("%-5s %-19s mask %d" % (img, "rknpu-run", m), os.path.join(od, "output_0.npy"))])
    order = sorted(jobs, key=lambda n: "test_e2e" not in n)  # the C API runs are the longest
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(order, pool.map(lambda n: run(jobs[n][0]), order)))

    ok = True
    for name in order:
        rc, out, secs = results[name]
        if "test_e2e_ppocr" in name:
            print("---- %s (%.1f s)" % (name, secs))
            print(out.rstrip())
        if rc != 0:
            if "test_e2e_ppocr" not in name:
                print(out.rstrip())
            print("FAIL: %s exited %d: %s" % (name, rc, " ".join(jobs[name][0])))
            ok = False

    print("---- against the float reference (mean |d| <= 0.01, IoU at 0.3 >= 0.97)")
    for img in images:
        ref = os.path.join(work, img, "reference.npy")
        if results["%s reference" % img][0] != 0:
            continue  # reported above
        outputs = [o for n in order if n.startswith(img + " ") for o in jobs[n][1]]
        first, compared, differ = None, 0, 0
        for label, path in outputs:
            if not os.path.isfile(path):
                print("FAIL: %s: no output %s" % (label, path))
                ok = False
                continue
            rc, out, _ = run([sys.executable, os.path.join(HERE, "ppocr_compare.py"), ref, path])
            v = parse_compare(out)
            if rc == 0 and "mean_abs_diff" in v and "iou" in v:
                print("%-34s mean|d| %.6f  max|d| %.4f  IoU %.6f  OK" %
                      (label, v["mean_abs_diff"], v["max_abs_diff"], v["iou"]))
            else:
                print(out.rstrip())
                print("FAIL: %s: %s (ppocr_compare.py exited %d)" % (label, path, rc))
                ok = False
                continue
            got = np.load(path).reshape(-1)
            compared += 1
            if first is None:
                first = (label.split(None, 1)[1], got)
            elif not np.array_equal(got, first[1]):
                differ += 1
                d = np.abs(got.astype(np.float64) - first[1])
                print("  NOTE: not identical to %s: %d values differ, max |d| %.6f" %
                      (first[0], np.count_nonzero(d), d.max()))
        if differ:
            print("  NOTE: %s: %d of %d outputs differ from %s (within the limits above)" %
                  (img, differ, compared, first[0]))
        elif compared:
            print("  %s: all %d outputs (masks x APIs) are bit-identical" % (img, compared))
    print("ppocr: %s (%.0f s)" % ("PASS" if ok else "FAIL", time.monotonic() - t_start))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
