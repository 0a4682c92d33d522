#!/usr/bin/python3
"""vendor_diff.py - compare what Rockchip's runtime and rknpu-bm answered,
submitted and left in memory, run by run (scripts/vendor-diff.sh).

    vendor_diff.py MANIFEST.json REGS_DEF REPORT.txt [--show N]

MANIFEST lists cases: {"model": NAME, "case": LABEL, "rknn": PATH or "",
"relocs_file": rknn-inspect --relocs --tasks output or "", "ours": DIR,
"vendor": DIR}; each DIR holds the differential client's report.tsv and
blobs/ (tests/vendor/diff_client.c) and the submission log submit.jsonl
(+ .bin) of that run (boards/host/submit_log.h).

Areas and what one difference is:
  queries      a query answer (return code or fields) that is not equal
  input bytes  an rknn_inputs_set return code, or an input whose bytes in the
               NPU's input buffer differ (the first differing offsets shown)
  outputs      an output answer or output buffer that is not equal
  conversions  matmul operands the runtime converted itself (B, and A when
               AC_layout is normal), as the NPU reads them, not byte-equal
  submissions  per run: how it was cut into jobs and slices (one difference),
               what the PC was given per slice; each core's tasks lined up
               by what they are (units and registers written): a task only
               one runtime ran; a record field; a register whose written
               values differ (or the order of the registers). Address words
               are normalised: PC links by the record they point to (in the
               job, in another job of the run, or, where the run lies at
               the file's stream offsets, any record of the file: a link
               past a job's end is the same word whichever job holds the
               next record, the cut being the job difference), data
               addresses at a task's register commands by that record
               (likewise: a LUT load points at record 0's, format.md §4.3,
               which a run on several cores leaves out), other
               data addresses by the bytes at them when the CPU wrote those
               bytes (constants, inputs; a bias or scale of zeros as zeros;
               a buffer the stand-in created since holds zeros), else by
               their offset in their buffer.
               The bytes are the first 256, or, where our relocation table
               points a BS or BN operand stream (DPU_RDMA) into a constant
               tensor smaller than that, the tensor's bytes (on both sides:
               the stream is channels x operand bytes, which the registers
               compared alongside fix, and what follows a small constant is
               laid out differently, format.md §5.1).
               A weight address (CNA DCOMP_ADDR0) of uncompressed weights
               is named by the WEIGHT_SIZE0 bytes the task reads, where
               fewer than 256 (what follows them is not the task's).
               Where the two sides' names of one address still differ, the
               bytes are those up to the nearer of the two buffers' ends
               (the vendor pads a buffer to 4,096 bytes, we pack them: a
               task in a buffer's last 256 bytes is not its neighbour's).
               Where it names an internal or output tensor, by offset only (on both
               sides): the NPU writes it before it reads it, and bytes a CPU
               left in reused memory before say nothing about it.
  memory       DMA bytes held at a step
  matmul       a matmul answer: create/run return codes, attributes, C
Nothing is left out: a key one runtime answered and the other did not is a
difference too. Exit status 0 when the comparison ran (differences are
findings, not failures); 1 when the vendor runtime met a problem on the
virtual NPU (a submission it could not execute, a matmul result off the CPU
reference): those are defects of the virtual NPU; 2 when its inputs are
unusable.
"""
import argparse
import collections
import difflib
import hashlib
import json
import os
import re
import sys

import numpy as np

AREAS = ["queries", "input bytes", "outputs", "conversions", "submissions", "memory", "matmul"]
ADDRESS_REGS = ["CNA_FEATURE_DATA_ADDR", "CNA_DCOMP_ADDR0", "DPU_DST_BASE_ADDR",
                "DPU_RDMA_SRC_BASE_ADDR", "DPU_RDMA_BS_BASE_ADDR", "DPU_RDMA_BN_BASE_ADDR",
                "DPU_RDMA_EW_BASE_ADDR", "PPU_DST_BASE_ADDR", "PPU_RDMA_SRC_BASE_ADDR"]
PC_LINK = "PC_DATA_ADDR"
# Per-channel operands (biases, scales): always constants, so bytes the CPU
# wrote there as zeros are named as such (a zero bias), not by an offset
# that depends on how each runtime lays its constants out.
CONSTANT_OPERAND_REGS = ["DPU_RDMA_BS_BASE_ADDR", "DPU_RDMA_BN_BASE_ADDR"]
CONTENT_BYTES = 256  # bytes hashed to name what an address points at
# DPU_RDMA BS_BASE_ADDR, BN_BASE_ADDR: per-channel operand streams, read
# channels x (bytes per operand) from the address (vnpu.md §7.1)
OPERAND_STREAM_REGS = {0x5020, 0x502C}


def die(msg):
    print("vendor_diff: " + msg, file=sys.stderr)
    sys.exit(2)


def register_offsets(regs_def):
    regs = {}
    with open(regs_def) as f:
        for line in f:
            m = re.match(r"\s*NPU_REG\((\w+),\s*(\w+),\s*(0x[0-9A-Fa-f]+)\)", line)
            if m:
                regs["%s_%s" % (m.group(1), m.group(2))] = int(m.group(3), 16)
    missing = [n for n in ADDRESS_REGS + [PC_LINK] if n not in regs]
    if missing:
        die("%s lacks %s" % (regs_def, ", ".join(missing)))
    return regs


