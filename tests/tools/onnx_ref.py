#!/usr/bin/python3
"""onnx_ref.py - float reference output of multiple_input_demo/test.onnx.

usage: /usr/bin/python3 tests/tools/onnx_ref.py MODEL_DIR OUT_FILE

MODEL_DIR is shared/models/multiple_input_demo (test.onnx, input1.bin,
input2.bin: uint8 NHWC 128x128x1 and 128x128x3, the vendor demo inputs).
The graph (Conv, Conv, Add) is evaluated in float64 with numpy directly
from the ONNX nodes and initializers (no onnxruntime), for inputs fed as
their float pixel values; the graph output is written to OUT_FILE as raw
little-endian float32 NCHW [1, C, H, W]. test_vnpu_vendor reads it and
quantises it with the output tensor's scale and zero point.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def conv2d(x, w, b, node):
    """NCHW float64 convolution with the node's pads/strides/dilations/group."""
    pads = attr(node, 'pads', [0, 0, 0, 0])
    strides = attr(node, 'strides', [1, 1])
    dil = attr(node, 'dilations', [1, 1])
    group = attr(node, 'group', 1)
    n, c, h, wd = x.shape
    k, cg, kh, kw = w.shape
    if group != 1 or cg != c:
        raise SystemExit('onnx_ref: only group=1 convolutions are supported')
    xp = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]))
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    ho = (xp.shape[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    wo = (xp.shape[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, k, ho, wo))
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dil[0], kx * dil[1]
            win = xp[:, :, y0:y0 + strides[0] * (ho - 1) + 1:strides[0],
                     x0:x0 + strides[1] * (wo - 1) + 1:strides[1]]
            out += np.einsum('kc,nchw->nkhw', w[:, :, ky, kx], win)
    if b is not None:
        out += b[None, :, None, None]
    return out


def load_inputs(model_dir, graph):
    """Graph inputs by channel count: input1.bin has 1 channel, input2.bin 3."""
    files = {1: 'input1.bin', 3: 'input2.bin'}
    values = {}
    for gi in graph.input:
        dims = [d.dim_value for d in gi.type.tensor_type.shape.dim]
        if len(dims) != 4 or dims[1] not in files:
            raise SystemExit('onnx_ref: unexpected input %s %s' % (gi.name, dims))
        _, c, h, w = dims
        raw = np.fromfile(os.path.join(model_dir, files[c]), np.uint8)
        values[gi.name] = raw.reshape(1, h, w, c).transpose(0, 3, 1, 2).astype(np.float64)
    return values


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    model_dir, out_file = sys.argv[1], sys.argv[2]
    graph = onnx.load(os.path.join(model_dir, 'test.onnx')).graph
    values = load_inputs(model_dir, graph)
    for init in graph.initializer:
        values[init.name] = numpy_helper.to_array(init).astype(np.float64)
    for node in graph.node:
        if node.op_type == 'Conv':
            b = values[node.input[2]] if len(node.input) > 2 else None
            values[node.output[0]] = conv2d(values[node.input[0]], values[node.input[1]], b, node)
        elif node.op_type == 'Add':
            values[node.output[0]] = values[node.input[0]] + values[node.input[1]]
        else:
            raise SystemExit('onnx_ref: unsupported op ' + node.op_type)
    out = values[graph.output[0].name].astype('<f4')
    out.tofile(out_file)
    print('onnx_ref: %s %s float32 NCHW -> %s' % (graph.output[0].name, list(out.shape), out_file))


if __name__ == '__main__':
    main()
