#!/usr/bin/env python3
"""check_v4_layout.py - the old-schema facts docs/format.md §5 states, checked on a file.

Container v4 / schema 1 ("RKNPU lite", RKNN-Toolkit2 1.x) has no regcmd blob,
task array or relocation table. docs/format.md §5 says how its per-task
register lists address memory; this script checks every one of those
statements on a real file (rk3566_yolov8n.v4.rknn), reading it with the
research inspector shared/tools/rknn_inspect.py (its container parser and
FlatBuffer reader, not the C parser) and the register names of
npu/hw/regs.def. It prints one line per fact and exits 1 if any fails.

Usage: check_v4_layout.py RKNN_INSPECT_PY REGS_DEF MODEL
"""
import collections
import importlib.util
import os
import re
import struct
import sys

# Node slot 6 of the old schema: one table per task (format.md §5.1).
TASK_REGLIST, TASK_LUT = 0, 1
# Tensor kinds (format.md §3.4 numbering).
KIND_LUT, KIND_REGLIST, KIND_REGCMD, KIND_TASKS = 6, 7, 9, 10
# RK356x's first CORE register that sits 4 bytes below its regs.def offset.
RK356X_CORE_SHIFT_FIRST = 0x300C
# DPU_LUT_ACCESS_DATA words of one LUT tensor, as format.md §5.1 states.
LUT_DATA_WORDS = 1030


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def register_names(regs_def):
    names = {}
    for line in open(regs_def):
        m = re.match(r"NPU_REG\((\w+),\s*(\w+),\s*(0x[0-9A-Fa-f]+)\)", line)
        if m:
            names[int(m.group(3), 16)] = m.group(1) + "_" + m.group(2)
    return names


class Model:
    def __init__(self, ri, path):
        c = ri.parse_container(open(path, "rb").read())
        self.version = c["version"]
        self.fb = fb = ri.FB(c["payload"])
        self.m = fb.root()
        self.format = fb.string(self.m, ri.M_FORMAT)
        self.blobs, _ = ri.blobs(fb, self.m)
        g = fb.vec_tables(self.m, ri.M_GRAPHS)[0]
        self.tensors = fb.vec_tables(g, ri.G_TENSORS)
        self.nodes = fb.vec_tables(g, ri.G_NODES)
        self.has_relocs = fb.vector(g, ri.G_RELOCS) is not None
        self.platform = fb.string(self.m, ri.M_RUNTIME) or ""
        self.ri = ri

    def tensor(self, i):
        fb, ri, t = self.fb, self.ri, self.tensors[i]
        return dict(kind=fb.scalar(t, ri.T_KIND, "b"), size=fb.scalar(t, ri.T_SIZE),
                    blob=fb.scalar(t, ri.T_BLOB, "i", -1), name=fb.string(t, ri.T_NAME))

    def reglist(self, i):
        """Entries (zero, regs.def offset, value): RK356x's CORE registers from
        0x300C on sit 4 bytes below the RK3588 offsets regs.def lists (hardware.md §2.4)."""
        raw = self.blobs[self.tensor(i)["blob"]]
        shift = 4 if self.platform.startswith("rk356") else 0
        out = []
        for o in range(0, len(raw), 8):
            z, reg, value = struct.unpack_from("<HHI", raw, o)
            out.append((z, reg + shift if RK356X_CORE_SHIFT_FIRST <= reg < 0x4000 else reg, value))
        return out, len(raw)

    def node(self, k):
        fb, ri, n = self.fb, self.ri, self.nodes[k]
        tasks = []
        for t in fb.vec_tables(n, 6):
            tasks.append([fb.scalar(t, j) if fb.fpos(t, j) is not None else None
                          for j in range(fb.nfields(t))])
        return dict(type=fb.string(n, ri.N_TYPE), ins=fb.vec_scalars(n, ri.N_INPUTS) or [],
                    outs=fb.vec_scalars(n, ri.N_OUTPUTS) or [], tasks=tasks)


