/*
 * npu_rk3568.c - what an RK3566/RK3568 board does before the NPU's first
 * register access (board_rockchip.h): the ROCK 3A's NPU supply, the NPU
 * power domain, the NPU clock through SCMI. NOT YET RUN ON SILICON.
 *
 * Supply: vdd_npu, DCDC4 of the RK809 at 0x20 on I2C0 (0xFDD40000), which
 * U-Boot has set up for the PMIC already (Linux rk3568-rock-3a.dts: not
 * always on). A board with another PMIC there (the ZERO 3's RK817, whose
 * NPU rail vdd_gpu_npu is always on) fails the ID check and is left as it
 * is: its NPU then runs at the boot clock (reported).
 * Clock: SCMI clock 2 over SMC 0x82000010, channel at 0x0010F000 (Linux
 * rk356x-base.dtsi; TF-A plat/rockchip/rk3568). 1 GHz at 1.0 V, the top of
 * the vendor kernel's NPU OPP table (rk3568.dtsi).
 *
 * Power domain (Linux drivers/pmdomain/rockchip/pm-domains.c, rk3568_pmu,
 * DOMAIN_RK3568 "npu"; hardware.md §2.2 names PD_NPU but not its registers):
 *   PMU          base 0xFDD90000 (Linux rk356x-base.dtsi). PWR_CON 0xA0,
 *                PWR_STATUS 0x98, BUS_IDLE_REQ 0x50, BUS_IDLE_ACK 0x60,
 *                BUS_IDLE_ST 0x68; the NPU's power/status bit 1, idle
 *                request/ack/status bit 2, hiword-masked writes.
 *   Sequence     that driver's power-on: domain clocks on, power request,
 *                wait for the status bit, leave bus idle (wait for the ack,
 *                then the idle status). QoS (restored by Linux) is left at
 *                its reset value.
 *   Clock gates  CRU 0xFDD20000, CLKGATE_CON(3) = +0x30C, hiword-masked,
 *                bit clear = running: b0 CLK_NPU_SRC, b1 CLK_NPU_NP5, b2
 *                HCLK_NPU_PRE, b3 PCLK_NPU_PRE, b4 ACLK_NPU_PRE, b7 ACLK_NPU,
 *                b8 HCLK_NPU (Linux drivers/clk/rockchip/clk-rk3568.c).
 * With the rail off the PMU handshake may time out (reported) or the first
 * NPU register access may stall the bus, which no software timeout can
 * bound. Every wait here is bounded and every failure is logged.
 */
#include <stdint.h>

#include "board_rockchip.h"
#include "hal.h"
#include "i2c_rk3x.h"
#include "npu_regulator.h"

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
    return 0;
}

/* ---- the supply ------------------------------------------------------------- */

static const rk_i2c_bus i2c0 = {
    .base = 0xFDD40000u,
    .clk_hz = 200000000u, /* CLK_I2C0: PPLL (200 MHz) divided, at most 200 MHz */
    .bus_hz = 100000u,
    .wait_us = 2000u, /* a 3-byte transfer at 100 kHz takes 0.4 ms */
};

static const npu_regulator vdd_npu = {
    .name = "vdd_npu",
    .bus = &i2c0,
    .addr = 0x20,
    .min_uv = 500000u,
    .max_uv = 1350000u,
    .settle_us = 1000u, /* 6 mV/us ramp: 0.15 ms over 0.85 V, and the enable */
};

static int supply_set(uint32_t uv, uint32_t *set_uv)
{
    rk_i2c_init(&i2c0);
    return rk809_dcdc4_set(&vdd_npu, uv, set_uv);
}

const board_rockchip_npu rk3568_npu = {
    .board = "ROCK 3A",
    .supply_name = "vdd_npu",
    .supply_set = supply_set,
    .supply_uv = 1000000u,
    .power_on = npu_power_on,
    .scmi = {.shmem = 0x0010F000u, .smc_id = 0x82000010u},
    .clock_id = 2,
    .clock_hz = 1000000000u,
};
