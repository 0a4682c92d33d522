#!/usr/bin/python3
"""check_yolo_float.py - the raw outputs of rk3566_yolov8n.v4.rknn on the
virtual NPU against the same network in float.

usage: check_yolo_float.py RKNPU_RUN SHARED_MODELS WORK_DIR [--ref-dir DIR]

Reference: Ultralytics' float yolov8n.onnx (tests/tools/fetch_yolo_ref.sh
fetches it and onnxruntime-node; this script runs the fetch itself), copied
by yolo_heads_onnx.py so that it also outputs the six head tensors the RKNN
model returns, and run by yolo_ref.js --raw-outputs on onnxruntime (CPU),
independent of this project's code. yolo_ref.js letterboxes each COCO
picture (yolov8n_rk3566/coco_000000000285.jpg, ..._724.jpg) and saves the
uint8 NHWC pixels; rknpu-run runs the model on exactly those.

The NPU runs the network in int8, so its outputs carry the model's own
quantisation error; the limits below are 1.5 to 4 times what was measured
(docs/testing.md) and well below what a different picture gives. Per stride,
the NPU's values must be on the grid of the scale and zero point rknpu-run
prints, and against the float reference (clipped to the output's int8
range, which the model cannot leave, for the raw values; the count
clipped is printed):
- box distribution (DFL logits [1,64,H,W]): median |d| <= BOX_MEDIAN_STEPS
  quantisation steps (the mean is dominated by the grey letterbox bands,
  where the int8 network strays most), mean |d| <= BOX_MEAN_STEPS steps,
  max |d| <= BOX_MAX_STEPS steps; after the softmax over each side's 16
  bins, mean |d| <= SOFTMAX_MEAN; the decoded distances
  (expected bin, in grid cells) mean |d| <= DIST_MEAN_CELLS, and in the
  cells where the reference scores a class >= OBJECT_SCORE (what becomes a
  detection) max |d| <= OBJECT_DIST_MAX_CELLS;
- class scores ([1,80,H,W], after the sigmoid; the reference's logits go
  through it here): mean |d| <= CLS_MEAN_STEPS steps, max |d| <= CLS_MAX; and
  where either side scores >= ACTIVE_SCORE, mean |d| <= ACTIVE_MEAN (the
  overall mean says little: nearly every score is 0).
Control: each picture's NPU outputs against the other picture's reference
must break the limits; if they do not, the limits cannot tell pictures apart
and the test fails.
A missing model, picture, tool or reference is a failure naming it, never a
skip. Exit status 0 when everything passed, 1 otherwise.
"""
import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = "rk3566_yolov8n.v4.rknn"
PICTURES = ("coco_000000000285.jpg", "coco_000000000724.jpg")
IMAGE_DIR = "yolov8n_rk3566"
STRIDES = (8, 16, 32)
BINS = 16

# Measured (2 pictures, 3 strides; docs/testing.md): box median 0.6-1.1
# steps, mean 0.8-3.0 steps, max 66 steps; softmax mean <= 0.012; distances
# mean <= 0.37 cells, in object cells max 0.07 cells; class mean 1.0 steps at
# strides 8/16 (every score at least 1 step: a constant, not noise) and
# 0.01 at 32, max 0.39, active mean <= 0.054. The other picture's reference
# gives box medians of 7-10 steps and means of 10-16, object-cell distances
# of 6-10 cells and active class means of 0.08-0.92; box logits scaled by
# 1.25 give medians of 2.9-5.4 steps, a zero point off by one class means of
# 2.0 steps.
BOX_MEDIAN_STEPS = 2.0
BOX_MEAN_STEPS = 5.0
BOX_MAX_STEPS = 100.0
SOFTMAX_MEAN = 0.025
DIST_MEAN_CELLS = 0.75
OBJECT_SCORE = 0.25
OBJECT_DIST_MAX_CELLS = 0.3
CLS_MEAN_STEPS = 1.5
CLS_MAX = 0.6
ACTIVE_SCORE = 0.05
ACTIVE_MEAN = 0.1

OUTPUT_LINE = re.compile(r"^\s*output (\d+) '[^']*': NCHW \[([\d, ]+)\] INT8 scale (\S+) "
                         r"zero point (-?\d+)$")


