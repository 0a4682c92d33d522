/*
 * npu_rk3588.c - what an RK3588 board does before the NPU's first register
 * access (board_rockchip.h): the ROCK 5B's NPU supply, the four NPU power
 * domains, the NPU clock through SCMI. NOT YET RUN ON SILICON; the facts and
 * their sources are in hardware.md §2.2 and §2.5.
 *
 * Supply: vdd_npu_s0, an RK8602 at 0x42 on I2C1 (0xFEA90000; pins
 * GPIO0_D4/D5, mux 9), 0.55..0.95 V (Linux rk3588-rock-5b-5bp-5t.dtsi). Other RK3588 boards
 * with an RK8602 there (the ROCK 5 family) work the same; a board whose
 * chip does not answer as one keeps its rail as it is and runs at the boot
 * clock (reported).
 * Power: PMU1 at 0xFD8D8000: for each domain the PWR_CON bit to 0, the
 * memory repair bit where the domain has one, then the bus-idle release
 * and its ack and status (hiword-masked writes, bounded waits).
 * Clock: SCMI clock 6 over SMC 0x82000010, channel at 0x0010F000 (Linux
 * rk3588-base.dtsi; TF-A plat/rockchip/rk3588). 1 GHz, the vendor kernel's
 * boot rate, at 0.85 V, its OPP for the slowest silicon bin; TF-A accepts
 * only its table's rates (200..1000 MHz in 100 MHz steps).
 */
#include <stdint.h>

#include "board_rockchip.h"
#include "hal.h"
#include "i2c_rk3x.h"
#include "npu_regulator.h"

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

/* ---- the supply ------------------------------------------------------------- */

#define RK3588_I2C1_BASE 0xFEA90000u

static const rk_i2c_bus i2c1 = {
    .base = RK3588_I2C1_BASE,
    .clk_hz = 200000000u, /* CLK_I2C1, selected by i2c1_pins() */
    .bus_hz = 100000u,
    .wait_us = 2000u, /* a 3-byte transfer at 100 kHz takes 0.4 ms */
};

static const npu_regulator vdd_npu_s0 = {
    .name = "vdd_npu_s0",
    .bus = &i2c1,
    .addr = 0x42,
    .min_uv = 550000u,
    .max_uv = 950000u,
    .settle_us = 1000u, /* 2.3 mV/us over 0.4 V, then the 500 us enable ramp */
};

/* I2C1 on GPIO0_D4/D5 (mux 9, no pull, Schmitt trigger: Linux's
 * i2c1m2_xfer), and its clocks on at 200 MHz: U-Boot neither binds the
 * RK8602 nor muxes I2C1. GPIO0 pins from B4 on take functions above 7 in
 * two steps: 8 in PMU2_IOC ("see BUS_IOC"), then the function in BUS_IOC
 * (Linux and U-Boot pinctrl-rk3588). All writes hiword-masked. */
#define RK3588_IOC_BASE       0xFD5F0000u
#define PMU2_IOC_GPIO0D_SEL_H 0x4010u /* D4 bits 3:0, D5 bits 7:4 */
#define PMU2_IOC_GPIO0D_PULL  0x4030u /* 2 bits per pin: D4 11:8, D5 13:12... */
#define PMU2_IOC_GPIO0D_SMT   0x4048u
#define BUS_IOC_GPIO0D_SEL_H  0x801Cu
#define RK3588_CRU_BASE       0xFD7C0000u
#define CRU_CLKSEL_CON(n)     (0x300u + 4u * (n))
#define CRU_CLKGATE_CON(n)    (0x800u + 4u * (n))

static void i2c1_pins(void)
{
    hal_mmio_write32(RK3588_IOC_BASE + PMU2_IOC_GPIO0D_SEL_H, 0x00FF0088u);
    hal_mmio_write32(RK3588_IOC_BASE + BUS_IOC_GPIO0D_SEL_H, 0x00FF0099u);
    hal_mmio_write32(RK3588_IOC_BASE + PMU2_IOC_GPIO0D_PULL, 0x0F000000u); /* D4, D5: none */
    hal_mmio_write32(RK3588_IOC_BASE + PMU2_IOC_GPIO0D_SMT, 0x00300030u);  /* D4, D5: on */
    board_rockchip_write_bit(RK3588_CRU_BASE + CRU_CLKSEL_CON(38), 6, 0);  /* CLK_I2C1 200 MHz */
    board_rockchip_write_bit(RK3588_CRU_BASE + CRU_CLKGATE_CON(10), 8, 0); /* PCLK_I2C1 on */
    board_rockchip_write_bit(RK3588_CRU_BASE + CRU_CLKGATE_CON(11), 0, 0); /* CLK_I2C1 on */
}

static int supply_set(uint32_t uv, uint32_t *set_uv)
{
    i2c1_pins();
    rk_i2c_init(&i2c1);
    return rk8602_set(&vdd_npu_s0, uv, set_uv);
}

const board_rockchip_npu rk3588_npu = {
    .board = "ROCK 5B",
    .supply_name = "vdd_npu_s0",
    .supply_set = supply_set,
    .supply_uv = 850000u,
    .power_on = npu_power_on,
    .scmi = {.shmem = 0x0010F000u, .smc_id = 0x82000010u},
    .clock_id = 6,
    .clock_hz = 1000000000u,
};
