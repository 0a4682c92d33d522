#!/usr/bin/env python3
"""rknn_expect.py - expected facts about .rknn sample models, as "key value" lines.

The reference for tests/unit/test_rknn_model.c: the facts come from the
research inspector shared/tools/rknn_inspect.py (its container parser, its
FlatBuffer reader and its field map), never from the C parser under test.
The C test prints the same lines from the C parser and compares the sets.

Container 4 and 2 files have no task records or relocations; the C runtime
builds them (rknn_model_lower). Their expected task and relocation lines come
from lower_v4() below, written from docs/format.md §5.1 and §5.2 and the
addressing rules of check_v4_layout.py, not from the C code.

Usage:
    rknn_expect.py PATH/TO/rknn_inspect.py MODELS_DIR UNSUPPORTED_LIST [OUTPUT]

UNSUPPORTED_LIST is tests/unsupported_models.txt: for the models it names
the only line is "NAME unsupported" (the C test prints it only when the
loader gives the listed error; it checks that error itself).

Every line starts with the model's file name. Strings are escaped (bytes
outside 0x20..0x7e and the backslash become \\xNN); floats use %.9g (float32)
or %.17g (double), the same formats the C test uses.
"""
import importlib.util
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_v4_layout  # noqa: E402  (its addressing rules: format.md §5.1)


