#!/usr/bin/python3
"""count-results.py TESTLOG.json TARGET - one target's meson results.

Prints "PASSED FAILED SKIPPED XFAILED" on stdout and, on stderr, one line per
skipped test. A skip is harmless only where tests/expected-skips.txt lists
it (target, test name, reason) or outside CI: under CI=true an unlisted skip
counts as a failure. A missing input is never a listed reason: tests fail,
naming the file. An absent log (the build failed) is one failure.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def expected_skips(path):
    """{(target, test): reason} from the reviewed list."""
    out = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3:
            sys.exit("count-results: %s: '%s' needs TARGET TEST REASON" % (path, line))
        out[(parts[0], parts[1])] = parts[2]
    return out


def main():
    log, target = sys.argv[1:3]
    allowed = expected_skips(os.path.join(HERE, "..", "tests", "expected-skips.txt"))
    ci = os.environ.get("CI") == "true"
    ok = bad = skip = xfail = 0
    try:
        lines = open(log, encoding="utf-8").readlines()
    except FileNotFoundError:
        print("0 1 0 0")
        return
    for line in lines:
        r = json.loads(line)
        res, name = r["result"], r["name"]
        if res == "OK":
            ok += 1
        elif res == "EXPECTEDFAIL":
            xfail += 1
        elif res == "SKIP" and (target, name) in allowed:
            skip += 1
            print("%s: %s skipped (expected: %s)" % (target, name, allowed[(target, name)]),
                  file=sys.stderr)
        elif res == "SKIP" and not ci:
            skip += 1
            print("%s: %s skipped (not on tests/expected-skips.txt: a failure under CI)"
                  % (target, name), file=sys.stderr)
        elif res == "SKIP":
            bad += 1
            print("%s: %s skipped and not on tests/expected-skips.txt: FAIL" % (target, name),
                  file=sys.stderr)
        else:
            bad += 1
    print(ok, bad, skip, xfail)


if __name__ == "__main__":
    main()
