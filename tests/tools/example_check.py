"""example_check.py - what the checks of the examples share
(check_text_detect.py, check_object_detect.py, check_object_detect_yolo.py,
and run() for check_ppocr.py), so that each runs, shows and sums up the same
way. Imported by path (sys.path gets tests/tools), not run.

- run: a command's status, output and time, never raising;
- run_example: the same, the command and its output shown, failure lines
  for a bad exit status or a missing last line;
- command_line: SHARED_MODELS WORK_DIR (--host EXAMPLE | -- CMD...);
- fresh_dir, finish: an empty work directory; the FAIL lines and verdict;
- png_size, read_ppm, write_ppm: pictures the examples write or are given;
- iou: of two boxes (x0, y0, x1, y1).
"""
import os
import re
import shutil
import struct
import subprocess
import time


def run(args, timeout=600):
    """(status, stdout + stderr, seconds) of a command; never raises."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr, time.monotonic() - t0
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "%s: %s" % (args[0], e), time.monotonic() - t0


def run_example(name, cmd, ok_line, timeout):
    """(output, failure lines) of one run of an example, shown with its
    command line, time and exit status; it fails on a non-zero exit status
    or, given ok_line (firmware's last line), an output without it."""
    status, out, took = run(cmd, timeout)
    print("%s: %s (%.1f s, exit %d)" % (name, " ".join(cmd), took, status))
    print("\n".join("  | " + line for line in out.rstrip().splitlines()))
    if status != 0:
        return out, ["%s: exit status %d" % (name, status)]
    if ok_line and ok_line not in out:
        return out, ["%s: output lacks '%s'" % (name, ok_line)]
    return out, []


def command_line(argv, script, example):
    """(models, work, host example or None, firmware command or []) from
    `SHARED_MODELS WORK_DIR (--host EXAMPLE | -- CMD...)`, or None after
    printing the usage."""
    cmd = argv[argv.index("--") + 1:] if "--" in argv else []
    args = argv[:argv.index("--")] if "--" in argv else argv
    host = args[3] if len(args) == 4 and args[2] == "--host" else None
    if len(args) != (4 if host else 2) or not (host or cmd):
        print("usage: %s SHARED_MODELS WORK_DIR (--host %s | -- CMD...)" % (script, example))
        return None
    return args[0], os.path.abspath(args[1]), host, cmd


def fresh_dir(path):
    """path as an empty directory (what an earlier run left is removed)."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)


def finish(script, fails):
    """Prints the failures and the verdict; the exit status."""
    for f in fails:
        print("FAIL: " + f)
    print("%s: %s" % (script, "FAIL" if fails else "PASS"))
    return 1 if fails else 0


def png_size(path):
    """(width, height) from a PNG's IHDR, or None if it is not a PNG or not there."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def write_ppm(path, img):
    """A uint8 HxWx3 array as a binary PPM."""
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (img.shape[1], img.shape[0]) + img.tobytes())


def read_ppm(path):
    """A binary PPM (maxval 255, no comments) as a uint8 HxWx3 array."""
    import numpy as np  # only the scripts that read pictures need numpy

    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", data)
    w, h = int(m.group(1)), int(m.group(2))
    return np.frombuffer(data[m.end():], dtype=np.uint8).reshape(h, w, 3)


def iou(a, b):
    """Intersection over union of two boxes (x0, y0, x1, y1)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    inter = w * h if w > 0 and h > 0 else 0.0
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
