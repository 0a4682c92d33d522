#!/usr/bin/python3
"""check_object_detect_yolo.py - examples/object_detect_yolo.c against numpy.

    /usr/bin/python3 tests/tools/check_object_detect_yolo.py HARNESS WORK_DIR SHARED_MODELS

HARNESS is tests/unit/object_detect_yolo_run (the picture decoding, the
letterbox and the post-processing of examples/object_detect on files).
Everything it is given is made here (but the two COCO pictures), and
everything it answers is compared with a reference written here in numpy
from the recipe (Ultralytics' YOLOv8 predictor), not from the C code:

decode - JPEGs (4:2:0, 4:4:4, grey) and PNGs (RGBA, palette, grey) made
  with Pillow, a PPM named in a comment as the firmware build writes them
  (the name must come back), and the two COCO pictures of SHARED_MODELS/yolov8n_rk3566
  (a missing one fails): libjpeg/libpng through the example must give
  exactly Pillow's convert("RGB") pixels, which is what the firmware build
  links in (decoded at build time by Pillow), so host and firmware see the
  same picture.

letterbox - synthetic pictures of several shapes (a 586x640 one that fits
  as it is, upscaled, downscaled, extreme aspect ratios, 1x1). Reference:
  scale r = min(640 / w, 640 / h), the image resized to round(w r) x
  round(h r) (half up), centred (the odd pixel of padding right/bottom),
  the rest 114; the resize bilinear on pixel centres, source position
  (x + 0.5) * src / dst - 0.5 clamped to the image, in float64. The harness
  must agree on the geometry exactly, on every pixel within 1 (its weights
  are 1/2048 steps, rounded) with a mean difference below 0.05, be exact
  where no resize happens, and leave the padding exactly 114.

detect - synthetic network outputs for a 640x640 input (strides 8, 16, 32):
  class scores below the threshold everywhere except around planted objects
  (every cell whose centre lies in an object's inner part scores it, with
  noise, and its box distributions peak at the cell's distances to the
  object's sides, with noise: overlapping candidates of one class, as a
  real detector gives, for NMS to reduce) and random clutter cells. Written
  as float32 or as int8 codes with a scale and zero point, in shuffled
  order, sometimes with the [1,1,H,W] score-sum outputs some exports add.
  Reference: per cell the best class (first on ties) and its score,
  candidates above 0.25, per side softmax over 16 bins and the expected
  bin, box (cx - l, cy - t, cx + r, cy + b) * stride with cx = x + 0.5,
  sorted by score (ties by scan order: stride, row, column), greedy NMS per
  class dropping IoU > 0.45, at most 300 kept, back through the letterbox
  and clamped to the image. Must agree: same count, and per detection the
  same class, score within 1e-5 and box within 0.01 pixel, and the printed
  line (class name, score to 3 places, box to 1) as the reference formats it.
  Each case also checks its own margins (no candidate score within 1e-4 of
  0.25, no same-class IoU within 1e-4 of 0.45), so that float32 against
  float64 cannot flip a decision and the comparison stays exact.
  Refusals: a missing score tensor, an unknown channel count, a grid that
  does not divide the input, too many cells.

Exit status 0 when everything passed, 1 otherwise.
"""
import os
import re
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from example_check import finish, fresh_dir, iou, read_ppm, run, write_ppm  # noqa: E402

NET = 640
STRIDES = (8, 16, 32)
BINS = 16
CLASSES = 80
SCORE_THRESHOLD = 0.25
NMS_IOU = 0.45
MAX_DETECTIONS = 300  # YOLO_MAX_DETECTIONS
PAD = 114
MARGIN = 1e-4

# COCO's names of the classes the cases plant (index -> name), to check the
# printed lines; the C table is the 80-name list in the model's order.
NAMES = {0: "person", 2: "car", 7: "truck", 11: "stop sign", 16: "dog", 21: "bear",
         56: "chair", 79: "toothbrush"}

EXACT = re.compile(r"^exact (\d+): class (\d+) score (\S+) box (\S+) (\S+) (\S+) (\S+)$")
LINE = re.compile(r"^detection (\d+): (.+) score (\d+\.\d{3}) box (\S+) (\S+) (\S+) (\S+)$")


# ---- letterbox ---------------------------------------------------------------

