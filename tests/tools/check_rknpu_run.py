#!/usr/bin/python3
"""check_rknpu_run.py - rknpu-run as a user runs it.

usage: check_rknpu_run.py RKNPU_RUN MODELS_DIR REFERENCE_F32 WORK_DIR

1. The RK3588 multiple_input_demo with input1.bin (raw uint8 NHWC) and
   image2_nchw.npy (NCHW, recognised from its shape), all three cores:
   output_0.npy must be float32 [1, 8, 128, 128] and within 1 quantisation
   step of the float ONNX reference (tests/tools/onnx_ref.py).
2. The RK3566 build of the same model from the same binary, with no
   environment variable: the SoC comes from the model. The same reference.
3. --soc overrides (an RK3566 model on --soc rk3588 fails, naming both), and a
   model for a SoC without a profile fails naming it.
4. Wrong input count, a wrong shape and a missing file must fail with a
   non-zero status and a message, never a crash (status < 128).
5. Nothing is written outside --output-dir (the runtime writes no files):
   every run happens in an empty working directory that must stay empty.
"""
import os
import shutil
import subprocess
import sys

import numpy as np

SCALE, ZP = 4.142374515533447, 20


CWD = None
ENV = {k: v for k, v in os.environ.items() if not k.startswith("RKNPU_")}


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=CWD, env=ENV)
    if os.listdir(CWD):
        print("FAIL: %s wrote %s into its working directory" % (args[0], os.listdir(CWD)))
        sys.exit(1)
    return p.returncode, p.stdout + p.stderr


def check_output(work, ref_path, what):
    got = np.load(os.path.join(work, "output_0.npy"))
    ref = np.fromfile(ref_path, dtype="<f4").reshape(1, 8, 128, 128)
    if got.dtype != np.float32 or got.shape != (1, 8, 128, 128):
        print("FAIL: %s: output_0.npy is" % what, got.dtype, got.shape)
        return False
    steps = np.abs(np.round(got / SCALE) - np.clip(np.round(ref / SCALE) + ZP, -128, 127) + ZP)
    print("%s output vs ONNX: max %.0f step(s), mean %.4f" % (what, steps.max(), steps.mean()))
    if steps.max() > 1:
        print("FAIL: %s: more than one step from the reference" % what)
        return False
    return True


def main():
    global CWD
    tool, models, ref_path, work = [os.path.abspath(a) for a in sys.argv[1:5]]
    model = os.path.join(models, "rk3588_multiple_input_demo.v6.rknn")
    model_3566 = os.path.join(models, "rk3566_multiple_input_demo.v6.rknn")
    mid = os.path.join(models, "multiple_input_demo")
    for f in (model, model_3566, os.path.join(mid, "input1.bin"),
              os.path.join(mid, "image2_nchw.npy"), ref_path):
        if not os.path.isfile(f):
            print("FAIL: missing input file %s" % f)
            return 1
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    CWD = os.path.join(work, "cwd")
    os.makedirs(CWD)
    ins = ["--input", os.path.join(mid, "input1.bin"), "--input", os.path.join(mid, "image2_nchw.npy")]
    rc, out = run([tool, model] + ins + ["--core-mask", "7", "--loops", "2", "--output-dir", work])
    print(out)
    if rc != 0:
        print("FAIL: rknpu-run exited", rc)
        return 1
    if "virtual NPU RK3588" not in out or not check_output(work, ref_path, "RK3588"):
        return 1
    os.remove(os.path.join(work, "output_0.npy"))
    rc, out = run([tool, model_3566] + ins + ["--output-dir", work])
    print(out)
    if rc != 0 or "virtual NPU RK3566" not in out:
        print("FAIL: the RK3566 model did not run from the same build (status %d)" % rc)
        return 1
    if not check_output(work, ref_path, "RK3566"):
        return 1
    rc, out = run([tool, model_3566] + ins + ["--soc", "rk3588"])
    if rc == 0 or rc >= 128 or "'rk3566'" not in out or "RK3588" not in out:
        print("FAIL: --soc rk3588 on an RK3566 model: status %d, output %r" % (rc, out[-300:]))
        return 1
    print("ok: --soc rk3588 on the RK3566 model -> status %d, names both SoCs" % rc)
    unknown = os.path.join(work, "rk3576_model.rknn")
    with open(model, "rb") as f:
        data = f.read()
    with open(unknown, "wb") as f:
        f.write(data.replace(b"rk3588", b"rk3576"))
    rc, out = run([tool, unknown] + ins)
    if rc == 0 or rc >= 128 or "'rk3576'" not in out or "no SoC profile" not in out:
        print("FAIL: a model for rk3576: status %d, output %r" % (rc, out[-300:]))
        return 1
    print("ok: a model for rk3576 -> status %d, names it" % rc)
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
