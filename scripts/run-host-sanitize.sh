#!/bin/sh
# The host build once more with clang and ASan+UBSan: every meson test under
# the sanitizers, then a bounded run of each libFuzzer target (tests/fuzz/)
# seeded with the sample models, and the vendor-style client against the
# installed instrumented library (scripts/check-vendor-client.sh). Prints a
# short summary; exits non-zero on any failure (build, test, sanitizer
# report, fuzzer crash).
#   run-host-sanitize.sh BUILD_DIR
# Env: FUZZ_SECONDS  seconds per fuzzer (default 20; 0 skips fuzzing)
# Called by scripts/run-tests.sh for the host target (check host-sanitize).
set -u
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$1
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
cd "$(dirname "$0")/.."
models=$(pwd)/../shared/models
fuzz_seconds=${FUZZ_SECONDS:-20}
status=0
summary=""

note() {
    summary="$summary$1
"
    echo "host-sanitize: $1"
}

# Sanitizer reports end the program with a non-zero status; print the stack.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

command -v clang >/dev/null 2>&1 || { echo "host-sanitize: clang not found (scripts/install-deps.sh)"; exit 1; }
rm -rf "$build"
# clang's warnings are errors too: the code is kept warning-free for both.
# -O2 -g (debugoptimized): the sanitizers check the same accesses, and the
# virtual NPU under them runs several times faster than at -O0 (CI time).
if ! CC=clang CXX=clang++ meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false \
        --buildtype=debugoptimized -Dfuzz=true -Dwerror=true >"$build.setup.log" 2>&1 ||
   ! ninja -C "$build" >"$build.build.log" 2>&1; then
    tail -n 40 "$build.setup.log"
    [ -f "$build.build.log" ] && tail -n 40 "$build.build.log"
    echo "host-sanitize: clang ASan+UBSan build FAILED"
    exit 1
fi
warnings=$(grep -c 'warning:' "$build.build.log")
note "build: clang, -Db_sanitize=address,undefined, -Dfuzz=true: OK ($warnings clang warnings, see $build.build.log)"

# Every test of the build dir except install-pkg-config: it links a plain
# cc program against the installed (here: sanitizer-instrumented) static
# library, which cannot work without the sanitizer runtimes; the normal host
# build runs it.
# The real-network tests (ppocr, ppocr_faults) run a reduced set here: the
# virtual NPU is ~3x slower under the sanitizers; the unsanitised host build
# runs the full set.
export RKNPU_TEST_REDUCED=1
tests=$(meson test -C "$build" --list 2>/dev/null | grep -E '^[A-Za-z0-9_.:+-]+$' |
        grep -v '^install-pkg-config$')
# shellcheck disable=SC2086
meson test -C "$build" --num-processes 2 --timeout-multiplier 3 --print-errorlogs $tests \
    >"$build.test.log" 2>&1
test_status=$?
counts=$(/usr/bin/python3 scripts/count-results.py "$build/meson-logs/testlog.json" host-sanitize)
set -- $counts
if [ "$test_status" -ne 0 ] || [ "$2" -ne 0 ]; then
    grep -E '^ *[0-9]+/[0-9]+ ' "$build.test.log" | grep -v ' OK ' | grep -v ' SKIP '
    tail -n 60 "$build.test.log"
    status=1
fi
note "tests under ASan+UBSan: $1 passed, $2 failed, $3 skipped, $4 expected failures"

# A client written like the vendor examples against the installed
# instrumented library (pkg-config, clang -fsanitize=address,undefined):
# frees its model buffer after rknn_init, runs both samples on both SoCs
# without environment variables.
if sh scripts/check-vendor-client.sh "$build" . >"$build.vendor-client.log" 2>&1; then
    note "vendor-client (tests/install/vendor_client.c, 5 models): OK"
else
    grep -v -e '^    #' -e '^  0x' -e '^=>0x' "$build.vendor-client.log" | head -n 60
    note "vendor-client (tests/install/vendor_client.c): FAILED (see $build.vendor-client.log)"
    status=1
fi

# run_fuzzer NAME: FUZZ_SECONDS of libFuzzer on a fresh corpus of the samples.
run_fuzzer() {
    name=$1
    exe=$build/tests/loader/$name
    corpus=$build/fuzz/$name-corpus
    artifacts=$build/fuzz/$name-artifacts/
    log=$build/fuzz/$name.log
    mkdir -p "$corpus" "$artifacts"
    cp "$models"/*.rknn "$corpus"/
    "$exe" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 -timeout=10 -error_exitcode=1 \
        -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1
}

fuzz_result() {
    name=$1 rc=$2
    log=$build/fuzz/$name.log
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        note "$name: ${execs:-?} executions in ${fuzz_seconds} s, no crash"
    else
        tail -n 40 "$log"
        note "$name: FAILED (status $rc after ${execs:-?} executions; see $log, inputs in $build/fuzz/$name-artifacts/)"
        status=1
    fi
}

if [ "$fuzz_seconds" -eq 0 ]; then
    note "fuzzing skipped (FUZZ_SECONDS=0)"
elif [ ! -d "$models" ]; then
    note "fuzzing FAILED: missing sample-model directory $models (the seeds)"
    status=1
else
    rm -rf "$build/fuzz"
    mkdir -p "$build/fuzz"
    # One fuzzer per core.
    run_fuzzer fuzz_rknn_model & model_pid=$!
    run_fuzzer fuzz_rknn_init & init_pid=$!
    wait "$model_pid"; model_rc=$?
    wait "$init_pid"; init_rc=$?
    fuzz_result fuzz_rknn_model "$model_rc"
    fuzz_result fuzz_rknn_init "$init_rc"
fi

echo
echo "host-sanitize summary:"
printf "%s" "$summary"
[ "$status" -eq 0 ] && echo "host-sanitize: OK" || echo "host-sanitize: FAILED"
exit "$status"
