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
4. Every folder is in a layer. Each folder under boards/, and each folder
   holding sources under hal/, mem/, npu/ and rknn/, must be in LAYERS (a
   folder left out would escape checks 1 and 3).
5. The format layer is a one-way stack. rknn_format.c compiles the
   model_*.c files as one translation unit, where every file sees every
   other: the symbols of its archive cannot show circles inside it, so the
   sources are read instead. FORMAT_STACK lists every file of rknn/format,
   bottom to top; each file may include only headers below it, the unit
   must include the .c files in the stack's order, and each file may use
   only functions, macros, types and tables defined in itself or in a file
   below it. What a .c file defines for itself (static functions and
   tables, macros, types, enum constants) no other file may use: what is
   shared is declared in model_internal.h (FMT_API), so that the files
   would also compile one by one.

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
    ("boards", 7), ("boards/host", 7), ("boards/qemu-virt", 7), ("boards/qemu-virt-aarch64", 7),
    ("boards/qemu-virt-armv7", 7), ("boards/rk3568", 7), ("boards/rk3588", 7),
]
# Folders whose sub-folders must all be in LAYERS (check 4): every folder
# under boards/ (a new board is a new folder), and under the library's
# roots every folder that holds sources.
EVERY_FOLDER = ["boards"]
SOURCE_FOLDERS = ["hal", "mem", "npu", "rknn"]
SOURCE_EXT = (".c", ".h", ".def", ".S")
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


def check_covered(root, problems):
    known = dict(LAYERS)
    for top in EVERY_FOLDER + SOURCE_FOLDERS:
        for d, dirs, names in os.walk(os.path.join(root, top)):
            dirs.sort()
            rel = os.path.relpath(d, root).replace(os.sep, "/")
            if rel in known:
                continue
            if top in EVERY_FOLDER or any(n.endswith(SOURCE_EXT) for n in names):
                problems.append("%s/ is in no layer: add it to LAYERS in %s" %
                                (rel, os.path.basename(__file__)))


# The format layer's files, bottom to top (check 5). Headers sit below the
# files that include them; rknn_fbs.c is its own object, the model_*.c
# files are compiled as one unit by FORMAT_UNIT, which includes them in
# this order. docs/architecture.md and model_internal.h give the same list.
FORMAT_DIR = "rknn/format"
FORMAT_STACK = [
    "rknn_limits.h",      # count limits
    "rknn_fbs.h",         # the FlatBuffer reader's interface
    "rknn_fbs.c",         # the bounds-checked FlatBuffer reader
    "rknn_model.h",       # the layer's interface: the view and its accessors
    "model_internal.h",   # slot numbers, what the files share (FMT_API)
    "model_fields.c",     # one field of a table: vectors, strings, shapes, errors
    "model_attrs.c",      # BSON attribute documents
    "model_tensors.c",    # blobs, tensors, graph inputs, outputs, norms
    "model_v4_access.c",  # container 4 as read; the lowered payload's relocations
    "model_nodes.c",      # nodes
    "model_exec.c",       # relocations, task records, stream words, groups, steps
    "model_check.c",      # SoC compatibility, stream and relocation checks
    "model_plan.c",       # the memory plan
    "model_reloc.c",      # relocation
    "model_v4.c",         # container 4 checked and lowered
    "model_container.c",  # the container; rknn_model_parse, rknn_model_rebase
    "rknn_format.c",      # the unit: includes the model_*.c files in this order
]
FORMAT_UNIT = "rknn_format.c"
FORMAT_OWN_OBJECTS = {"rknn_fbs.c"}  # compiled on their own, not by the unit

C_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
# A function definition at column 0: its name, then its body's opening brace.
FUNC_DEF = re.compile(r"^([A-Za-z_][\w \t\*]*?)\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*\{",
                      re.M)
MACRO_DEF = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
TYPEDEF_END = re.compile(r"^\}\s*([A-Za-z_]\w*)\s*;", re.M)
TYPEDEF_LINE = re.compile(r"^typedef\b[^{;]*?\b([A-Za-z_]\w*)\s*;", re.M)
ENUM_BODY = re.compile(r"^(?:typedef\s+)?enum\b[^{;]*\{([^}]*)\}", re.M)
TABLE_DEF = re.compile(r"^static\s+(?:const\s+)?(?:struct\s*\{[^}]*\}|[\w \t\*]+?)\s*\b([A-Za-z_]\w*)\s*"
                       r"(?:\[[^\]]*\])?\s*=", re.M)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "else", "do"}


def strip_c(text):
    """The text without comments, string and character literals or #include
    lines; line breaks are kept so that line numbers hold."""
    out = re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                 lambda m: "\n" * m.group(0).count("\n") + ('""' if m.group(0)[0] == '"' else " "),
                 text, flags=re.S)
    return re.sub(r'^[ \t]*#[ \t]*include[^\n]*', "", out, flags=re.M)