# ---- the client's report ----------------------------------------------------------

class Report:
    """report.tsv as an ordered {(area, key): value}; repeated keys get #2, #3."""

    def __init__(self, d):
        self.dir = d
        self.items = collections.OrderedDict()
        path = os.path.join(d, "report.tsv")
        if not os.path.isfile(path):
            die("missing %s" % path)
        seen = collections.Counter()
        with open(path, errors="replace") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t", 2)
                if len(parts) != 3:
                    continue
                area, key, value = parts
                seen[(area, key)] += 1
                if seen[(area, key)] > 1:
                    key = "%s#%d" % (key, seen[(area, key)])
                self.items[(area, key)] = value
        self.finished = ("runtime", "finished") in self.items

    def blob(self, value):
        m = re.match(r"blob (\S+) (\d+)$", value)
        if not m:
            return None
        with open(os.path.join(self.dir, "blobs", m.group(1)), "rb") as f:
            return f.read()

    def attr(self, key):
        """The fields of an attribute line as a dict (queries area)."""
        v = self.items.get(("queries", key + "#2")) or ""
        out = {}
        for name in ("size", "size_with_stride", "n_elems"):
            m = re.search(r"\b%s (\d+)" % name, v)
            if m:
                out[name] = int(m.group(1))
        m = re.search(r"\btype (\w+)", v)
        if m:
            out["type"] = m.group(1)
        return out


def describe_bytes(a, b, as_float=False):
    """Where two byte strings differ, in a few words."""
    if len(a) != len(b):
        return "sizes %d vs %d" % (len(a), len(b))
    x = np.frombuffer(a, np.uint8)
    y = np.frombuffer(b, np.uint8)
    diff = np.nonzero(x != y)[0]
    text = "%d of %d bytes differ, first at %s" % (len(diff), len(a),
                                                   ", ".join(str(int(i)) for i in diff[:4]))
    if as_float and len(a) % 4 == 0:
        # the bytes may hold NaNs (signalling ones too): compare what is finite
        with np.errstate(invalid="ignore", over="ignore"):
            fx = np.frombuffer(a, np.float32).astype(np.float64)
            fy = np.frombuffer(b, np.float32).astype(np.float64)
            d = np.abs(fx - fy)
        d = d[np.isfinite(d)]
        text += "; as float32 max |d| %s" % ("%.6g" % d.max() if d.size else "n/a (not finite)")
    return text


# ---- the submission log ---------------------------------------------------------------

class Log:
    """submit.jsonl grouped by the client's marks: {mark: [event, ...]}, and
    the CPU writes with their bytes."""

    def __init__(self, d):
        path = os.path.join(d, "submit.jsonl")
        self.path = path
        self.by_mark = collections.OrderedDict()
        self.writes = []  # (event index, dma, bytes offset in .bin, length)
        if not os.path.isfile(path):
            die("missing %s" % path)
        mark = "(before any mark)"
        self.events = []
        with open(path) as f:
            for line in f:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if "mark" in ev:
                    mark = ev["mark"]
                    self.by_mark.setdefault(mark, [])
                    continue
                ev["_index"] = len(self.events)
                self.events.append(ev)
                self.by_mark.setdefault(mark, []).append(ev)
                if ev.get("ev") == "cpu_writes":
                    for dma, length, off in ev["ranges"]:
                        self.writes.append((ev["_index"], dma, off, length))
                elif ev.get("ev") == "mem" and ev.get("what") == "create":
                    # the kernel-driver stand-in zeroes a buffer it creates, as the
                    # kernel does: what the CPU wrote there before is gone
                    self.writes.append((ev["_index"], ev["dma"], None, ev["size"]))
        self.data = np.fromfile(path + ".bin", np.uint8) if os.path.isfile(path + ".bin") \
            else np.zeros(0, np.uint8)

    def read(self, before_event, dma, length):
        """Bytes [dma, dma + length) as the CPU last wrote them (or a buffer's
        creation zeroed them) before an event; None where unknown."""
        out = np.zeros(length, np.uint8)
        known = np.zeros(length, bool)
        for idx, wdma, off, wlen in reversed(self.writes):
            if idx > before_event:
                continue
            lo, hi = max(dma, wdma), min(dma + length, wdma + wlen)
            if lo >= hi:
                continue
            sel = ~known[lo - dma:hi - dma]
            if not sel.any():
                continue
            src = np.zeros(hi - lo, np.uint8) if off is None else \
                self.data[off + (lo - wdma):off + (hi - wdma)]
            seg = out[lo - dma:hi - dma]
            seg[sel] = src[sel]
            known[lo - dma:hi - dma] = True
            if known.all():
                break
        return out, known


def jobs_of(events):
    """The jobs of a run: [(buffers, cpu_writes index, [slice, ...])]."""
    jobs = collections.OrderedDict()
    buffers = {}
    for ev in events:
        kind = ev.get("ev")
        if kind == "buffers":
            buffers[ev["job"]] = ev["list"]
        elif kind == "slice":
            jobs.setdefault(ev["job"], {"buffers": buffers.get(ev["job"], []), "slices": [],
                                        "first_event": ev["_index"]})["slices"].append(ev)
    return list(jobs.values())


def word_fields(word):
    w = int(word, 16)
    return w >> 48, (w >> 16) & 0xFFFFFFFF, w & 0xFFFF


