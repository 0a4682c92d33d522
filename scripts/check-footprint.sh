#!/bin/sh
# check-footprint.sh [BUILD_DIR] - the footprint limits the README states,
# as a pass/fail check (speed stays in benchmarks; size is deterministic):
#   aarch64 -Os library text   <= 65,536 bytes
#   static RAM (data + bss)    <=  8,192 bytes
# The figures come from scripts/footprint.sh (a fresh aarch64 build).
set -u
text_limit=65536
ram_limit=8192
out=$(sh "$(dirname "$0")/footprint.sh" "$@") || { echo "$out"; echo "check-footprint: FAIL: footprint.sh failed"; exit 1; }
echo "$out"
text=$(echo "$out" | awk '$2 == "footprint_aarch64_text_bytes" { print $3 }')
ram=$(echo "$out" | awk '$2 == "footprint_aarch64_static_ram_bytes" { print $3 }')
if [ -z "$text" ] || [ -z "$ram" ]; then
    echo "check-footprint: FAIL: footprint.sh printed no figures"
    exit 1
fi
status=0
if [ "$text" -gt "$text_limit" ]; then
    echo "check-footprint: FAIL: library text $text bytes > $text_limit"
    status=1
fi
if [ "$ram" -gt "$ram_limit" ]; then
    echo "check-footprint: FAIL: static RAM $ram bytes > $ram_limit"
    status=1
fi
[ $status -eq 0 ] && echo "check-footprint: OK: text $text <= $text_limit, static RAM $ram <= $ram_limit bytes"
exit $status
