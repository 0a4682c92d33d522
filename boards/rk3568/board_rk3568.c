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
 * NOT YET RUN ON SILICON. Where each number comes from:
 *   MMU map      DRAM 0..0xF0000000, device 0xF0000000..4 GiB: U-Boot's own
 *                RK3568 map (arch/arm/mach-rockchip/rk3568/rk3568.c). NPU
 *                0xFDE40000 (hardware.md §2.2), PMU, CRU and UART2 (Linux
 *                rk356x-base.dtsi) all lie in the device part.
 *   PMU          base 0xFDD90000 (Linux rk356x-base.dtsi, "rockchip,rk3568-pmu").
 *                Registers PWR_CON 0xA0, PWR_STATUS 0x98, BUS_IDLE_REQ 0x50,
 *                BUS_IDLE_ACK 0x60, BUS_IDLE_ST 0x68, and the NPU domain's
 *                bits (power/status bit 1, idle request/ack/status bit 2,
 *                hiword-masked writes): Linux drivers/pmdomain/rockchip/
 *                pm-domains.c (rk3568_pmu, DOMAIN_RK3568 "npu");
 *                hardware.md §2.2 names the domain (PD_NPU) but not its registers.
 *   Sequence     that driver's power-on: domain clocks on, power request,
 *                wait for the status bit, leave bus idle (wait for the ack,
 *                then the idle status). QoS (restored by Linux) is left at
 *                its reset value.
 *   Clock gates  CRU 0xFDD20000 (hardware.md §2.2), CLKGATE_CON(3) = +0x30C,
 *                hiword-masked, bit clear = running: b0 CLK_NPU_SRC, b1
 *                CLK_NPU_NP5, b2 HCLK_NPU_PRE, b3 PCLK_NPU_PRE, b4 ACLK_NPU_PRE,
 *                b7 ACLK_NPU, b8 HCLK_NPU (Linux drivers/clk/rockchip/
 *                clk-rk3568.c; all but b0/b1 are also in the research notes
 *                behind hardware.md §2.2). The compute clock (SCMI clock 2,
 *                hardware.md §2.2) is left as the firmware below set it.
 * Unverified: every step above on a board; and that the NPU supply is on
 * when U-Boot starts us (hardware.md §2.2: "The vdd_npu regulator must stay on").
 * There is no PMIC driver here. Linux's ROCK 3A device tree does not mark
 * vdd_npu (RK809 DCDC_REG4) always-on; the ZERO 3's NPU shares vdd_gpu_npu
 * (RK817 DCDC_REG2), marked always-on. With the rail off the PMU handshake
 * may time out (reported below) or the first NPU register access may stall
 * the bus, which no software timeout can bound. Every wait here is bounded
 * and every failure is logged.
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

#define RK3568_PMU_BASE  0xFDD90000u
#define PMU_BUS_IDLE_REQ 0x50u /* bus-idle request, hiword-masked, 1 = idle */
#define PMU_BUS_IDLE_ACK 0x60u
#define PMU_BUS_IDLE_ST  0x68u
#define PMU_PWR_STATUS   0x98u /* 1 = domain off */
#define PMU_PWR_CON      0xA0u /* power-gate request, hiword-masked, 1 = off */
#define PMU_NPU_PWR_BIT  1u    /* PWR_CON and PWR_STATUS */
#define PMU_NPU_IDLE_BIT 2u    /* BUS_IDLE_REQ, _ACK and _ST */
#define PMU_WAIT_US      10000u

#define RK3568_CRU_BASE    0xFDD20000u
#define CRU_CLKGATE_CON(n) (0x300u + 4u * (n)) /* hiword-masked, 1 = gated */
#define NPU_CLKGATE_CON    3u
#define NPU_CLKGATE_BITS   0x019Fu /* b0-b4, b7, b8 (see above) */

static int npu_powered;

/* The domain's bus clocks must run while the PMU switches it (pm-domains.c
 * enables them around every transition); they are left running. */
static void npu_clocks_on(void)
{
    hal_mmio_write32(RK3568_CRU_BASE + CRU_CLKGATE_CON(NPU_CLKGATE_CON), NPU_CLKGATE_BITS << 16);
}

static int npu_power_on(void)
{
    npu_clocks_on();
    if (((hal_mmio_read32(RK3568_PMU_BASE + PMU_PWR_STATUS) >> PMU_NPU_PWR_BIT) & 1u) != 0) {
        /* 0 = powered */
        board_rockchip_write_bit(RK3568_PMU_BASE + PMU_PWR_CON, PMU_NPU_PWR_BIT, 0);
        if (board_rockchip_wait_bit(RK3568_PMU_BASE + PMU_PWR_STATUS, PMU_NPU_PWR_BIT, 0,
                                    PMU_WAIT_US) != 0) {
            HAL_LOG_ERR("rk3568: PD_NPU did not power on (PMU status 0x%08x; is vdd_npu on?)",
                        (unsigned)hal_mmio_read32(RK3568_PMU_BASE + PMU_PWR_STATUS));
            return -1;
        }
    }
    /* leave bus idle */
    board_rockchip_write_bit(RK3568_PMU_BASE + PMU_BUS_IDLE_REQ, PMU_NPU_IDLE_BIT, 0);
    if (board_rockchip_wait_bit(RK3568_PMU_BASE + PMU_BUS_IDLE_ACK, PMU_NPU_IDLE_BIT, 0,
                                PMU_WAIT_US) != 0) {
        HAL_LOG_ERR("rk3568: PD_NPU bus-idle release not acknowledged (ack 0x%08x)",
                    (unsigned)hal_mmio_read32(RK3568_PMU_BASE + PMU_BUS_IDLE_ACK));
        return -1;
    }
    if (board_rockchip_wait_bit(RK3568_PMU_BASE + PMU_BUS_IDLE_ST, PMU_NPU_IDLE_BIT, 0,
                                PMU_WAIT_US) != 0) {
        HAL_LOG_ERR("rk3568: PD_NPU bus stayed idle (idle status 0x%08x)",
                    (unsigned)hal_mmio_read32(RK3568_PMU_BASE + PMU_BUS_IDLE_ST));
        return -1;
    }
    npu_powered = 1;
    return 0;
}

int board_init(void)
{
    return board_rockchip_init(RKNPU_SOC_RK3568, npu_power_on);
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
    printf("  npu          RK3566/RK3568 silicon (power domain NPU %s)\n",
           npu_powered ? "on" : "not brought up");
}