class Normaliser:
    """Address words as what they name (see the module's docstring)."""

    def __init__(self, log, job, address_regs, link_reg, run_jobs=(), constant_regs=(),
                 spans=()):
        self.log = log
        self.job = job
        self.address_regs = address_regs
        self.constant_regs = constant_regs
        self.link_reg = link_reg
        self.records = {}
        for s in job["slices"]:
            for t in s["tasks"]:
                self.records[t["regcmd"]] = t["i"]
        # a data address at a task's commands (any job of the run): their
        # bytes hold addresses that differ between runtimes by construction
        self.commands = {}
        for j in run_jobs:
            for s in j["slices"]:
                for t in s["tasks"]:
                    self.commands.setdefault(t["regcmd"], t["i"])
        self.stream = self.stream_records(spans)

    def stream_records(self, spans):
        """{address: record} for every record of the file, where each task of
        the run lies at its file offset from one stream base (a file's stream
        as it is, not a lowered one): a LUT load points at the stream's
        start (format.md §4.3), record 0's commands, which a run on several
        cores never submits."""
        start = {rec: 8 * word for rec, word, _ in spans}
        bases = {regcmd - start[rec] if rec in start else None
                 for regcmd, rec in self.commands.items()}
        if len(bases) != 1 or None in bases:
            return {}
        base = bases.pop()
        return {base + off: rec for rec, off in start.items()}

    def buffer_of(self, value):
        for i, (dma, size) in enumerate(self.job["buffers"]):
            if dma <= value < dma + size:
                return i, value - dma, size
        return None

    def name(self, reg, value, nbytes=CONTENT_BYTES):
        if reg == self.link_reg:
            if value == 0:
                return "link 0"
            if value in self.records:
                return "link record %d" % self.records[value]
            # a link past the job's last task, to the record another job
            # starts with or one the run leaves out: the job cut itself is
            # compare_jobs' difference, a task left out compare_tasks'
            rec = self.stream.get(value, self.commands.get(value))
            return "link ?" if rec is None else "link record %d" % rec
        if value in self.commands:
            return "commands of record %d" % self.commands[value]
        if value in self.stream:
            return "commands of record %d" % self.stream[value]
        data, known = self.log.read(self.job["first_event"], value, nbytes)
        if nbytes and known.all() and (data.any() or nbytes < CONTENT_BYTES):
            return "data %s" % hashlib.sha1(data.tobytes()).hexdigest()[:12]
        if nbytes and known.all() and reg in self.constant_regs:
            return "data zeros"
        b = self.buffer_of(value)
        if b is None:
            return "address outside every buffer"
        return "buffer+%d" % b[1]

    def word(self, word, nbytes=CONTENT_BYTES):
        target, value, reg = word_fields(word)
        if reg in self.address_regs or reg == self.link_reg:
            return "%04x %04x %s" % (target, reg, self.name(reg, value, nbytes))
        return "%04x %04x %08x" % (target, reg, value)


# ---- comparing --------------------------------------------------------------------------

class Tally:
    def __init__(self, show, accounting=None):
        self.show = show
        self.accounting = accounting
        self.counts = collections.OrderedDict()  # (model, area) -> n
        self.examples = collections.defaultdict(list)  # (model, area) -> [text]
        self.full = []

    def add(self, model, area, text):
        if self.accounting:
            self.accounting.add(model, area, text)
        k = (model, area)
        self.counts[k] = self.counts.get(k, 0) + 1
        if len(self.examples[k]) < self.show:
            self.examples[k].append(text)
        self.full.append("%s | %s | %s" % (model, area, text))

    def ensure(self, model):
        for a in AREAS:
            self.counts.setdefault((model, a), 0)


def table_rows(path, heading):
    """The cells of every row of the first Markdown table under `heading`."""
    rows, inside = [], False
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                inside = line.strip().lstrip("#").strip().startswith(heading)
                continue
            if inside and line.startswith("|") and not set(line) <= set("|-: \n"):
                rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows[1:]  # the header row


def unquote(cell):
    return cell[1:-1] if len(cell) > 1 and cell[0] == cell[-1] == "`" else cell


def glob(pattern, text):
    """Shell-like match where only `*` is special (brackets are literal)."""
    rx = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(rx, text, re.S) is not None


def group_of(area, text):
    """The backlog group of a difference: per run for submissions, else its
    key; numbers as `*` (tests/vendor/parity-backlog.txt)."""
    if area == "submissions":
        return re.sub(r"[0-9]+", "*", " ".join(text.split(" ")[:2])) + " *"
    key = text.split(": rknpu-bm")[0].split(": ")[0]
    return re.sub(r"[0-9]+", "*", key) + "*"


