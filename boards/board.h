/*
 * board.h - what every board provides to firmware images and examples.
 * Boards wire a HAL, a SoC profile, a carve-out and (on QEMU and the host)
 * the virtual NPU together. Nothing below boards/ includes this header.
 */
#ifndef BOARD_H
#define BOARD_H

#ifdef __cplusplus
extern "C" {
#endif

/* Bring the board up: exception vectors, MMU (aarch64), console, NPU power
 * and clocks, rknpu_platform_init() with the board's carve-out. Returns
 * RKNN_SUCC or an RKNN_ERR_* code. Safe to call more than once. */
int board_init(void);

/* Short board name for reports ("qemu-virt", "host", "rk3588"). */
const char *board_name(void);

/* Print the platform report: architecture, SoC, NPU windows, carve-out,
 * timer, MMU and cache state. */
void board_print_report(void);

/* Print the NPU jobs and time of each owner (context, user argument) since
 * boot, as the board's inference hooks counted them (board_npu_usage.c). */
void board_print_npu_usage(void);

#ifdef __cplusplus
}
#endif

#endif
