#!/bin/sh
# coverage.sh [--report] BUILD_DIR - line and branch coverage of the library
# (hal, mem, npu, rknn) by the host test suite, as a report, not a gate:
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
# and prints the two summary lines. Fails only if the build or a test fails
# (the tests are the run's real checks) or gcovr is missing.
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
summary() { # NAME REPORT FILTERS...
    name=$1 report=$2
    shift 2
    gcovr -r . --object-directory "$build" "$@" --txt "$report" --print-summary \
        >"$report.summary" 2>"$report.log" || return 1
    lines=$(awk '/^lines:/ { print $2, $3, $4, $5, $6 }' "$report.summary")
    branches=$(awk '/^branches:/ { print $2, $3, $4, $5, $6 }' "$report.summary")
    echo "coverage $name: lines $lines, branches $branches (uncovered lines: $report)"
}
lib_filter="--filter hal/ --filter mem/ --filter npu/ --filter rknn/ --exclude npu/model/"
# shellcheck disable=SC2086 # filters are words
summary library "$build/coverage-library.txt" $lib_filter || { echo "coverage: FAIL: gcovr"; exit 1; }
summary vnpu "$build/coverage-vnpu.txt" --filter npu/model/ || { echo "coverage: FAIL: gcovr"; exit 1; }
