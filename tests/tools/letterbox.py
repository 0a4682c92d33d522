#!/usr/bin/python3
"""letterbox.py - a picture as YOLOv8's 640x640 network input, the way
Ultralytics and the vendor's YOLOv8 demo prepare it: aspect kept, resized
bilinearly by Pillow, centred on grey 114; written as raw uint8 RGB NHWC.

    /usr/bin/python3 tests/tools/letterbox.py PICTURE OUT.bin
"""
import sys

from PIL import Image

SIDE = 640


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    im = Image.open(sys.argv[1]).convert("RGB")
    s = min(SIDE / im.width, SIDE / im.height)
    w, h = round(im.width * s), round(im.height * s)
    page = Image.new("RGB", (SIDE, SIDE), (114, 114, 114))
    page.paste(im.resize((w, h), Image.BILINEAR), ((SIDE - w) // 2, (SIDE - h) // 2))
    with open(sys.argv[2], "wb") as f:
        f.write(page.tobytes())
    return 0


if __name__ == "__main__":
    sys.exit(main())
