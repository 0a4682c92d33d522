#!/usr/bin/python3
"""check_api_map.py SOURCE_ROOT - docs/architecture.md's table from each
public function to its file agrees with the code.

Every function declared in the public headers (rknn/include/*.h, not the
static inline helpers) must appear in the table, in the row of the file
that defines it (the first file named in the row's second column); a file
named there must exist. Exit 1 with one line per disagreement.
"""
import os
import re
import sys

HEADERS = ["rknn_api.h", "rknn_matmul_api.h", "rknn_custom_op.h", "rknpu_bm.h"]
DECL = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b((?:rknn|rknpu)_\w+)\s*\(", re.M)
DEF = r"^[A-Za-z_][\w \*]*?\b%s\s*\([^;]*?\)\s*\{"


def public_functions(root):
    names = set()
    for h in HEADERS:
        with open(os.path.join(root, "rknn", "include", h), encoding="utf-8") as f:
            names.update(DECL.findall(f.read()))
    return names


def table_rows(root):
    rows = {}
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 2 or not cells[0].startswith("`r"):
                continue
            files = re.findall(r"`([\w/]+\.c)`", cells[1])
            for name in re.findall(r"`((?:rknn|rknpu)_\w+)`", cells[0]):
                rows[name] = files[0] if files else None
    return rows


def main():
    root = sys.argv[1]
    problems = []
    rows = table_rows(root)
    for name in sorted(public_functions(root)):
        path = rows.get(name)
        if path is None:
            problems.append("%s: not in docs/architecture.md's table" % name)
            continue
        full = os.path.join(root, path)
        if not os.path.exists(full):
            problems.append("%s: the table names %s, which does not exist" % (name, path))
            continue
        with open(full, encoding="utf-8") as f:
            if not re.search(DEF % re.escape(name), f.read(), re.M):
                problems.append("%s: not defined in %s, where the table says" % (name, path))
    for p in problems:
        print("FAIL: " + p)
    print("api-map: %d public functions, %d disagreements" % (len(public_functions(root)),
                                                              len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
