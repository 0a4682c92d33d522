/*
 * i2c_rk3x.c - Rockchip I2C master, polled (i2c_rk3x.h). Register map and
 * sequence as Linux's drivers/i2c/busses/i2c-rk3x.c and U-Boot's rk_i2c.c
 * drive the controller (docs/hardware.md §2.5; MRXADDR's read bit as U-Boot
 * sets it, Linux leaves it to the controller):
 *   write: CON = enable | TX | start; after the start, the address byte and
 *          the data go in TXDATA0 and MTXCNT sends them (MBTF when done).
 *   read:  MRXADDR = address | read, MRXRADDR = register, CON = enable |
 *          register-TX | start: the controller sends address and register,
 *          a repeated start and the read address itself; MRXCNT = 1 then
 *          reads one byte (MBRF), LASTACK NAKs it as the last.
 *   both:  ACTACK stops on a NAK (NAKRCV); CON = enable | stop ends it.
 */
#include "i2c_rk3x.h"

#include "hal.h"

#define I2C_CON      0x000u
#define I2C_CLKDIV   0x004u
#define I2C_MRXADDR  0x008u
#define I2C_MRXRADDR 0x00Cu
#define I2C_MTXCNT   0x010u
#define I2C_MRXCNT   0x014u
#define I2C_IEN      0x018u
#define I2C_IPD      0x01Cu
#define I2C_TXDATA0  0x100u
#define I2C_RXDATA0  0x200u

#define CON_EN         (1u << 0)
#define CON_MOD_TX     (0u << 1)
#define CON_MOD_REG_TX (1u << 1) /* address, register, repeated start, read */
#define CON_START      (1u << 3)
#define CON_STOP       (1u << 4)
#define CON_LASTACK    (1u << 5) /* NAK the last byte read */
#define CON_ACTACK     (1u << 6) /* stop on a NAK */
#define MRXADDR_VALID0 (1u << 24)
#define IPD_MBTF       (1u << 2)
#define IPD_MBRF       (1u << 3)
#define IPD_START      (1u << 4)
#define IPD_STOP       (1u << 5)
#define IPD_NAKRCV     (1u << 6)
#define IPD_ALL        0x7Fu

uint32_t rk_i2c_clkdiv(uint32_t clk_hz, uint32_t bus_hz)
{
    /* SCL = clk / (8 x (divl + 1 + divh + 1)); low takes the larger half */
    uint32_t div = (uint32_t)(((uint64_t)clk_hz + 8u * (uint64_t)bus_hz - 1u) /
                              (8u * (uint64_t)(bus_hz ? bus_hz : 1u)));
    uint32_t divh, divl;

    if (div < 2u)
        div = 2u;
    if (div > 2u * 0x10000u)
        div = 2u * 0x10000u;
    divh = div / 2u;
    divl = div - divh;
    return (divh - 1u) << 16 | (divl - 1u);
}

void rk_i2c_init(const rk_i2c_bus *bus)
{
    hal_mmio_write32(bus->base + I2C_CON, 0);
    hal_mmio_write32(bus->base + I2C_IEN, 0); /* polled */
    hal_mmio_write32(bus->base + I2C_IPD, IPD_ALL);
    hal_mmio_write32(bus->base + I2C_CLKDIV, rk_i2c_clkdiv(bus->clk_hz, bus->bus_hz));
}

/* Waits for one of `bits` in IPD; returns the IPD, 0 on timeout. */
static uint32_t wait_ipd(const rk_i2c_bus *bus, uint32_t bits)
{
    uint64_t end = hal_time_us() + bus->wait_us;

    do {
        uint32_t ipd = hal_mmio_read32(bus->base + I2C_IPD);
        if (ipd & bits)
            return ipd;
    } while (hal_time_us() < end);
    return 0;
}

