#!/usr/bin/env node
// Float reference for YOLOv8n object detection: runs Ultralytics' own float
// ONNX export of YOLOv8n (COCO-80, 640x640) on the CPU, independently of the
// RKNN container and of this project's NPU code, so the NPU's detections on
// the same image can be judged against it. Needs tests/tools/fetch_yolo_ref.sh
// (model + onnxruntime-node 1.18.0 under ~/.cache/rknpu-bm/ref).
//
//   node tests/tools/yolo_ref.js [options] MODEL.onnx IMAGE
//     --ref-dir DIR        where onnxruntime-node is installed (default
//                          $RKNPU_REF_DIR or ~/.cache/rknpu-bm/ref)
//     --score S            score threshold (default 0.25)
//     --iou T              class-wise NMS IoU threshold (default 0.45)
//     --threads N          onnxruntime intra-op threads (default 1)
//     --save-input F.npy   also write the letterboxed pixels, uint8
//                          [1,640,640,3] RGB, so the NPU can be fed the
//                          very same input
//     --raw-outputs DIR    also write every graph output after output0 as
//                          DIR/raw_K.npy (K from 0, graph order), float32
//                          in the output's own shape: for a copy of the
//                          model that exposes the head's tensors
//                          (yolo_heads_onnx.py), so the NPU's raw outputs
//                          can be compared before any post-processing
//
// IMAGE is a binary PPM (P6, maxval 255) read here, or anything Pillow opens
// (JPEG, PNG), decoded to RGB by /usr/bin/python3 + PIL, because node has
// no image decoder of its own and Debian's python3-pil is already a test
// dependency. Prints one detection a line, best score first:
//   class_name score x0 y0 x1 y1
// in the original image's pixel coordinates; spaces in COCO names become
// '_' (stop_sign) so every line splits into six fields.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const SIZE = 640;
const PAD = 114; // the grey the Ultralytics and RKNN model zoo letterboxes use
const USAGE = 'usage: yolo_ref.js [--ref-dir DIR] [--score S] [--iou T] [--threads N] [--save-input F.npy] [--raw-outputs DIR] MODEL.onnx IMAGE';
const COCO = [
  'person', 'bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat',
  'traffic light', 'fire hydrant', 'stop sign', 'parking meter', 'bench', 'bird', 'cat', 'dog',
  'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe', 'backpack', 'umbrella',
  'handbag', 'tie', 'suitcase', 'frisbee', 'skis', 'snowboard', 'sports ball', 'kite',
  'baseball bat', 'baseball glove', 'skateboard', 'surfboard', 'tennis racket', 'bottle',
  'wine glass', 'cup', 'fork', 'knife', 'spoon', 'bowl', 'banana', 'apple', 'sandwich', 'orange',
  'broccoli', 'carrot', 'hot dog', 'pizza', 'donut', 'cake', 'chair', 'couch', 'potted plant',
  'bed', 'dining table', 'toilet', 'tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell phone',
  'microwave', 'oven', 'toaster', 'sink', 'refrigerator', 'book', 'clock', 'vase', 'scissors',
  'teddy bear', 'hair drier', 'toothbrush',
];