def run(args, timeout=600, env=None):
    """(status, stdout, stderr, seconds) of a command; never raises."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "", "%s: %s" % (args[0], e), time.monotonic() - t0


def want_shapes():
    """The RKNN model's output order: box and class tensor per stride."""
    out = []
    for st in STRIDES:
        h = 640 // st
        out += [("box", st, (1, 4 * BINS, h, h)), ("cls", st, (1, 80, h, h))]
    return out


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def distances(logits):
    """[4, H, W] expected bin per side (grid cells) of DFL logits [1,64,H,W]."""
    x = logits.reshape(4, BINS, *logits.shape[2:])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return p, (p * np.arange(BINS)[None, :, None, None]).sum(axis=1)


def compare(npu, ref, quant):
    """Per output a (text, [broken limits]) pair. npu: rknpu-run's arrays,
    ref: the reference's head tensors (logits), quant: (scale, zp) each."""
    results = []
    for k, (kind, st, shape) in enumerate(want_shapes()):
        got, r = npu[k].astype(np.float64), ref[k].astype(np.float64)
        scale, zp = quant[k]
        if kind == "cls":
            r = sigmoid(r)
        lo, hi = (-128 - zp) * scale, (127 - zp) * scale
        clipped = int(np.count_nonzero((r < lo) | (r > hi)))
        d = np.abs(got - np.clip(r, lo, hi))
        mean, mx, med = float(d.mean()), float(d.max()), float(np.median(d))
        head = "out%d %s s%-2d [%s] scale %.6g zp %d: mean|d| %.5f (%.2f steps) max|d| %.4f " \
               "(%.1f steps) median %.2f steps, %d clipped" % (
                   k, kind, st, ",".join(map(str, shape)), scale, zp, mean, mean / scale, mx,
                   mx / scale, med / scale, clipped)
        broken = []
        if kind == "box":
            pg, dg = distances(got)
            pr, dr = distances(r)
            dp, dd = np.abs(pg - pr), np.abs(dg - dr)
            cls_ref = sigmoid(ref[k + 1].astype(np.float64))[0]
            obj = cls_ref.max(axis=0) >= OBJECT_SCORE
            od = float(dd[:, obj].max()) if obj.any() else 0.0
            text = "%s; softmax mean|d| %.4f max|d| %.3f; distances mean|d| %.3f max|d| %.2f " \
                   "cells, in %d object cells max|d| %.3f cells (%.1f px)" % (
                       head, dp.mean(), dp.max(), dd.mean(), dd.max(), int(obj.sum()), od, od * st)
            checks = [(med / scale, BOX_MEDIAN_STEPS, "median |d| steps"),
                      (mean / scale, BOX_MEAN_STEPS, "mean |d| steps"),
                      (mx / scale, BOX_MAX_STEPS, "max |d| steps"),
                      (float(dp.mean()), SOFTMAX_MEAN, "softmax mean |d|"),
                      (float(dd.mean()), DIST_MEAN_CELLS, "distance mean |d| cells"),
                      (od, OBJECT_DIST_MAX_CELLS, "object-cell distance max |d| cells")]
        else:
            act = (got >= ACTIVE_SCORE) | (r >= ACTIVE_SCORE)
            am = float(d[act].mean()) if act.any() else 0.0
            text = "%s; %d scores >= %g (either side) mean|d| %.4f" % (head, int(act.sum()),
                                                                      ACTIVE_SCORE, am)
            checks = [(mean / scale, CLS_MEAN_STEPS, "mean |d| steps"),
                      (mx, CLS_MAX, "max |d|"), (am, ACTIVE_MEAN, "active mean |d|")]
        # "not <=" so that a NaN breaks the limit too.
        broken = ["%s %.4g > %g" % (what, v, lim) for v, lim, what in checks if not v <= lim]
        results.append((text, broken))
    return results


