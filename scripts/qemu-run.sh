#!/bin/sh
# Run a bare-metal semihosting ELF on QEMU's 'virt' board; exit with its code.
#   qemu-run.sh QEMU_BINARY CPU ELF [ARGS...]
# ARGS reach the program through the semihosting command line (picolibc:
# argv = "program-name", ELF, ARGS...; newlib: argv = ELF, ARGS...).
# Semihosting output and the PL011 UART both go to stdout.
# Env: QEMU_MEM (default 256M), QEMU_EXTRA (more options),
#      EXPECT_EXIT=N (succeed only if the program exits with N),
#      EXPECT_OUTPUT=TEXT (succeed only if the output also contains TEXT:
#      a firmware image that dies early can still exit 0 through semihosting,
#      so tests name the line that proves they ran to the end).
set -u
qemu=$1 cpu=$2 elf=$3
shift 3
out=$(mktemp)
"$qemu" -M virt -cpu "$cpu" -m "${QEMU_MEM:-256M}" \
    -display none -monitor none -nic none \
    -chardev stdio,id=con,mux=on -serial chardev:con \
    -semihosting-config enable=on,target=native,chardev=con \
    ${QEMU_EXTRA:-} \
    -kernel "$elf" -append "$*" </dev/null >"$out" 2>&1
rc=$?
cat "$out"
# 77 is meson's "skipped" (e.g. sample models not present): pass it through.
if [ "$rc" -eq 77 ] && [ -z "${EXPECT_EXIT:-}" ]; then rm -f "$out"; exit 77; fi
if [ -n "${EXPECT_OUTPUT:-}" ] && ! grep -qF -- "$EXPECT_OUTPUT" "$out"; then
    echo "qemu-run: output lacks \"$EXPECT_OUTPUT\" (exit $rc)"
    rm -f "$out"; exit 1
fi
rm -f "$out"
if [ -n "${EXPECT_EXIT:-}" ]; then
    if [ "$rc" -eq "$EXPECT_EXIT" ]; then
        echo "qemu-run: exit $rc as expected"; exit 0
    fi
    echo "qemu-run: exit $rc, expected $EXPECT_EXIT"; exit 1
fi
exit $rc