def load_inspector(path):
    spec = importlib.util.spec_from_file_location("rknn_inspect", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def esc(b):
    if b is None:
        b = b""
    if isinstance(b, str):
        b = b.encode("utf-8", "surrogateescape")
    return "".join(chr(c) if 0x20 <= c <= 0x7E and c != 0x5C else "\\x%02x" % c for c in b)


def ints(v):
    return ",".join("%d" % x for x in (v or []))


def floats(v):
    return ",".join("%.9g" % x for x in (v or []))


def raw_string(fb, t, slot):
    """String field as bytes (the inspector decodes to str; we want exact bytes)."""
    p = fb.fpos(t, slot)
    if p is None:
        return b""
    q = p + fb._u("I", p)
    n = fb._u("I", q)
    return bytes(fb.b[q + 4:q + 4 + n])


# ---- BSON (node attributes, Node slot 9) - an independent little decoder ----

FIXED = {0x01: 8, 0x09: 8, 0x11: 8, 0x12: 8, 0x10: 4, 0x08: 1, 0x0A: 0, 0x07: 12, 0x13: 16}


def bson_doc(b, o=0):
    """Returns [(key, type, value)]; value is a python value or a nested list."""
    n = struct.unpack_from("<i", b, o)[0]
    end = o + n - 1
    assert b[end] == 0
    o += 4
    out = []
    while o < end:
        t = b[o]
        o += 1
        k = b.index(b"\0", o)
        key = b[o:k]
        o = k + 1
        if t == 0x01:
            v = struct.unpack_from("<d", b, o)[0]
        elif t == 0x10:
            v = struct.unpack_from("<i", b, o)[0]
        elif t == 0x12:
            v = struct.unpack_from("<q", b, o)[0]
        elif t == 0x08:
            v = b[o]
        elif t == 0x02:
            ln = struct.unpack_from("<i", b, o)[0]
            v = b[o + 4:o + 4 + ln - 1]
            o += 4 + ln
        elif t in (0x03, 0x04):
            ln = struct.unpack_from("<i", b, o)[0]
            v = bson_doc(b, o)
            o += ln
        elif t == 0x05:
            ln = struct.unpack_from("<i", b, o)[0]
            v = b[o + 5:o + 5 + ln]
            o += 5 + ln
        else:
            raise ValueError("BSON type 0x%x" % t)
        if t in FIXED:
            o += FIXED[t]
        out.append((key, t, v))
    return out


def fmt_scalar(t, v):
    if t == 0x01:
        return "%.17g" % v
    if t in (0x10, 0x12, 0x08):
        return "%d" % v
    if t in (0x02, 0x05):
        return esc(v)
    return "?"


def fmt_value(t, v):
    if t in (0x03, 0x04):
        return ",".join(fmt_scalar(et, ev) for _, et, ev in v)
    return fmt_scalar(t, v)


def attr_lines(blob):
    """Lines "attr NAME dtype D type T n N value V" for a BSON attribute blob."""
    if not blob or len(blob) < 5 or struct.unpack_from("<I", blob, 0)[0] != len(blob) \
            or blob[-1] != 0:
        return []
    lines = []
    for key, t, v in bson_doc(blob):
        dtype, vt, vv = b"", t, v
        if t == 0x03:
            vt = 0
            for ik, it, iv in v:
                if ik == b"dtype" and it == 0x02:
                    dtype = iv
                elif ik == b"value":
                    vt, vv = it, iv
        if vt in (0x03, 0x04):
            n = len(vv)
        else:
            n = 1 if vt else 0  # scalars and whole strings count as one element
        lines.append("attr %s dtype %s type %d n %d value %s"
                     % (esc(key), esc(dtype), vt, n, fmt_value(vt, vv) if vt else ""))
    return lines


# ---- one model ----------------------------------------------------------------

def model_lines(ri, path):
    name = os.path.basename(path)
    data = open(path, "rb").read()
    out = []

    def put(s):
        out.append("%s %s" % (name, s))

    try:
        c = ri.parse_container(data)
    except ValueError:
        put("status invalid")
        return out
    if c["version"] not in (2, 4, 6):
        put("status invalid")
        return out
    put("status ok")
    put("container_version %d" % c["version"])
    put("payload %d %d" % (c["payload_off"], c["payload_size"]))
    put("json %d %d" % (c["json_off"] + 8, c["json_size"]))

    pl = c["payload"]
    fb = ri.FB(pl)
    m = fb.root()
    put("schema %d" % fb.scalar(m, ri.M_SCHEMA))
    put("npu_family %s" % esc(raw_string(fb, m, ri.M_FORMAT)))
    put("target %s" % esc(raw_string(fb, m, ri.M_RUNTIME)))
    put("compiler_code %d" % fb.scalar(m, ri.M_COMPILER_CODE, "I"))
    put("compiler %s" % esc(raw_string(fb, m, ri.M_COMPILER)))
    put("source %s" % esc(raw_string(fb, m, ri.M_SOURCE)))
    put("input_json %s" % esc(raw_string(fb, m, ri.M_INPUT_JSON)))
    put("output_json %s" % esc(raw_string(fb, m, ri.M_OUTPUT_JSON)))
    put("shape_mode %s" % esc(raw_string(fb, m, ri.M_SHAPE_MODE)))
    # Not in the inspector's field map: slot 11 (custom string, inferred) and
    # slot 21 (custom op types, inferred), read with its generic reader.
    put("custom_string %s" % esc(raw_string(fb, m, 11)))
    put("custom_op_types %s" % esc(raw_string(fb, m, 21)))
    put("generator_size %d" % len(raw_string(fb, m, ri.M_GENERATOR)))

    bl, where = ri.blobs(fb, m)
    assert where == (ri.M_BLOBS_V6 if c["version"] == 6 else ri.M_BLOBS_OLD)
    put("blobs %d" % len(bl))
    for i, b in enumerate(bl):
        put("blob %d size %d" % (i, len(b)))

    g = fb.vec_tables(m, ri.M_GRAPHS)[0]
    tensors = fb.vec_tables(g, ri.G_TENSORS)
    nodes = fb.vec_tables(g, ri.G_NODES)
    put("tensors %d" % len(tensors))
    arena = 0
    names = []
    for i, t in enumerate(tensors):
        kind = fb.scalar(t, ri.T_KIND, "b")
        size = fb.scalar(t, ri.T_SIZE, "I")
        off = fb.scalar(t, ri.T_OFFSET, "I")
        blob = fb.scalar(t, ri.T_BLOB, "I")
        tname = raw_string(fb, t, ri.T_NAME)
        names.append(tname)
        if kind in (1, 2, 3):
            arena = max(arena, off + size)
        put("tensor %d name %s" % (i, esc(tname)))
        put("tensor %d kind %d dtype %d layout %d size %d offset %d compressed %d blob %d"
            % (i, kind, fb.scalar(t, ri.T_DTYPE, "b"), fb.scalar(t, 1, "b"), size, off,
               fb.scalar(t, ri.T_WCOMPRESSED, "B"), blob))
        put("tensor %d shape %s native %s"
            % (i, ints(fb.vec_scalars(t, ri.T_SHAPE)), ints(fb.vec_scalars(t, ri.T_NATIVE_SHAPE))))
        put("tensor %d quant %s %s scale %s zp %s"
            % (i, esc(raw_string(fb, t, ri.T_QMETHOD)), esc(raw_string(fb, t, ri.T_QDTYPE)),
               floats(fb.vec_scalars(t, ri.T_QSCALE, "f")),
               ints(fb.vec_scalars(t, ri.T_QZP, "i"))))
        # constants, helper consts, LUTs, old register lists, stream, tasks
        if kind in (4, 5, 6, 7, 8, 9, 10) and bl[blob]:
            put("tensor %d data %d" % (i, len(bl[blob])))
    put("arena %d" % arena)

    put("nodes %d" % len(nodes))
    slots, v4 = None, None
    for i, n in enumerate(nodes):
        put("node %d op %s exec %d name %s"
            % (i, esc(raw_string(fb, n, ri.N_TYPE)), fb.scalar(n, ri.N_EXEC, "B"),
               esc(raw_string(fb, n, ri.N_NAME))))
        put("node %d inputs %s outputs %s"
            % (i, ints(fb.vec_scalars(n, ri.N_INPUTS)), ints(fb.vec_scalars(n, ri.N_OUTPUTS))))
        v = fb.vec_scalars(n, ri.N_TASKS_PER_SLOT) or []
        if c["version"] != 6:  # its register lists, and LUT loads (lower_v4)
            v4 = v4 or check_v4_layout.Model(ri, path)
            v = slot_counts(v4, fb.vec_tables(n, 6))
        put("node %d tasks_per_slot %s" % (i, ints(v)))
        if v:
            slots = [a + b for a, b in zip(slots, v)] if slots else list(v)
        for line in attr_lines(fb.vec_bytes(n, 9)):
            put("node %d %s" % (i, line))
    put("inputs %s" % ints(fb.vec_scalars(g, ri.G_INPUTS)))
    put("outputs %s" % ints(fb.vec_scalars(g, ri.G_OUTPUTS)))
    norms = fb.vec_tables(g, 4)
    put("norms %d" % len(norms))
    for i, nm in enumerate(norms):
        put("norm %d mean %s std %s"
            % (i, floats(fb.vec_scalars(nm, 0, "f")), floats(fb.vec_scalars(nm, 1, "f"))))

    # The constants as Rockchip's runtime packs them (docs/format.md §4.4):
    # every blob but the command stream and the task records (kinds 9, 10)
    # and, in container 6, the LUTs (kind 6: their loads are pointed at the
    # stream, format.md §4.3), in blob order, each starting at a multiple of 64 bytes.
    left_out = (9, 10) if c["version"] != 6 else (6, 9, 10)
    stream_blobs = {fb.scalar(t, ri.T_BLOB, "I") for t in tensors
                    if fb.scalar(t, ri.T_KIND, "b") in left_out}
    off = 0
    for i, b in enumerate(bl):
        if i in stream_blobs or not b:
            continue
        put("weights blob %d offset %d" % (i, off))
        off += (len(b) + 63) // 64 * 64
    put("weight_bytes %d" % off)

    if c["version"] != 6:
        return out + lower_v4(ri, put, path, names)
    rc = [t for t in tensors if fb.scalar(t, ri.T_KIND, "b") == 9]
    tk = [t for t in tensors if fb.scalar(t, ri.T_KIND, "b") == 10]
    regcmd = bl[fb.scalar(rc[0], ri.T_BLOB)]
    tasks = ri.task_records(bl[fb.scalar(tk[0], ri.T_BLOB)])
    put("regcmd %d words %d" % (len(regcmd), len(regcmd) // 8))
    put("tasks %d" % len(tasks))
    for i, t in enumerate(tasks):
        put("task %d op %d enable 0x%x int_mask 0x%x amount %d regcmd 0x%x"
            % (i, t["op_idx"], t["enable_mask"], t["int_mask"], t["regcfg_amount"],
               t["regcmd_addr"]))
    # Groups (docs/format.md §4.2): the multi-core ones at the end of the blob,
    # each its slot sum; the single-core group is every record before them.
    counts = [len(tasks) - sum(slots[1:])] + list(slots[1:]) if slots else []
    first = 0
    for s, cnt in enumerate(counts):
        put("task_group %d first %d count %d" % (s, first, cnt))
        first += cnt

    rel = fb.vec_tables(g, ri.G_RELOCS)
    put("relocs %d" % len(rel))
    total = 0
    for i, r in enumerate(rel):
        rname = raw_string(fb, r, 0)
        v = fb.vector(r, 1)
        total += v[1]
        put("reloc %d name %s tensor %d entries %d" % (i, esc(rname), names.index(rname), v[1]))
        for k in range(v[1]):
            addend, wi = struct.unpack_from("<II", pl, v[0] + 8 * k)
            put("reloc %d entry %d addend 0x%x word %d" % (i, k, addend, wi))
    put("reloc_entries %d" % total)
    return out


# ---- container 4: the payload the runtime builds (docs/format.md §5.1) ----

ADDRESS_REGS = {0x1070: "CNA_FEATURE_DATA_ADDR", 0x1110: "CNA_DCOMP_ADDR0",
                0x4020: "DPU_DST_BASE_ADDR", 0x5018: "DPU_RDMA_SRC_BASE_ADDR",
                0x5020: "DPU_RDMA_BS_BASE_ADDR", 0x502C: "DPU_RDMA_BN_BASE_ADDR",
                0x5038: "DPU_RDMA_EW_BASE_ADDR", 0x6070: "PPU_DST_BASE_ADDR",
                0x701C: "PPU_RDMA_SRC_BASE_ADDR"}
UNIT_DPU, UNIT_DPU_RDMA, UNIT_PPU, UNIT_PPU_RDMA = 0x8, 0x10, 0x20, 0x40  # op-enable bits (hardware.md §1.3)
DPU_DONE, PPU_DONE = 0x300, 0xC00  # interrupt bits of the two groups


def task_cores(fb, table):
    """(core count, core) of a task table: slots 8 and 6, absent = 1 and 0
    (format.md §5.2)."""
    n = fb.scalar(table, 8, "I") if fb.fpos(table, 8) is not None else 1
    return n, fb.scalar(table, 6, "I") if fb.fpos(table, 6) is not None else 0


def slot_of(n, core):
    """The core slot of core `core` of the n-core configuration (format.md §4.2)."""
    return n * (n - 1) // 2 + core


def lut_parts(regs):
    """A LUT's register list as the tasks that load it: cut before every
    entry, after the first, that writes the first entry's register
    (format.md §5.1)."""
    cuts = [e for e in range(1, len(regs)) if regs[e][1] == regs[0][1]]
    return [regs[a:b] for a, b in zip([0] + cuts, cuts + [len(regs)])]


def slot_counts(model, tables):
    """A node's tasks per core slot: its tables there, each preceded by the
    loads of its LUT when it names one; [] without tables."""
    fb = model.fb
    if not tables:
        return []
    cores = [task_cores(fb, t) for t in tables]
    most = max(n for n, _ in cores)
    counts = [0] * (most * (most + 1) // 2)
    for t, (n, core) in zip(tables, cores):
        loads = 0
        if fb.fpos(t, 1) is not None:
            loads = len(lut_parts(model.reglist(fb.scalar(t, 1, "I"))[0]))
        counts[slot_of(n, core)] += 1 + loads
    return counts


def lower_v4(ri, put, path, names):
    """Task records and relocations as format.md §5.1 and §5.2 say the runtime
    builds them: core slot by core slot, node by node, one task per register
    list of the slot, preceded, when its table names a LUT, by the tasks that
    load it (the LUT tensor's entries cut where its first register recurs,
    DPU + DPU_RDMA, their source and destination not relocated: the runtime
    points them at its command stream); every task 16-byte
    aligned and followed by the 4-word PC tail; the DPU's (else the PPU's)
    done bits; on RK3588 (3 cores, multi-IRQ) the lists' CNA and CORE
    S_POINTER entries kept (carrying the core's index) and the single-core
    slot built once per core, group 0 being the first copy (format.md §5.2);
    a multi-core PPU-only task reading
    tempMC11_input and writing tempMC11_output; one relocation table per
    addressed tensor, in index order, its entries in stream order."""
    model = check_v4_layout.Model(ri, path)
    fb = model.fb
    copies = 3 if model.platform == "rk3588" else 1
    sync = {reg: names.index(name) for reg, name in (("PPU_RDMA_SRC_BASE_ADDR", b"tempMC11_input"),
                                                     ("PPU_DST_BASE_ADDR", b"tempMC11_output"))
            if name in names}
    tasks, relocs, groups, word = [], {}, [], 0
    n_slots = max([len(slot_counts(model, fb.vec_tables(n, 6))) for n in model.nodes] or [0])
    order = [0] * copies + list(range(1, n_slots)) if n_slots else []
    for copy, s in enumerate(order):
        first = len(tasks)
        for k in range(len(model.nodes)):
            node = model.node(k)
            tables = fb.vec_tables(model.nodes[k], 6)
            mine = [(meta, task_cores(fb, t)) for meta, t in zip(node["tasks"], tables)
                    if slot_of(*task_cores(fb, t)) == s]
            for t, (meta, (n, _)) in enumerate(mine):
                lut = meta[1] if len(meta) > 1 else None
                if lut is not None:  # no relocation: bound to the stream's start
                    for part in lut_parts(model.reglist(lut)[0]):
                        word = add_task(tasks, relocs, word, k, UNIT_DPU | UNIT_DPU_RDMA, part,
                                        {})
                regs, _ = model.reglist(meta[0])
                if n > 1 and meta[3] == UNIT_PPU | UNIT_PPU_RDMA:
                    rules = sync
                else:
                    rules = {reg: tensor for reg, tensor, _ in
                             check_v4_layout.bindings(node["type"], t, node, lambda i: 0) or []}
                word = add_task(tasks, relocs, word, k, meta[3], regs, rules)
        if copy == 0 or copy >= copies:  # the other copies of slot 0 are in no group
            groups.append((first, len(tasks) - first))
    put("regcmd %d words %d" % (word * 8, word))
    put("tasks %d" % len(tasks))
    for i, (op, enable, amount, start) in enumerate(tasks):
        put("task %d op %d enable 0x%x int_mask 0x%x amount %d regcmd 0x%x"
            % (i, op, enable, DPU_DONE if enable & UNIT_DPU else PPU_DONE, amount, start * 8))
    for s, (first, count) in enumerate(groups):
        put("task_group %d first %d count %d" % (s, first, count))
    put("relocs %d" % len(relocs))
    for i, tensor in enumerate(sorted(relocs)):
        put("reloc %d name %s tensor %d entries %d"
            % (i, esc(names[tensor]), tensor, len(relocs[tensor])))
        for e, (addend, w) in enumerate(relocs[tensor]):
            put("reloc %d entry %d addend 0x%x word %d" % (i, e, addend, w))
    put("reloc_entries %d" % sum(len(v) for v in relocs.values()))
    return []


def add_task(tasks, relocs, word, node, enable, regs, rules):
    """One task at stream word `word`; returns the next task's word."""
    tasks.append((node, enable, len(regs), word))
    for e, (_, reg, value) in enumerate(regs):
        name = ADDRESS_REGS.get(reg)  # reglist() moved RK356x CORE offsets; these are not CORE
        if name in rules:
            relocs.setdefault(rules[name], []).append((value, word + e))
    word += len(regs) + 4
    return word + word % 2


def unsupported_names(path):
    """File names listed in tests/unsupported_models.txt (first field)."""
    names = set()
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line and not line.startswith("#"):
                names.add(line.split()[0])
    return names


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    ri = load_inspector(sys.argv[1])
    unsupported = unsupported_names(sys.argv[3])
    models = sorted(f for f in os.listdir(sys.argv[2]) if f.endswith(".rknn"))
    lines = []
    for f in models:
        if f in unsupported:
            lines.append("%s unsupported" % f)
        else:
            lines += model_lines(ri, os.path.join(sys.argv[2], f))
    text = "\n".join(lines) + "\n"
    if len(sys.argv) > 4:
        with open(sys.argv[4], "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
