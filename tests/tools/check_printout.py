#!/usr/bin/python3
"""check_printout.py KIND [ARG] -- COMMAND... - a program that prints figures,
checked against facts independent of the runtime.

  platform-report -- CMD   the report's SoC, its NPU register addresses (hardware.md:
                           RK3588 cores at 0xFDAB0000/0xFDAC0000/0xFDAD0000,
                           RK356x at 0xFDE40000, RV1106 at 0xFF660000), an
                           untouched carve-out at boot, a running timer
  model-demo REF -- CMD    the demo's output summary of multiple_input_demo
                           (min, max, mean) against the float ONNX model
                           (REF: tests/tools/onnx_ref.py's float32 output)
Exit 0 only if the command succeeded and every fact holds.
"""
import re
import struct
import subprocess
import sys

NPU_BASES = {
    "RK3588": ["0xfdab0000", "0xfdac0000", "0xfdad0000"],
    "RK3566": ["0xfde40000"],
    "RK3568": ["0xfde40000"],
    "RV1106": ["0xff660000"],
}
OUT_SCALE = 4.142374515533447  # the model's output scale (rknn_inspect.py)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def field(out, name):
    m = re.search(r"^\s*%s\s+(.*)$" % re.escape(name), out, re.M)
    if not m:
        fail("no '%s' line" % name)
    return m.group(1).strip()


def platform_report(out):
    soc = field(out, "soc")
    if soc not in NPU_BASES:
        fail("unknown SoC %r" % soc)
    for core, base in enumerate(NPU_BASES[soc]):
        got = field(out, "npu core %d" % core)
        if base not in got:
            fail("npu core %d: %r, hardware.md says %s" % (core, got, base))
    if re.search(r"^\s*npu core %d" % len(NPU_BASES[soc]), out, re.M):
        fail("%s has %d core(s), the report lists more" % (soc, len(NPU_BASES[soc])))
    alloc = re.match(r"(\d+) KiB free of (\d+) KiB, 0 allocations", field(out, "allocator"))
    if not alloc or alloc.group(1) != alloc.group(2):
        fail("the carve-out is not untouched at boot: %r" % field(out, "allocator"))
    hz = re.match(r"(\d+) Hz", field(out, "timer"))
    if not hz or int(hz.group(1)) == 0:
        fail("timer: %r" % field(out, "timer"))
    if "platform report: OK" not in out:
        fail("no 'platform report: OK' line")
    print("platform report: %s, %d core(s) at the hardware.md addresses, carve-out untouched"
          % (soc, len(NPU_BASES[soc])))


def model_demo(out, ref_path):
    with open(ref_path, "rb") as f:
        data = f.read()
    ref = struct.unpack("<%df" % (len(data) // 4), data)
    m = re.search(r"output 0 '[^']*': (\d+) values, min (\S+) max (\S+) \(at \d+\) mean (\S+)", out)
    if not m:
        fail("no output summary line")
    n, mn, mx, mean = int(m.group(1)), float(m.group(2)), float(m.group(3)), float(m.group(4))
    ref_mean = sum(ref) / len(ref)
    print("demo: min %.3f max %.3f mean %.4f; ONNX: min %.3f max %.3f mean %.4f"
          % (mn, mx, mean, min(ref), max(ref), ref_mean))
    if n != len(ref):
        fail("%d values, the reference has %d" % (n, len(ref)))
    # each value within 1.5 steps of the reference (the e2e bound); the mean
    # error of the int8 model is 0.18 steps
    if abs(mn - min(ref)) > 1.5 * OUT_SCALE or abs(mx - max(ref)) > 1.5 * OUT_SCALE:
        fail("min/max more than 1.5 quantisation steps from the reference")
    if abs(mean - ref_mean) > 0.5 * OUT_SCALE:
        fail("mean more than half a step from the reference")
    if "model demo: OK" not in out:
        fail("no 'model demo: OK' line")


def main():
    if "--" not in sys.argv:
        fail(__doc__)
    sep = sys.argv.index("--")
    kind, args, cmd = sys.argv[1], sys.argv[2:sep], sys.argv[sep + 1:]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    print(out)
    if p.returncode != 0:
        fail("%s exited %d" % (cmd[0], p.returncode))
    if kind == "platform-report":
        platform_report(out)
    elif kind == "model-demo":
        model_demo(out, args[0])
    else:
        fail("unknown kind " + kind)
    print("check_printout %s: PASS" % kind)


if __name__ == "__main__":
    main()
