#!/usr/bin/python3
"""check_ppocr_firmware.py - PP-OCRv4 det on firmware, checked like on the host.

    /usr/bin/python3 tests/tools/check_ppocr_firmware.py SHARED_MODELS WORK_DIR -- CMD...

CMD runs the firmware image of examples/model_demo.c built with PP-OCRv4 det
and test1 linked in (ppocr_demo; on QEMU: scripts/qemu-run.sh ... ppocr_demo.elf).
WORK_DIR is appended as its last argument: the demo writes output_0.npy
there (semihosting files on QEMU). The float reference comes from the ONNX
source on onnxruntime (ppocr_ref.js, same input); ppocr_compare.py applies
the issue's limits (mean |d| <= 0.01, IoU of the 0.3 masks >= 0.97).
A missing model, input, node or reference directory is a failure naming it.
"""
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def main():
    if "--" not in sys.argv or sys.argv.index("--") != 3:
        fail("usage: check_ppocr_firmware.py SHARED_MODELS WORK_DIR -- CMD...")
    models, work = sys.argv[1], os.path.abspath(sys.argv[2])
    cmd = sys.argv[4:]
    test1 = os.path.join(models, "ppocrv4_det", "test1_nhwc_u8.npy")
    ref_dir = os.environ.get("RKNPU_REF_DIR",
                             os.path.join(os.path.expanduser("~"), ".cache", "rknpu-bm", "ref"))
    for path in (test1, os.path.join(models, "rk3588_ppocrv4_det.v6.rknn"),
                 os.path.join(ref_dir, "ch_PP-OCRv4_det_infer.onnx")):
        if not os.path.isfile(path):
            fail(f"missing input file {path} (scripts/install-ref-deps.sh fetches the reference)")
    if shutil.which("node") is None:
        fail("missing tool node (scripts/install-ref-deps.sh installs it)")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ref = os.path.join(work, "test1_ref.npy")
    r = subprocess.run(["node", os.path.join(HERE, "ppocr_ref.js"), "--ref-dir", ref_dir,
                        "--loops", "1", test1, ref], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fail(f"onnxruntime reference: {r.stdout}{r.stderr}")
    t0 = time.monotonic()
    r = subprocess.run(cmd + [work], capture_output=True, text=True, timeout=1200)
    took = time.monotonic() - t0
    print(r.stdout + r.stderr)
    if r.returncode != 0 or "model demo: OK" not in r.stdout:
        fail(f"firmware exit {r.returncode} without 'model demo: OK'")
    print(f"firmware run: {took:.1f} s wall (boot, init, one inference, output file)")
    got = os.path.join(work, "output_0.npy")
    r = subprocess.run([sys.executable, os.path.join(HERE, "ppocr_compare.py"), ref, got],
                       capture_output=True, text=True)
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        fail("firmware output against the onnxruntime reference")
    print("PASS: PP-OCRv4 det on firmware matches its ONNX source")


if __name__ == "__main__":
    main()