def plan(w, h):
    r = min(NET / w, NET / h)
    rw = max(1, min(NET, int(np.floor(w * r + 0.5))))
    rh = max(1, min(NET, int(np.floor(h * r + 0.5))))
    return rw, rh, (NET - rw) // 2, (NET - rh) // 2


def bilinear(img, dw, dh):
    sh, sw, _ = img.shape

    def taps(dst, src):
        pos = np.clip((np.arange(dst) + 0.5) * src / dst - 0.5, 0, src - 1)
        lo = np.floor(pos).astype(np.int64)
        return lo, np.minimum(lo + 1, src - 1), pos - lo

    x0, x1, wx = taps(dw, sw)
    y0, y1, wy = taps(dh, sh)
    f = img.astype(np.float64)
    top = f[y0][:, x0] * (1 - wx)[None, :, None] + f[y0][:, x1] * wx[None, :, None]
    bottom = f[y1][:, x0] * (1 - wx)[None, :, None] + f[y1][:, x1] * wx[None, :, None]
    return top * (1 - wy)[:, None, None] + bottom * wy[:, None, None]


def letterbox_reference(img):
    h, w, _ = img.shape
    rw, rh, left, top = plan(w, h)
    out = np.full((NET, NET, 3), float(PAD))
    out[top:top + rh, left:left + rw] = bilinear(img, rw, rh)
    return out, (rw, rh, left, top)


