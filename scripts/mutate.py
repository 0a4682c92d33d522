#!/usr/bin/python3
"""mutate.py - mutation testing of the library by the host test suite.

    scripts/mutate.py [--build DIR] [--tests NAME,...] [--targets T,...]
                      [--lines A-B] [--max N] [--timeout S] [--list] FILE...

For every FILE (library sources), one mutant at a time:
  cmp     a comparison flipped   (<  >=, >  <=, ==  !=, and back)
  logic   && and || swapped
  const   an integer constant off by one (N -> N + 1)
  drop    an expression statement dropped (the line's code becomes ";")
  branch  an if's condition forced   (if (c) -> if (1), if (0))
Each mutant is built in DIR (a configured host build, default build/host;
the file is restored afterwards, whatever happens); a mutant that does not
compile (an unused variable under -Werror, say) is "not applicable" and
proves nothing; one that compiles is run against the tests (meson test
--no-rebuild, NAME,... or all) and is "killed" when one fails or times out,
a "survivor" when all pass. A mutant whose object file comes out the same
as the original's (a line the preprocessor leaves out on this host, or one
the compiler proves changes nothing) is "equivalent" and not run.
--targets builds only those ninja targets (the
tests' executables, say), which makes each mutant seconds instead of a
relink of every program.

Prints one line per survivor (file:line, the kind, the line before and after)
and a summary:
  mutate: N mutants: K killed, S survived, E equivalent, A not applicable
Exits 1 when a mutant survived. --lines limits the mutants to a line range
of each file, --max to the first N applicable ones; --list prints them
without building anything.
"""
import argparse
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CMP = {'<': '>=', '>=': '<', '>': '<=', '<=': '>', '==': '!=', '!=': '=='}
CMP_RE = re.compile(r'(?<![<>=!&|-])(<=|>=|==|!=|<|>)(?![<>=])')
LOGIC_RE = re.compile(r'&&|\|\|')
CONST_RE = re.compile(r'(?<![\w.])(\d+)u?(?![\w.])')
IF_RE = re.compile(r'\bif \((.*)\)\s*(\{)?\s*$')


def code_part(line):
    """The line without a trailing // or /* comment, and whether it is code
    at all (not a preprocessor line, a comment line or a string)."""
    s = line.strip()
    if not s or s.startswith(('#', '/*', '*', '//')) or '"' in line:
        return None
    for mark in ('/*', '//'):
        if mark in line:
            line = line[:line.index(mark)]
    return line


def mutants_of_line(line):
    """(kind, mutated line) for every mutant of one source line."""
    code = code_part(line)
    if code is None:
        return
    rest = line[len(code):]
    for m in CMP_RE.finditer(code):
        op = m.group(1)
        # '->' never matches (CMP_RE); a macro's continuation line may hold '#'
        if op in ('<', '>') and '#' in code:
            continue
        yield 'cmp', code[:m.start()] + CMP[op] + code[m.end():] + rest
    for m in LOGIC_RE.finditer(code):
        other = '||' if m.group(0) == '&&' else '&&'
        yield 'logic', code[:m.start()] + other + code[m.end():] + rest
    if not re.search(r'\[\s*\d+\s*\]\s*[;=,]', code):  # not an array's size
        for m in CONST_RE.finditer(code):
            n = int(m.group(1))
            yield 'const', code[:m.start(1)] + str(n + 1) + code[m.end(1):] + rest
    m = IF_RE.search(code)
    if m and code.strip().startswith(('if (', '} else if (')):
        for forced in ('1', '0'):
            yield 'branch', code[:m.start(1)] + forced + code[m.end(1):] + rest
    s = code.strip()
    if (s.endswith(';') and not s.startswith(('return', 'break', 'continue', 'goto', 'case', '}'))
            and re.match(r'^[\w\->\[\].*()]+\s*(\+\+|--|[-+*/|&^]?=|\()', s)
            and not re.match(r'^(const\s+)?(unsigned|signed|static|struct|enum|u?int\d+_t|size_t|'
                             r'int|char|float|double|void|uint8_t|rknn_\w+|npu_\w+|mem_\w+|'
                             r'hal_\w+|walk|dequant|v4_\w+)\b', s)):
        yield 'drop', code[:len(code) - len(code.lstrip())] + ';' + rest


