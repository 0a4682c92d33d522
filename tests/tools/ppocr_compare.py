#!/usr/bin/python3
"""Compare two PP-OCRv4 det probability maps (480x480), e.g. the float
reference from ppocr_ref.js against the NPU's output from rknpu-run.

The NPU runs the network in fp16, so maps never match bit for bit; what
matters downstream is the thresholded text mask, hence IoU next to mean |d|.

    /usr/bin/python3 tests/tools/ppocr_compare.py REF.npy GOT.npy
        [--max-mean-abs 0.01] [--min-iou 0.97] [--threshold 0.3]
Exit status 1 when a limit is broken, 2 on unusable input.
"""
import argparse
import sys

import numpy as np

SIDE = 480


def die(msg):
    print(f"ppocr_compare: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        a = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        die(f"cannot load {path}: {e}")
    if a.dtype not in (np.float32, np.float16):
        die(f"{path}: dtype {a.dtype}, want float32 or float16")
    if a.size != SIDE * SIDE:
        die(f"{path}: shape {a.shape}, want {SIDE}*{SIDE} elements")
    # With one channel NCHW and NHWC share one element order.
    return a.reshape(SIDE, SIDE).astype(np.float64)


def main():
    ap = argparse.ArgumentParser(description="Compare two PP-OCRv4 det maps.")
    ap.add_argument("ref")
    ap.add_argument("got")
    ap.add_argument("--max-mean-abs", type=float, default=0.01)
    ap.add_argument("--min-iou", type=float, default=0.97)
    ap.add_argument("--threshold", type=float, default=0.3)
    args = ap.parse_args()
    ref, got = load(args.ref), load(args.got)

    d = np.abs(ref - got)
    mean_abs, max_abs = float(d.mean()), float(d.max())
    mr, mg = ref > args.threshold, got > args.threshold
    union = np.count_nonzero(mr | mg)
    # Two empty masks agree perfectly.
    iou = np.count_nonzero(mr & mg) / union if union else 1.0
    print(f"mean_abs_diff {mean_abs:.6f}")
    print(f"max_abs_diff {max_abs:.6f}")
    print(f"ref_frac_above_{args.threshold:g} {mr.mean():.6f}")
    print(f"got_frac_above_{args.threshold:g} {mg.mean():.6f}")
    print(f"iou {iou:.6f}")

    fails = []
    # NaN compares false with everything, so test "not within" rather than "above".
    if not np.all(np.isfinite(got)):
        fails.append("GOT has non-finite values")
    if not mean_abs <= args.max_mean_abs:
        fails.append(f"mean |d| {mean_abs:.6f} > {args.max_mean_abs:g}")
    if not iou >= args.min_iou:
        fails.append(f"IoU {iou:.6f} < {args.min_iou:g}")
    for f in fails:
        print(f"FAIL: {f}")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
