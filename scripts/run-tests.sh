#!/bin/sh
# The README's test command: build and test every target, print one summary
# line per target and the total. Exit status 0 only if every test passed.
#   scripts/run-tests.sh            (installs missing packages first)
# Env: BUILD_ROOT (default build), SKIP_DEPS=1 skips the package check,
#      TARGETS="host qemu-aarch64 ..." runs a subset.
set -u
cd "$(dirname "$0")/.."
[ "${SKIP_DEPS:-0}" = 1 ] || sh scripts/install-deps.sh || exit 1
root=${BUILD_ROOT:-build}
targets=${TARGETS:-host qemu-aarch64 qemu-armv7-newlib qemu-armv7-picolibc}
summary=""
total_pass=0
total_fail=0
total_skip=0
total_xfail=0
mkdir -p "$root"

# count_results DIR TARGET -> "PASSED FAILED SKIPPED XFAILED" (skips against
# tests/expected-skips.txt; under CI=true an unlisted skip is a failure)
count_results() {
    /usr/bin/python3 scripts/count-results.py "$1/meson-logs/testlog.json" "$2"
}

# build_and_test NAME [MESON_SETUP_ARGS...] -> sets pass/fail
build_and_test() {
    name=$1 dir=$root/$1
    shift
    t0=$(date +%s)
    rm -rf "$dir"
    if ! meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 ||
       ! ninja -C "$dir" >"$dir.build.log" 2>&1; then
        echo "$dir: build FAILED"
        tail -n 40 "$dir.setup.log"
        [ -f "$dir.build.log" ] && tail -n 40 "$dir.build.log"
        pass=0 fail=1 skip=0 xfail=0
        return
    fi
    echo "$name: built in $(($(date +%s) - t0)) s"
    meson test -C "$dir" --num-processes 2 --print-errorlogs || true
    echo "$name: tested in $(($(date +%s) - t0)) s"
    set -- $(count_results "$dir" "$target")
    pass=$1 fail=$2 skip=$3 xfail=$4
}

# extra_check NAME COMMAND... -> counts one more test
extra_check() {
    name=$1; shift
    t0=$(date +%s)
    if "$@" >"$root/$name.log" 2>&1; then
        echo "check $name: OK ($(($(date +%s) - t0)) s)"; pass=$((pass + 1))
    else
        echo "check $name: FAIL ($(($(date +%s) - t0)) s)"; tail -30 "$root/$name.log"; fail=$((fail + 1))
    fi
}

finish_target() {
    summary="$summary$1: $pass passed, $fail failed, $skip skipped, $xfail expected failures
"
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail))
    total_skip=$((total_skip + skip))
    total_xfail=$((total_xfail + xfail))
}

for t in $targets; do
    target=$t
    echo "=== $t ==="
    case $t in
    host)
        # A gcov build: its test run is also the coverage report's (below).
        build_and_test host -Db_coverage=true
        # Line and branch coverage of the library by those tests, gated
        # against the README's figures (0.5 points of slack).
        extra_check coverage sh scripts/coverage.sh --report "$root/host"
        grep '^coverage ' "$root/coverage.log"
        # The same host tests once more with clang and ASan+UBSan, plus a
        # bounded fuzzing run (counted in this target's line).
        extra_check host-sanitize sh scripts/run-host-sanitize.sh "$root/host-sanitize"
        # A release build (-O3) of everything: -Werror there catches what the
        # debug build's optimiser never sees (maybe-uninitialized); not run.
        extra_check host-release-build sh -c 'rm -rf "$1" && meson setup "$1" --buildtype=release \
            >"$1.setup.log" 2>&1 && ninja -C "$1"' sh "$root/host-release"
        # Rockchip's runtime side by side (docs/testing.md, item 9): its answers
        # and submissions against ours on every shared model and the matmul
        # grid (the counts are findings; the full list stays in
        # vendor-diff/vendor-diff-report.txt), and its outputs on our virtual
        # NPU against the float references.
        extra_check vendor-diff env BUILD_DIR="$root/host" sh scripts/vendor-diff.sh "$root/vendor-diff"
        grep -E '^(rk[0-9]|matmul_|vendor-diff: [0-9])' "$root/vendor-diff.log"
        extra_check vendor-accuracy env BUILD_DIR="$root/host" sh scripts/check-vendor-accuracy.sh \
            "$root/vendor-accuracy"
        ;;
    qemu-aarch64)
        build_and_test qemu-aarch64 --cross-file boards/qemu-virt/aarch64.ini
        # The RK3588 image shares this toolchain; it must link with the
        # board's memory map.
        extra_check rk3588-image sh scripts/check-rk3588-image.sh "$root/rk3588"
        # The boards' bootable disk images as U-Boot reads them (MBR, FAT,
        # uImage, boot.scr) and the QEMU one booted by Debian's U-Boot at
        # EL1 and EL2, powering off and returning to U-Boot.
        for b in rk3588 rk3568 qemu-virt-aarch64; do
            extra_check $b-boot-image env BUILD_ROOT="$root" sh scripts/check-boot-image.sh $b
        done
        extra_check uboot-qemu-aarch64 env BUILD_ROOT="$root" sh scripts/check-uboot-qemu.sh qemu-virt-aarch64
        grep -E '^qemu-virt-aarch64 ' "$root/uboot-qemu-aarch64.log"
        # The matmul grid on firmware built for RK3566 (its own layouts).
        extra_check qemu-rk3566-matmul sh scripts/check-qemu-rk3566-matmul.sh "$root/qemu-aarch64-rk3566"
        # The README's footprint limits (aarch64 -Os library text, static RAM).
        extra_check footprint sh scripts/check-footprint.sh "$root/footprint-aarch64"
        grep '^check-footprint: ' "$root/footprint.log" ;;
    qemu-armv7-newlib)
        build_and_test qemu-armv7-newlib --cross-file boards/qemu-virt/armv7-newlib.ini ;;
    qemu-armv7-picolibc)
        build_and_test qemu-armv7-picolibc --cross-file boards/qemu-virt/armv7-picolibc.ini
        # The armv7 disk image, checked and booted by Debian's qemu_arm U-Boot.
        extra_check qemu-virt-armv7-boot-image env BUILD_ROOT="$root" sh scripts/check-boot-image.sh qemu-virt-armv7
        extra_check uboot-qemu-armv7 env BUILD_ROOT="$root" sh scripts/check-uboot-qemu.sh qemu-virt-armv7
        grep -E '^qemu-virt-armv7 ' "$root/uboot-qemu-armv7.log" ;;
    *)
        echo "unknown target $t"; pass=0 fail=1 skip=0 xfail=0 ;;
    esac
    finish_target "$t"
done

echo
printf "%s" "$summary"
echo "$total_xfail expected failures"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
