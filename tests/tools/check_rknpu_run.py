#!/usr/bin/python3
"""check_rknpu_run.py - rknpu-run as a user runs it.

usage: check_rknpu_run.py RKNPU_RUN MODELS_DIR REFERENCE_F32 WORK_DIR

1. The RK3588 multiple_input_demo with input1.bin (raw uint8 NHWC) and
   image2_nchw.npy (NCHW, recognised from its shape), all three cores:
   output_0.npy must be float32 [1, 8, 128, 128] and within 1 quantisation
   step of the float ONNX reference (tests/tools/onnx_ref.py).
2. Wrong input count, a wrong shape and a missing file must fail with a
   non-zero status and a message, never a crash (status < 128).
"""
import os
import subprocess
import sys

import numpy as np

SCALE, ZP = 4.142374515533447, 20


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def main():
    tool, models, ref_path, work = sys.argv[1:5]
    model = os.path.join(models, "rk3588_multiple_input_demo.v6.rknn")
    mid = os.path.join(models, "multiple_input_demo")
    if not os.path.isfile(model) or not os.path.isfile(ref_path):
        print("SKIP: sample models or reference missing")
        return 77
    os.makedirs(work, exist_ok=True)
    rc, out = run([tool, model, "--input", os.path.join(mid, "input1.bin"),
                   "--input", os.path.join(mid, "image2_nchw.npy"),
                   "--core-mask", "7", "--loops", "2", "--output-dir", work])
    print(out)
    if rc != 0:
        print("FAIL: rknpu-run exited", rc)
        return 1
    got = np.load(os.path.join(work, "output_0.npy"))
    ref = np.fromfile(ref_path, dtype="<f4").reshape(1, 8, 128, 128)
    if got.dtype != np.float32 or got.shape != (1, 8, 128, 128):
        print("FAIL: output_0.npy is", got.dtype, got.shape)
        return 1
    steps = np.abs(np.round(got / SCALE) - np.clip(np.round(ref / SCALE) + ZP, -128, 127) + ZP)
    print("output vs ONNX: max %.0f step(s), mean %.4f" % (steps.max(), steps.mean()))
    if steps.max() > 1:
        print("FAIL: more than one step from the reference")
        return 1
    bad = [
        ([tool, model, "--input", os.path.join(mid, "input1.bin")], "one input for two"),
        ([tool, model, "--input", os.path.join(mid, "input2.bin"),
          "--input", os.path.join(mid, "input2.bin")], "wrong size"),
        ([tool, model, "--input", "/nonexistent.npy", "--input", "/nonexistent.npy"], "missing file"),
        ([tool], "no arguments"),
    ]
    for args, what in bad:
        rc, out = run(args)
        if rc == 0 or rc >= 128 or "rknpu-run" not in out and "usage" not in out:
            print("FAIL: %s: status %d, output %r" % (what, rc, out[-300:]))
            return 1
        print("ok: %s -> status %d" % (what, rc))
    print("check_rknpu_run: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
