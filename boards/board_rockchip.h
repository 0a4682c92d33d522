/* board_rockchip.h - the bring-up the Rockchip boards share (board_rockchip.c). */
#ifndef BOARD_ROCKCHIP_H
#define BOARD_ROCKCHIP_H

#include "rknpu_bm.h"

/* Identity map (DRAM write-back, peripherals Device), the board's NPU
 * power-up (0 or -1, having logged why), rknpu_platform_init() on the
 * linker's carve-out. RKNN_SUCC or an RKNN_ERR_* code; safe to repeat. */
int board_rockchip_init(rknpu_soc_id soc, int (*npu_power_on)(void));

#endif
