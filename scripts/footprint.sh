#!/bin/sh
# footprint.sh [BUILD_DIR] - code size and static RAM of the bare-metal
# library as a firmware image gets it: aarch64 (the QEMU virt cross file),
# -Os, log_strings=false, default pool sizes. The figures are size(1)'s
# Berkeley columns summed over every object of librknpu_bm.a:
#   BENCH footprint_aarch64_text_bytes N bytes        text = code + read-only data
#                                                     (+ .eh_frame unwind tables)
#   BENCH footprint_aarch64_text_bytes_without_container_v4 N bytes
#                                                     the same, -Dcontainer_v4=false
#   BENCH footprint_aarch64_static_ram_bytes N bytes  data + bss
# followed by the largest contributors. The QEMU library must not contain the
# virtual NPU (the firmware links it from its own library): checked.
#
# BUILD_DIR defaults to build/footprint-aarch64; it is set up on the first
# run and rebuilt incrementally afterwards. Needs meson, ninja and
# gcc-aarch64-linux-gnu with picolibc (scripts/install-deps.sh).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/footprint-aarch64}
size=aarch64-linux-gnu-size
options="-Doptimization=s -Dlog_strings=false"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Always a fresh setup: a reused directory would keep old cross-file flags.
rm -rf "$build"
# shellcheck disable=SC2086 # options are words
meson setup "$build" "$root" --cross-file "$root/boards/qemu-virt/aarch64.ini" \
    $options >"$log" 2>&1 || { cat "$log"; exit 1; }
ninja -C "$build" librknpu_bm.a >"$log" 2>&1 || { cat "$log"; exit 1; }
lib=$build/librknpu_bm.a

if ar t "$lib" | grep -q vnpu; then
    echo "footprint: $lib contains the virtual NPU: the figures would be wrong" >&2
    exit 1
fi
if ! grep -q 'HAL_LOG_STRINGS=0' "$build/compile_commands.json"; then
    echo "footprint: warning: log_strings=false does not reach the compiler" \
         "(meson.build must pass -DHAL_LOG_STRINGS); the text includes the log strings"
fi

# One line per object: text data bss name (the archive's path stripped).
objects=$($size "$lib" | awk 'NR > 1 { n = $6; sub(/ \(ex .*/, "", n); sub(/.*\//, "", n);
                                        print $1, $2, $3, n }')
text=$(echo "$objects" | awk '{ s += $1 } END { print s }')
ram=$(echo "$objects" | awk '{ s += $2 + $3 } END { print s }')
# What the text column is made of: code, read-only data, unwind tables.
parts=$($size -A "$lib" | awk '$1 ~ /^\.text/ { c += $2 } $1 ~ /^\.rodata/ { r += $2 }
                                $1 == ".eh_frame" { e += $2 }
                                END { printf "code %d, rodata %d, eh_frame %d", c, r, e }')

echo "librknpu_bm.a: aarch64 -Os log_strings=false, $(echo "$objects" | wc -l) objects"
echo "  text $text bytes ($parts), data+bss $ram bytes"
echo "  largest text:"
echo "$objects" | sort -k1,1nr | head -8 | awk '{ printf "    %7d  %s\n", $1, $4 }'
echo "  largest data+bss:"
echo "$objects" | awk '{ print $2 + $3, $4 }' | sort -k1,1nr | head -6 |
    awk '$1 > 0 { printf "    %7d  %s\n", $1, $2 }'
echo "BENCH footprint_aarch64_text_bytes $text bytes"

# The same library without container-4 loading (meson option container_v4).
lean=$build-no-v4
rm -rf "$lean"
# shellcheck disable=SC2086 # options are words
meson setup "$lean" "$root" --cross-file "$root/boards/qemu-virt/aarch64.ini" \
    $options -Dcontainer_v4=false >"$log" 2>&1 || { cat "$log"; exit 1; }
ninja -C "$lean" librknpu_bm.a >"$log" 2>&1 || { cat "$log"; exit 1; }
lean_text=$($size "$lean/librknpu_bm.a" | awk 'NR > 1 { s += $1 } END { print s }')
echo "  without container 4 (-Dcontainer_v4=false): text $lean_text bytes"
echo "BENCH footprint_aarch64_text_bytes_without_container_v4 $lean_text bytes"
echo "BENCH footprint_aarch64_static_ram_bytes $ram bytes"