class Accounting:
    """Every difference is a deliberate divergence docs/compat.md §3 lists
    (model pattern, area, pattern of the difference), or open parity
    work in a group of tests/vendor/parity-backlog.txt within its ceiling;
    anything else fails the comparison."""

    def __init__(self, compat, backlog):
        self.rules = []  # [model, area, text, count, why]
        for cells in table_rows(compat, "\u00a73"):  # compat.md §3
            if len(cells) >= 6:
                self.rules.append([unquote(cells[0]), cells[1], unquote(cells[2]), 0, cells[5]])
        self.backlog = collections.OrderedDict()  # (model, area, group) -> [ceiling, count, why]
        with open(backlog) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    ceiling, model, area, group, why = [x.strip() for x in line.split("\t")]
                    self.backlog[(model, area, group)] = [int(ceiling), 0, why]
        self.unlisted = []

    @staticmethod
    def fits(rule_text, text):
        if rule_text == "<=":  # a memory figure at or below the vendor's
            m = re.search(r"rknpu-bm 'dma_bytes (\d+)', vendor 'dma_bytes (\d+)'", text)
            return bool(m) and int(m.group(1)) <= int(m.group(2))
        return glob(rule_text, text)

    def add(self, model, area, text):
        for r in self.rules:
            if r[1] == area and glob(r[0], model) and self.fits(r[2], text):
                r[3] += 1
                return
        g = self.backlog.get((model, area, group_of(area, text)))
        if g:
            g[1] += 1
        else:
            self.unlisted.append("%s | %s | %s" % (model, area, text))

    def summary(self, show):
        lines, failed = [], bool(self.unlisted)
        listed = sum(r[3] for r in self.rules)
        open_work = sum(g[1] for g in self.backlog.values())
        for (model, area, group), (ceiling, n, _) in self.backlog.items():
            if n > ceiling:
                failed = True
                lines.append("  over its ceiling (%d > %d): %s | %s | %s" %
                             (n, ceiling, model, area, group))
        lines += ["  not listed: " + x for x in self.unlisted[:show]]
        if len(self.unlisted) > show:
            lines.append("  ... (%d in all)" % len(self.unlisted))
        head = ("vendor-diff accounting: %d deliberate (docs/compat.md), %d open parity work "
                "(tests/vendor/parity-backlog.txt), %d not listed" %
                (listed, open_work, len(self.unlisted)))
        return [head] + lines, failed


def area_of(report_area, key):
    if report_area == "inputs":
        return "input bytes"
    if report_area in ("queries", "outputs", "memory", "matmul"):
        return report_area
    return "outputs"


def compare_reports(t, model, case, ours, vendor):
    keys = list(ours.items)
    keys += [k for k in vendor.items if k not in ours.items]
    for k in keys:
        area, key = k
        if area == "runtime":
            continue
        a, b = ours.items.get(k), vendor.items.get(k)
        where = "%s %s" % (case, key)
        if a is None or b is None:
            t.add(model, area_of(area, key), "%s: rknpu-bm %s, vendor %s" % (
                where, "'%s'" % a if a is not None else "no answer",
                "'%s'" % b if b is not None else "no answer"))
            continue
        if a.startswith("blob ") and b.startswith("blob "):
            x, y = ours.blob(a), vendor.blob(b)
            if x != y:
                t.add(model, area_of(area, key), "%s: %s" % (
                    where, describe_bytes(x, y, as_float="want_float1" in key or
                                          "float32" in key or "fp32" in key)))
        elif a != b:
            t.add(model, area_of(area, key), "%s: rknpu-bm '%s', vendor '%s'" % (where, a, b))
    for name, r in (("rknpu-bm", ours), ("vendor", vendor)):
        if not r.finished:
            t.add(model, "outputs", "%s: the %s client did not finish (its last answer: %s)" % (
                case, name, "/".join(list(r.items)[-1]) if r.items else "none"))


TASK_FIELDS = ["flags", "enable_mask", "int_mask", "int_clear", "regcfg_amount"]
SLICE_FIELDS = ["core", "first", "count", "pp", "task_con", "int_mask", "int_clear"]


def job_shape(job):
    """A job's cores and task counts, e.g. 'core0:2 core1:3'."""
    return " ".join("core%d:%d" % (s["core"], s["count"]) for s in job["slices"])


def tasks_by_core(jobs):
    """{core: [(job, task)]} in submission order: what each core ran."""
    out = collections.OrderedDict()
    for job in jobs:
        for s in job["slices"]:
            out.setdefault(s["core"], []).extend((job, tsk) for tsk in s["tasks"])
    return out


def task_registers(task, normaliser, extents):
    """A task's words as {(target, register): [normalised values in order]}
    and the order of first writes; `extents`: {(target, register): bytes
    hashed at its address} where fewer than CONTENT_BYTES."""
    regs, order = collections.OrderedDict(), []
    for w in task.get("words") or []:
        target, _, reg = word_fields(w)
        key = (target, reg)
        if key not in regs:
            order.append(key)
        regs.setdefault(key, []).append(normaliser.word(w, extents.get(key, CONTENT_BYTES)))
    return regs, order


def small_constants(task, consts):
    """{(target, register): bytes hashed} for our task's words that our
    relocation table points into a constant tensor with fewer than
    CONTENT_BYTES bytes from the address on, or (0) an internal or output tensor
    (`consts`: {(record, word in record): bytes})."""
    out = {}
    for k, w in enumerate(task.get("words") or []):
        n = consts.get((task.get("i"), k))
        if n is not None:
            target, _, reg = word_fields(w)
            out[(target, reg)] = n
    return out


def register_value(task, reg):
    """The last value a task writes to register `reg`, or None."""
    value = None
    for w in task.get("words") or []:
        _, v, r = word_fields(w)
        if r == reg:
            value = v
    return value


