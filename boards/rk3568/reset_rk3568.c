/*
 * reset_rk3568.c - soft reset of the RK3566/RK3568 NPU (one core) through
 * the CRU (hardware.md §2.2 and §3.4): assert its AXI (A) and AHB (H) reset
 * lines, hold them well over the required 32 cycles of the slowest clock,
 * release both together, and give the core time to come out of reset. The
 * driver calls this after a timeout or DMA error.
 *
 * NOT YET RUN ON SILICON. CRU base 0xFDD20000, SOFTRST_CON(2) = +0x408,
 * SRST_A_NPU bit 11, SRST_H_NPU bit 12 (reset ids 43/44): hardware.md §2.2,
 * matching Linux include/dt-bindings/clock/rk3568-cru.h (cru_softrst_con2)
 * and RK3568_SOFTRST_CON(x) = 0x400 + 4x in drivers/clk/rockchip/clk.h.
 */
#include <stdint.h>

#include "hal.h"

#define RK3568_CRU_BASE    0xFDD20000u
#define CRU_SOFTRST_CON(n) (0x0400u + 4u * (n)) /* hiword-masked, 1 = assert */
#define NPU_SOFTRST_CON    2u
#define SRST_A_NPU_BIT     11u
#define SRST_H_NPU_BIT     12u
#define RESET_HOLD_US      10u

static void set_lines(unsigned assert)
{
    uint32_t mask = (1u << SRST_A_NPU_BIT) | (1u << SRST_H_NPU_BIT);

    hal_mmio_write32(RK3568_CRU_BASE + CRU_SOFTRST_CON(NPU_SOFTRST_CON),
                     mask << 16 | (assert ? mask : 0u));
}

int rknpu_hook_npu_reset(unsigned core)
{
    if (core != 0)
        return -1;
    set_lines(1);
    hal_delay_us(RESET_HOLD_US);
    set_lines(0);
    hal_delay_us(RESET_HOLD_US);
    return 0;
}
