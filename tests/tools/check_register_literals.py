#!/usr/bin/python3
"""check_register_literals.py SOURCE_ROOT - no register field is spelled out
by hand: the files that build register values use the packers generated
from npu/hw/regs.def (npu/hw/npu_regs.h), so a field's position lives in one
place and a search for its name finds every writer.

In the files below, a shift (<<, >>) or a hexadecimal constant fails the
check unless the line matches an entry of ALLOWED (bit work that is not a
register field: byte order, bit masks of core numbers, a PRNG), each with
its reason. Shows one failing line per violation; exit 1 if any.
"""
import os
import re
import sys

# Writers (builder, self-test, driver, the runtime's input converter words) and
# the virtual NPU's unit decoders.
# Not checked: npu/model/vnpu.c decodes MMIO addresses (block pages of the
# offset, not fields of a value) and npu/model/vnpu_fp.h is fp16 arithmetic.
CHECKED = ["npu/npu_builder.c", "npu/npu_builder_dpu.c", "npu/npu_driver.c", "rknn/platform/rknpu_selftest.c",
           "npu/model/vnpu_cna.c", "npu/model/vnpu_cvt.c", "npu/model/vnpu_dcomp.c",
           "npu/model/vnpu_dpu.c", "npu/model/vnpu_dpu_path.c", "npu/model/vnpu_dpu_fly.c",
           "npu/model/vnpu_dpu_unpool.c", "npu/model/vnpu_ppu.c", "rknn/io/rknn_cvt.c"]

ALLOWED = [
    # (file, regular expression, reason)
    ("npu/npu_builder.c", r"\(uint8_t\)\((w|v) >> \(8u \* b\)\)", "little-endian bytes of a stream word / record"),
    ("npu/npu_driver.c", r"\(uint32_t\)p\[0\] \| \(uint32_t\)p\[1\] << 8", "little-endian bytes of a task record"),
    ("npu/npu_driver.c", r"le32\(r \+ NPU_TASK_REGCMD_ADDR \+ 4\) << 32", "64-bit task record field"),
    ("npu/npu_driver.c", r"return 1u << core;", "a set of core numbers (core_bit)"),
    ("npu/model/vnpu_cvt.c", r"\(uint32_t\)1 << vnpu_cvt_trunc", "2^truncation, the converter's identity scale"),
    ("npu/model/vnpu_dcomp.c", r"x \|= \(uint32_t\)\(\(b->p\[b->pos / 8u\] >> \(b->pos % 8u\)\) & 1u\) << i;",
     "one bit of a compressed weight stream, read LSB first"),
    ("npu/model/vnpu_dcomp.c", r"acc \|= bit << \(len - 1u\);", "a weight-stream prefix code, bit by bit"),
    ("npu/model/vnpu_dcomp.c", r"\(1u << k\) \+ v", "a weight-stream payload class's implicit leading bit"),
    ("npu/model/vnpu_dpu.c", r"scale != 0x3C00", "fp16 1.0, a value"),
    ("npu/model/vnpu_dpu_path.c", r"VNPU_INT_BOUND \(\(int64_t\)1 << 46\)", "an arithmetic range bound"),
    ("rknn/platform/rknpu_selftest.c", r"#define ST_SEED +0x", "the test pattern's PRNG seed"),
    ("rknn/platform/rknpu_selftest.c", r"return \*s >> 8;", "the PRNG"),
    ("rknn/platform/rknpu_selftest.c", r"\(int64_t\)1 << s", "rounding in the CPU reference"),
    ("rknn/platform/rknpu_selftest.c", r"v >> \(8 \* i\)", "little-endian bytes of a bias word"),
    ("rknn/platform/rknpu_selftest.c", r"1u << core", "a set of core numbers"),
    ("rknn/platform/rknpu_selftest.c", r"memset\(b->(mid|out), 0x5A", "a poison pattern, not a register"),
]
LITERAL = re.compile(r"<<|>>|\b0[xX][0-9a-fA-F]+")


def code_of(line):
    """The line without // and /* */ comments on it."""
    line = re.sub(r"/\*.*?\*/", "", line)
    return line.split("//")[0]


def main():
    root = sys.argv[1]
    bad = 0
    for rel in CHECKED:
        in_comment = False
        for n, line in enumerate(open(os.path.join(root, rel), encoding="utf-8"), 1):
            text = line
            if in_comment:
                if "*/" not in text:
                    continue
                text = text.split("*/", 1)[1]
                in_comment = False
            code = code_of(text)
            if "/*" in code:
                code, in_comment = code.split("/*", 1)[0], True
            if not LITERAL.search(code):
                continue
            if any(f == rel and re.search(p, line) for f, p, _ in ALLOWED):
                continue
            print("FAIL %s:%d: a register field by hand (use NPU_<BLOCK>_<REG>_<FIELD>()): %s"
                  % (rel, n, line.strip()))
            bad += 1
    print("checked %d files" % len(CHECKED))
    print("check_register_literals: %s" % ("FAIL" if bad else "PASS"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
