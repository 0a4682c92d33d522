#!/usr/bin/python3
"""coverage_reasons.py - every line the host tests leave unrun must say why.

    scripts/coverage_reasons.py [--list] ROOT REPORT.json...

REPORT.json: gcovr --json reports (scripts/coverage.sh writes them). The
unrun code lines of each file are taken in runs (unrun lines with no run
line between them); a run is explained when one of its lines, or one of
the three lines before it (back to the last line that ran: the condition
that leads there) with the comment block above them, holds a comment with
one of the tags

    unreachable:  no input can get there (a check before it already
                  refuses, a case the types allow but the callers never
                  make); the comment says which
    untested:     it can run, but not in the host suite (big-endian CPUs,
                  a board's own hook, a failure the host cannot inject);
                  the comment says what runs it

Prints each unexplained run (file:first-last and its first line), each tag
that explains no unrun line while the code after it runs (out of date), and
a summary line; exits 1 when there is either. --list prints the
explained runs too, with their reasons.
"""
import json
import os
import re
import sys

TAG_RE = re.compile(r'\b(unreachable|untested):\s*(.*?)\s*(\*/|$)')
LOOK_BACK = 3


def runs_of(lines):
    """(first, last) of each run of unrun code lines, from gcovr's lines."""
    runs, start, last = [], None, None
    for entry in sorted(lines, key=lambda e: e['line_number']):
        if entry.get('gcovr/noncode') or entry.get('gcovr/excluded'):
            continue
        if entry['count'] == 0:
            start = entry['line_number'] if start is None else start
            last = entry['line_number']
        elif start is not None:
            runs.append((start, last))
            start = None
    if start is not None:
        runs.append((start, last))
    return runs


def ran_lines(lines):
    return sorted(e['line_number'] for e in lines
                  if not e.get('gcovr/noncode') and e['count'] != 0)


def window(source, first, last, floor):
    """The lines (1-based) whose comments may explain lines first..last."""
    start = max(first - LOOK_BACK, floor, 1)
    while start > 1 and source[start - 2].strip().startswith(('/*', '*', '//')):
        start -= 1  # the whole comment block above
    return range(start, last + 1)


def reason(source, lines):
    """The (line, tag, text) of the first tag in lines, or None."""
    for n in lines:
        m = TAG_RE.search(source[n - 1])
        if m:
            return n, m.group(1), m.group(2)
    return None


def runs_next(ran, unrun, n):
    """Whether the first code line at or after line n (the code a tag there
    stands before) ran."""
    code = [c for c in ran | unrun if c >= n]
    return bool(code) and min(code) in ran


def main():
    args = sys.argv[1:]
    show_all = '--list' in args
    args = [a for a in args if a != '--list']
    if len(args) < 2:
        sys.exit(__doc__.split('\n\n')[1])
    root, reports = args[0], args[1:]
    explained = unexplained = 0
    stale = []
    for report in reports:
        with open(report) as f:
            files = json.load(f)['files']
        for entry in files:
            path = entry['file']
            with open(os.path.join(root, path)) as f:
                source = f.read().split('\n')
            ran = set(ran_lines(entry['lines']))
            unrun = {e['line_number'] for e in entry['lines']
                     if not e.get('gcovr/noncode') and e['count'] == 0}
            used = set()
            for first, last in runs_of(entry['lines']):
                floor = max([n for n in ran if n < first], default=0)
                why = reason(source, window(source, first, last, floor))
                span = '%s:%d' % (path, first) + ('-%d' % last if last != first else '')
                if why:
                    explained += 1
                    used.add(why[0])
                    if show_all:
                        print('%-40s %s: %s' % (span, why[1], why[2]))
                else:
                    unexplained += 1
                    print('%-40s no reason: %s' % (span, source[first - 1].strip()))
            # a tag that explains no unrun line is out of date (or on code
            # this build leaves out, such as a big-endian branch)
            for n, text in enumerate(source, 1):
                if TAG_RE.search(text) and n not in used and runs_next(ran, unrun, n):
                    stale.append('%s:%d' % (path, n))
    for where in stale:
        print('%-40s a reason for lines that run' % where)
    print('coverage reasons: %d unrun runs of lines explained, %d not; %d reasons for lines '
          'that run' % (explained, unexplained, len(stale)))
    sys.exit(1 if unexplained or stale else 0)


if __name__ == '__main__':
    main()
