#!/usr/bin/python3
"""vendor_backlog.py - draft tests/vendor/parity-backlog.txt from a full report.

    vendor_backlog.py REPORT.txt [--compat docs/compat.md] > parity-backlog.txt

Every difference of REPORT (scripts/vendor-diff.sh's vendor-diff-report.txt)
that docs/compat.md §3 does not list is grouped by model, area and what it
is (submissions: per run; other areas: the key with its numbers as `*`),
and each group becomes one line: its count as the ceiling, the patterns,
and "open" as the reason, to be edited. The parity work lowers the
ceilings; the goal is an empty file.
"""
import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vendor_diff import Accounting, glob, group_of  # noqa: E402


# What is open, by model pattern, area (None: any) and difference pattern
# (vendor_diff.glob); the first that fits names the group.
REASONS = [
    ("*.v2", "submissions", "*",
     "container 2: CNA/CORE S_POINTER left to the driver (the vendor patches the core index "
     "into its lists), task lengths, one job per node on two and three cores"),
    ("rk3566_yolov8n.v4", "submissions", "*",
     "container 4: the same 499 tasks in the same 6 jobs and the same register words as the "
     "vendor (format.md §5.1); open: data addresses as normalised: the bias (BS) of the 20 "
     "tasks whose bias is under 256 bytes (the hashed bytes run into the next constant, laid "
     "out otherwise), the output convolutions' destinations (the vendor's outputs in buffers "
     "of their own), zero-copy's internal tensors (named by bytes the CPU wrote there before)"),
    ("matmul_rk3588", "submissions", "*",
     "the matmul API's streams: int4 runs on the NPU's int8 path here (unpacked when bound), the "
     "vendor runs it in int4 precision (CONV_CON1 0x360), one task per row of a normal A; "
     "FEATURE_GRAINS of a 1,024-row normal A (the vendor caps it: 512 fp16, 1,023 int8)"),
    ("matmul_rk3566", "submissions", "*",
     "the matmul API's streams: FEATURE_GRAINS above 18 rows (the vendor writes 18 for M = 64 "
     "and 1,024); a native A of M = 1,024 in two tasks (the vendor's LINE_STRIDE is M, and it "
     "runs the second half first)"),
    ("matmul_*", "submissions", "*", "the matmul API's streams (enable masks, register amounts)"),
    ("rk3566_multiple_input_demo.v6", "submissions", "*",
     "the output's destination (DPU_DST_BASE_ADDR of task 1, and the CNA_FEATURE_DATA_ADDR of "
     "the OutputOperator's tasks that read it): the vendor's in a buffer of its own (buffer+0; "
     "zero-copy in another type or layout: its internal memory at the file's offset), ours at "
     "its offset in the context's arena (compat.md §2); both run the same jobs: the network's "
     "2 tasks in rknn_run, the OutputOperator's for the form rknn_outputs_get asks (zero-copy: "
     "in rknn_run); zero-copy NCHW int8 / float32: the vendor's OutputOperator writes the "
     "bound buffer, ours its scratch tensor, then the CPU copies"),
    ("matmul_rk3588", "conversions", "*",
     "matmul int4 A and B as the NPU reads them: int8 here (unpacked when bound), int4 in the "
     "vendor's (its int4 precision)"),
    ("matmul_*", "conversions", "*", "matmul operands as the NPU reads them (padding bytes)"),
    ("matmul_*", "matmul", "*", "matmul attributes and C buffer sizes"),
    ("*", "memory", "*", "DMA memory above the vendor's"),
    ("*dual_residual*", None, "*",
     "the vendor re-lays the first layer of a 3-channel fp16 input to a width padded to C2 "
     "(w_stride 12 on RK3566, 16 on RK3588; its weights re-laid to match)"),
    ("*", "submissions", "core_mask* *",
     "multi-core runs: how the vendor's jobs and slices use the cores"),
    ("rk3588_multiple_input_demo.v6", "submissions", "*",
     "outputs' destinations: the vendor keeps each output in a DMA buffer of its own, ours in "
     "the arena at the file's offset (DPU_DST_BASE_ADDR as normalised: buffer+0 against "
     "buffer+589824)"),
    ("rk3588_ppocrv4_det.v6", "outputs", "main zero_copy/native/*",
     "the native NC1HWC2 output bound zero-copy: 6 % of its bytes differ, not yet explained"),
    ("rk3588_ppocrv4_det.v6", "submissions", "*",
     "PP-OCRv4 det: data addresses in DPU and DPU_RDMA words (BS, source, destination) of "
     "the LUT nodes' tasks, as normalised"),
    ("*", None, "*", "not yet sorted (the report's lines of this group say what differs)"),
]


def reason_of(model, area, text):
    for m, a, t, why in REASONS:
        if glob(m, model) and (a is None or a == area) and glob(t, text):
            return why
    return "open"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--compat", default=os.path.join(here, "..", "..", "docs", "compat.md"))
    a = ap.parse_args()
    empty = os.devnull
    acc = Accounting(a.compat, empty)
    with open(a.report) as f:
        inside = False
        for line in f:
            if line.startswith("# every difference"):
                inside = True
                continue
            if inside and line.startswith("vendor-diff"):
                break  # the count, then the accounting's own lines: not differences
            if inside and line.count(" | ") >= 2:
                model, area, text = line.rstrip("\n").split(" | ", 2)
                acc.add(model, area, text)
    groups = collections.OrderedDict()
    for x in acc.unlisted:
        model, area, text = x.split(" | ", 2)
        k = (model, area, group_of(area, text))
        groups[k] = groups.get(k, 0) + 1
    print("# Open parity work (issue 31): differences from librknnrt 1.6.0 that docs/compat.md")
    print("# does not list as deliberate. vendor_diff.py --account fails when a group holds more")
    print("# than its ceiling, or a difference fits no line here and no compat.md row.")
    print("# ceiling<TAB>model pattern<TAB>area<TAB>difference pattern<TAB>what is open")
    for (model, area, pattern), n in groups.items():
        print("%d\t%s\t%s\t%s\t%s" % (n, model, area, pattern, reason_of(model, area, pattern)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