def picture(w, h, rng):
    """Gradients, a checkerboard and noise: every resize error shows."""
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([xx * 255 // max(w - 1, 1), yy * 255 // max(h - 1, 1),
                    ((xx // 5 + yy // 5) % 2) * 200], axis=2)
    img = img + rng.integers(-20, 21, size=img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def check_letterbox(harness, work, rng):
    fails = []
    # (501x333 and 333x501 leave an odd padding: the extra pixel goes right/bottom)
    for w, h in [(586, 640), (375, 500), (1000, 300), (640, 640), (7, 1280), (1280, 7),
                 (1, 1), (333, 211), (501, 333), (333, 501)]:
        name = "letterbox %dx%d" % (w, h)
        img = picture(w, h, rng)
        src, dst = os.path.join(work, "in_%dx%d.ppm" % (w, h)), os.path.join(work, "out.ppm")
        write_ppm(src, img)
        status, out, _ = run([harness, "letterbox", src, str(NET), str(NET), dst], 120)
        m = re.search(r"letterbox: resized (\d+) (\d+) pad (\d+) (\d+)", out)
        if status != 0 or not m:
            fails.append("%s: harness failed (%d): %s" % (name, status, out.strip()))
            continue
        ref, geometry = letterbox_reference(img)
        got_geometry = tuple(int(v) for v in m.groups())
        got = read_ppm(dst).astype(np.float64)
        rw, rh, left, top = geometry
        inside = np.zeros((NET, NET), dtype=bool)
        inside[top:top + rh, left:left + rw] = True
        diff = np.abs(got - np.floor(ref + 0.5))
        worst, mean = diff.max(), diff[inside].mean()
        exact_needed = (rw, rh) == (w, h)
        print("%s: resized %dx%d pad %d,%d; pixels: max |d| %d, mean %.4f"
              % (name, rw, rh, left, top, worst, mean))
        if got_geometry != geometry:
            fails.append("%s: geometry %s, reference %s" % (name, got_geometry, geometry))
        elif np.any(got[~inside] != PAD):
            fails.append("%s: padding is not %d everywhere" % (name, PAD))
        elif worst > (0 if exact_needed else 1) or mean > 0.05:
            fails.append("%s: pixels differ by up to %d (mean %.4f)" % (name, worst, mean))
    return fails


# ---- decoding ------------------------------------------------------------------

def check_decode(harness, work, models, rng):
    """The harness's decode (libjpeg, libpng) against Pillow's."""
    try:
        from PIL import Image
    except ImportError:
        return ["missing python3-pil (Pillow; scripts/install-ref-deps.sh installs it)"]
    rgb = picture(301, 203, rng)
    alpha = np.concatenate([rgb, rng.integers(0, 256, size=(203, 301, 1), dtype=np.uint8)], axis=2)
    made = {
        "rgb.jpg": (Image.fromarray(rgb), {"quality": 90}),
        "grey.jpg": (Image.fromarray(rgb[:, :, 0]), {"quality": 80}),
        "rgb444.jpg": (Image.fromarray(rgb), {"quality": 95, "subsampling": 0}),
        "rgba.png": (Image.fromarray(alpha, "RGBA"), {}),
        "palette.png": (Image.fromarray(rgb).convert("P"), {}),
        "grey.png": (Image.fromarray(rgb[:, :, 1]), {}),
    }
    paths = []
    for name, (img, options) in made.items():
        paths.append(os.path.join(work, name))
        img.save(paths[-1], **options)
    # a PPM as the firmware build writes it: the picture's name in a comment
    named = os.path.join(work, "named.ppm")
    with open(named, "wb") as f:
        f.write(b"P6\n# coco_000000000285.jpg\n301 203\n255\n" + rgb.tobytes())
    paths.append(named)
    coco = [os.path.join(models, "yolov8n_rk3566", "coco_000000000%s.jpg" % n)
            for n in ("285", "724")]
    fails = ["missing file %s" % p for p in coco if not os.path.isfile(p)]
    for path in paths + [p for p in coco if os.path.isfile(p)]:
        name = "decode %s" % os.path.basename(path)
        out_path = os.path.join(work, "decoded.ppm")
        status, out, _ = run([harness, "decode", path, out_path], 120)
        if status != 0:
            fails.append("%s: harness failed (%d): %s" % (name, status, out.strip()))
            continue
        m = re.search(r"^decoded \d+x\d+ name '(.*)'$", out, re.M)
        want_name = "coco_000000000285.jpg" if path == named else ""
        if not m or m.group(1) != want_name:
            fails.append("%s: name %s, want '%s'" % (name, m.group(1) if m else None, want_name))
        got = read_ppm(out_path).astype(np.int64)
        want = np.asarray(Image.open(path).convert("RGB")).astype(np.int64)
        if got.shape != want.shape:
            fails.append("%s: %s, Pillow %s" % (name, got.shape, want.shape))
            continue
        worst = np.abs(got - want).max()
        print("%s: %dx%d, max |d| from Pillow %d" % (name, got.shape[1], got.shape[0], worst))
        if worst != 0:
            fails.append("%s: differs from Pillow by up to %d" % (name, worst))
    return fails


# ---- post-processing reference ---------------------------------------------------

def reference_detect(tensors, image_w, image_h):
    """tensors: list of (array CHW float64 of the values meant, stride).
    Returns [(class, score, x0, y0, x1, y1)] and the decision margins."""
    cands = []  # (score, cell order, class, box in network pixels)
    first = 0
    for stride in STRIDES:
        boxes = next(v for v, s in tensors if s == stride and v.shape[0] == 4 * BINS)
        scores = next(v for v, s in tensors if s == stride and v.shape[0] == CLASSES)
        _, h, w = scores.shape
        best = scores.argmax(axis=0)
        best_score = scores.max(axis=0)
        logits = boxes.reshape(4, BINS, h, w)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        dist = (p * np.arange(BINS)[None, :, None, None]).sum(axis=1) / p.sum(axis=1)
        ys, xs = np.nonzero(best_score > SCORE_THRESHOLD)
        for y, x in zip(ys, xs):
            cx, cy = x + 0.5, y + 0.5
            box = np.array([cx - dist[0, y, x], cy - dist[1, y, x],
                            cx + dist[2, y, x], cy + dist[3, y, x]]) * stride
            cands.append((best_score[y, x], first + y * w + x, int(best[y, x]), box))
        first += h * w
    score_margin = min([abs(c[0] - SCORE_THRESHOLD) for c in cands] or [1.0])
    # every cell's best score near the threshold counts too (a cell just below)
    for v, s in tensors:
        if v.shape[0] == CLASSES:
            score_margin = min(score_margin, np.abs(v.max(axis=0) - SCORE_THRESHOLD).min())
    cands.sort(key=lambda c: (-c[0], c[1]))
    kept, iou_margin = [], 1.0
    for c in cands:
        if len(kept) == MAX_DETECTIONS:
            break
        same = [k for k in kept if k[2] == c[2]]
        ious = [iou(k[3], c[3]) for k in same]
        if ious:
            iou_margin = min(iou_margin, min(abs(v - NMS_IOU) for v in ious))
        if all(v <= NMS_IOU for v in ious):
            kept.append(c)
    return kept, score_margin, iou_margin


def to_image(kept, image_w, image_h):
    rw, rh, left, top = plan(image_w, image_h)
    sx, sy = image_w / rw, image_h / rh
    out = []
    for score, _, cls, box in kept:
        x0, y0, x1, y1 = box
        out.append((cls, float(score),
                    float(np.clip((x0 - left) * sx, 0, image_w)),
                    float(np.clip((y0 - top) * sy, 0, image_h)),
                    float(np.clip((x1 - left) * sx, 0, image_w)),
                    float(np.clip((y1 - top) * sy, 0, image_h))))
    return out


# ---- synthetic outputs ------------------------------------------------------------

def empty_outputs(rng, background=0.2):
    """Per stride: box logits (64,H,W) of random noise, class scores below
    the threshold."""
    out = {}
    for s in STRIDES:
        g = NET // s
        out[s] = [rng.normal(0, 1.5, size=(4 * BINS, g, g)),
                  rng.uniform(0, background, size=(CLASSES, g, g))]
    return out


def peaked(dist, rng, sharpness=2.0, noise=0.3):
    """Logits over the 16 bins peaking at a (fractional) distance."""
    i = np.arange(BINS)
    return -sharpness * (i - dist) ** 2 + rng.normal(0, noise, size=BINS)


def plant(outputs, box, cls, stride, rng, low=0.3, high=0.95, tied=None):
    """Every cell of `stride` whose centre lies in the middle half of `box`
    (network pixels) predicts it, with noise; class `tied` scores exactly
    the same there (the lower class must win)."""
    x0, y0, x1, y1 = box
    boxes, scores = outputs[stride]
    g = NET // stride
    for y in range(g):
        for x in range(g):
            cx, cy = (x + 0.5) * stride, (y + 0.5) * stride
            if not (x0 + (x1 - x0) / 4 <= cx <= x1 - (x1 - x0) / 4 and
                    y0 + (y1 - y0) / 4 <= cy <= y1 - (y1 - y0) / 4):
                continue
            d = np.array([cx - x0, cy - y0, x1 - cx, y1 - cy]) / stride
            if d.max() > BINS - 1.5:
                continue
            d = d + rng.normal(0, 0.3, size=4)
            for side in range(4):
                boxes[side * BINS:(side + 1) * BINS, y, x] = peaked(np.clip(d[side], 0, 15), rng)
            scores[cls, y, x] = rng.uniform(low, high)
            if tied is not None:
                scores[tied, y, x] = scores[cls, y, x]


def clutter(outputs, count, rng, classes=(56, 79)):
    for _ in range(count):
        s = STRIDES[rng.integers(0, 3)]
        g = NET // s
        y, x = rng.integers(0, g, size=2)
        outputs[s][1][rng.choice(classes), y, x] = rng.uniform(0.26, 0.99)
        for side in range(4):
            outputs[s][0][side * BINS:(side + 1) * BINS, y, x] = peaked(rng.uniform(0, 15), rng)


def quantise(values, scale, zp):
    return np.clip(np.round(values / scale) + zp, -128, 127).astype(np.int8)


def tensor_list(outputs, kind, rng, score_sums=False):
    """[(channels, h, w, kind, scale, zp, data bytes, meant values, stride)]."""
    out = []
    for s, (boxes, scores) in outputs.items():
        for values, scale, zp in ((boxes, 0.11, -45), (scores, 1 / 255.0, -128)):
            if kind == "int8":
                codes = quantise(values, np.float32(scale), zp)
                meant = (codes.astype(np.float64) - zp) * np.float64(np.float32(scale))
                out.append((values.shape, 1, scale, zp, codes.tobytes(), meant, s))
            else:
                f = values.astype(np.float32)
                out.append((values.shape, 0, 1.0, 0, f.tobytes(), f.astype(np.float64), s))
        if score_sums:
            total = scores.sum(axis=0, keepdims=True).astype(np.float32)
            out.append((total.shape, 0, 1.0, 0, total.tobytes(), total.astype(np.float64), s))
    order = rng.permutation(len(out))
    return [out[i] for i in order]


def write_tensors(path, tensors, image_w, image_h):
    with open(path, "wb") as f:
        f.write(b"YOLOTEN1" + struct.pack("<5I", NET, NET, image_w, image_h, len(tensors)))
        for shape, kind, scale, zp, data, _, _ in tensors:
            f.write(struct.pack("<4Ifi", shape[0], shape[1], shape[2], kind, scale, zp))
            f.write(data + b"\0" * (-len(data) % 4))


def parse_detect(out):
    exact, lines, count = [], [], None
    for line in out.splitlines():
        m = EXACT.match(line)
        if m:
            exact.append((int(m.group(2)),) + tuple(float(v) for v in m.groups()[2:]))
        m = LINE.match(line)
        if m:
            lines.append(line)
        m = re.match(r"^detections: (\d+)$", line)
        if m:
            count = int(m.group(1))
    return exact, lines, count


def format_line(i, det):
    cls, score, x0, y0, x1, y1 = det
    return "detection %d: %s score %.3f box %.1f %.1f %.1f %.1f" % (
        i, NAMES.get(cls, "?"), score, x0, y0, x1, y1)


def compare(name, out, ref):
    exact, lines, count = parse_detect(out)
    if count is None:
        return ["%s: no 'detections: N' line: %s" % (name, out.strip()[-400:])]
    fails = []
    if count != len(ref) or len(exact) != len(ref) or len(lines) != len(ref):
        fails.append("%s: %d detections (%d lines), reference %d"
                     % (name, count, len(exact), len(ref)))
    worst_score = worst_box = 0.0
    for i, (got, want) in enumerate(zip(exact, ref)):
        worst_score = max(worst_score, abs(got[1] - want[1]))
        worst_box = max(worst_box, max(abs(g - w) for g, w in zip(got[2:], want[2:])))
        if got[0] != want[0] or abs(got[1] - want[1]) > 1e-5 or \
           max(abs(g - w) for g, w in zip(got[2:], want[2:])) > 0.01:
            fails.append("%s: detection %d is %s, reference %s" % (name, i, got, want))
            break
    for i, (line, want) in enumerate(zip(lines, ref)):
        # the printed figures round the C float32 values; compare with the
        # reference formatted the same way, allowing a last-digit tie
        ref_line = format_line(i, want)
        if line != ref_line and want[0] in NAMES:
            got_nums = [float(v) for v in LINE.match(line).groups()[2:]]
            ref_nums = [float(v) for v in LINE.match(ref_line).groups()[2:]]
            name_ok = LINE.match(line).group(2) == NAMES[want[0]]
            if not name_ok or abs(got_nums[0] - ref_nums[0]) > 0.0011 or \
               max(abs(a - b) for a, b in zip(got_nums[1:], ref_nums[1:])) > 0.11:
                fails.append("%s: line '%s', reference '%s'" % (name, line, ref_line))
                break
    print("%s: %d detections, reference %d; max |score d| %.2g, max |box d| %.2g px"
          % (name, count, len(ref), worst_score, worst_box))
    return fails


def detect_case(harness, work, name, outputs, kind, image_w, image_h, rng, score_sums=False,
                expect_min=1):
    tensors = tensor_list(outputs, kind, rng, score_sums)
    path = os.path.join(work, name.replace(" ", "_") + ".bin")
    write_tensors(path, tensors, image_w, image_h)
    meant = [(t[5].reshape(t[0]), t[6]) for t in tensors if t[0][0] != 1]
    kept, score_margin, iou_margin = reference_detect(meant, image_w, image_h)
    ref = to_image(kept, image_w, image_h)
    if score_margin < MARGIN or iou_margin < MARGIN:
        return ["%s: the case itself sits on a threshold (score margin %.2g, IoU margin %.2g): "
                "choose another seed" % (name, score_margin, iou_margin)]
    if len(ref) < expect_min:
        return ["%s: the case has %d reference detections, meant at least %d"
                % (name, len(ref), expect_min)]
    status, out, _ = run([harness, "detect", path], 120)
    if status != 0:
        return ["%s: harness failed (%d): %s" % (name, status, out.strip()[-400:])]
    return compare(name, out, ref)


def scene(rng, objects, clutter_count):
    outputs = empty_outputs(rng)
    for box, cls, stride, *tied in objects:
        plant(outputs, box, cls, stride, rng, tied=tied[0] if tied else None)
    clutter(outputs, clutter_count, rng)
    return outputs


def check_detect(harness, work):
    fails = []
    street = [((150, 80, 330, 300), 11, 16), ((150, 80, 330, 300), 11, 32),  # two strides
              ((40, 340, 260, 470), 7, 16), ((60, 350, 200, 460), 2, 16),   # truck over car
              ((400, 300, 470, 500), 0, 8), ((420, 310, 480, 500), 0, 8),   # two people
              ((0, 100, 120, 400), 16, 32),                                 # at the edge
              ((500, 40, 620, 200), 21, 16, 56)]                            # bear = chair
    rng = np.random.default_rng(11)
    fails += detect_case(harness, work, "float32 street", scene(rng, street, 40), "float32",
                         640, 640, rng, expect_min=10)
    rng = np.random.default_rng(12)
    fails += detect_case(harness, work, "int8 street", scene(rng, street, 40), "int8",
                         640, 640, rng, expect_min=10)
    # the stop-sign picture's geometry (375x500: scaled 1.28, 80 px of padding
    # each side): boxes reaching into the padding are clamped to the image
    rng = np.random.default_rng(13)
    edge = [((60, 50, 250, 260), 11, 16), ((480, 200, 600, 420), 7, 32),
            ((70, 400, 200, 630), 21, 32)]
    fails += detect_case(harness, work, "int8 375x500 with score sums", scene(rng, edge, 20),
                         "int8", 375, 500, rng, score_sums=True, expect_min=3)
    rng = np.random.default_rng(14)
    fails += detect_case(harness, work, "float32 1000x300", scene(rng, edge, 20), "float32",
                         1000, 300, rng, expect_min=3)
    # more than 300 separate objects: the 300 highest scores are kept
    rng = np.random.default_rng(15)
    crowd = empty_outputs(rng)
    boxes = crowd[8][0]
    cells = rng.choice(80 * 80, size=420, replace=False)
    for cell in cells:
        y, x = divmod(int(cell), 80)
        crowd[8][1][0, y, x] = rng.uniform(0.3, 0.99)
        for side in range(4):  # about 3 px a side: no two boxes meet
            boxes[side * BINS:(side + 1) * BINS, y, x] = peaked(0.4, rng, sharpness=8.0)
    fails += detect_case(harness, work, "float32 crowd of 420", crowd, "float32", 640, 640, rng,
                         expect_min=MAX_DETECTIONS)
    rng = np.random.default_rng(16)
    fails += detect_case(harness, work, "int8 nothing", empty_outputs(rng), "int8", 640, 640,
                         rng, expect_min=0)
    fails += check_refusals(harness, work)
    return fails


def check_refusals(harness, work):
    rng = np.random.default_rng(17)
    outputs = empty_outputs(rng)
    full = tensor_list(outputs, "float32", rng)
    cases = {
        "no scores at stride 16": [t for t in full if not (t[6] == 16 and t[0][0] == CLASSES)],
        "70 channels": full + [((70, 20, 20), 0, 1.0, 0, b"\0" * 70 * 400 * 4, None, 32)],
        "a 30x30 grid": full[:5] + [((64, 30, 30), 0, 1.0, 0, b"\0" * 64 * 900 * 4, None, 0)],
        "two box tensors at stride 8": full + [t for t in full
                                               if t[6] == 8 and t[0][0] == 4 * BINS],
        "160x160 grids (too many cells)": full + [
            ((64, 160, 160), 0, 1.0, 0, b"\0" * 64 * 25600 * 4, None, 4),
            ((80, 160, 160), 0, 1.0, 0, b"\0" * 80 * 25600 * 4, None, 4)],
    }
    fails = []
    for name, tensors in cases.items():
        path = os.path.join(work, "refuse.bin")
        write_tensors(path, tensors, 640, 640)
        status, out, _ = run([harness, "detect", path], 120)
        m = re.search(r"^refused: (.+)$", out, re.M)
        print("refuses %s: %s" % (name, m.group(1) if m else "NO (status %d)" % status))
        if status != 1 or not m:
            fails.append("refusal '%s': status %d, output %s" % (name, status, out.strip()[-300:]))
    return fails


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    harness, work, models = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    if not os.path.isfile(harness):
        print("FAIL: missing file %s" % harness)
        return 1
    fresh_dir(work)
    fails = check_decode(harness, work, models, np.random.default_rng(2))
    fails += check_letterbox(harness, work, np.random.default_rng(1))
    fails += check_detect(harness, work)
    return finish("check_object_detect_yolo", fails)


if __name__ == "__main__":
    sys.exit(main())
