#!/usr/bin/env python3
"""check_rknn_inspect.py - tests of the rknn-inspect tool (tools/rknn_inspect.c).

    check_rknn_inspect.py facts RKNN_INSPECT MODEL [PY_INSPECTOR]
    check_rknn_inspect.py truncated RKNN_INSPECT MODEL
    check_rknn_inspect.py directory RKNN_INSPECT MODELS_DIR UNSUPPORTED_LIST

facts: runs `rknn-inspect --relocs --regcmd 16 MODEL` and compares what it
prints with an independent reference: the research inspector
shared/tools/rknn_inspect.py (its own container parser and FlatBuffer reader),
run on the same file, plus facts typed in from docs/format.md,
shared/models/README.md and docs/parser-findings (memory sizes, verdicts,
custom-op attributes).

truncated: a truncated copy of MODEL, an empty file and a missing file must
make rknn-inspect exit non-zero with the loader's message on stderr.

directory: every .rknn file in MODELS_DIR either loads (and is one of the
samples the facts checks know) or is listed in UNSUPPORTED_LIST
(tests/unsupported_models.txt) and makes rknn-inspect fail with the listed
return code and message; a listed model that loads, fails otherwise or is
absent is a failure too.

Exit status: 0 pass, 1 fail (a missing sample model or inspector is a failure).
"""
import ast
import os
import re
import subprocess
import sys
import tempfile

failures = []

# Per sample: memory plan (rknn_inspect.py's blob and arena sums, also in
# tests/unit/test_rknn_init.c) and which SoC profiles run it (the target
# platform rule of api.md §5.2: RK3566 models also run on RK3568).
HAND_FACTS = {
    "rk3588_multiple_input_demo.v6.rknn": dict(weights=4864, regcmd=13696, arena=1114112,
                                               yes={"RK3588"}),
    "rk3566_multiple_input_demo.v6.rknn": dict(weights=6528, regcmd=7232, arena=1114112,
                                               yes={"RK3566", "RK3568"}),
    "rk3588_dual_residual_custom.v6.rknn": dict(weights=2176, regcmd=12032, arena=9920,
                                                yes={"RK3588"}, alpha=0.5),
    "rk3566_dual_residual_custom.v6.rknn": dict(weights=128, regcmd=1920, arena=5568,
                                                yes={"RK3566", "RK3568"}, alpha=0.5),
    "rk3588_ppocrv4_det.v6.rknn": dict(weights=2542208, regcmd=1035584, arena=14745600,
                                       yes={"RK3588"}),
    # container 4: the stream is built (format.md §5.1): 245 register lists
    # and 254 LUT loads (two before each of the 127 tasks that name a LUT),
    # each padded to 16 bytes with its 4-word tail
    "rk3566_yolov8n.v4.rknn": dict(weights=3389760, regcmd=1375424, arena=2867200,
                                   yes={"RK3566", "RK3568"}, lowered_tasks=499),
    # container 2 (format.md §5.2): 17 register lists in 6 core groups (1 +
    # 2 + 3 cores), the single-core group's 2 built once per core: 21 tasks,
    # 16 convolutions of 124 entries + 4 tail words (1024 bytes) and 5 PPU
    # tasks of 26 + 4 (240 bytes), 17,584 bytes, 17,600 rounded up to 64;
    # every blob (the register lists too) is a constant
    "rk3588_multiple_input_demo.v2.rknn": dict(weights=18816, regcmd=17600, arena=1114112,
                                               yes={"RK3588"}, lowered_tasks=21),
}
# What the Python inspector prints only for files that carry a stream (container 6).
STREAM_FACTS = ("regcmd", "tasks", "slots", "links", "relocs", "reloc_entries", "words")
ALL_SOCS = {"RK3588", "RK3566", "RK3568", "RV1106"}

