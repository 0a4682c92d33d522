/*
 * npu_regulator.h - the NPU supplies of the Rockchip reference boards: a
 * regulator on an I2C bus, set to a voltage and enabled. One function per
 * chip; each checks the chip's ID first, so a board with another PMIC at
 * that address is left untouched. Register maps: docs/hardware.md §2.5.
 */
#ifndef NPU_REGULATOR_H
#define NPU_REGULATOR_H

#include <stdint.h>

#include "i2c_rk3x.h"

typedef struct {
    const char *name; /* the rail's name in the board's schematic / device tree */
    const rk_i2c_bus *bus;
    uint8_t addr;            /* 7-bit I2C address */
    uint32_t min_uv, max_uv; /* the board's limits for this rail */
    uint32_t settle_us;      /* ramp and enable delay after a change */
} npu_regulator;

/* Sets the rail to the lowest selector at or above uv and enables it;
 * *set_uv is what it now outputs. 0, or -1 having logged why (no answer,
 * another chip, uv outside the limits, a read-back that differs). */
int rk8602_set(const npu_regulator *r, uint32_t uv, uint32_t *set_uv);      /* ROCK 5B vdd_npu_s0 */
int rk809_dcdc4_set(const npu_regulator *r, uint32_t uv, uint32_t *set_uv); /* ROCK 3A vdd_npu */

#endif
