/*
 * board_rockchip.c - what the Rockchip boards (rk3588, rk3568) share: the
 * bring-up order (our translation tables, the board's NPU supply, power and
 * clock (board_rockchip_npu.c), then the runtime on the carve-out) and PSCI
 * through TF-A at EL3 (SMC).
 */
#include <stddef.h>
#include <unistd.h>

#include "board_rockchip.h"
#include "board_uboot.h"
#include "hal.h"
#include "hal_boot.h"
#include "rknn_api.h"
#include "rknpu_bm.h"

extern char __dma_pool_start[], __dma_carveout_end[];

/* hal_mmu_enable()'s translation tables live in the board's RAM (see
 * hal/aarch64/hal_aarch64_mmu.c: level 1 + one level 2 table per GiB). */
uint64_t hal_mmu_tables[5][512] __attribute__((aligned(4096)));

/* The SCMI channel (0x0010F000, docs/hardware.md §2.2) in the first 2 MiB,
 * Device as the secure firmware maps it: cached, the firmware would not see
 * the message. Then DRAM below the MMIO hole, then the peripherals (NPU,
 * PMU, CRU, I2C, UART). Nothing of ours lies below 0x00400000. */
static const hal_mem_map_entry rockchip_map[] = {
    {0x00000000u, 0x00200000u, HAL_MEM_DEVICE},
    {0x00200000u, 0xEFE00000u, HAL_MEM_NORMAL_WB},
    {0xF0000000u, 0x10000000u, HAL_MEM_DEVICE},
};

int board_rockchip_init(rknpu_soc_id soc, const board_rockchip_npu *npu, board_npu_state *st)
{
    static int ready;
    rknpu_platform_config cfg = {0};
    int ret;

    if (ready)
        return RKNN_SUCC;
    if (hal_mmu_enable(rockchip_map, sizeof rockchip_map / sizeof rockchip_map[0]) != 0)
        return RKNN_ERR_FAIL;
    if (board_rockchip_npu_up(npu, st) != 0)
        return RKNN_ERR_DEVICE_UNAVAILABLE;
    cfg.soc = soc;
    cfg.carveout = __dma_pool_start;
    cfg.carveout_size = (size_t)(__dma_carveout_end - __dma_pool_start);
    ret = rknpu_platform_init(&cfg);
    if (ret == RKNN_SUCC)
        ready = 1;
    return ret;
}

/* Vectors before main(): a crash anywhere is reported, not left to
 * U-Boot's handlers. */
__attribute__((constructor(101))) static void board_early_init(void)
{
    hal_exceptions_install(_exit); /* the C library's, or uboot_exit.c's */
}

int board_psci_conduit(void)
{
    return HAL_PSCI_SMC;
}