def weight_extent(ta, tb, regs):
    """{(CNA target, DCOMP_ADDR0): bytes hashed} where both tasks read
    uncompressed weights (DCOMP_CTRL 0 or unwritten) of fewer than
    CONTENT_BYTES bytes: the NPU reads WEIGHT_SIZE0 bytes there, and what
    each runtime lays after them is not part of the task."""
    sizes = [register_value(t, regs["weight_size"]) for t in (ta, tb)]
    if None in sizes or any(register_value(t, regs["decompress"]) for t in (ta, tb)):
        return {}
    n = min(sizes)
    targets = {word_fields(w)[0] for w in ta.get("words") or []
               if word_fields(w)[2] == regs["weight"]}
    return {(tgt, regs["weight"]): n for tgt in targets if 0 < n < CONTENT_BYTES}


def within_buffers(ta, tb, no, nv, ra, rb, extents):
    """Registers whose data addresses the two sides name by different bytes
    are named again by the bytes up to the nearer of the two buffers' ends:
    what lies past a buffer is not the task's (the vendor pads a buffer to
    4,096 bytes, we pack them), so a task that starts in a buffer's last 256
    bytes would otherwise be named by its neighbour's contents."""
    for key in [k for k in ra if k in rb and ra[k] != rb[k] and k not in extents]:
        values = [[word_fields(w)[1] for w in t.get("words") or []
                   if (word_fields(w)[0], word_fields(w)[2]) == key] for t in (ta, tb)]
        if len(values[0]) != 1 or len(values[1]) != 1:
            continue
        held = [n.buffer_of(v[0]) for n, v in ((no, values[0]), (nv, values[1]))]
        if None in held:
            continue
        left = min(size - off for _, off, size in held)
        if left >= CONTENT_BYTES:
            continue
        again = [n.word(w, left) for n, t in ((no, ta), (nv, tb)) for w in t.get("words") or []
                 if (word_fields(w)[0], word_fields(w)[2]) == key]
        ra[key], rb[key] = [again[0]], [again[1]]
    return ra, rb


def signature(task):
    """What a task is, for lining two runs' tasks up: its units and the
    registers it writes (not their values, not their order)."""
    return (task.get("enable_mask"),
            frozenset((w[:4], w[-4:]) for w in task.get("words") or []))


def compare_pair(t, model, tw, ta, tb, no, nv, regs, consts=None):
    for f in TASK_FIELDS:
        if ta.get(f) != tb.get(f):
            t.add(model, "submissions", "%s %s: rknpu-bm %s, vendor %s" % (
                tw, f, ta.get(f), tb.get(f)))
    extents = small_constants(ta, consts or {})
    extents.update(weight_extent(ta, tb, regs))
    ra, oa = task_registers(ta, no, extents)
    rb, ob = task_registers(tb, nv, extents)
    ra, rb = within_buffers(ta, tb, no, nv, ra, rb, extents)
    for key in list(ra) + [k for k in rb if k not in ra]:
        va, vb = ra.get(key), rb.get(key)
        if va != vb:
            t.add(model, "submissions", "%s register %04x:%04x: rknpu-bm %s, vendor %s" % (
                tw, key[0], key[1], "; ".join(v[10:] for v in va) if va else "not written",
                "; ".join(v[10:] for v in vb) if vb else "not written"))
    common = [k for k in oa if k in rb]
    if common != [k for k in ob if k in ra]:
        t.add(model, "submissions", "%s: the registers both write come in another order" % tw)