# rknn_inspect.py's target names -> rknn-inspect's.
PY_TARGETS = {"CNA": "CNA", "blk0x2000": "CMAC", "CORE": "CORE", "DPU": "DPU",
              "DPU_RDMA": "DPU_RDMA", "PPU": "PPU", "PPU_RDMA": "PPU_RDMA", "PC": "PC",
              "PC-pre-opEN": "PRE_ENABLE", "PC-opEN": "OP_ENABLE", "pad/none": "NOP"}


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=60)
    return p.returncode, p.stdout, p.stderr


def lines_with(out, prefix):
    return [l for l in out.splitlines() if l.startswith(prefix)]


def one(out, prefix):
    ls = lines_with(out, prefix)
    check(len(ls) == 1, "exactly one '%s' line (got %d)" % (prefix, len(ls)))
    return ls[0] if ls else ""


def num(pattern, text, what):
    m = re.search(pattern, text)
    check(m is not None, "%s: /%s/ in %r" % (what, pattern, text))
    return int(m.group(1), 0) if m else None


def py_reference(py, model):
    """Facts from the Python inspector's text output."""
    rc, out, err = run([sys.executable, py, model, "--relocs", "--regcmd", "16"])
    check(rc == 0, "python inspector ran (%s)" % err.strip()[-200:])
    ref = {}
    m = re.search(r"container ver\s+(\d+)\s+header (\d+)\s+payload (\d+) @(\d+)\s+json (\d+) @(\d+)",
                  out)
    ref["container"] = tuple(int(x) for x in m.groups()) if m else None
    m = re.search(r"runtime='([^']*)' compiler_code=(\d+)", out)
    ref["platform"], ref["compiler_code"] = (m.group(1), int(m.group(2))) if m else (None, None)
    m = re.search(r"graph\s+tensors=(\d+) nodes=(\d+) inputs=(\[[^\]]*\]) outputs=(\[[^\]]*\])", out)
    ref["graph"] = (int(m.group(1)), int(m.group(2)), ast.literal_eval(m.group(3)),
                    ast.literal_eval(m.group(4))) if m else None
    m = re.search(r"activation arena .* = (\d+) bytes", out)
    ref["arena"] = int(m.group(1)) if m else None
    ref["io"] = []
    for m in re.finditer(r"^  (input|output) +(\S+) +(\S+) +shape=(\[[^\]]*\]) native=(\[[^\]]*\]) "
                         r"size=(\d+) off=(\d+) quant=(.*)$", out, re.M):
        q = ast.literal_eval(m.group(8))
        ref["io"].append(dict(kind=m.group(1), name=m.group(2), dtype=m.group(3),
                              shape=ast.literal_eval(m.group(4)),
                              native=ast.literal_eval(m.group(5)), size=int(m.group(6)),
                              off=int(m.group(7)), scale=q[2][0] if q[2] else None,
                              zp=q[3][0] if q[3] else None))
    m = re.search(r"regcmd\s+(\d+) bytes, (\d+) words, targets (\{.*\})", out)
    ref["regcmd"] = (int(m.group(1)), int(m.group(2)), ast.literal_eval(m.group(3))) if m else None
    m = re.search(r"tasks\s+(\d+); enable_mask histogram (\{.*\})", out)
    ref["tasks"] = (int(m.group(1)), ast.literal_eval(m.group(2))) if m else None
    m = re.search(r"tasks per slot\s+(\[[^\]]*\])", out)
    ref["slots"] = ast.literal_eval(m.group(1)) if m else None
    m = re.search(r"PC chain words\s+(\d+)", out)
    ref["links"] = int(m.group(1)) if m else None
    m = re.search(r"relocations\s+(\d+) tensors, (\d+) entries, \d+ addend mismatches; regs (\{.*\})",
                  out)
    ref["relocs"] = (int(m.group(1)), int(m.group(2)), ast.literal_eval(m.group(3))) if m else None
    ref["reloc_entries"] = sorted(
        (m.group(1), int(m.group(2)), int(m.group(3), 16), int(m.group(4), 16), int(m.group(5), 16))
        for m in re.finditer(r"^  reloc (\S+) +word +(\d+) tgt ([0-9a-f]+) reg ([0-9a-f]+) addend (\S+)$",
                             out, re.M))
    ref["words"] = [int(m.group(1), 16) for m in re.finditer(r"^ +\d+ ([0-9a-f]{16}) tgt=", out, re.M)]
    for k, v in ref.items():
        check(v is not None or (k in STREAM_FACTS and ref["container"] and ref["container"][0] != 6),
              "python inspector printed %s" % k)
    return ref