def body_end(text, brace):
    depth = 0
    for i in range(brace, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def format_definitions(name, text):
    """(identifier, kind, shared) defined by one file of the stack; shared:
    another file may use it (a function with external linkage, or anything
    a header defines)."""
    header = name.endswith(".h")
    out = []
    for m in FUNC_DEF.finditer(text):
        if m.group(2) in KEYWORDS:
            continue
        static = re.search(r"\bstatic\b", m.group(1)) is not None
        out.append((m.group(2), "function", header or not static))
    for kind, pattern in (("macro", MACRO_DEF), ("type", TYPEDEF_END), ("type", TYPEDEF_LINE),
                          ("table", TABLE_DEF)):
        out.extend((n, kind, header) for n in pattern.findall(text))
    for body in ENUM_BODY.findall(text):
        for item in body.split(","):
            m = re.match(r"\s*([A-Za-z_]\w*)", item)
            if m:
                out.append((m.group(1), "enum constant", header))
    return out


def format_uses(name, text):
    """(identifier, line) the file uses. A header is read only in its inline
    functions' bodies (its declarations name what the .c files define)."""
    spans = [(0, len(text))]
    if name.endswith(".h"):
        spans = [(m.end() - 1, body_end(text, m.end() - 1)) for m in FUNC_DEF.finditer(text)]
    for a, b in spans:
        for m in C_WORD.finditer(text, a, b):
            before = text[max(0, m.start() - 2):m.start()]
            if before.endswith(".") or before == "->":
                continue  # a member, not a name of the file scope
            yield m.group(0), text.count("\n", 0, m.start()) + 1


def check_format_stack(root, problems):
    d = os.path.join(root, FORMAT_DIR)
    rank = {n: i for i, n in enumerate(FORMAT_STACK)}
    present = sorted(n for n in os.listdir(d) if n.endswith((".c", ".h")))
    for n in present:
        if n not in rank:
            problems.append("%s/%s is not in FORMAT_STACK: place it in the stack (%s)" %
                            (FORMAT_DIR, n, os.path.basename(__file__)))
    for n in FORMAT_STACK:
        if n not in present:
            problems.append("FORMAT_STACK names %s/%s, which does not exist" % (FORMAT_DIR, n))
    raw, text = {}, {}
    for n in FORMAT_STACK:
        if n in present:
            with open(os.path.join(d, n), encoding="utf-8") as f:
                raw[n] = f.read()
            text[n] = strip_c(raw[n])

    # Includes: headers below the file; the unit includes the .c files in order.
    for n, src in raw.items():
        incs = [i for i in INCLUDE.findall(src) if i in rank]
        for inc in incs:
            if inc.endswith(".c") and n != FORMAT_UNIT:
                problems.append("%s/%s includes %s: only %s includes .c files" %
                                (FORMAT_DIR, n, inc, FORMAT_UNIT))
            elif rank[inc] >= rank[n]:
                problems.append("%s/%s includes %s, which is not below it in FORMAT_STACK" %
                                (FORMAT_DIR, n, inc))
        if n == FORMAT_UNIT:
            want = [c for c in FORMAT_STACK
                    if c.endswith(".c") and c != FORMAT_UNIT and c not in FORMAT_OWN_OBJECTS]
            got = [i for i in incs if i.endswith(".c")]
            if got != want:
                problems.append("%s/%s includes %s; FORMAT_STACK's order is %s" %
                                (FORMAT_DIR, n, " ".join(got), " ".join(want)))

    # Definitions, then every use against them.
    defs = defaultdict(list)
    for n, t in text.items():
        for ident, kind, shared in format_definitions(n, t):
            if (n, kind, shared) not in defs[ident]:
                defs[ident].append((n, kind, shared))
    for ident, where in defs.items():
        files = sorted({w[0] for w in where if w[0].endswith(".c") and w[1] != "macro"},
                       key=rank.get)
        if len(files) > 1:
            problems.append("%s is defined in %s: one unit holds them all" %
                            (ident, " and ".join(files)))
    uses = 0
    for n, t in text.items():
        seen = set()
        for ident, line in format_uses(n, t):
            where = defs.get(ident)
            if not where or ident in seen or any(w[0] == n for w in where):
                continue
            seen.add(ident)
            uses += 1
            below = [w for w in where if rank[w[0]] < rank[n]]
            if not below:
                w = where[0]
                problems.append("%s/%s:%d uses %s %s, defined in %s above it in FORMAT_STACK" %
                                (FORMAT_DIR, n, line, w[1], ident, w[0]))
            elif not any(w[2] for w in below):
                w = below[0]
                problems.append("%s/%s:%d uses %s %s, which is %s's own: declare what files share "
                                "in model_internal.h (FMT_API)" %
                                (FORMAT_DIR, n, line, w[1], ident, w[0]))
    return uses


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
    check_covered(root, problems)
    files = check_calls(archives, problems)
    print("call graph: %d object files in %d libraries" % (files, len(archives)))
    uses = check_format_stack(root, problems)
    print("format stack (bottom to top): %s" % " ".join(FORMAT_STACK))
    print("format stack: %d uses of another file's definitions, each checked downward" % uses)
    for p in problems:
        print("FAIL: " + p)
    if problems:
        return 1
    print("layers OK: no upward include, no circle, no FlatBuffer above the format layer, "
          "every folder in a layer, the format layer one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