static int failed(const rk_i2c_bus *bus, uint8_t addr, const char *phase, int why)
{
    HAL_LOG_ERR("i2c 0x%lx: device 0x%02x: %s %s", (unsigned long)bus->base, (unsigned)addr,
                why == RK_I2C_NAK ? "no acknowledge after" : "timed out waiting for", phase);
    return why;
}

/* Start condition in mode `mode`; 0 or RK_I2C_TIMEOUT. */
static int start(const rk_i2c_bus *bus, uint32_t mode)
{
    hal_mmio_write32(bus->base + I2C_IPD, IPD_ALL);
    hal_mmio_write32(bus->base + I2C_CON, CON_EN | mode | CON_START | CON_ACTACK);
    if (!wait_ipd(bus, IPD_START))
        return RK_I2C_TIMEOUT;
    hal_mmio_write32(bus->base + I2C_IPD, IPD_START);
    return 0;
}

/* Stop condition, then the controller off: after every transfer, also a
 * failed one, so the bus is released. */
static int stop(const rk_i2c_bus *bus)
{
    int ret = 0;

    hal_mmio_write32(bus->base + I2C_IPD, IPD_ALL & ~IPD_START);
    hal_mmio_write32(bus->base + I2C_CON, CON_EN | CON_STOP);
    if (!wait_ipd(bus, IPD_STOP))
        ret = RK_I2C_TIMEOUT;
    hal_mmio_write32(bus->base + I2C_IPD, IPD_ALL);
    hal_mmio_write32(bus->base + I2C_CON, 0);
    return ret;
}

/* Waits for `done` or a NAK; 0, RK_I2C_NAK or RK_I2C_TIMEOUT. */
static int transfer_result(const rk_i2c_bus *bus, uint32_t done)
{
    uint32_t ipd = wait_ipd(bus, done | IPD_NAKRCV);

    if (!ipd)
        return RK_I2C_TIMEOUT;
    return (ipd & IPD_NAKRCV) ? RK_I2C_NAK : 0;
}

int rk_i2c_write_reg(const rk_i2c_bus *bus, uint8_t addr, uint8_t reg, uint8_t value)
{
    int ret = start(bus, CON_MOD_TX);

    if (ret == 0) {
        hal_mmio_write32(bus->base + I2C_CON, CON_EN | CON_MOD_TX | CON_ACTACK);
        /* the address byte goes first; the bytes fill TXDATA0 from its LSB */
        hal_mmio_write32(bus->base + I2C_TXDATA0, (uint32_t)(addr & 0x7Fu) << 1 |
                                                      (uint32_t)reg << 8 | (uint32_t)value << 16);
        hal_mmio_write32(bus->base + I2C_MTXCNT, 3);
        ret = transfer_result(bus, IPD_MBTF);
    }
    if (stop(bus) != 0 && ret == 0)
        ret = RK_I2C_TIMEOUT;
    return ret ? failed(bus, addr, "the write of its register", ret) : 0;
}

int rk_i2c_read_reg(const rk_i2c_bus *bus, uint8_t addr, uint8_t reg, uint8_t *value)
{
    int ret;

    hal_mmio_write32(bus->base + I2C_MRXADDR, (uint32_t)(addr & 0x7Fu) << 1 | 1u | MRXADDR_VALID0);
    hal_mmio_write32(bus->base + I2C_MRXRADDR, reg | MRXADDR_VALID0);
    ret = start(bus, CON_MOD_REG_TX);
    if (ret == 0) {
        hal_mmio_write32(bus->base + I2C_CON, CON_EN | CON_MOD_REG_TX | CON_ACTACK | CON_LASTACK);
        hal_mmio_write32(bus->base + I2C_MRXCNT, 1);
        ret = transfer_result(bus, IPD_MBRF);
        if (ret == 0)
            *value = (uint8_t)hal_mmio_read32(bus->base + I2C_RXDATA0);
    }
    if (stop(bus) != 0 && ret == 0)
        ret = RK_I2C_TIMEOUT;
    return ret ? failed(bus, addr, "the read of its register", ret) : 0;
}