def compare_with_reference(out, ref):
    c = one(out, "container ")
    if ref["container"]:
        ver, hdr, psize, poff, jsize, joff = ref["container"]
        check(("version %d, header %d, payload %d @ %d, json %d @ %d" %
               (ver, hdr, psize, poff, jsize, joff)) in c, "container line %r vs %r" % (c, ref["container"]))
    c = one(out, "model ")
    check("target platform '%s'" % ref["platform"] in c, "target platform in %r" % c)
    c = one(out, "compiler ")
    check(c.startswith("compiler    code %d " % ref["compiler_code"]), "compiler code in %r" % c)
    if ref["graph"]:
        nt, nn, ins, outs = ref["graph"]
        c = one(out, "graph ")
        check(("%d tensors, %d nodes" % (nt, nn)) in c, "tensor/node counts in %r" % c)
        check(("inputs [%s]" % ",".join(map(str, ins))) in c, "inputs %s in %r" % (ins, c))
        check(("outputs [%s]" % ",".join(map(str, outs))) in c, "outputs %s in %r" % (outs, c))
        check(len(lines_with(out, "tensor ")) == nt, "one line per tensor")
        check(len(lines_with(out, "node ")) == nn, "one line per node")
    c = one(out, "arena ")
    check(c.startswith("arena       %d bytes" % ref["arena"]), "arena in %r" % c)
    tensor_lines = lines_with(out, "tensor ")
    for t in ref["io"]:
        want = ("%s %s '%s' shape [%s] native [%s] size %d arena %d" %
                (t["kind"], t["dtype"], t["name"], ",".join(map(str, t["shape"])),
                 ",".join(map(str, t["native"])), t["size"], t["off"]))
        hits = [l for l in tensor_lines if want in re.sub(" +", " ", l)]
        check(len(hits) == 1, "tensor line with %r" % want)
        if hits and t["scale"] is not None:
            m = re.search(r" scale (\S+) zp (-?\d+)", hits[0])
            check(m and abs(float(m.group(1)) - t["scale"]) <= 1e-6 * abs(t["scale"]) and
                  int(m.group(2)) == t["zp"], "quantisation of %s in %r" % (t["name"], hits[0]))
    if ref["regcmd"]:
        nbytes, nwords, targets = ref["regcmd"]
        c = one(out, "regcmd ")
        check(c.startswith("regcmd      %d bytes, %d words;" % (nbytes, nwords)), "regcmd size in %r" % c)
        got = dict((k, int(v)) for k, v in re.findall(r" ([A-Z_]+)=(\d+)", c))
        want = dict((PY_TARGETS.get(k, k), v) for k, v in targets.items())
        check(got == want, "words per target %s vs %s" % (got, want))
    if ref["tasks"]:
        n, hist = ref["tasks"]
        c = one(out, "tasks ")
        check(c.startswith("tasks       %d;" % n), "task count in %r" % c)
        en = c.split("enable masks:")[1].split(";")[0]
        got = dict((int(k, 16), int(v)) for k, v in re.findall(r"(0x[0-9a-f]+)=(\d+)", en))
        check(got == dict((int(k, 16), v) for k, v in hist.items()), "enable masks %s vs %s" % (got, hist))
    if ref["slots"]:
        sums = [0] * len(ref["slots"])
        for l in lines_with(out, "node "):
            m = re.search(r" tasks \[([0-9,]+)\]", l)
            if m:
                for i, v in enumerate(m.group(1).split(",")):
                    if i < len(sums):
                        sums[i] += int(v)
        check(sums == ref["slots"], "tasks per core slot %s vs %s" % (sums, ref["slots"]))
        # The groups (format.md §4.2): the multi-core ones at the end of the
        # blob, their slot sums; the single-core group is the records before.
        counts = [ref["tasks"][0] - sum(ref["slots"][1:])] + ref["slots"][1:]
        firsts = [sum(counts[:i]) for i in range(len(counts))]
        groups = re.findall(r"core(\d+) tasks (\d+)\+(\d+)", out)
        got = [(int(f), int(c)) for _, f, c in groups]
        check(got == list(zip(firsts, counts)), "task groups %s vs %s" % (got, counts))
    if ref["links"] is None:  # containers 4, 2: nothing in the file to compare the built stream with
        return
    c = one(out, "chain ")
    check(c.startswith("chain       %d " % ref["links"]), "chain links in %r" % c)
    if ref["relocs"]:
        nt, ne, regs = ref["relocs"]
        c = one(out, "relocations ")
        check(c.startswith("relocations %d tensors, %d entries;" % (nt, ne)), "relocation counts in %r" % c)
        got = dict((int(k, 16), int(v)) for k, v in re.findall(r" (0x[0-9a-f]{4})\([^)]*\)=(\d+)", c))
        check(got == dict((int(k, 16), v) for k, v in regs.items()), "patched registers %s vs %s" % (got, regs))
    entries = []
    for l in lines_with(out, "reloc "):
        m = re.match(r"reloc '([^']*)' tensor \d+ word (\d+) target (\S+) reg 0x([0-9a-f]+) \S+ addend 0x([0-9a-f]+)$", l)
        check(m is not None, "relocation line format: %r" % l)
        if m:
            entries.append((m.group(1), int(m.group(2)), m.group(3), int(m.group(4), 16), int(m.group(5), 16)))
    py_target = dict((int(k, 16), v) for k, v in
                     {"0201": "CNA", "0801": "CORE", "1001": "DPU", "2001": "DPU_RDMA",
                      "4001": "PPU", "8001": "PPU_RDMA", "0401": "CMAC"}.items())
    want = sorted((n, w, py_target.get(t, "?"), r, a) for n, w, t, r, a in ref["reloc_entries"])
    check(sorted(entries) == want, "relocation entries (%d vs %d)" % (len(entries), len(want)))
    words = [int(m.group(1), 16) for m in re.finditer(r"^word +\d+ ([0-9a-f]{16}) ", out, re.M)]
    check(words == ref["words"], "first 16 stream words")


