#!/usr/bin/python3
"""check_object_detect.py - examples/object_detect on the two COCO pictures.

    /usr/bin/python3 tests/tools/check_object_detect.py SHARED_MODELS WORK_DIR --host OBJECT_DETECT
    /usr/bin/python3 tests/tools/check_object_detect.py SHARED_MODELS WORK_DIR -- CMD...

--host runs the host example on each JPEG with --out (the PNG it writes
must have the picture's size). After -- , CMD is the firmware (QEMU:
qemu-run.sh ... object_detect.elf), which has both pictures linked in,
prints a block per picture headed by its file name, and must end with
'object_detect: OK'.

No float model ships with rk3566_yolov8n.v4.rknn, so the reference is the
picture itself: what it shows was looked at by eye and written down below,
with the box drawn by hand around the object it is of. Per picture:
- the detection printed first has the highest score (the lines come sorted
  by score), is of the class the picture shows, and its box overlaps the
  hand-drawn box with IoU >= 0.7;
- every other detection scoring above 0.5 is of a class the picture
  visibly holds (ALLOWED); a confident detection of anything else is wrong;
- every box lies inside the picture with x0 <= x1 and y0 <= y1, and the
  count line agrees with the lines printed.
A missing model, picture or example is a failure naming it, never a skip. Exit status 0 when everything passed, 1 otherwise.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from example_check import (command_line, finish, fresh_dir, iou, png_size,  # noqa: E402
                           run_example)

MODEL = "rk3566_yolov8n.v4.rknn"
IOU_MIN = 0.7
CONFIDENT = 0.5

# The pictures, looked at in an image viewer at 2x to 5x zoom (pixel
# coordinates: x right, y down, box edges as x0 y0 x1 y1 with x1/y1 one past
# the last pixel of the object).
PICTURES = {
    # 586x640: a brown bear's head and shoulders filling the frame, grass
    # behind. Box: the fur meets the grass at the top of the hump between
    # the ears at y = 71; the body runs off the left edge below y ~ 400, off
    # the right edge below y ~ 315 and off the bottom, so the box is the
    # whole width and everything below the hump. Nothing else is in the
    # picture.
    "coco_000000000285.jpg": {
        "size": (586, 640),
        "main": "bear",
        "box": (0, 71, 586, 640),
        "allowed": {"bear"},
    },
    # 375x500: an upside-down stop sign on its pole in front of a street.
    # Box: the octagon with its white rim, from the pixel rows and columns
    # where the rim meets the sky and trees (x 120..253, y 74..223; the red
    # face alone spans x 125..249, y 77..~219). Also visible: a white
    # pickup truck carrying tree-trimming gear behind the hedge on the left
    # (x ~ 20..145, y ~ 260..310; a detector may call it truck or car) and
    # the back of a second octagonal sign on a post (x ~ 203..221,
    # y ~ 260..285). No person is visible; the rest is trees, hedges, a
    # building, a red trailer frame and a yellow road sign.
    "coco_000000000724.jpg": {
        "size": (375, 500),
        "main": "stop sign",
        "box": (120, 74, 254, 224),
        "allowed": {"stop sign", "truck", "car"},
    },
}

IMAGE_DIR = "yolov8n_rk3566"
HEADER = re.compile(r"^object_detect: image (.+) (\d+)x(\d+)$")
DETECTION = re.compile(r"^detection (\d+): (.+) score (\d+\.\d+) box (-?[\d.]+) (-?[\d.]+) "
                       r"(-?[\d.]+) (-?[\d.]+)$")
COUNT = re.compile(r"^object_detect: (\d+) detections$")


def blocks(out):
    """{picture name: (width, height, [(class, score, box)], count or None)}
    from the example's output, one block per 'object_detect: image' line."""
    found, current = {}, None
    for line in out.splitlines():
        line = line.strip()
        m = HEADER.match(line)
        if m:
            current = os.path.basename(m.group(1))
            found[current] = (int(m.group(2)), int(m.group(3)), [], None)
            continue
        if current is None:
            continue
        w, h, dets, count = found[current]
        m = DETECTION.match(line)
        if m:
            dets.append((m.group(2), float(m.group(3)), tuple(float(v) for v in m.groups()[3:])))
        m = COUNT.match(line)
        if m:
            found[current] = (w, h, dets, int(m.group(1)))
    return found


