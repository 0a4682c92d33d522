/*
 * board_qemu_virt.c - QEMU's 'virt' machine (aarch64 Cortex-A76 or armv7
 * Cortex-A7) as an RKNPU board. RAM starts at 0x40000000; the DMA carve-out
 * is the linker's .dma_carveout region. QEMU has no NPU: its register
 * windows (at the SoC's real addresses) are unmapped, so every access traps
 * and the exception handler forwards it to the virtual NPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "board.h"
#include "board_common.h"
#include "hal.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknpu_bm.h"

extern char __dma_pool_start[], __dma_carveout_end[];

static int board_ready;
static int mmu_on;

/* Vectors before main(): a crash anywhere, even in a test that never calls
 * board_init(), is reported and exits 99 instead of hanging. */
__attribute__((constructor(101))) static void board_early_init(void)
{
    hal_exceptions_install(_exit); /* the C library's, or uboot_exit.c's */
}

#if defined(__aarch64__)
/* hal_mmu_enable()'s translation tables live in the board's RAM (see
 * hal/aarch64/hal_aarch64.c: level 1 + one level 2 table per GiB). */
uint64_t hal_mmu_tables[5][512] __attribute__((aligned(4096)));

/* Identity map: low MMIO (UART, GIC) Device; RAM write-back cacheable,
 * including the carve-out (the runtime cleans/invalidates it around every NPU
 * job, as it must on silicon); the NPU register windows Device. */
static const hal_mem_map_entry qemu_virt_map[] = {
    {0x00000000u, 0x40000000u, HAL_MEM_DEVICE},
    {0x40000000u, 0x10000000u, HAL_MEM_NORMAL_WB},
    {0xFC000000u, 0x04000000u, HAL_MEM_DEVICE},
};
#endif

static int enable_mmu(void)
{
#if defined(__aarch64__)
    if (hal_mmu_enable(qemu_virt_map, sizeof qemu_virt_map / sizeof qemu_virt_map[0]) != 0) {
        HAL_LOG_ERR("board: MMU map rejected");
        return RKNN_ERR_FAIL;
    }
    mmu_on = 1;
#endif
    return RKNN_SUCC;
}

int board_init(void)
{
    rknpu_platform_config cfg = {0};
    int ret;

    if (board_ready)
        return RKNN_SUCC;
    ret = enable_mmu();
    if (ret != RKNN_SUCC)
        return ret;
    cfg.soc = BOARD_SOC;
    cfg.carveout = __dma_pool_start;
    cfg.carveout_size = (size_t)(__dma_carveout_end - __dma_pool_start);
    ret = rknpu_platform_init(&cfg);
    if (ret == RKNN_SUCC) /* QEMU has no NPU: the virtual one answers at the SoC's addresses */
        ret = board_vnpu_attach(rknpu_platform_get(), npu_soc_get(cfg.soc));
    if (ret != RKNN_SUCC)
        return ret;
    board_ready = 1;
    return RKNN_SUCC;
}

const char *board_name(void)
{
    return "qemu-virt";
}

void board_print_report(void)
{
    board_report_common();
    printf("  mmu          %s\n", mmu_on ? "on (identity map, carve-out write-back cacheable)"
                                         : "off (all memory Device-nGnRnE)");
    printf("  npu          virtual NPU behind trap-and-emulate (%u traps so far)\n",
           (unsigned)hal_mmio_trap_count);
}
