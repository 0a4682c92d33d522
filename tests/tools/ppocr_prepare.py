#!/usr/bin/python3
"""Turn an image into the PP-OCRv4 det input: uint8 [1,480,480,3] RGB NHWC.

Same recipe as ../shared/models/README.md (ppocrv4_det), so the float
reference and the NPU are fed identical pixels; normalisation is left to the
consumer (the RKNN model folds it into its first convolution).

    /usr/bin/python3 tests/tools/ppocr_prepare.py IMAGE OUT.npy
"""
import sys

import numpy as np
from PIL import Image


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: ppocr_prepare.py IMAGE OUT.npy")
    img = Image.open(sys.argv[1]).convert("RGB").resize((480, 480), Image.BILINEAR)
    a = np.ascontiguousarray(np.asarray(img, dtype=np.uint8)[None])
    # A file object, because np.save appends ".npy" to a bare name without it.
    with open(sys.argv[2], "wb") as f:
        np.save(f, a)


if __name__ == "__main__":
    main()
