/*
 * hal_mmio_trap.c - the MMIO trap registry: which handler emulates an
 * address window
 * (the virtual NPU on the host and QEMU; empty on a board), and the emulated
 * secure firmware that answers SMCs where there is none (tests).
 */
#include "hal.h"

static const hal_mmio_region *mmio_regions[HAL_MMIO_MAX_REGIONS];
volatile uint32_t hal_mmio_trap_count;

static int regions_overlap(const hal_mmio_region *a, const hal_mmio_region *b)
{
    return a->base < b->base + b->size && b->base < a->base + a->size;
}

int hal_mmio_register(const hal_mmio_region *region)
{
    size_t free_slot = HAL_MMIO_MAX_REGIONS;

    if (!region || region->size == 0 || !region->read32 || !region->write32)
        return -1;
    for (size_t i = 0; i < HAL_MMIO_MAX_REGIONS; i++) {
        if (!mmio_regions[i]) {
            if (free_slot == HAL_MMIO_MAX_REGIONS)
                free_slot = i;
        } else if (regions_overlap(mmio_regions[i], region)) {
            return -1;
        }
    }
    if (free_slot == HAL_MMIO_MAX_REGIONS)
        return -1;
    mmio_regions[free_slot] = region;
    return 0;
}

void hal_mmio_unregister(const hal_mmio_region *region)
{
    for (size_t i = 0; i < HAL_MMIO_MAX_REGIONS; i++)
        if (mmio_regions[i] == region)
            mmio_regions[i] = NULL;
}

const hal_mmio_region *hal_mmio_find(uintptr_t addr)
{
    for (size_t i = 0; i < HAL_MMIO_MAX_REGIONS; i++) {
        const hal_mmio_region *r = mmio_regions[i];
        if (r && addr >= r->base && addr - r->base < r->size)
            return r;
    }
    return NULL;
}

static hal_smc_emulator smc_emulator;

void hal_smc_emulate(hal_smc_emulator fn)
{
    smc_emulator = fn;
}

hal_smc_emulator hal_smc_emulator_get(void)
{
    return smc_emulator;
}
