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
 * NOT YET RUN ON SILICON: the power-up sequence follows hardware.md §2.2 (what the
 * StarryOS driver and the mainline power-domain table do); U-Boot leaves the
 * NPU clocks ungated. Every wait is bounded and failures are reported.
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

#define RK3588_PMU1_BASE 0xFD8D8000u
#define PMU_PWR_CON      0x14Cu /* power-gate request, hiword-masked */
#define PMU_BUS_IDLE_REQ 0x10Cu /* bus-idle request, hiword-masked */
#define PMU_BUS_IDLE_ACK 0x118u
#define PMU_BUS_IDLE_ST  0x120u
#define PMU_REPAIR_ST    0x290u
#define PMU_WAIT_US      10000u

typedef struct {
    const char *name;
    int8_t pwr_bit, repair_bit, idle_bit; /* -1: the domain has none */
} rk3588_npu_domain;

/* Order matters: the NPU root domain first, then core 0's, then 1 and 2. */
static const rk3588_npu_domain npu_domains[] = {
    {"PD_NPU", 1, -1, -1},
    {"PD_NPUTOP", 3, 2, 1},
    {"PD_NPU1", 4, 3, 2},
    {"PD_NPU2", 5, 4, 3},
};

static int power_on_domain(const rk3588_npu_domain *d)
{
    /* 0 = powered */
    board_rockchip_write_bit(RK3588_PMU1_BASE + PMU_PWR_CON, (unsigned)d->pwr_bit, 0);
    if (d->repair_bit >= 0 &&
        board_rockchip_wait_bit(RK3588_PMU1_BASE + PMU_REPAIR_ST, (unsigned)d->repair_bit, 1,
                                PMU_WAIT_US) != 0) {
        HAL_LOG_ERR("rk3588: %s did not finish memory repair after power-on", d->name);
        return -1;
    }
    if (d->idle_bit >= 0) {
        /* leave bus idle */
        board_rockchip_write_bit(RK3588_PMU1_BASE + PMU_BUS_IDLE_REQ, (unsigned)d->idle_bit, 0);
        if (board_rockchip_wait_bit(RK3588_PMU1_BASE + PMU_BUS_IDLE_ACK, (unsigned)d->idle_bit, 0,
                                    PMU_WAIT_US) != 0 ||
            board_rockchip_wait_bit(RK3588_PMU1_BASE + PMU_BUS_IDLE_ST, (unsigned)d->idle_bit, 0,
                                    PMU_WAIT_US) != 0) {
            HAL_LOG_ERR("rk3588: %s bus stayed idle", d->name);
            return -1;
        }
    }
    return 0;
}

/* The NPU root domain first, then core 0's, then 1 and 2. */
static int npu_power_on(void)
{
    for (size_t i = 0; i < sizeof npu_domains / sizeof npu_domains[0]; i++)
        if (power_on_domain(&npu_domains[i]) != 0)
            return -1;
    return 0;
}

int board_init(void)
{
    return board_rockchip_init(RKNPU_SOC_RK3588, npu_power_on);
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
    printf("  npu          RK3588 silicon (power domains NPU, NPUTOP, NPU1, NPU2 on)\n");
}
