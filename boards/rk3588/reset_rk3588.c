/*
 * reset_rk3588.c - soft reset of one RK3588 NPU core through the CRU
 * (hardware.md §2.2 and §3.4): assert the core's AXI (A) and AHB (H) reset lines,
 * hold them well over the required 32 cycles of the slowest clock, release
 * both together, and give the core time to come out of reset. The driver
 * calls this after a timeout or DMA error.
 *
 * NOT YET RUN ON SILICON: register and bit numbers are from hardware.md.
 */
#include <stdint.h>

#include "hal.h"

#define RK3588_CRU_BASE    0xFD7C0000u
#define CRU_SOFTRST_CON(n) (0x0A00u + 4u * (n)) /* hiword-masked, 1 = assert */
#define RESET_HOLD_US      10u

typedef struct {
    uint8_t con;   /* SOFTRST_CON register index */
    uint8_t a_bit; /* SRST_A_RKNNn */
    uint8_t h_bit; /* SRST_H_RKNNn */
} rk3588_npu_reset_lines;

static const rk3588_npu_reset_lines npu_resets[3] = {
    {30, 6, 8}, /* core 0 */
    {27, 0, 2}, /* core 1 */
    {28, 0, 2}, /* core 2 */
};

static void set_lines(const rk3588_npu_reset_lines *r, unsigned assert)
{
    uint32_t mask = (1u << r->a_bit) | (1u << r->h_bit);

    hal_mmio_write32(RK3588_CRU_BASE + CRU_SOFTRST_CON(r->con), mask << 16 | (assert ? mask : 0u));
}

int rknpu_hook_npu_reset(unsigned core)
{
    if (core >= sizeof npu_resets / sizeof npu_resets[0])
        return -1;
    set_lines(&npu_resets[core], 1);
    hal_delay_us(RESET_HOLD_US);
    set_lines(&npu_resets[core], 0);
    hal_delay_us(RESET_HOLD_US);
    return 0;
}
