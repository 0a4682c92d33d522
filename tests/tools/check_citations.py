#!/usr/bin/python3
"""check_citations.py SOURCE_ROOT - every section citation resolves in docs/.

A citation is `<doc>.md §N` (N dotted: 3, 3.2, 4.4.1); further section
numbers on the same line after it (`hardware.md §1.2, §2.1`, `§5-§7`) belong
to the last document named before them on that line. Each must match a
heading `#... §N <title>` of docs/<doc>.md. A § with no document named
before it on its line fails (the reader could not tell where to look),
except inside docs/<doc>.md, where it means that document.

Scanned: every file git tracks except docs/ itself is scanned for the
citations, and docs/*.md too, so the documents' cross-references resolve.
Shows each failure; exit 1 if any.
"""
import os
import re
import subprocess
import sys

CITE = re.compile(r"\b([a-z][a-z0-9_-]*)\.md\b")
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{1,5} §(\d+(?:\.\d+)*)\s")


def headings(root, doc):
    """Section numbers of docs/<doc>.md, or None if there is no such file."""
    path = os.path.join(root, "docs", doc + ".md")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return {m.group(1) for m in map(HEADING.match, f) if m}


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if out.returncode != 0:  # a source tree without git: walk it
        for top, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            for name in files:
                yield os.path.relpath(os.path.join(top, name), root)
        return
    yield from out.stdout.split()


def main():
    root = sys.argv[1]
    cache = {}
    bad = cited = 0
    for rel in tracked_files(root):
        if rel.startswith("tests/tools/check_citations.py"):
            continue
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                lines = f.read().split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        own = None
        if rel.startswith("docs/") and rel.endswith(".md"):
            own = os.path.basename(rel)[:-3]
        for n, line in enumerate(lines, 1):
            if "§" not in line or HEADING.match(line):
                continue
            for m in SECTION.finditer(line):
                docs = list(CITE.finditer(line, 0, m.start()))
                if docs:
                    doc = docs[-1].group(1)
                elif own:
                    doc = own
                else:
                    print("FAIL %s:%d: §%s names no document: %s" % (rel, n, m.group(1), line.strip()))
                    bad += 1
                    continue
                if doc not in cache:
                    cache[doc] = headings(root, doc)
                cited += 1
                if cache[doc] is None:
                    print("FAIL %s:%d: docs/%s.md does not exist: %s" % (rel, n, doc, line.strip()))
                    bad += 1
                elif m.group(1) not in cache[doc]:
                    print("FAIL %s:%d: docs/%s.md has no section §%s" % (rel, n, doc, m.group(1)))
                    bad += 1
    print("checked %d citations" % cited)
    print("check_citations: %s" % ("FAIL" if bad else "PASS"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