def load_npy(path, shape, problems, dtype=None):
    """The array at path if it loads with this shape (and dtype) and is
    finite, else None with a line added to problems."""
    try:
        a = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        problems.append("cannot load %s: %s" % (path, e))
        return None
    if a.shape != shape or (dtype and a.dtype != dtype) or not np.all(np.isfinite(a)):
        problems.append("%s: %s %s, want finite %s %s" % (path, a.dtype, a.shape, dtype or "",
                                                            shape))
        return None
    return a


def load_npu(out_dir, log):
    """rknpu-run's outputs and their (scale, zp), checked for shape and grid;
    (arrays, quant, problems)."""
    quant = {}
    for line in log.splitlines():
        m = OUTPUT_LINE.match(line)
        if m:
            quant[int(m.group(1))] = (float(m.group(3)), int(m.group(4)))
    arrays, problems = [], []
    for k, (_, _, shape) in enumerate(want_shapes()):
        path = os.path.join(out_dir, "output_%d.npy" % k)
        a = load_npy(path, shape, problems, np.float32)
        if a is None:
            continue
        if k not in quant:
            problems.append("rknpu-run printed no int8 scale and zero point for output %d" % k)
            continue
        # Dequantised int8: (q - zp)·scale, so every value sits on the grid.
        scale, zp = quant[k]
        q = a.astype(np.float64) / scale + zp
        off = float(np.abs(q - np.round(q)).max())
        if not off < 1e-3 or q.min() < -128.5 or q.max() > 127.5:
            problems.append("%s: values off the int8 grid of scale %g zp %d (by %.3g steps)"
                            % (path, scale, zp, off))
            continue
        arrays.append(a)
    return arrays, quant, problems