def run(cmd, timeout=None):
    """cmd's exit status, or -1 when it outlives timeout. It runs in a
    process group of its own, killed whole at the timeout or when this
    script stops: a mutant that loops forever must not leave its test
    processes running once meson is gone."""
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def object_of(build, path):
    """The object file the build compiles path into, or None. A file the
    build does not compile on its own (rknn/format/model_*.c, included by
    rknn_format.c) is in the object of the unit that includes it."""
    try:
        with open(os.path.join(build, 'compile_commands.json')) as f:
            commands = json.load(f)
    except OSError:
        return None
    include = '#include "%s"' % os.path.basename(path)
    for direct in (True, False):
        for c in commands:
            unit = os.path.realpath(os.path.join(c['directory'], c['file']))
            if direct and unit != os.path.realpath(path):
                continue
            if not direct:
                if os.path.dirname(unit) != os.path.dirname(os.path.realpath(path)):
                    continue
                with open(unit) as f:
                    if include not in f.read():
                        continue
            if 'output' in c:
                return os.path.join(c['directory'], c['output'])
            m = re.search(r'-o (\S+)', c['command'])
            if m:
                return os.path.join(c['directory'], m.group(1))
    return None


def digest(path):
    """The object's code: its sections without the debug information."""
    if not path or not os.path.exists(path):
        return None
    with tempfile.NamedTemporaryFile() as tmp:
        ok = subprocess.run(['objcopy', '--strip-debug', '-O', 'binary', '--only-section=.text*',
                             '--only-section=.rodata*', '--only-section=.data*', path, tmp.name],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        return hashlib.sha256(tmp.read()).hexdigest() if ok else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default=os.path.join(ROOT, 'build', 'host'))
    ap.add_argument('--tests', default='', help='comma-separated meson test names (default: all)')
    ap.add_argument('--targets', default='', help='comma-separated ninja targets (default: all)')
    ap.add_argument('--lines', default='', help='A-B: only mutants on these lines of each file')
    ap.add_argument('--max', type=int, default=0, help='stop after N applicable mutants')
    ap.add_argument('--timeout', type=int, default=600, help='seconds for one test run')
    ap.add_argument('--list', action='store_true', help='print the mutants, build nothing')
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()
    # killed (SIGTERM, SIGHUP): unwind, so the finally below restores the file
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit('mutate: stopped'))
    lo, hi = (int(x) for x in args.lines.split('-')) if args.lines else (1, 1 << 30)
    tests = [t for t in args.tests.split(',') if t]
    build = ['ninja', '-C', args.build] + [t for t in args.targets.split(',') if t]
    if args.list:
        for path in args.files:
            with open(os.path.join(ROOT, path)) as f:
                for i, line in enumerate(f.read().split('\n')):
                    if lo <= i + 1 <= hi:
                        for kind, mutated in mutants_of_line(line):
                            print('%s:%d %s: %s' % (path, i + 1, kind, mutated.strip()))
        return
    if run(build) != 0:
        sys.exit('mutate: the unmutated build fails in %s' % args.build)
    test = ['meson', 'test', '-C', args.build, '--no-rebuild', '--num-processes', '2'] + tests
    if run(test, args.timeout) != 0:
        sys.exit('mutate: the unmutated tests fail in %s' % args.build)
    counts = {'killed': 0, 'survived': 0, 'equivalent': 0, 'n/a': 0}
    survivors = []
    applicable = 0
    for path in args.files:
        full = os.path.join(ROOT, path)
        with open(full) as f:
            original = f.read()
        lines = original.split('\n')
        obj = object_of(args.build, full)
        same = digest(obj)
        try:
            for i, line in enumerate(lines):
                if not lo <= i + 1 <= hi:
                    continue
                for kind, mutated in mutants_of_line(line):
                    if args.max and applicable >= args.max:
                        break
                    with open(full, 'w') as f:
                        f.write('\n'.join(lines[:i] + [mutated] + lines[i + 1:]))
                    if run(build) != 0:
                        counts['n/a'] += 1
                        continue
                    if same is not None and digest(obj) == same:
                        counts['equivalent'] += 1
                        continue
                    applicable += 1
                    if run(test, args.timeout) == 0:
                        counts['survived'] += 1
                        survivors.append((path, i + 1, kind, line.strip(), mutated.strip()))
                        print('SURVIVED %s:%d %s: %s  ->  %s' % survivors[-1], flush=True)
                    else:
                        counts['killed'] += 1
        finally:
            with open(full, 'w') as f:
                f.write(original)
            run(build)
    total = sum(counts.values())
    print('mutate: %d mutants: %d killed, %d survived, %d equivalent, %d not applicable'
          % (total, counts['killed'], counts['survived'], counts['equivalent'], counts['n/a']))
    sys.exit(1 if counts['survived'] else 0)


if __name__ == '__main__':
    main()
