#!/usr/bin/env python3
"""Ping-pong and job cuts as Rockchip's runtime submits them (format.md §4.2).

Runs rknpu-run on real models with RKNPU_SUBMIT_LOG and reads every slice the
driver kicked. The words are decoded here, independently of the library:

* a slice has PC_TASK_CON.TASK_PP_EN (bit 12, and the log's "pp") set exactly
  when none of its tasks sets DPU LUT_ACCESS_CFG (0x4100, target DPU 0x1001)
  to write (ACCESS_TYPE, bit 17): a LUT upload must not be prefetched over;
* in a container-6 model a slice that uploads a LUT holds one node's records
  (librknnrt 1.6.0 cuts its jobs there: 70 jobs for PP-OCRv4 det);
* YOLOv8n (container 4) runs as the vendor's 6 jobs of 436, 9, 7, 9, 14 and 24
  records (its submission log; format.md §5.1), each opening with a LUT upload;
* the container-2 toy model on RK3588 (format.md §5.2) runs each core's
  chain as one job, as the vendor's submissions show: on one core the copy
  of the single-core group built for that core (records 0-1, 2-3 or 4-5,
  jobs of 2), on cores 0+1 records 6-8 and 9-11, on all three 12-14, 15-17
  and 18-20, one job of 3 records per core;
* the slices of one run cover the model's records once, in order, except an
  OutputOperator's: RK3566 multiple_input_demo's node 4 (rknn_inspect.py:
  OutputOperator, exec npu, tasks 2..9 after one task each of nodes 2 and 3)
  copies the output as NCHW int8 (records 2-3) or float32 (4-9) on the NPU;
  its run submits records 0 and 1 only, and rknpu-run's rknn_outputs_get
  (want_float) then records 4-9 as one job, as Rockchip's runtime does.

usage: check_pingpong.py RKNPU_RUN MODELS_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

DPU_TARGET = 0x1001
LUT_ACCESS_CFG = 0x4100
ACCESS_TYPE_WRITE = 1 << 17
TASK_PP_EN = 1 << 12


def uploads_lut(task):
    for text in task["words"]:
        w = int(text, 16)
        if w >> 48 == DPU_TARGET and w & 0xFFFF == LUT_ACCESS_CFG and (w >> 16) & ACCESS_TYPE_WRITE:
            return True
    return False


def slices_of(run, model, inputs, work, core_mask=None):
    log = os.path.join(work, os.path.basename(model) + ".jsonl")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, RKNPU_SUBMIT_LOG=log)
    args = [run, model, "--output-dir", work]
    if core_mask is not None:
        args += ["--core-mask", str(core_mask)]
    for path in inputs:
        args += ["--input", path]
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(log) as f:
        return [j for j in map(json.loads, f) if j.get("ev") == "slice"]


def check(name, slices, lut_alone, failures, records=None, skipped_node=None, after=()):
    expect_first = 0
    luts = 0
    tail = [(s["first"], s["count"]) for s in slices[len(slices) - len(after):]] if after else []
    if tail != list(after):
        failures.append("%s: after the run jobs of records %s, want %s" % (name, tail, list(after)))
    for s in slices[:len(slices) - len(after)]:
        lut = any(uploads_lut(t) for t in s["tasks"])
        luts += lut
        where = "%s job %d (records %d+%d)" % (name, s["job"], s["first"], s["count"])
        if s["pp"] != (0 if lut else 1) or bool(s["task_con"] & TASK_PP_EN) != bool(s["pp"]):
            failures.append("%s: pp %d, task_con 0x%x, uploads a LUT: %s" %
                            (where, s["pp"], s["task_con"], lut))
        if lut and lut_alone and len({t["op_idx"] for t in s["tasks"]}) != 1:
            failures.append("%s uploads a LUT but holds several nodes" % where)
        if s["first"] != expect_first or len(s["tasks"]) != s["count"]:
            failures.append("%s does not follow record %d" % (where, expect_first))
        if any(t["op_idx"] == skipped_node for t in s["tasks"]):
            failures.append("%s runs node %d's records" % (where, skipped_node))
        expect_first = s["first"] + s["count"]
    if records is not None and expect_first != records:
        failures.append("%s: the run ends at record %d, not %d" % (name, expect_first, records))
    print("  %-28s %3d job(s), %d with a LUT upload (ping-pong off)" % (name, len(slices), luts))
    return luts


# Container 2 on RK3588: core mask -> the jobs as [(core, first record, count)].
V2_CUTS = [(1, [[(0, 0, 2)]]), (2, [[(1, 2, 2)]]), (4, [[(2, 4, 2)]]),
           (3, [[(0, 6, 3), (1, 9, 3)]]), (7, [[(0, 12, 3), (1, 15, 3), (2, 18, 3)]])]


def check_v2_cuts(run, models, work, failures):
    name = "rk3588_multiple_input_demo.v2.rknn"
    paths = []
    for k, size in enumerate([128 * 128, 128 * 128 * 3]):
        paths.append(os.path.join(work, "%s.in%d.bin" % (name, k)))
        with open(paths[-1], "wb") as f:
            f.write(bytes(i * 7 % 256 for i in range(size)))
    for mask, want in V2_CUTS:
        jobs = {}
        for s in slices_of(run, os.path.join(models, name), paths, work, mask):
            jobs.setdefault(s["job"], []).append((s["core"], s["first"], s["count"]))
        got = [jobs[j] for j in sorted(jobs)]
        print("  %-28s mask %d: %s" % (name, mask, got))
        if got != want:
            failures.append("%s core mask %d: jobs %s, want %s" % (name, mask, got, want))


def main():
    run, models, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    # (model, inputs: a shared .npy or the byte size of a raw uint8 NHWC
    # input whose content does not matter here, LUT node alone, the jobs'
    # record counts Rockchip's runtime submits or None, records a run ends at
    # and the node it never runs, when not all; the jobs (first record,
    # count) rknn_outputs_get with want_float submits after the run)
    cases = [
        ("rk3588_ppocrv4_det.v6.rknn", ["ppocrv4_det/test1_nhwc_u8.npy"], True, None, None, None,
         ()),
        ("rk3588_multiple_input_demo.v6.rknn", [128 * 128, 128 * 128 * 3], True, None, None, None,
         ()),
        ("rk3566_multiple_input_demo.v6.rknn", [128 * 128, 128 * 128 * 3], True, None, 2, 4,
         [(4, 6)]),
        ("rk3566_yolov8n.v4.rknn", [640 * 640 * 3], False, [436, 9, 7, 9, 14, 24], None, None,
         ()),
    ]
    failures = []
    for name, inputs, lut_alone, jobs, records, skipped, after in cases:
        model = os.path.join(models, name)
        paths = []
        for k, inp in enumerate(inputs):
            if isinstance(inp, int):
                path = os.path.join(work, "%s.in%d.bin" % (name, k))
                with open(path, "wb") as f:
                    f.write(bytes(i * 7 % 256 for i in range(inp)))
            else:
                path = os.path.join(models, inp)
            paths.append(path)
        for path in [model] + paths:
            if not os.path.exists(path):
                print("FAIL: missing %s" % path)
                return 1
        slices = slices_of(run, model, paths, work)
        luts = check(name, slices, lut_alone, failures, records, skipped, after)
        if jobs is not None:
            counts = [s["count"] for s in slices]
            if counts != jobs or not all(uploads_lut(s["tasks"][0]) for s in slices):
                failures.append("%s: jobs of %s records, want %s, each opening with a LUT upload"
                                % (name, counts, jobs))
        if name.startswith("rk3588_ppocr") and luts == 0:
            failures.append("%s: no LUT upload seen (the check would prove nothing)" % name)
    check_v2_cuts(run, models, work, failures)
    for f in failures:
        print("FAIL: " + f)
    print("pingpong: %s" % ("FAIL" if failures else "OK"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