def load_ref(ref_dir):
    arrays, problems = [], []
    for k, (_, _, shape) in enumerate(want_shapes()):
        a = load_npy(os.path.join(ref_dir, "raw_%d.npy" % k), shape, problems)
        if a is not None:
            arrays.append(a)
    return arrays, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rknpu_run")
    ap.add_argument("models")
    ap.add_argument("work")
    ap.add_argument("--ref-dir", default=os.environ.get(
        "RKNPU_REF_DIR", os.path.join(os.path.expanduser("~"), ".cache", "rknpu-bm", "ref")))
    a = ap.parse_args()
    tool, models, work, ref_dir = (os.path.abspath(p) for p in
                                   (a.rknpu_run, a.models, a.work, a.ref_dir))
    t_start = time.monotonic()
    model = os.path.join(models, MODEL)
    pictures = [os.path.join(models, IMAGE_DIR, p) for p in PICTURES]

    need = [(tool, "rknpu-run"), (model, "model")] + [(p, "picture") for p in pictures]
    need += [(os.path.join(HERE, f), "helper script")
             for f in ("fetch_yolo_ref.sh", "yolo_ref.js", "yolo_heads_onnx.py")]
    fails = ["FAIL: missing %s %s" % (what, path) for path, what in need
             if not os.path.isfile(path)]
    # yolo_heads_onnx.py needs it; naming it here beats its traceback later.
    if importlib.util.find_spec("onnx") is None:
        fails.append("FAIL: missing python module onnx (apt-get install python3-onnx)")
    if fails:
        print("\n".join(fails))
        print("yolov8n-float-reference: FAIL")
        return 1

    # The fetch is idempotent (a checksum when everything is there), and a
    # fresh machine gets node, onnxruntime-node and the model through it.
    env = dict(os.environ, RKNPU_REF_DIR=ref_dir)
    rc, out, err, secs = run(["sh", os.path.join(HERE, "fetch_yolo_ref.sh")], env=env)
    onnx_path = out.strip().splitlines()[-1] if out.strip() else ""
    if rc != 0 or not os.path.isfile(onnx_path):
        print(err.rstrip())
        print("FAIL: tests/tools/fetch_yolo_ref.sh exited %d without the float model "
              "(yolov8n.onnx under %s)" % (rc, ref_dir))
        print("yolov8n-float-reference: FAIL")
        return 1
    if not shutil.which("node"):
        print("FAIL: missing tool node (Node.js, for yolo_ref.js; scripts/install-ref-deps.sh)")
        print("yolov8n-float-reference: FAIL")
        return 1
    print("reference %s (fetch check %.1f s)" % (onnx_path, secs))

    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    heads = os.path.join(work, "yolov8n_heads.onnx")
    rc, out, err, _ = run([sys.executable, os.path.join(HERE, "yolo_heads_onnx.py"), onnx_path,
                           heads])
    if rc != 0:
        print(out + err)
        print("FAIL: yolo_heads_onnx.py could not expose the head tensors of %s" % onnx_path)
        print("yolov8n-float-reference: FAIL")
        return 1
    print("head tensors (graph outputs after output0):")
    print(out.rstrip())

    def one(picture):
        """Reference then NPU for one picture: (name, dir, [(label, rc, out, err, s)])."""
        name = os.path.basename(picture)
        d = os.path.join(work, os.path.splitext(name)[0])
        os.makedirs(os.path.join(d, "npu"))
        inp = os.path.join(d, "input.npy")
        steps = []
        r = run(["node", os.path.join(HERE, "yolo_ref.js"), "--ref-dir", ref_dir, "--save-input",
                 inp, "--raw-outputs", os.path.join(d, "ref"), heads, picture])
        steps.append(("yolo_ref.js",) + r)
        if r[0] == 0:
            steps.append(("rknpu-run",) + run([tool, model, "--input", inp, "--output-dir",
                                               os.path.join(d, "npu")]))
        return name, d, steps

    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(one, pictures))

    ok = True
    loaded = {}
    for name, d, steps in runs:
        for label, rc, out, err, secs in steps:
            if label == "yolo_ref.js" and rc == 0:
                print("%s float detections: %s" % (name, "; ".join(out.strip().splitlines())))
            if rc != 0:
                print(out + err)
                print("FAIL: %s: %s exited %d" % (name, label, rc))
                ok = False
            elif label == "rknpu-run":
                print("%s rknpu-run %.1f s" % (name, secs))
        if any(rc != 0 for _, rc, _, _, _ in steps) or len(steps) != 2:
            continue
        npu, quant, p1 = load_npu(os.path.join(d, "npu"), steps[1][2])
        ref, p2 = load_ref(os.path.join(d, "ref"))
        for p in p1 + p2:
            print("FAIL: %s: %s" % (name, p))
            ok = False
        if not p1 and not p2:
            loaded[name] = (npu, ref, quant)

    print("---- NPU (int8) against the float reference")
    print("limits: box median|d| <= %g steps, mean|d| <= %g steps, max|d| <= %g steps, "
          "softmax mean|d| <= %g, distances mean|d| <= %g cells, object cells (class >= %g) "
          "max|d| <= %g cells; class mean|d| <= %g steps, max|d| <= %g, scores >= %g "
          "mean|d| <= %g" % (BOX_MEDIAN_STEPS, BOX_MEAN_STEPS, BOX_MAX_STEPS, SOFTMAX_MEAN,
                             DIST_MEAN_CELLS, OBJECT_SCORE, OBJECT_DIST_MAX_CELLS, CLS_MEAN_STEPS,
                             CLS_MAX, ACTIVE_SCORE, ACTIVE_MEAN))
    for name, (npu, ref, quant) in loaded.items():
        for text, broken in compare(npu, ref, quant):
            print("%s %s  %s" % (name, text, "FAIL: " + "; ".join(broken) if broken else "OK"))
            ok = ok and not broken

    if len(loaded) == 2:
        (n0, v0), (n1, v1) = loaded.items()
        print("---- control: each picture's NPU outputs against the other's reference must fail")
        for (na, va), (nb, vb) in (((n0, v0), (n1, v1)), ((n1, v1), (n0, v0))):
            res = compare(va[0], vb[1], va[2])
            n_broken = sum(1 for _, b in res if b)
            print("NPU %s vs reference %s: %d of %d outputs break the limits (%s)" % (
                na, nb, n_broken, len(res),
                "; ".join("out%d: %s" % (k, b[0]) for k, (_, b) in enumerate(res) if b)))
            if n_broken == 0:
                print("FAIL: the limits cannot tell %s from %s" % (na, nb))
                ok = False
    print("yolov8n-float-reference: %s (%.1f s)" % ("PASS" if ok else "FAIL",
                                                    time.monotonic() - t_start))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
