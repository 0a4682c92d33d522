/*
 * npu_regulator.c - RK8602 and RK809 DCDC4 over I2C (npu_regulator.h).
 * Register maps as Linux drives them (docs/hardware.md §2.5):
 *   RK8602 (drivers/regulator/fan53555.c, fcs,suspend-voltage-selector 1):
 *     ID1 0x03 (die ID, low nibble, 10); run voltage 0x06, the whole byte,
 *     0.5 V + n x 6.25 mV (160 steps); enable bit 7 of 0x00.
 *   RK809 (drivers/regulator/rk808-regulator.c, RK817 layout): ID 0xED/0xEE
 *     (0x809x); DCDC4 voltage 0xC4 bits 6:0, 0.5 V + n x 12.5 mV up to
 *     1.5 V (n 0..80); enable bit 3 of 0xB1, written with its mask bit 7.
 */
#include "npu_regulator.h"

#include "hal.h"

#define RK8602_EN_REG    0x00u
#define RK8602_ID1       0x03u
#define RK8602_VSEL      0x06u
#define RK8602_EN        0x80u
#define RK8602_DIE_ID    10u
#define RK8602_MIN_UV    500000u
#define RK8602_STEP_UV   6250u
#define RK8602_SELECTORS 160u

#define RK809_POWER_EN0  0xB1u
#define RK809_DCDC4_VSEL 0xC4u
#define RK809_ID_MSB     0xEDu
#define RK809_ID_LSB     0xEEu
#define RK809_ID         0x8090u
#define RK809_ID_MASK    0xFFF0u
#define RK809_DCDC4_ON   0x88u /* bit 3, and bit 7 that lets the write change it */
#define RK809_VSEL_MASK  0x7Fu
#define RK809_MIN_UV     500000u
#define RK809_STEP_UV    12500u
#define RK809_SELECTORS  81u /* 0.5 .. 1.5 V; the 100 mV steps above are not for an NPU */

/* The selector for at least uv on a linear range, or -1 outside it. */
static int selector(const npu_regulator *r, uint32_t uv, uint32_t min_uv, uint32_t step_uv,
                    uint32_t count)
{
    uint32_t n;

    if (uv < r->min_uv || uv > r->max_uv || uv < min_uv) {
        HAL_LOG_ERR("%s: %lu uV is outside the board's %lu..%lu uV", r->name, (unsigned long)uv,
                    (unsigned long)r->min_uv, (unsigned long)r->max_uv);
        return -1;
    }
    n = (uv - min_uv + step_uv - 1u) / step_uv;
    if (n >= count || min_uv + n * step_uv > r->max_uv) {
        HAL_LOG_ERR("%s: no selector for %lu uV within %lu uV", r->name, (unsigned long)uv,
                    (unsigned long)r->max_uv);
        return -1;
    }
    return (int)n;
}

static int wrong_chip(const npu_regulator *r, const char *want, unsigned long id)
{
    HAL_LOG_ERR("%s: the chip at I2C 0x%02x is not an %s (ID 0x%04lx): left as it is", r->name,
                (unsigned)r->addr, want, id);
    return -1;
}

static int read_back_differs(const npu_regulator *r, uint8_t reg, uint8_t want, uint8_t got)
{
    HAL_LOG_ERR("%s: register 0x%02x reads 0x%02x after writing 0x%02x", r->name, (unsigned)reg,
                (unsigned)got, (unsigned)want);
    return -1;
}

int rk8602_set(const npu_regulator *r, uint32_t uv, uint32_t *set_uv)
{
    uint8_t id, en, v;
    int n = selector(r, uv, RK8602_MIN_UV, RK8602_STEP_UV, RK8602_SELECTORS);

    if (n < 0)
        return -1;
    if (rk_i2c_read_reg(r->bus, r->addr, RK8602_ID1, &id) != 0)
        return -1;
    if ((id & 0x0Fu) != RK8602_DIE_ID)
        return wrong_chip(r, "RK8602", id);
    /* voltage first, then enable: it never runs above the asked voltage */
    if (rk_i2c_write_reg(r->bus, r->addr, RK8602_VSEL, (uint8_t)n) != 0 ||
        rk_i2c_read_reg(r->bus, r->addr, RK8602_EN_REG, &en) != 0 ||
        rk_i2c_write_reg(r->bus, r->addr, RK8602_EN_REG, en | RK8602_EN) != 0 ||
        rk_i2c_read_reg(r->bus, r->addr, RK8602_VSEL, &v) != 0 ||
        rk_i2c_read_reg(r->bus, r->addr, RK8602_EN_REG, &en) != 0)
        return -1;
    if (v != (uint8_t)n)
        return read_back_differs(r, RK8602_VSEL, (uint8_t)n, v);
    if (!(en & RK8602_EN))
        return read_back_differs(r, RK8602_EN_REG, en | RK8602_EN, en);
    hal_delay_us(r->settle_us);
    *set_uv = RK8602_MIN_UV + (uint32_t)n * RK8602_STEP_UV;
    return 0;
}

int rk809_dcdc4_set(const npu_regulator *r, uint32_t uv, uint32_t *set_uv)
{
    uint8_t msb, lsb, old, v, en;
    int n = selector(r, uv, RK809_MIN_UV, RK809_STEP_UV, RK809_SELECTORS);

    if (n < 0)
        return -1;
    if (rk_i2c_read_reg(r->bus, r->addr, RK809_ID_MSB, &msb) != 0 ||
        rk_i2c_read_reg(r->bus, r->addr, RK809_ID_LSB, &lsb) != 0)
        return -1;
    if ((((uint32_t)msb << 8 | lsb) & RK809_ID_MASK) != RK809_ID)
        return wrong_chip(r, "RK809", (unsigned long)((uint32_t)msb << 8 | lsb));
    if (rk_i2c_read_reg(r->bus, r->addr, RK809_DCDC4_VSEL, &old) != 0 ||
        rk_i2c_write_reg(r->bus, r->addr, RK809_DCDC4_VSEL,
                         (uint8_t)((old & ~RK809_VSEL_MASK) | (uint32_t)n)) != 0 ||
        rk_i2c_write_reg(r->bus, r->addr, RK809_POWER_EN0, RK809_DCDC4_ON) != 0 ||
        rk_i2c_read_reg(r->bus, r->addr, RK809_DCDC4_VSEL, &v) != 0 ||
        rk_i2c_read_reg(r->bus, r->addr, RK809_POWER_EN0, &en) != 0)
        return -1;
    if ((v & RK809_VSEL_MASK) != (uint32_t)n)
        return read_back_differs(r, RK809_DCDC4_VSEL, (uint8_t)n, v & RK809_VSEL_MASK);
    if (!(en & (RK809_DCDC4_ON & 0x0Fu)))
        return read_back_differs(r, RK809_POWER_EN0, RK809_DCDC4_ON, en);
    hal_delay_us(r->settle_us);
    *set_uv = RK809_MIN_UV + (uint32_t)n * RK809_STEP_UV;
    return 0;
}