def judge(run_name, picture, block):
    """Failure lines for one picture's block (printing what it found)."""
    facts = PICTURES[picture]
    name = "%s %s" % (run_name, picture)
    if block is None:
        return ["%s: no 'object_detect: image %s' block in the output" % (name, picture)]
    w, h, dets, count = block
    fails = []
    if count is None:
        fails.append("%s: no 'object_detect: N detections' line" % name)
    elif count != len(dets):
        fails.append("%s: says %d detections, printed %d" % (name, count, len(dets)))
    if (w, h) != facts["size"]:
        fails.append("%s: image %dx%d, the picture is %dx%d" % ((name, w, h) + facts["size"]))
    for i, (cls, score, box) in enumerate(dets):
        print("%s: %-10s %.3f box %s IoU with the hand box %.2f"
              % (name, cls, score, " ".join("%.1f" % v for v in box), iou(box, facts["box"])))
        if not (0 <= box[0] <= box[2] <= w and 0 <= box[1] <= box[3] <= h):
            fails.append("%s: detection %d's box %s leaves the %dx%d picture" % (name, i, box, w, h))
    if any(dets[i][1] < dets[i + 1][1] for i in range(len(dets) - 1)):
        fails.append("%s: detections are not sorted by score" % name)
    if not dets:
        return fails + ["%s: nothing detected; the picture shows a %s" % (name, facts["main"])]
    cls, score, box = dets[0]
    overlap = iou(box, facts["box"])
    if cls != facts["main"] or overlap < IOU_MIN:
        fails.append("%s: the best detection is %s %.3f with IoU %.2f against the hand box %s; "
                     "want %s with IoU >= %.1f" % (name, cls, score, overlap, facts["box"],
                                                   facts["main"], IOU_MIN))
    for i, (cls, score, _) in enumerate(dets):
        if score > CONFIDENT and cls not in facts["allowed"]:
            fails.append("%s: detection %d is a %s at %.3f, but the picture holds only %s"
                         % (name, i, cls, score, ", ".join(sorted(facts["allowed"]))))
    return fails


def host_runs(example, models, work):
    fails = []
    for picture, facts in PICTURES.items():
        drawn = os.path.join(work, picture.replace(".jpg", "_boxes.png"))
        cmd = [example, os.path.join(models, MODEL), os.path.join(models, IMAGE_DIR, picture),
               "--out", drawn]
        out, f = run_example("host %s" % picture, cmd, None, 280)
        if f:
            fails += f
            continue
        fails += judge("host", picture, blocks(out).get(picture))
        if png_size(drawn) != facts["size"]:
            fails.append("host %s: --out %s is not a %dx%d PNG" % ((picture, drawn) + facts["size"]))
    return fails


def firmware_run(cmd):
    out, fails = run_example("firmware", cmd, "object_detect: OK", 840)
    if fails:
        return fails
    found = blocks(out)
    fails = []
    for picture in PICTURES:
        fails += judge("firmware", picture, found.get(picture))
    return fails


def missing(models, example):
    need = [os.path.join(models, MODEL)]
    need += [os.path.join(models, IMAGE_DIR, p) for p in PICTURES]
    if example:
        need.append(example)
    return ["missing file %s" % p for p in need if not os.path.isfile(p)]


def main():
    parsed = command_line(sys.argv[1:], "check_object_detect.py", "OBJECT_DETECT")
    if parsed is None:
        return 1
    models, work, example, cmd = parsed
    fails = missing(models, example)
    if not fails:
        fresh_dir(work)
        fails = host_runs(example, models, work) if example else firmware_run(cmd)
    return finish("check_object_detect", fails)


if __name__ == "__main__":
    sys.exit(main())
