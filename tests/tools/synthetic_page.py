#!/usr/bin/python3
"""synthetic_page.py OUT.png - a 640x480 page of eight text lines in the
DejaVu fonts (Debian's fonts-dejavu-core), drawn by the project itself so the
README's text-detection picture owes nothing to another repository:

    /usr/bin/python3 tests/tools/synthetic_page.py page.png
    build/host/examples/text_detect ../shared/models/rk3588_ppocrv4_det.v6.rknn \\
        page.png --out docs/img/text_detect_synthetic.png
"""
import sys

from PIL import Image, ImageDraw, ImageFont

FONTS = "/usr/share/fonts/truetype/dejavu/"
LINES = [("DejaVuSans-Bold.ttf", 34, "rknpu-bm text detection"),
         ("DejaVuSans.ttf", 22, "PP-OCRv4 det on the virtual NPU"),
         ("DejaVuSans.ttf", 22, "bare metal, no heap, no Linux"),
         ("DejaVuSansMono.ttf", 20, "rknn_init -> rknn_run -> outputs"),
         ("DejaVuSerif.ttf", 24, "RK3588: three cores, 1614 tasks"),
         ("DejaVuSans.ttf", 18, "DB post-processing: binarize, regions,"),
         ("DejaVuSans.ttf", 18, "minimum-area boxes, unclip"),
         ("DejaVuSans-Bold.ttf", 28, "Total  42.00")]


def main():
    img = Image.new("RGB", (640, 480), (245, 243, 236))
    draw = ImageDraw.Draw(img)
    y = 30
    for font, size, text in LINES:
        draw.text((40, y), text, fill=(20, 20, 30), font=ImageFont.truetype(FONTS + font, size))
        y += int(size * 1.9)
    img.save(sys.argv[1])


if __name__ == "__main__":
    main()
