#!/usr/bin/python3
"""yolo_heads_onnx.py - copy an Ultralytics YOLOv8 detect ONNX so that it
also outputs the six head tensors the RKNN model zoo's int8 YOLOv8 returns.

usage: yolo_heads_onnx.py IN.onnx OUT.onnx

The RKNN model ends, per stride 8, 16 and 32, in the box branch's last Conv
(cv2.i.2: DFL logits [1,64,H,W]) and the class branch's last Conv (cv3.i.2,
[1,80,H,W], followed there by a sigmoid); Ultralytics' export goes on with
Concat, DFL and the sigmoid to output0 [1,84,8400]. The tensors are found by
structure, not by name, so a re-export with other node names still works:
each Detect level concatenates (axis 1) exactly two Conv outputs, one with
64 and one with 80 channels, and the three levels have H = W = 80, 40, 20.
They are appended after output0 in the RKNN model's output order (box 80,
class 80, box 40, class 40, box 20, class 20), so yolo_ref.js --raw-outputs
writes them as raw_0..raw_5.npy. The class tensors stay logits: the sigmoid
is the comparison's job. Prints one line per tensor: raw_K NAME [shape].
Exit status 1 when the graph does not have that structure.
"""
import sys

import onnx
from onnx import TensorProto, helper, shape_inference

BOX_C, CLS_C, SIZE = 64, 80, 640
STRIDES = (8, 16, 32)


def die(msg):
    print("yolo_heads_onnx: %s" % msg, file=sys.stderr)
    sys.exit(1)


def dims(vi):
    return [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim]


def main():
    if len(sys.argv) != 3:
        die("usage: yolo_heads_onnx.py IN.onnx OUT.onnx")
    try:
        model = onnx.load(sys.argv[1])
    except Exception as e:  # OSError, or onnx's own errors for a broken file
        die("cannot load %s: %s" % (sys.argv[1], e))
    # Shapes are not stored for intermediate tensors of this export; the
    # inferred copy is only read, the written model is the original plus outputs.
    inferred = shape_inference.infer_shapes(model)
    shape = {vi.name: dims(vi)
             for vi in list(inferred.graph.value_info) + list(inferred.graph.output)}
    conv_out = {n.output[0] for n in model.graph.node if n.op_type == "Conv"}

    levels = {}  # H -> (box tensor, class tensor)
    for n in model.graph.node:
        axis = [a.i for a in n.attribute if a.name == "axis"]
        if n.op_type != "Concat" or axis != [1] or len(n.input) != 2:
            continue
        if not all(i in conv_out for i in n.input):
            continue
        s = [shape.get(i) for i in n.input]
        if any(x is None or len(x) != 4 or x[0] != 1 for x in s):
            continue
        chans = sorted(x[1] for x in s)
        if chans != [BOX_C, CLS_C] or s[0][2:] != s[1][2:] or s[0][2] != s[0][3]:
            continue
        box = n.input[[x[1] for x in s].index(BOX_C)]
        cls = n.input[[x[1] for x in s].index(CLS_C)]
        if s[0][2] in levels:
            die("two Detect levels with H = %d (%s and %s)" % (s[0][2], levels[s[0][2]], n.name))
        levels[s[0][2]] = (box, cls)
    want = [SIZE // st for st in STRIDES]
    if sorted(levels, reverse=True) != want:
        die("want Detect levels (Concat of a 64- and an 80-channel Conv) with H = %s, found %s"
            % (want, sorted(levels, reverse=True)))

    k = 0
    for h in want:
        for name, c in zip(levels[h], (BOX_C, CLS_C)):
            model.graph.output.append(
                helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, c, h, h]))
            print("raw_%d %s [1, %d, %d, %d]" % (k, name, c, h, h))
            k += 1
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[2])


if __name__ == "__main__":
    main()
