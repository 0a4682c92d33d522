#!/usr/bin/python3
"""check_format.py SOURCE_ROOT - every C file git tracks is as .clang-format
lays it out (clang-format --dry-run --Werror). Tables that read better one
row per case are fenced with clang-format off/on. Fails, naming the tool,
if clang-format is missing (scripts/install-deps.sh installs it)."""
import shutil
import subprocess
import sys


def main():
    root = sys.argv[1]
    tool = shutil.which("clang-format")
    if tool is None:
        print("check_format: FAIL: clang-format not found (scripts/install-deps.sh installs it)")
        return 1
    files = subprocess.run(["git", "-C", root, "ls-files", "*.c", "*.h"], capture_output=True,
                           text=True, check=True).stdout.split()
    out = subprocess.run([tool, "--dry-run", "--Werror"] + files, cwd=root, capture_output=True,
                         text=True)
    bad = sorted({l.split(":")[0] for l in out.stderr.splitlines() if "error:" in l})
    for f in bad:
        print("FAIL %s: not as .clang-format lays it out (run clang-format -i %s)" % (f, f))
    print("checked %d files" % len(files))
    print("check_format: %s" % ("FAIL" if out.returncode else "PASS"))
    return 1 if out.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
