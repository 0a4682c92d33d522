/*
 * board_rockchip.c - what the Rockchip boards (rk3588, rk3568) share: the
 * bring-up order (our translation tables, the board's NPU power-up, then
 * the runtime on the carve-out), the PMU/CRU register idiom (hiword-masked
 * writes, bounded waits) and PSCI through TF-A at EL3 (SMC).
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

/* DRAM below the MMIO hole, then the peripherals (NPU, PMU, CRU, UART). */
static const hal_mem_map_entry rockchip_map[] = {
    {0x00000000u, 0xF0000000u, HAL_MEM_NORMAL_WB},
    {0xF0000000u, 0x10000000u, HAL_MEM_DEVICE},
};

int board_rockchip_init(rknpu_soc_id soc, int (*npu_power_on)(void))
{
    static int ready;
    rknpu_platform_config cfg = {0};
    int ret;

    if (ready)
        return RKNN_SUCC;
    if (hal_mmu_enable(rockchip_map, sizeof rockchip_map / sizeof rockchip_map[0]) != 0)
        return RKNN_ERR_FAIL;
    if (npu_power_on() != 0)
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

void board_rockchip_write_bit(uintptr_t reg, unsigned bit, unsigned value)
{
    hal_mmio_write32(reg, (1u << (bit + 16)) | ((value & 1u) << bit));
}

int board_rockchip_wait_bit(uintptr_t reg, unsigned bit, unsigned want, uint32_t timeout_us)
{
    uint64_t end = hal_time_us() + timeout_us;

    do {
        if (((hal_mmio_read32(reg) >> bit) & 1u) == want)
            return 0;
    } while (hal_time_us() < end);
    return -1;
}

int board_psci_conduit(void)
{
    return HAL_PSCI_SMC;
}
