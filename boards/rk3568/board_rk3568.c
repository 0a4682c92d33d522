/*
 * board_rk3568.c - RK3566/RK3568 boards (Radxa ROCK 3A, Radxa ZERO 3, ...),
 * firmware started by U-Boot (boot.cmd: bootm of rknpu.uimg). hal_boot_entry
 * takes over from U-Boot at EL2 or EL1: caches cleaned and off, then EL1 with
 * our own vectors and translation tables (hal_boot.h). RK3566 and RK3568
 * carry the same one-core NPU (hardware.md §2), so both run as RK3568.
 *
 * Memory map (linker defsyms in boards/rk3568/meson.build): image at
 * 0x00400000, .data/.bss/stack after it, the DMA carve-out at 0x20000000
 * (64 MiB: below 4 GiB because the NPU addresses 32 bits, and inside the
 * DRAM of a 1 GiB board).
 *
 * NOT YET RUN ON SILICON. The MMU map (DRAM 0..0xF0000000, device
 * 0xF0000000..4 GiB) is U-Boot's own RK3568 map (arch/arm/mach-rockchip/
 * rk3568/rk3568.c); the NPU's supply, power domain and clock are brought
 * up by npu_rk3568.c.
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
    return board_rockchip_init(RKNPU_SOC_RK3568, &rk3568_npu, &npu_state);
}

/* The debug UART (UART2, 1500000 8N1 as U-Boot left it; Linux rk356x-base.dtsi). */
const uintptr_t board_uart_base = 0xFE660000u;

const char *board_name(void)
{
    return "rk3568";
}

void board_print_report(void)
{
    board_report_common();
    board_rockchip_npu_report(&rk3568_npu, &npu_state);
}