def bindings(op, task, node, size):
    """Task `task`'s address registers per format.md §5.1, as (register name,
    tensor index, exact offset or None for anywhere inside the tensor); None
    for an op with no address register."""
    ins, outs = node["ins"], node["outs"]
    if op == "ConvAdd":  # container 2 (format.md §5.2): a Conv adding input 3 in its DPU
        return [("CNA_FEATURE_DATA_ADDR", ins[0], None), ("CNA_DCOMP_ADDR0", ins[1], None),
                ("DPU_RDMA_BS_BASE_ADDR", ins[2], None), ("DPU_DST_BASE_ADDR", outs[0], None),
                ("DPU_RDMA_SRC_BASE_ADDR", ins[3], None), ("DPU_RDMA_EW_BASE_ADDR", ins[3], None)]
    if op.startswith("Conv"):
        return [("CNA_FEATURE_DATA_ADDR", ins[0], None), ("CNA_DCOMP_ADDR0", ins[1], None),
                ("DPU_RDMA_BS_BASE_ADDR", ins[2], None), ("DPU_DST_BASE_ADDR", outs[0], None)]
    if op == "Add":
        return [("DPU_RDMA_SRC_BASE_ADDR", ins[0], None), ("DPU_RDMA_EW_BASE_ADDR", ins[1], None),
                ("DPU_DST_BASE_ADDR", outs[0], None)]
    if op == "Split":  # task t writes output t from the input's t-th slice of surfaces
        return [("DPU_RDMA_SRC_BASE_ADDR", ins[0], sum(size(o) for o in outs[:task])),
                ("DPU_DST_BASE_ADDR", outs[task], 0)]
    if op == "Concat":  # task t copies input t behind the inputs before it
        return [("DPU_RDMA_SRC_BASE_ADDR", ins[task], 0),
                ("DPU_DST_BASE_ADDR", outs[0], sum(size(i) for i in ins[:task]))]
    if op == "MaxPool":
        return [("PPU_RDMA_SRC_BASE_ADDR", ins[0], None), ("PPU_DST_BASE_ADDR", outs[0], None)]
    if op == "Resize":
        return [("DPU_RDMA_SRC_BASE_ADDR", ins[0], None), ("DPU_DST_BASE_ADDR", outs[0], None)]
    return None


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    missing = [p for p in sys.argv[1:] if not os.path.isfile(p)]
    if missing:
        print("FAIL missing: %s" % ", ".join(missing))
        return 1
    ri = load(sys.argv[1], "rknn_inspect")
    names = register_names(sys.argv[2])
    model = Model(ri, sys.argv[3])
    failed = []

    def fact(ok, text):
        print("%s %s" % ("ok  " if ok else "FAIL", text))
        if not ok:
            failed.append(text)

    fact(model.version == 4 and model.format == "RKNPU lite" and not model.has_relocs,
         "container v4, format 'RKNPU lite', no relocation table (version %d, %r)" %
         (model.version, model.format))
    kinds = collections.Counter(model.tensor(i)["kind"] for i in range(len(model.tensors)))
    fact(kinds[KIND_REGCMD] == 0 and kinds[KIND_TASKS] == 0, "no regcmd (kind 9) or task array (kind 10) tensor")

    size = lambda i: model.tensor(i)["size"]
    bound = unbound = entries = 0
    luts = set()
    with_lut = []  # (node, op type, entries) of each task that names a LUT
    unknown = set()
    addr_names = {n for n in names.values()
                  if n.endswith(("_ADDR", "_ADDR0")) and not n.startswith("PC_") and "NOTCH" not in n}
    for k in range(len(model.nodes)):
        node = model.node(k)
        op = node["type"]
        if op == "Concat":
            fact(len(node["tasks"]) == len(node["ins"]),
                 "node %d Concat: one task per input (%d tasks, %d inputs)" %
                 (k, len(node["tasks"]), len(node["ins"])))
        if op == "Split":
            fact(len(node["tasks"]) == len(node["outs"]),
                 "node %d Split: one task per output" % k)
        for t, meta in enumerate(node["tasks"]):
            tensor = model.tensor(meta[TASK_REGLIST])
            if tensor["kind"] != KIND_REGLIST:
                fact(False, "node %d task %d: slot 0 is a kind-7 register list" % (k, t))
                continue
            regs, nbytes = model.reglist(meta[TASK_REGLIST])
            entries += len(regs)
            if nbytes % 8 or any(z != 0 for z, _, _ in regs):
                fact(False, "node %d task %d: entries are (u16 0, u16 register, u32)" % (k, t))
            unknown.update(r for _, r, _ in regs if r not in names)
            if meta[TASK_LUT] is not None:
                luts.add(meta[TASK_LUT])
                with_lut.append((k, op, len(regs)))
            values = {names[r]: v for _, r, v in regs if r in names}
            rules = bindings(op, t, node, size)
            if rules is None:
                fact(not any(name in addr_names for name in values),
                     "node %d %s: no address register" % (k, op))
                continue
            ruled = {reg for reg, _, _ in rules}
            for reg, tensor_index, exact in rules:
                if reg not in values:
                    continue  # a later task leaves the register as the one before wrote it
                v = values[reg]
                ok = v < max(size(tensor_index), 1) if exact is None else v == exact
                bound += 1
                if not ok:
                    fact(False, "node %d %s task %d: %s 0x%x within/at its tensor %d (%d bytes, "
                         "want %s)" % (k, op, t, reg, v, tensor_index, size(tensor_index), exact))
            for name, v in values.items():
                if name in addr_names and name not in ruled and v != 0:
                    unbound += 1
                    fact(False, "node %d %s task %d: %s = 0x%x has no binding" % (k, op, t, name, v))
    fact(bound > 0 and unbound == 0,
         "%d address register values bound to a node's input/output by the rules of format.md §5.1, "
         "none left over (%d register entries in all)" % (bound, entries))
    for li in sorted(luts):
        tensor = model.tensor(li)
        regs, _ = model.reglist(li)
        data = sum(1 for _, r, _ in regs if names.get(r) == "DPU_LUT_ACCESS_DATA")
        only_dpu = all(names.get(r, "").startswith("DPU_") for _, r, _ in regs)
        fact(tensor["kind"] == KIND_LUT and only_dpu and data == LUT_DATA_WORDS,
             "LUT tensor %d %r: kind 6, DPU registers only, %d LUT_ACCESS_DATA words" %
             (li, tensor["name"], data))
        # the list is two tasks, each starting with DPU_S_POINTER: 69
        # registers, then LUT_ACCESS_CFG and 514 data words
        starts = [e for e, (_, r, _) in enumerate(regs) if names.get(r) == "DPU_S_POINTER"]
        halves = [regs[a:b] for a, b in zip(starts, starts[1:] + [len(regs)])]
        fact(starts[:1] == [0] and len(halves) == 2 and all(
            len(h) == 584 and names.get(h[69][1]) == "DPU_LUT_ACCESS_CFG" and h[69][2] & 1 << 17 and
            sum(1 for _, r, _ in h if names.get(r) == "DPU_LUT_ACCESS_DATA") == 514 + 1
            for h in halves),
             "LUT tensor %d: two tasks of 584 entries from DPU_S_POINTER, LUT_ACCESS_CFG (write) at "
             "entry 69 of each (%s entries)" % (li, [len(h) for h in halves]))
    ops = collections.Counter(op for _, op, _ in with_lut)
    all_tasks = sum(len(model.node(k)["tasks"]) for k in range(len(model.nodes))
                    if model.node(k)["type"] in ("ConvExSwish", "ConvSigmoid"))
    fact(len(with_lut) == 127 and set(ops) <= {"ConvExSwish", "ConvSigmoid"} and
         sum(ops.values()) == all_tasks and all(n == 132 for _, _, n in with_lut),
         "%d tasks name a LUT: every task of the ConvExSwish and ConvSigmoid nodes (%d), each "
         "writing 132 registers" % (len(with_lut), all_tasks))
    fact(not unknown, "every register the lists write is in regs.def (not named: %s)" %
         (", ".join("0x%04X" % r for r in sorted(unknown)) or "none"))
    print("%d fact(s) failed" % len(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
