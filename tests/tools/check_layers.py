#!/usr/bin/python3
"""check_layers.py SOURCE_ROOT ARCHIVE... - the library's layering holds.

1. Includes run downward only. Every #include "..." of a library source is
   resolved to its directory, and the directory's layer must be below the
   including file's (or the same directory). The build already refuses most
   upward includes (each layer is compiled with the include directories of
   the layers below it); this also catches a header that reaches up through
   a relative path, and peers that must not see each other (the driver and
   the virtual NPU).
2. No circles of calls. For the objects in the given static libraries
   (one per layer), file A depends on file B when A uses a symbol B
   defines; the dependency graph must have no cycle, so every file can be
   read knowing only the files it uses.
3. FlatBuffer stays in the format layer. No file above rknn/format (the
   runtime, boards, examples, tools) names the FlatBuffer reader
   (rknn_fbs_*, rknn_fbs.h) or the view's FlatBuffer handles (.fbs): they
   read the model through rknn_model.h's accessors.

Prints the directory-level import graph, then each violation; exit 1 if any.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

# Directory -> rank. A file may include from its own directory and from
# directories of a lower rank; PEERS may not include each other.
LAYERS = [
    ("hal/include", 0), ("hal", 0), ("hal/host", 0), ("hal/aarch64", 0), ("hal/armv7", 0),
    ("mem", 1),
    ("npu/hw", 2),
    ("npu", 3),          # driver and command builder
    ("npu/model", 3),    # the virtual NPU: a peer of the hardware
    ("rknn/include", 4), # the public API's types and codes
    ("rknn/format", 5),
    ("rknn/context", 6), ("rknn/io", 6), ("rknn/run", 6), ("rknn/memory", 6),
    ("rknn/matmul", 6), ("rknn/custom", 6), ("rknn/platform", 6),
    ("boards", 7), ("boards/host", 7), ("boards/qemu-virt", 7), ("boards/rk3588", 7),
]
PEERS = {("npu", "npu/model"), ("npu/model", "npu")}
# What the virtual NPU may see besides itself (it never includes the HAL or
# the driver, so it runs unchanged wherever the register table does).
ONLY = {"npu/model": {"npu/model", "npu/hw"}}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def rank_of(d):
    return dict(LAYERS).get(d)


def sources(root):
    for d, _ in LAYERS:
        full = os.path.join(root, d)
        if not os.path.isdir(full):
            continue
        for name in sorted(os.listdir(full)):
            if name.endswith((".c", ".h", ".def", ".S")):
                yield d, name


def header_dirs(root):
    where = defaultdict(set)
    for d, name in sources(root):
        where[name].add(d)
    return where


def check_includes(root, problems):
    where = header_dirs(root)
    edges = defaultdict(set)
    for d, name in sources(root):
        with open(os.path.join(root, d, name), encoding="utf-8") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            target = os.path.normpath(os.path.join(d, os.path.dirname(inc)))
            base = os.path.basename(inc)
            if os.path.dirname(inc):
                tdir = target
            elif base in where and d in where[base]:
                tdir = d
            elif base in where and len(where[base]) == 1:
                tdir = next(iter(where[base]))
            else:
                problems.append("%s/%s: cannot tell which %s it includes" % (d, name, inc))
                continue
            if tdir == d:
                continue
            edges[d].add(tdir)
            r, tr = rank_of(d), rank_of(tdir)
            if tr is None or r is None or tr > r or (d, tdir) in PEERS or \
                    (d in ONLY and tdir not in ONLY[d]):
                problems.append("%s/%s includes %s from %s: not a layer below" %
                                (d, name, inc, tdir))
    return edges


def archive_symbols(archives):
    """(member -> defined symbols, member -> undefined symbols)."""
    defined, used = defaultdict(set), defaultdict(set)
    for a in archives:
        out = subprocess.run(["nm", a], capture_output=True, text=True, check=True).stdout
        member = None
        for line in out.splitlines():
            if line.endswith(":") and " " not in line:
                member = os.path.basename(a) + ":" + line[:-1]
                continue
            parts = line.split()
            if member is None or not parts:
                continue
            if len(parts) == 2 and parts[0] == "U":
                used[member].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRCVWG":
                defined[member].add(parts[2])
    return defined, used


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_calls(archives, problems):
    defined, used = archive_symbols(archives)
    owner = {}
    for member, syms in defined.items():
        for s in syms:
            owner.setdefault(s, member)
    graph = {m: set() for m in set(defined) | set(used)}
    for m, syms in used.items():
        for s in syms:
            if s in owner and owner[s] != m:
                graph[m].add(owner[s])
    for comp in cycles(graph):
        detail = []
        for a in comp:
            for b in sorted(graph[a] & set(comp)):
                calls = sorted(s for s in used[a] if owner.get(s) == b)
                detail.append("  %s -> %s (%s)" % (a, b, ", ".join(calls[:4])))
        problems.append("files that call each other: " + " ".join(comp) + "\n" + "\n".join(detail))
    return len(graph)


FBS_WORDS = re.compile(r"\brknn_fbs_\w+|rknn_fbs\.h|(->|\.)fbs\.")
ABOVE_FORMAT = [d for d, rank in LAYERS if rank > dict(LAYERS)["rknn/format"]] + ["examples",
                                                                               "tools"]


def check_flatbuffer_hidden(root, problems):
    for d in ABOVE_FORMAT:
        full = os.path.join(root, d)
        for name in sorted(os.listdir(full)) if os.path.isdir(full) else []:
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(full, name), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = FBS_WORDS.search(line)
                    if m:
                        problems.append("%s/%s:%d: %s is the format layer's own (use rknn_model.h)"
                                        % (d, name, n, m.group(0)))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    root, archives = sys.argv[1], sys.argv[2:]
    problems = []
    edges = check_includes(root, problems)
    print("include graph (directory -> directories it includes from):")
    for d, _ in LAYERS:
        if edges.get(d):
            print("  %-16s -> %s" % (d, ", ".join(sorted(edges[d]))))
    check_flatbuffer_hidden(root, problems)
    files = check_calls(archives, problems)
    print("call graph: %d object files in %d libraries" % (files, len(archives)))
    for p in problems:
        print("FAIL: " + p)
    if problems:
        return 1
    print("layers OK: no upward include, no circle, no FlatBuffer above the format layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
