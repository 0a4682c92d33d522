#!/usr/bin/env node
// Float reference for PP-OCRv4 text detection: runs PaddleOCR's own ONNX
// export on the CPU, independently of the RKNN container and of this
// project's NPU code, so the NPU's probability map can be judged against it.
// Needs scripts/install-ref-deps.sh (model + onnxruntime-node 1.18.0).
//
//   node tests/tools/ppocr_ref.js [--ref-dir DIR] [--threads N] [--loops N] IN_U8_NHWC.npy OUT.npy
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

// PaddleOCR's det preprocessing (ImageNet statistics on 0..255 RGB pixels).
const MEAN = [123.675, 116.28, 103.53];
const STD = [58.395, 57.12, 57.375];
const MODEL = 'ch_PP-OCRv4_det_infer.onnx';
const USAGE = 'usage: ppocr_ref.js [--ref-dir DIR] [--threads N] [--loops N] IN_U8_NHWC.npy OUT.npy';

function die(msg) {
  process.stderr.write(`ppocr_ref: ${msg}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const o = {
    refDir: process.env.RKNPU_REF_DIR || path.join(os.homedir(), '.cache/rknpu-bm/ref'),
    threads: 1, loops: 3, files: [],
  };
  const posInt = (name, s) => {
    if (!/^[1-9][0-9]*$/.test(s || '')) die(`${name} wants a positive integer\n${USAGE}`);
    return Number(s);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--ref-dir' && i + 1 < argv.length) o.refDir = argv[++i];
    else if (a === '--threads') o.threads = posInt(a, argv[++i]);
    else if (a === '--loops') o.loops = posInt(a, argv[++i]);
    else if (a.startsWith('--')) die(`unknown option ${a}\n${USAGE}`);
    else o.files.push(a);
  }
  if (o.files.length !== 2) die(USAGE);
  return o;
}

// Minimal .npy reader: only the one layout this tool accepts, checked rather
// than assumed, so a wrong file fails here instead of as a garbage map.
function readNpyU8(file) {
  let buf;
  try { buf = fs.readFileSync(file); } catch (e) { die(`cannot read ${file}: ${e.message}`); }
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') die(`${file}: not a .npy file`);
  const major = buf[6];
  const lenBytes = major === 1 ? 2 : (major === 2 || major === 3) ? 4 : 0;
  if (!lenBytes) die(`${file}: unsupported .npy version ${major}`);
  const hlen = lenBytes === 2 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = 8 + lenBytes + hlen;
  if (start > buf.length) die(`${file}: truncated header`);
  const header = buf.toString('latin1', 8 + lenBytes, start);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const order = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) die(`${file}: malformed header ${JSON.stringify(header)}`);
  if (!/^[|<>=]?u1$/.test(descr[1])) die(`${file}: dtype ${descr[1]}, want |u1 (uint8)`);
  if (order[1] !== 'False') die(`${file}: Fortran order, want C order`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  if (dims.length !== 4 || dims[0] !== 1 || dims[3] !== 3 || dims.some((d) => !Number.isInteger(d) || d <= 0))
    die(`${file}: shape (${dims}), want (1, H, W, 3) RGB NHWC`);
  const n = dims.reduce((a, b) => a * b, 1);
  if (buf.length - start !== n) die(`${file}: ${buf.length - start} data bytes, shape (${dims}) needs ${n}`);
  return { dims, data: buf.subarray(start) };
}

function writeNpyF32(file, dims, data) {
  // Pad so the data starts on a 64-byte boundary, as numpy itself does.
  let h = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  h += ' '.repeat(63 - ((10 + h.length) % 64)) + '\n';
  const out = Buffer.alloc(10 + h.length + data.length * 4);
  out.write('\x93NUMPY\x01\x00', 0, 'latin1');
  out.writeUInt16LE(h.length, 8);
  out.write(h, 10, 'latin1');
  for (let i = 0; i < data.length; i++) out.writeFloatLE(data[i], 10 + h.length + i * 4);
  try { fs.writeFileSync(file, out); } catch (e) { die(`cannot write ${file}: ${e.message}`); }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require(require.resolve('onnxruntime-node', { paths: [o.refDir] }));
  } catch (e) {
    die(`onnxruntime-node not found under ${o.refDir} (run scripts/install-ref-deps.sh): ${e.message}`);
  }
  const modelPath = path.join(o.refDir, MODEL);
  if (!fs.existsSync(modelPath)) die(`${modelPath} missing (run scripts/install-ref-deps.sh)`);

  const { dims, data } = readNpyU8(o.files[0]);
  const [, H, W] = dims;
  const x = new Float32Array(3 * H * W);
  for (let c = 0; c < 3; c++)
    for (let p = 0; p < H * W; p++) x[c * H * W + p] = (data[p * 3 + c] - MEAN[c]) / STD[c];

  const sess = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: o.threads, interOpNumThreads: 1, executionMode: 'sequential',
  });
  const feeds = { [sess.inputNames[0]]: new ort.Tensor('float32', x, [1, 3, H, W]) };
  let res = await sess.run(feeds); // warm-up: first run pays for allocation
  const times = [];
  for (let i = 0; i < o.loops; i++) {
    const t0 = process.hrtime.bigint();
    res = await sess.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;

  const y = res['sigmoid_0.tmp_0'] || res[sess.outputNames[0]];
  if (y.type !== 'float32') die(`output type ${y.type}, want float32`);
  writeNpyF32(o.files[1], y.dims, y.data);
  console.log(`onnxruntime_s_per_inference ${median.toFixed(6)}`);
}

main().catch((e) => die(e.stack || String(e)));
