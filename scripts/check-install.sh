#!/bin/sh
# meson install into a staging directory, then build and run an external C
# and C++ program using nothing but `pkg-config --cflags --libs rknpu-bm`.
#   check-install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
stage=$build/install-check
rm -rf "$stage"
meson install -C "$build" --destdir "$stage" >/dev/null
pc=$(find "$stage" -name rknpu-bm.pc | head -n 1)
[ -n "$pc" ] || { echo "rknpu-bm.pc not installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc")
export PKG_CONFIG_PATH=$(dirname "$pc")
# The .pc names the final prefix; point it at the staging copy.
export PKG_CONFIG_SYSROOT_DIR=$stage
flags=$(pkg-config --cflags --libs rknpu-bm)
echo "pkg-config: $flags (prefix $prefix)"
# A gcov build (scripts/coverage.sh) passes --coverage: its library calls gcov.
flags="$flags ${INSTALL_CHECK_LDFLAGS:-}"
# run_fresh BINARY: a just-linked file can briefly be "text file busy"
# (exit 126) on a loaded machine; retry only that.
run_fresh() {
    for try in 1 2 3; do
        "$@" && return 0
        rc=$?
        [ $rc -eq 126 ] || return $rc
        sleep 1
    done
    return 126
}
cc -std=c11 -Wall -Wextra -Werror "$src/tests/install/consumer.c" $flags -o "$stage/consumer"
run_fresh "$stage/consumer"
# the same source as C++: the headers must work from C++ too
c++ -std=c++11 -Wall -Wextra -Werror -x c++ "$src/tests/install/consumer.c" $flags -o "$stage/consumer_cpp"
run_fresh "$stage/consumer_cpp"
# An application written like the vendor's demos, run on the sample model
# against the virtual NPU the host library carries (C, then the same source
# as C++).
models=$src/../shared/models
for f in rk3588_multiple_input_demo.v6.rknn multiple_input_demo/input1.bin multiple_input_demo/input2.bin; do
    [ -f "$models/$f" ] || { echo "check-install: FAIL: missing input file $models/$f"; exit 1; }
done
# the float ONNX reference the build made (tests/e2e/meson.build)
reference=$build/tests/e2e/mid_reference.f32
[ -f "$reference" ] || { echo "check-install: FAIL: missing reference $reference"; exit 1; }
if true; then
    cc -std=c11 -Wall -Wextra -Werror "$src/tests/install/vendor_app.c" $flags -o "$stage/vendor_app"
    c++ -std=c++11 -Wall -Wextra -Werror -x c++ "$src/tests/install/vendor_app.c" $flags \
        -o "$stage/vendor_app_cpp"
    for app in vendor_app vendor_app_cpp; do
        out=$(run_fresh "$stage/$app" "$models/rk3588_multiple_input_demo.v6.rknn" \
              "$models/multiple_input_demo/input1.bin" "$models/multiple_input_demo/input2.bin" \
              "$reference")
        echo "$out"
        echo "$out" | grep -q "vendor_app: OK" || { echo "$app failed"; exit 1; }
    done
fi
