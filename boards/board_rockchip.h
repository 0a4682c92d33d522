/* board_rockchip.h - the bring-up the Rockchip boards share (board_rockchip.c). */
#ifndef BOARD_ROCKCHIP_H
#define BOARD_ROCKCHIP_H

#include <stdint.h>

#include "rknpu_bm.h"

/* Identity map (DRAM write-back, peripherals Device), the board's NPU
 * power-up (0 or -1, having logged why), rknpu_platform_init() on the
 * linker's carve-out. RKNN_SUCC or an RKNN_ERR_* code; safe to repeat. */
int board_rockchip_init(rknpu_soc_id soc, int (*npu_power_on)(void));

/* Rockchip PMU/CRU registers are hiword-masked: bit 16 + n says the write
 * changes bit n. Sets bit `bit` of reg to value. */
void board_rockchip_write_bit(uintptr_t reg, unsigned bit, unsigned value);

/* Wait until bit `bit` of reg reads `want`: 0, or -1 after timeout_us. */
int board_rockchip_wait_bit(uintptr_t reg, unsigned bit, unsigned want, uint32_t timeout_us);

#endif
