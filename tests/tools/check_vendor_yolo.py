#!/usr/bin/python3
"""check_vendor_yolo.py - YOLOv8n's detections from Rockchip's runtime on
the virtual NPU, judged like examples/object_detect's.

    /usr/bin/python3 tests/tools/check_vendor_yolo.py SHARED_MODELS WORK_DIR

WORK_DIR is check_yolo_float.py's work directory after it ran Rockchip's
runtime (tests/vendor/vendor-rknpu-run.sh): per picture, npu/output_K.npy
are the six head tensors (float32, NCHW) of the letterboxed picture. They
are decoded by the post-processing written in check_object_detect_yolo.py
from Ultralytics' recipe (DFL, score 0.25, class-wise NMS 0.45, boxes
mapped back to the picture), and each picture's detections are judged by
check_object_detect.py's facts about it (the object shown first, IoU >= 0.7
with the box drawn by hand, every other confident detection of something
visibly there). Exit status 0 when both pictures pass.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_object_detect as judge_mod  # noqa: E402
import check_object_detect_yolo as post  # noqa: E402
from PIL import Image  # noqa: E402


def detections(npu_dir, width, height):
    tensors = []
    for k in range(6):
        a = np.load(os.path.join(npu_dir, "output_%d.npy" % k)).astype(np.float64)
        chw = a.reshape(a.shape[-3:])
        tensors.append((chw, post.NET // chw.shape[-1]))
    kept, _, _ = post.reference_detect(tensors, width, height)
    return post.to_image(kept, width, height)


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    models, work = sys.argv[1], sys.argv[2]
    fails = []
    for picture in judge_mod.PICTURES:
        path = os.path.join(models, judge_mod.IMAGE_DIR, picture)
        npu = os.path.join(work, os.path.splitext(picture)[0], "npu")
        if not os.path.isfile(path) or not os.path.isfile(os.path.join(npu, "output_5.npy")):
            fails.append("missing %s or the vendor's outputs in %s" % (path, npu))
            continue
        w, h = Image.open(path).size
        dets = [(post.NAMES.get(d[0], str(d[0])), d[1], d[2:]) for d in detections(npu, w, h)]
        fails += judge_mod.judge("vendor", picture, (w, h, dets, len(dets)))
    for f in fails:
        print("FAIL: " + f)
    print("vendor-yolo-detections: %s" % ("FAIL" if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
