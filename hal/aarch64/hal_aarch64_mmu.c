/*
 * hal_aarch64_mmu.c - the identity-map MMU for AArch64 at EL1, part of the
 * board-support library (librknpu_hal_boot): the runtime never calls it,
 * and firmware on an RTOS keeps the RTOS's own tables.
 */
#include <stdint.h>

#include "hal.h"

/* ---- MMU: identity map with 4 KiB granule, 32-bit VA ----------------------
 * Level 1 covers 4 x 1 GiB; each GiB with an entry in the map gets a level 2
 * table of 512 x 2 MiB blocks. Unlisted memory stays unmapped (faults).
 *
 * The tables (20 KiB) are the board's memory, not the library's: the MMU is
 * the board's decision, and firmware on an RTOS has its own. A board that
 * calls hal_mmu_enable() defines them:
 *     uint64_t hal_mmu_tables[5][512] __attribute__((aligned(4096)));
 * (page 0 level 1, pages 1..4 level 2 for each GiB). The reference is weak,
 * so firmware that never enables the MMU links without them. */

#define MAIR_IDX_DEVICE 0u
#define MAIR_IDX_NC     1u
#define MAIR_IDX_WB     2u
#define MAIR_VALUE                                                                                 \
    ((0x00ull << (8 * MAIR_IDX_DEVICE)) | (0x44ull << (8 * MAIR_IDX_NC)) |                         \
     (0xffull << (8 * MAIR_IDX_WB)))
#define DESC_BLOCK    1ull
#define DESC_TABLE    3ull
#define DESC_AF       (1ull << 10)
#define DESC_SH_INNER (3ull << 8)
#define DESC_XN       (3ull << 53) /* PXN | UXN */
#define BLOCK_2M      (2ull << 20)
#define GIB           (1ull << 30)

#define MMU_TABLE_PAGES 5
#define MMU_L1          0 /* page of the level 1 table; level 2 of GiB g is page 1 + g */
extern uint64_t hal_mmu_tables[MMU_TABLE_PAGES][512] __attribute__((weak));

static uint64_t block_descriptor(uint64_t pa, hal_mem_attr attr)
{
    switch (attr) {
    case HAL_MEM_DEVICE: return pa | DESC_AF | (MAIR_IDX_DEVICE << 2) | DESC_XN | DESC_BLOCK;
    case HAL_MEM_NORMAL_NC: return pa | DESC_AF | DESC_SH_INNER | (MAIR_IDX_NC << 2) | DESC_BLOCK;
    case HAL_MEM_NORMAL_WB:
    default: return pa | DESC_AF | DESC_SH_INNER | (MAIR_IDX_WB << 2) | DESC_BLOCK;
    }
}

static int map_region(const hal_mem_map_entry *e)
{
    if ((e->base | e->size) & (BLOCK_2M - 1) || e->base + e->size > 4 * GIB || e->size == 0)
        return -1;
    for (uint64_t pa = e->base; pa < e->base + e->size; pa += BLOCK_2M) {
        unsigned gib = (unsigned)(pa / GIB);
        unsigned idx = (unsigned)((pa % GIB) / BLOCK_2M);
        hal_mmu_tables[1 + gib][idx] = block_descriptor(pa, e->attr);
        hal_mmu_tables[MMU_L1][gib] = (uint64_t)(uintptr_t)hal_mmu_tables[1 + gib] | DESC_TABLE;
    }
    return 0;
}

int hal_mmu_enable(const hal_mem_map_entry *map, size_t count)
{
    const uint64_t tcr = 32u             /* T0SZ: 4 GiB of VA */
                         | (1ull << 8)   /* IRGN0 write-back write-allocate */
                         | (1ull << 10)  /* ORGN0 write-back write-allocate */
                         | (3ull << 12)  /* SH0 inner shareable */
                         | (0ull << 14)  /* TG0 4 KiB */
                         | (1ull << 23); /* EPD1: no TTBR1 walks; IPS = 32 bit */

    if (!hal_mmu_tables) {
        HAL_LOG_ERR("hal_mmu_enable: the board defines no hal_mmu_tables (see hal_aarch64.c)");
        return -1;
    }
    for (size_t i = 0; i < count; i++)
        if (map_region(&map[i]) != 0)
            return -1;
    __asm__ volatile("msr mair_el1, %0\n"
                     "msr tcr_el1, %1\n"
                     "msr ttbr0_el1, %2\n"
                     "dsb sy\n isb\n tlbi vmalle1\n dsb sy\n isb\n"
                     "mrs x9, sctlr_el1\n"
                     "orr x9, x9, #1\n"         /* M: MMU on */
                     "orr x9, x9, #(1 << 2)\n"  /* C: data cache */
                     "orr x9, x9, #(1 << 12)\n" /* I: instruction cache */
                     "msr sctlr_el1, x9\n isb\n"
                     :
                     : "r"(MAIR_VALUE), "r"(tcr), "r"((uint64_t)(uintptr_t)hal_mmu_tables[MMU_L1])
                     : "x9", "memory");
    return 0;
}
