/*
 * i2c_rk3x.h - a polled master on Rockchip's I2C controller (RK3399 and
 * later: RK3566/RK3568, RK3588), for the boards' one job on the bus: the
 * NPU supply's regulator. One byte register reads and writes, 7-bit
 * addresses, every wait bounded.
 */
#ifndef I2C_RK3X_H
#define I2C_RK3X_H

#include <stdint.h>

typedef struct {
    uintptr_t base;   /* the controller's registers */
    uint32_t clk_hz;  /* its function clock: the highest it may run at */
    uint32_t bus_hz;  /* SCL at most this */
    uint32_t wait_us; /* per bus phase (start, bytes, stop) */
} rk_i2c_bus;

/* Results: 0, or one of these (each logged with the bus and address). */
enum { RK_I2C_NAK = -1, RK_I2C_TIMEOUT = -2 };

/* Programs the divider for at most bus_hz from clk_hz. */
void rk_i2c_init(const rk_i2c_bus *bus);
/* Writes register `reg` of device `addr` (7-bit). */
int rk_i2c_write_reg(const rk_i2c_bus *bus, uint8_t addr, uint8_t reg, uint8_t value);
/* Reads it: a write of `reg`, a repeated start, one byte read. */
int rk_i2c_read_reg(const rk_i2c_bus *bus, uint8_t addr, uint8_t reg, uint8_t *value);
/* SCL's divider low and high halves for clk_hz and bus_hz (the formula the
 * init programs, for tests and the board report). */
uint32_t rk_i2c_clkdiv(uint32_t clk_hz, uint32_t bus_hz);

#endif