def compare_with_hand_facts(out, name):
    f = HAND_FACTS.get(name)
    if not f:
        return
    c = one(out, "memory ")
    check(("weights %d, regcmd %d, arena %d," % (f["weights"], f["regcmd"], (f["arena"] + 63) // 64 * 64))
          in c, "memory plan in %r" % c)
    for soc in ALL_SOCS:
        c = [l for l in lines_with(out, "compat ") if l.split()[1] == soc + ":"]
        check(len(c) == 1, "one verdict for %s" % soc)
        if c:
            yes = soc in f["yes"]
            check(c[0].endswith(": yes") if yes else ": no (" in c[0] and c[0].endswith(")"),
                  "verdict for %s: %r" % (soc, c[0]))
    if "lowered_tasks" in f:
        c = one(out, "lowered ")
        check("-> %d tasks," % f["lowered_tasks"] in c, "built task count in %r" % c)
    if "alpha" in f:
        a = [l for l in out.splitlines() if l.startswith("  attr 'alpha'")]
        check(len(a) == 1 and a[0].endswith(" = %.17g" % f["alpha"]) and "dtype 'f'" in a[0],
              "custom-op attribute alpha: %r" % a)
    # The register names come from npu_regs.h: the relocated CNA feature
    # address register is named in the relocation summary.
    c = one(out, "relocations ")
    check("0x1070(CNA_FEATURE_DATA_ADDR)" in c, "register names in %r" % c)


def facts(exe, model, py):
    if not os.path.isfile(model):
        print("FAIL: missing input file %s (it lives in ../shared/models)" % model)
        return 1
    rc, out, err = run([exe, "--relocs", "--regcmd", "16", model])
    check(rc == 0, "rknn-inspect exit status %d (stderr: %s)" % (rc, err.strip()[-300:]))
    if not py or not os.path.isfile(py):
        print("FAIL: missing reference inspector %s (../shared/tools/rknn_inspect.py)" % py)
        return 1
    compare_with_reference(out, py_reference(py, model))
    compare_with_hand_facts(out, os.path.basename(model))
    return 0


def truncated(exe, model):
    if not os.path.isfile(model):
        print("FAIL: missing input file %s (it lives in ../shared/models)" % model)
        return 1
    data = open(model, "rb").read()
    with tempfile.TemporaryDirectory() as tmp:
        cases = {"half": data[: len(data) // 2], "header-only": data[:64], "empty": b"",
                 "bad-magic": b"XKNN" + data[4:]}
        for name, blob in cases.items():
            path = os.path.join(tmp, name + ".rknn")
            with open(path, "wb") as f:
                f.write(blob)
            rc, out, err = run([exe, path])
            check(rc != 0, "%s: exit status %d, want non-zero" % (name, rc))
            check("error" in err, "%s: the loader's error line on stderr (got %r)" % (name, err[-300:]))
        rc, out, err = run([exe, os.path.join(tmp, "missing.rknn")])
        check(rc != 0 and "cannot open" in err, "missing file: status %d, stderr %r" % (rc, err))
        rc, out, err = run([exe, "--bogus", model])
        check(rc != 0 and "usage" in err, "unknown option: status %d" % rc)
    return 0


def read_unsupported(path):
    """{file: (return code name, message)} from tests/unsupported_models.txt."""
    listed = {}
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            check(len(parts) == 3 and parts[1].startswith("RKNN_ERR_"),
                  "%s:%d: want 'file code message': %r" % (path, n, line))
            if len(parts) == 3:
                listed[parts[0]] = (parts[1], parts[2])
    return listed


def directory(exe, models, list_path):
    if not os.path.isdir(models):
        check(False, "models directory %s not found (it is ../shared/models)" % models)
        return 0
    if not os.path.isfile(list_path):
        check(False, "unsupported-model list %s not found" % list_path)
        return 0
    listed = read_unsupported(list_path)
    names = sorted(f for f in os.listdir(models) if f.endswith(".rknn"))
    for name in names:
        rc, out, err = run([exe, os.path.join(models, name)])
        if name in listed:
            code, message = listed[name]
            ok = rc != 0 and message in err and "(%s)" % code in err
            check(ok, "%s: listed in %s as failing with %s %r; got status %d, stderr %r%s"
                  % (name, list_path, code, message, rc, err[-400:],
                     " (it loads now: drop it from the list)" if rc == 0 else ""))
            if ok:
                print("%s: not supported yet, fails as listed (%s)" % (name, code))
        else:
            check(rc == 0, "%s: rknn-inspect status %d and not in %s: %r"
                  % (name, rc, list_path, err[-400:]))
            check(name in HAND_FACTS, "%s: a new model: add its facts to HAND_FACTS and a "
                  "rknn-inspect-* test in tools/meson.build" % name)
            if rc == 0:
                print("%s: loads" % name)
    for name in sorted(set(listed) - set(names)):
        check(False, "%s lists %s, which is not in %s" % (list_path, name, models))
    return 0


def main(argv):
    if len(argv) < 4 or argv[1] not in ("facts", "truncated", "directory") or \
            (argv[1] == "directory" and len(argv) != 5):
        print(__doc__)
        return 1
    if argv[1] == "facts":
        ret = facts(argv[2], argv[3], argv[4] if len(argv) > 4 else None)
    elif argv[1] == "truncated":
        ret = truncated(argv[2], argv[3])
    else:
        ret = directory(argv[2], argv[3], argv[4])
    if ret:
        return ret
    print("%s: %s" % (argv[1], "FAIL (%d)" % len(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
