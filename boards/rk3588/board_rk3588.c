/*
 * board_rk3588.c - RK3588 boards (Rock 5B, Orange Pi 5, ...), firmware
 * started by U-Boot with `go 0x00400000`. hal_boot_entry takes over from
 * U-Boot at EL2 (where it runs on these boards) or EL1: caches cleaned and
 * off, then EL1 with our own vectors and translation tables (hal_boot.h).
 *
 * Memory map (linker defsyms in boards/rk3588/meson.build): image at
 * 0x00400000, .data/.bss/stack after it, the DMA carve-out at 0x20000000
 * (64 MiB, below 4 GiB because the NPU's address registers are 32-bit).
 *
 * NOT YET RUN ON SILICON: the NPU's supply, power domains and clock are
 * brought up by npu_rk3588.c (hardware.md §2.2, §2.5). Every wait is
 * bounded and failures are reported.
 */
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "board_common.h"
#include "board_rockchip.h"
#include "board_uboot.h"
#include "hal.h"
#include "rknn_api.h"
#include "rknpu_bm.h"

static board_npu_state npu_state;

int board_init(void)
{
    return board_rockchip_init(RKNPU_SOC_RK3588, &rk3588_npu, &npu_state);
}

/* The debug UART (UART2, 1500000 8N1 as U-Boot left it). */
const uintptr_t board_uart_base = 0xFEB50000u;

const char *board_name(void)
{
    return "rk3588";
}

void board_print_report(void)
{
    board_report_common();
    board_rockchip_npu_report(&rk3588_npu, &npu_state);
}
