#!/usr/bin/python3
"""The report of scripts/bench-vendor.sh: for every model directory under
OUTDIR, the TIME lines of each runtime's runs (rknpu-bm.N.txt, vendor.N.txt,
written by tests/vendor/bench_client.c), the median over runs of each
figure, and the ratio ours / the vendor's.

Prints a table per model and one machine line per figure:
    BENCH vendor_ratio_<figure>_<model> <ratio>
or, when a runtime has no time for it (it crashed, refused the case or was
not run), "BENCH vendor_ratio_<figure>_<model> n/a <why>". Exits 1 when a
model has no run of rknpu-bm at all.
"""
import os
import re
import statistics
import sys

# Figures where Rockchip's runtime skips the work itself (its defect, with the
# evidence in docs/compat.md §2): the ratio is printed with the reason as a
# fourth word, and rknpu-bench counts it apart from the misses.
VENDOR_SKIPS = [
    (r"ppocrv4_det|dual_residual_custom", r"(inputs_set|path)_int8_",
     "vendor_leaves_int8_into_float16_unconverted_compat.md_2"),
]


def read_runs(directory, runtime):
    """{figure: [microseconds per run]}, {figure: why it has no time}."""
    times, missing = {}, {}
    for name in sorted(os.listdir(directory)):
        if not (name.startswith(runtime + ".") and name.endswith(".txt")):
            continue
        with open(os.path.join(directory, name)) as f:
            for line in f:
                words = line.split()
                if len(words) == 3 and words[0] == "TIME":
                    times.setdefault(words[1], []).append(float(words[2]))
                elif len(words) >= 2 and words[0] == "CRASH":
                    missing[words[1]] = "crashed"
                elif len(words) >= 3 and words[0] == "FAILED":
                    missing[words[1]] = "returned " + words[2]
    return times, missing


def figure_order(name):
    """init first, then inputs and paths by type and layout, outputs last."""
    rank = {"init": 0, "inputs": 1, "path": 2, "outputs": 3}
    return (rank.get(name.split("_")[0], 4), name)


def report_model(directory, model):
    ours, ours_missing = read_runs(directory, "rknpu-bm")
    theirs, theirs_missing = read_runs(directory, "vendor")
    if not ours and not ours_missing:
        print("bench-vendor: %s: no run of rknpu-bm" % model)
        return False
    figures = sorted(set(ours) | set(theirs) | set(ours_missing) | set(theirs_missing),
                     key=figure_order)
    print("%s (microseconds, median of %d runs)" % (model, max(
        [len(v) for v in list(ours.values()) + list(theirs.values())] or [0])))
    print("  %-28s %12s %12s %8s" % ("figure", "rknpu-bm", "vendor", "ratio"))
    lines = []
    for fig in figures:
        a = statistics.median(ours[fig]) if fig in ours else None
        b = statistics.median(theirs[fig]) if fig in theirs else None
        if a is not None and b is not None and b > 0:
            ratio = "%.3g" % (a / b)
            skip = [why for m, f, why in VENDOR_SKIPS if re.search(m, model) and re.match(f, fig)]
            lines.append("BENCH vendor_ratio_%s_%s %s%s" % (fig, model, ratio,
                                                           " " + skip[0] if skip else ""))
        else:
            why = ("rknpu-bm " + ours_missing.get(fig, "has no time")) if a is None else \
                  ("vendor " + theirs_missing.get(fig, "has no time"))
            ratio = "n/a"
            lines.append("BENCH vendor_ratio_%s_%s n/a %s" % (fig, model, why.replace(" ", "_")))
        print("  %-28s %12s %12s %8s" % (fig, "%.1f" % a if a is not None else "-",
                                          "%.1f" % b if b is not None else "-", ratio))
    for line in lines:
        print(line)
    return True


def main():
    if len(sys.argv) != 2:
        print("usage: bench_vendor_report.py OUTDIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    ok = True
    for model in sorted(os.listdir(out)):
        d = os.path.join(out, model)
        if os.path.isdir(d) and any(n.startswith("rknpu-bm.") for n in os.listdir(d)):
            ok = report_model(d, model.replace(".", "_")) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