function die(msg) {
  process.stderr.write(`yolo_ref: ${msg}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const o = {
    refDir: process.env.RKNPU_REF_DIR || path.join(os.homedir(), '.cache/rknpu-bm/ref'),
    score: 0.25, iou: 0.45, threads: 1, saveInput: null, rawDir: null, files: [],
  };
  const unit = (name, s) => {
    const v = Number(s);
    if (s === undefined || s === '' || !(v >= 0 && v <= 1)) die(`${name} wants a number in [0, 1]\n${USAGE}`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--ref-dir' && i + 1 < argv.length) o.refDir = argv[++i];
    else if (a === '--score') o.score = unit(a, argv[++i]);
    else if (a === '--iou') o.iou = unit(a, argv[++i]);
    else if (a === '--threads') {
      if (!/^[1-9][0-9]*$/.test(argv[++i] || '')) die(`--threads wants a positive integer\n${USAGE}`);
      o.threads = Number(argv[i]);
    } else if (a === '--save-input' && i + 1 < argv.length) o.saveInput = argv[++i];
    else if (a === '--raw-outputs' && i + 1 < argv.length) o.rawDir = argv[++i];
    else if (a.startsWith('--')) die(`unknown option ${a}\n${USAGE}`);
    else o.files.push(a);
  }
  if (o.files.length !== 2) die(USAGE);
  return o;
}

// P6 only: header tokens (comments allowed), one whitespace byte, then RGB.
function parsePpm(buf, name) {
  let pos = 0;
  const token = () => {
    for (;;) {
      while (pos < buf.length && /\s/.test(String.fromCharCode(buf[pos]))) pos++;
      if (buf[pos] !== 0x23) break; // '#': comment to end of line
      while (pos < buf.length && buf[pos] !== 0x0a) pos++;
    }
    const s = pos;
    while (pos < buf.length && !/\s/.test(String.fromCharCode(buf[pos]))) pos++;
    return buf.toString('latin1', s, pos);
  };
  if (token() !== 'P6') die(`${name}: not a binary PPM (P6)`);
  const w = Number(token()), h = Number(token()), max = Number(token());
  if (!(w > 0 && h > 0) || max !== 255) die(`${name}: want P6 with maxval 255, got ${w}x${h} max ${max}`);
  pos++;
  if (buf.length - pos < w * h * 3) die(`${name}: truncated, ${buf.length - pos} of ${w * h * 3} pixel bytes`);
  return { w, h, rgb: buf.subarray(pos, pos + w * h * 3) };
}

function readImage(file) {
  let buf;
  try { buf = fs.readFileSync(file); } catch (e) { die(`cannot read ${file}: ${e.message}`); }
  if (buf.toString('latin1', 0, 2) === 'P6') return parsePpm(buf, file);
  const py = 'import sys\nfrom PIL import Image\nim = Image.open(sys.argv[1]).convert("RGB")\n' +
    'sys.stdout.buffer.write(b"P6\\n%d %d\\n255\\n" % im.size + im.tobytes())\n';
  let ppm;
  try {
    ppm = execFileSync('/usr/bin/python3', ['-c', py, file], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    die(`cannot decode ${file} with /usr/bin/python3 + PIL (apt-get install python3-pil): ${e.stderr || e.message}`);
  }
  return parsePpm(ppm, file);
}

// Keep the aspect ratio, scale the longer side to SIZE, centre it on grey.
// Rounding follows the Ultralytics letterbox (the odd padding pixel goes to
// the right/bottom); the resize is bilinear with pixel centres at +0.5 (as
// OpenCV's INTER_LINEAR, no antialiasing), rounded back to uint8 since the
// NPU is also fed uint8 pixels.
function letterbox(img) {
  const r = Math.min(SIZE / img.w, SIZE / img.h);
  const nw = Math.round(img.w * r), nh = Math.round(img.h * r);
  const left = Math.round((SIZE - nw) / 2 - 0.1), top = Math.round((SIZE - nh) / 2 - 0.1);
  const out = new Uint8Array(SIZE * SIZE * 3).fill(PAD);
  const sx = img.w / nw, sy = img.h / nh;
  for (let y = 0; y < nh; y++) {
    const fy = Math.min(Math.max((y + 0.5) * sy - 0.5, 0), img.h - 1);
    const y0 = Math.floor(fy), y1 = Math.min(y0 + 1, img.h - 1), wy = fy - y0;
    for (let x = 0; x < nw; x++) {
      const fx = Math.min(Math.max((x + 0.5) * sx - 0.5, 0), img.w - 1);
      const x0 = Math.floor(fx), x1 = Math.min(x0 + 1, img.w - 1), wx = fx - x0;
      const o = ((top + y) * SIZE + left + x) * 3;
      for (let c = 0; c < 3; c++) {
        const p = (yy, xx) => img.rgb[(yy * img.w + xx) * 3 + c];
        const v = (1 - wy) * ((1 - wx) * p(y0, x0) + wx * p(y0, x1)) + wy * ((1 - wx) * p(y1, x0) + wx * p(y1, x1));
        out[o + c] = Math.round(v);
      }
    }
  }
  return { pixels: out, r, left, top };
}

function writeNpy(file, descr, dims, data) {
  // Pad so the data starts on a 64-byte boundary, as numpy itself does.
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  h += ' '.repeat(63 - ((10 + h.length) % 64)) + '\n';
  const out = Buffer.alloc(10 + h.length + data.byteLength);
  out.write('\x93NUMPY\x01\x00', 0, 'latin1');
  out.writeUInt16LE(h.length, 8);
  out.write(h, 10, 'latin1');
  Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, 10 + h.length);
  try { fs.writeFileSync(file, out); } catch (e) { die(`cannot write ${file}: ${e.message}`); }
}

function iou(a, b) {
  const iw = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const ih = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
}

// Output [1, 4+80, N]: per anchor cx, cy, w, h (letterboxed pixels) and 80
// class scores already through the sigmoid. One class per anchor (its best),
// as Ultralytics predicts by default; NMS only among boxes of one class.
function decode(y, n, o) {
  const cand = [];
  for (let i = 0; i < n; i++) {
    let best = 0, cls = -1;
    for (let c = 0; c < COCO.length; c++) {
      const s = y[(4 + c) * n + i];
      if (s > best) { best = s; cls = c; }
    }
    if (cls < 0 || best < o.score) continue;
    const cx = y[i], cy = y[n + i], w = y[2 * n + i], h = y[3 * n + i];
    cand.push({ cls, score: best, box: [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2] });
  }
  cand.sort((a, b) => b.score - a.score);
  const kept = [];
  for (const d of cand)
    if (!kept.some((k) => k.cls === d.cls && iou(k.box, d.box) > o.iou)) kept.push(d);
  return kept;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const [modelPath, imagePath] = o.files;
  let ort;
  try {
    ort = require(require.resolve('onnxruntime-node', { paths: [o.refDir] }));
  } catch (e) {
    die(`onnxruntime-node not found under ${o.refDir} (run tests/tools/fetch_yolo_ref.sh): ${e.message}`);
  }
  if (!fs.existsSync(modelPath)) die(`${modelPath} missing (run tests/tools/fetch_yolo_ref.sh)`);

  const img = readImage(imagePath);
  const lb = letterbox(img);
  if (o.saveInput) writeNpy(o.saveInput, '|u1', [1, SIZE, SIZE, 3], lb.pixels);
  const plane = SIZE * SIZE;
  const x = new Float32Array(3 * plane);
  for (let p = 0; p < plane; p++)
    for (let c = 0; c < 3; c++) x[c * plane + p] = lb.pixels[p * 3 + c] / 255;

  const sess = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: o.threads, interOpNumThreads: 1, executionMode: 'sequential',
  });
  const res = await sess.run({ [sess.inputNames[0]]: new ort.Tensor('float32', x, [1, 3, SIZE, SIZE]) });
  const y = res[sess.outputNames[0]];
  if (o.rawDir) {
    try { fs.mkdirSync(o.rawDir, { recursive: true }); } catch (e) { die(`cannot create ${o.rawDir}: ${e.message}`); }
    sess.outputNames.slice(1).forEach((name, k) => {
      const t = res[name];
      if (t.type !== 'float32') die(`output ${name} is ${t.type}, --raw-outputs writes float32 only`);
      writeNpy(path.join(o.rawDir, `raw_${k}.npy`), '<f4', t.dims, t.data);
    });
  }
  const [b, ch, n] = y.dims;
  if (y.type !== 'float32' || y.dims.length !== 3 || b !== 1 || ch !== 4 + COCO.length)
    die(`output ${y.type} [${y.dims}], want float32 [1, ${4 + COCO.length}, N] (an Ultralytics detect export)`);

  const clip = (v, hi) => Math.min(Math.max(v, 0), hi);
  for (const d of decode(y.data, n, o)) {
    const [x0, y0, x1, y1] = d.box;
    const bx = [clip((x0 - lb.left) / lb.r, img.w), clip((y0 - lb.top) / lb.r, img.h),
      clip((x1 - lb.left) / lb.r, img.w), clip((y1 - lb.top) / lb.r, img.h)];
    console.log(`${COCO[d.cls].replace(/ /g, '_')} ${d.score.toFixed(4)} ${bx.map((v) => v.toFixed(1)).join(' ')}`);
  }
}

main().catch((e) => die(e.stack || String(e)));
