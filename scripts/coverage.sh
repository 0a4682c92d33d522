#!/bin/sh
# coverage.sh [--report] BUILD_DIR - line and branch coverage of the library
# (hal, mem, npu, rknn) by the host test suite, gated against the figures
# the README states:
#   coverage.sh BUILD_DIR           a gcov build (-Db_coverage=true) of its own
#                                   runs every host test, then the report
#   coverage.sh --report BUILD_DIR  only the report, from a gcov build whose
#                                   tests have just run (scripts/run-tests.sh:
#                                   CI's host build is that build, so the host
#                                   tests run once, not twice)
# gcovr writes
#   BUILD_DIR/coverage-library.txt   library without the virtual NPU, with
#                                    the uncovered lines of every file
#   BUILD_DIR/coverage-vnpu.txt      the virtual NPU (npu/model)
# (and the same as gcovr JSON, coverage-*.json), prints the two summary
# lines and every run of unrun lines that does not say why it is unrun
# (scripts/coverage_reasons.py). Fails if the build or a test fails, if
# gcovr is missing, or if lines or branches of either part are more than
# 0.5 points below the README's figures ("library without the virtual NPU
# **L % of lines, B % of branches**", "the virtual NPU **L % of lines, B %
# of branches**"): a change that drops coverage raises the figures' floor
# only when the README is updated with the new figures, on purpose; or if a
# run of unrun lines has no 'unreachable:' or 'untested:' comment.
set -u
report_only=0
[ "${1:-}" = "--report" ] && { report_only=1; shift; }
[ $# -eq 1 ] || { echo "usage: $0 [--report] BUILD_DIR" >&2; exit 2; }
build=$1
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
cd "$(dirname "$0")/.."
command -v gcovr >/dev/null 2>&1 || { echo "coverage: gcovr not found (scripts/install-deps.sh)"; exit 1; }
if [ "$report_only" = 1 ]; then
    find "$build" -name '*.gcda' | grep -q . ||
        { echo "coverage: FAIL: no gcov data in $build (configure it with -Db_coverage=true, run its tests)"; exit 1; }
else
    rm -rf "$build"
    if ! meson setup "$build" -Db_coverage=true >"$build.setup.log" 2>&1 ||
       ! ninja -C "$build" >"$build.build.log" 2>&1; then
        tail -n 30 "$build.setup.log" "$build.build.log" 2>/dev/null
        echo "coverage: FAIL: the gcov build failed"
        exit 1
    fi
    if ! meson test -C "$build" --num-processes 2 >"$build.test.log" 2>&1; then
        tail -n 30 "$build.test.log"
        echo "coverage: FAIL: a test failed in the gcov build"
        exit 1
    fi
fi
gate_status=0
# The README's figures for a part ("library without the virtual NPU" or
# "the virtual NPU", each starting its own line): "LINES BRANCHES", or nothing.
readme_figures() {
    sed -n "s/^ *$1 \*\*\([0-9.]*\) % of lines, \([0-9.]*\) % of branches\*\*.*/\1 \2/p" README.md |
        head -n 1
}
# Fails the run when a measured percentage is over 0.5 points below the README's.
gate() { # NAME KIND GOT WANT
    if awk -v got="$3" -v want="$4" 'BEGIN { exit !(got + 0.5 < want) }'; then
        echo "coverage: FAIL: $1 $2 $3 % is more than 0.5 points below the README's $4 %"
        gate_status=1
    fi
}
summary() { # NAME README_PART REPORT FILTERS...
    name=$1 part=$2 report=$3
    shift 3
    gcovr -r . --object-directory "$build" "$@" --txt "$report" --json "${report%.txt}.json" \
        --print-summary >"$report.summary" 2>"$report.log" || return 1
    lines=$(awk '/^lines:/ { print $2, $3, $4, $5, $6 }' "$report.summary")
    branches=$(awk '/^branches:/ { print $2, $3, $4, $5, $6 }' "$report.summary")
    echo "coverage $name: lines $lines, branches $branches (uncovered lines: $report)"
    want=$(readme_figures "$part")
    if [ -z "$want" ]; then
        echo "coverage: FAIL: README.md states no figures for \"$part\""
        gate_status=1
        return 0
    fi
    gate "$name" lines "${lines%%%*}" "${want% *}"
    gate "$name" branches "${branches%%%*}" "${want#* }"
}
lib_filter="--filter hal/ --filter mem/ --filter npu/ --filter rknn/ --exclude npu/model/"
# shellcheck disable=SC2086 # filters are words
summary library "library without the virtual NPU" "$build/coverage-library.txt" $lib_filter ||
    { echo "coverage: FAIL: gcovr"; exit 1; }
summary vnpu "the virtual NPU" "$build/coverage-vnpu.txt" --filter npu/model/ ||
    { echo "coverage: FAIL: gcovr"; exit 1; }
# Every line the tests leave unrun says why (unreachable: / untested:).
if ! /usr/bin/python3 scripts/coverage_reasons.py . "$build/coverage-library.json" \
    "$build/coverage-vnpu.json"; then
    echo "coverage: FAIL: unrun lines without a reason (an 'unreachable:' or 'untested:' comment)"
    gate_status=1
fi
exit $gate_status