def compare_tasks(t, model, where, seq_o, seq_v, lo, lv, regs, runs=((), ()), consts=None,
                  spans=()):
    """Two cores' task sequences, lined up by what each task is (difflib on
    signatures): a task only one runtime ran is one difference; lined-up tasks
    are compared record field by field and register by register."""
    norm = {}

    def normaliser(side, job, log):
        return norm.setdefault((side, id(job)), Normaliser(log, job, regs["address"],
                                                          regs["link"], runs[side == "v"],
                                                          regs["constant"], spans))
    sig_o = [signature(tsk) for _, tsk in seq_o]
    sig_v = [signature(tsk) for _, tsk in seq_v]
    matcher = difflib.SequenceMatcher(None, sig_o, sig_v, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        pairs = list(zip(range(i1, i2), range(j1, j2)))
        for i, j in pairs:
            (jo, ta), (jv, tb) = seq_o[i], seq_v[j]
            tw = "%s task %d/%d (records %d/%d)" % (where, i, j, ta["i"], tb["i"])
            compare_pair(t, model, tw, ta, tb, normaliser("o", jo, lo), normaliser("v", jv, lv),
                         regs, consts)
        for i in range(i1 + len(pairs), i2):
            ta = seq_o[i][1]
            t.add(model, "submissions", "%s task %d (record %d, enable 0x%x, %d words): only "
                  "in rknpu-bm" % (where, i, ta["i"], ta.get("enable_mask", 0),
                                   len(ta.get("words") or [])))
        for j in range(j1 + len(pairs), j2):
            tb = seq_v[j][1]
            t.add(model, "submissions", "%s task %d (record %d, enable 0x%x, %d words): only "
                  "in vendor" % (where, j, tb["i"], tb.get("enable_mask", 0),
                                 len(tb.get("words") or [])))


def compare_jobs(t, model, where, jo, jv):
    """How the runs were cut into jobs and what the PC was given per slice."""
    shape_o = [job_shape(j) for j in jo]
    shape_v = [job_shape(j) for j in jv]
    if shape_o != shape_v:
        def brief(shapes):
            text = "; ".join(shapes[:4]) + ("; ..." if len(shapes) > 4 else "")
            return "%d job(s) [%s]" % (len(shapes), text)
        t.add(model, "submissions", "%s: rknpu-bm %s, vendor %s" % (
            where, brief(shape_o), brief(shape_v)))
        for f in SLICE_FIELDS[3:]:  # beyond core/first/count: what the PC was given
            vo = sorted({s[f] for j in jo for s in j["slices"]})
            vv = sorted({s[f] for j in jv for s in j["slices"]})
            if vo != vv:
                t.add(model, "submissions", "%s slices' %s: rknpu-bm %s, vendor %s" % (
                    where, f, vo, vv))
        return
    for j, (a, b) in enumerate(zip(jo, jv)):
        for k, (x, y) in enumerate(zip(a["slices"], b["slices"])):
            for f in SLICE_FIELDS:
                if x.get(f) != y.get(f):
                    t.add(model, "submissions", "%s job %d slice %d %s: rknpu-bm %s, vendor %s"
                          % (where, j, k, f, x.get(f), y.get(f)))


def compare_submissions(t, model, case, lo, lv, regs, consts=None, spans=()):
    marks = list(lo.by_mark) + [m for m in lv.by_mark if m not in lo.by_mark]
    for m in marks:
        jo, jv = jobs_of(lo.by_mark.get(m, [])), jobs_of(lv.by_mark.get(m, []))
        where = "%s %s" % (case, m)
        compare_jobs(t, model, where, jo, jv)
        co, cv = tasks_by_core(jo), tasks_by_core(jv)
        for core in list(co) + [c for c in cv if c not in co]:
            compare_tasks(t, model, "%s core %d" % (where, core), co.get(core, []),
                          cv.get(core, []), lo, lv, regs, (jo, jv), consts, spans)


# ---- input bytes --------------------------------------------------------------------------

def input_addresses(job, relocs, regs, n_inputs):
    """Where each input is read: from the model's relocation table (the record
    and word an input tensor's address is patched into, when that word is a
    CNA feature address in this job: a runtime that cuts the model into other
    tasks, as the vendor's does YOLOv8n, has other words there), else, for
    one input, the first CNA feature address of the job."""
    found = {}
    words = {}
    for s in job["slices"]:
        for tsk in s["tasks"]:
            words[tsk["i"]] = tsk.get("words") or []
    for i, (record, word) in (relocs or {}).items():
        w = words.get(record, [])
        if word < len(w) and word_fields(w[word])[2] == regs["feature"]:
            found[i] = word_fields(w[word])[1]
    if not found and n_inputs == 1:
        for s in job["slices"]:
            for tsk in s["tasks"]:
                for w in tsk.get("words") or []:
                    _, value, reg = word_fields(w)
                    if reg == regs["feature"] and 0 not in found:
                        found[0] = value
    return found


def compare_input_bytes(t, model, case, ours, vendor, lo, lv, relocs, regs):
    n_in = 0
    while ("queries", "init/INPUT_ATTR[%d]" % n_in) in ours.items and \
            ours.items[("queries", "init/INPUT_ATTR[%d]" % n_in)] == "ret 0":
        n_in += 1
    for (area, key), value in ours.items.items():
        if area != "inputs" or not key.endswith("/run") or "#" in key:
            continue
        mark = key[:-len("/run")]
        if value != "ret 0" or vendor.items.get((area, key)) != "ret 0":
            continue  # return codes are compared with the report
        jo, jv = jobs_of(lo.by_mark.get(mark, [])), jobs_of(lv.by_mark.get(mark, []))
        if not jo or not jv:
            t.add(model, "input bytes", "%s %s: no submission to read the inputs from "
                  "(rknpu-bm %d jobs, vendor %d)" % (case, mark, len(jo), len(jv)))
            continue
        ao = input_addresses(jo[0], relocs, regs, n_in)
        av = input_addresses(jv[0], relocs, regs, n_in)
        for i in range(n_in):
            so = ours.attr("init/NATIVE_INPUT_ATTR[%d]" % i).get("size_with_stride", 0)
            sv = vendor.attr("init/NATIVE_INPUT_ATTR[%d]" % i).get("size_with_stride", 0)
            if i not in ao or i not in av:
                t.add(model, "input bytes", "%s %s input %d: its address not found (%s)" % (
                    case, mark, i, "rknpu-bm" if i not in ao else "vendor"))
                continue
            n = min(so, sv) if so and sv else max(so, sv)
            bo, ko = lo.read(jo[0]["first_event"], ao[i], n)
            bv, kv = lv.read(jv[0]["first_event"], av[i], n)
            if so != sv:
                t.add(model, "input bytes", "%s %s input %d: buffer sizes %d vs %d" % (
                    case, mark, i, so, sv))
            if not ko.all() or not kv.all():
                t.add(model, "input bytes", "%s %s input %d: %d/%d bytes never written by the CPU"
                      % (case, mark, i, int((~ko).sum()), int((~kv).sum())))
            if not np.array_equal(bo, bv):
                t.add(model, "input bytes", "%s %s input %d: %s" % (
                    case, mark, i, describe_bytes(bo.tobytes(), bv.tobytes())))


def task_spans(relocs_text):
    """[(record, first stream word, words with the tail)] from rknn-inspect --tasks."""
    return [(int(m.group(1)), int(m.group(3), 16) // 8, int(m.group(2)) + 4) for m in
            re.finditer(r"^task\s+(\d+) .* amount (\d+) regcmd \+0x([0-9a-f]+)", relocs_text,
                        re.M)]


def small_constant_words(relocs_text):
    """{(record, word in the record): bytes to hash} for every relocated
    operand-stream address (OPERAND_STREAM_REGS) that points into a constant
    tensor fewer than CONTENT_BYTES bytes before its end, or (0: none) any
    address into an internal or output tensor (rknn-inspect --relocs --tasks: tensor
    kinds and sizes, relocations)."""
    if not relocs_text:
        return {}
    sizes = {int(m.group(1)): int(m.group(2)) for m in
             re.finditer(r"^tensor\s+(\d+) const .* size (\d+)", relocs_text, re.M)}
    sizes.update({int(m.group(1)): 0 for m in
                  re.finditer(r"^tensor\s+(\d+) (?:internal|output) ", relocs_text, re.M)})
    spans = task_spans(relocs_text)
    out = {}
    for m in re.finditer(r"^reloc .* tensor (\d+) word (\d+) .* reg 0x([0-9a-f]+) .* "
                         r"addend 0x([0-9a-f]+)", relocs_text, re.M):
        tensor, word, addend = int(m.group(1)), int(m.group(2)), int(m.group(4), 16)
        n_bytes = max(sizes.get(tensor, CONTENT_BYTES) - addend, 0)
        if sizes.get(tensor) != 0 and not (int(m.group(3), 16) in OPERAND_STREAM_REGS and
                                           0 < n_bytes < CONTENT_BYTES):
            continue
        for rec, start, n in spans:
            if start <= word < start + n:
                out[(rec, word - start)] = n_bytes if sizes[tensor] else 0
                break
    return out


def input_relocs(relocs_text):
    """{input index: (record, word in the record)} from rknn-inspect --relocs --tasks."""
    if not relocs_text:
        return None
    tasks = []
    for m in re.finditer(r"^task\s+(\d+) .* amount (\d+) regcmd \+0x([0-9a-f]+)", relocs_text,
                         re.M):
        tasks.append((int(m.group(1)), int(m.group(3), 16) // 8, int(m.group(2)) + 4))
    graph = re.search(r"inputs \[([0-9,]*)\]", relocs_text)
    if not graph:
        return None
    inputs = [int(x) for x in graph.group(1).split(",") if x]
    out = {}
    for m in re.finditer(r"^reloc .* tensor (\d+) word (\d+) ", relocs_text, re.M):
        tensor, word = int(m.group(1)), int(m.group(2))
        if tensor not in inputs:
            continue
        i = inputs.index(tensor)
        if i in out:
            continue
        for rec, start, n in tasks:
            if start <= word < start + n:
                out[i] = (rec, word - start)
                break
    return out


# ---- matmul conversions ----------------------------------------------------------------------

MM_ELEM = {"fp16_fp32": 2.0, "int8_int32": 1.0, "int4_int16": 0.5}


def compare_conversions(t, model, case, ours, vendor, lo, lv, regs):
    for (area, key), value in ours.items.items():
        if area != "matmul" or not key.endswith("/run") or value != "ret 0":
            continue
        if vendor.items.get((area, key)) != "ret 0":
            continue
        name = key[:-len("/run")]
        m = re.match(r"(\w+)/(\d+)x(\d+)x(\d+)/B(\w+)_AC(\w+)$", name)
        if not m:
            continue
        typ, M, K, N = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
        operands = []
        if m.group(5) == "normal":
            operands.append(("B", regs["weight"], int(K * N * MM_ELEM[typ])))
        if m.group(6) == "normal":
            operands.append(("A", regs["feature"], int(M * K * MM_ELEM[typ])))
        jo, jv = jobs_of(lo.by_mark.get(name, [])), jobs_of(lv.by_mark.get(name, []))
        if not jo or not jv:
            continue  # the submissions area counts missing jobs
        for what, reg, size in operands:
            addr = []
            for job in (jo[0], jv[0]):
                a = None
                for s in job["slices"]:
                    for tsk in s["tasks"]:
                        for w in tsk.get("words") or []:
                            _, v, r = word_fields(w)
                            if r == reg and a is None:
                                a = v
                addr.append(a)
            if None in addr:
                t.add(model, "conversions", "%s %s %s: no address register 0x%04x" % (
                    case, name, what, reg))
                continue
            bo, ko = lo.read(jo[0]["first_event"], addr[0], size)
            bv, kv = lv.read(jv[0]["first_event"], addr[1], size)
            if not np.array_equal(bo, bv) or not np.array_equal(ko, kv):
                t.add(model, "conversions", "%s %s %s as the NPU reads it: %s" % (
                    case, name, what, describe_bytes(bo.tobytes(), bv.tobytes())))


# ---- the vendor's answers on the virtual NPU must be right -----------------------------

def known_defects(path):
    """[(regex, reason)] from tests/vendor/known-vendor-defects.txt."""
    out = []
    if path and os.path.isfile(path):
        with open(path) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    pattern, reason = line.rstrip("\n").split("\t", 1)
                    out.append((re.compile(pattern), reason))
    return out


def vendor_problems(cases, known):
    """What says the virtual NPU failed the vendor runtime: a submission it
    could not execute (the stand-in's 'SUBMIT n failed' lines), or a matmul
    result the vendor runtime got off the CPU reference, unless it is a
    known defect of the vendor runtime itself. Returns (problems, known)."""
    out, seen = [], []
    for c in cases:
        log = os.path.join(c["vendor"], "client.log")
        if os.path.isfile(log):
            with open(log, errors="replace") as f:
                for line in f:
                    if "rknpu-standin: SUBMIT" in line and "failed" in line:
                        out.append("VIRTUAL NPU: %s %s: %s" % (c["model"], c["case"],
                                                               line.strip()))
        rep = os.path.join(c["vendor"], "report.tsv")
        if not os.path.isfile(rep):
            continue
        with open(rep, errors="replace") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 3 or parts[0] != "matmul" or \
                        not parts[1].endswith("/reference") or \
                        not parts[2].startswith("MISMATCH"):
                    continue
                where = "%s %s %s" % (c["model"], c["case"], parts[1])
                reason = next((r for p, r in known if p.search(where)), None)
                if reason:
                    seen.append("known vendor defect: %s: %s (%s)" % (where, parts[2], reason))
                else:
                    out.append("VIRTUAL NPU: vendor matmul %s: %s" % (where, parts[2]))
    if out:
        out.insert(0, "the vendor runtime on the virtual NPU: %d problem(s) (virtual NPU defects "
                   "to fix):" % len(out))
    return out, seen


# ---- main ------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("manifest")
    ap.add_argument("regs_def")
    ap.add_argument("report")
    ap.add_argument("--show", type=int, default=3)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--known-defects", default=os.path.join(
        here, "..", "vendor", "known-vendor-defects.txt"))
    ap.add_argument("--compat", default=os.path.join(here, "..", "..", "docs", "compat.md"))
    ap.add_argument("--backlog", default=os.path.join(here, "..", "vendor", "parity-backlog.txt"))
    ap.add_argument("--account", action="store_true",
                    help="fail (exit 3) on a difference docs/compat.md does not list and the "
                    "backlog does not bound")
    a = ap.parse_args()
    offsets = register_offsets(a.regs_def)
    regs = {"address": {offsets[n] for n in ADDRESS_REGS}, "link": offsets[PC_LINK],
            "feature": offsets["CNA_FEATURE_DATA_ADDR"], "weight": offsets["CNA_DCOMP_ADDR0"],
            "weight_size": offsets["CNA_WEIGHT_SIZE0"], "decompress": offsets["CNA_DCOMP_CTRL"],
            "constant": {offsets[n] for n in CONSTANT_OPERAND_REGS}}
    with open(a.manifest) as f:
        cases = json.load(f)
    t = Tally(a.show, Accounting(a.compat, a.backlog) if a.account else None)
    models = []
    for c in cases:
        model = c["model"]
        if model not in models:
            models.append(model)
            t.ensure(model)
        ours, vendor = Report(c["ours"]), Report(c["vendor"])
        lo, lv = Log(c["ours"]), Log(c["vendor"])
        compare_reports(t, model, c["case"], ours, vendor)
        text = None
        if c.get("relocs_file") and os.path.isfile(c["relocs_file"]):
            with open(c["relocs_file"]) as f:
                text = f.read()
        compare_submissions(t, model, c["case"], lo, lv, regs, small_constant_words(text),
                            task_spans(text or ""))
        relocs = input_relocs(text)
        compare_input_bytes(t, model, c["case"], ours, vendor, lo, lv, relocs, regs)
        compare_conversions(t, model, c["case"], ours, vendor, lo, lv, regs)
    lines = []
    total = 0
    for model in models:
        n = sum(t.counts[(model, area)] for area in AREAS)
        total += n
        lines.append("%s: %d differences (%s)" % (model, n, ", ".join(
            "%s %d" % (area, t.counts[(model, area)]) for area in AREAS)))
        for area in AREAS:
            for e in t.examples[(model, area)]:
                lines.append("  %s: %s" % (area, e))
    lines.append("vendor-diff: %d differences" % total)
    problems, seen = vendor_problems(cases, known_defects(a.known_defects))
    if seen:
        lines[-1:-1] = ["%d vendor matmul result(s) off the reference are known defects of the "
                        "vendor runtime (tests/vendor/known-vendor-defects.txt):" % len(seen)] + \
            ["  " + x for x in seen[:a.show]] + (["  ..."] if len(seen) > a.show else [])
    lines[-1:-1] = problems
    with open(a.report, "w") as f:
        f.write("\n".join(lines[:-1]) + "\n\n# every difference\n")
        f.write("\n".join(t.full) + "\n")
        f.write(lines[-1] + "\n")
    print("\n".join(lines))
    print("full report: %s" % a.report)
    if problems:
        return 1
    if t.accounting:
        summary, failed = t.accounting.summary(a.show)
        print("\n".join(summary))
        with open(a.report, "a") as f:
            f.write("\n".join(summary) + "\n" + "\n".join(
                "not listed: " + x for x in t.accounting.unlisted) + "\n")
        return 3 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
