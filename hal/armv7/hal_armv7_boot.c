/*
 * hal_armv7_boot.c - exceptions and MMU for ARMv7-A, part of the
 * board-support library (librknpu_hal_boot): the runtime never calls them.
 */
#include <stddef.h>

#include "hal.h"

void hal_armv7_vectors_install(void); /* vectors.S */
void hal_arch_vectors_install(void);  /* for hal_exc_stop.c */

void hal_arch_vectors_install(void)
{
    hal_armv7_vectors_install();
}

/* Not implemented on ARMv7: firmware runs with the MMU and caches off. */
int hal_mmu_enable(const hal_mem_map_entry *map, size_t count)
{
    (void)map;
    (void)count;
    HAL_LOG_ERR("hal_mmu_enable: not implemented on armv7 (MMU and caches stay off)");
    return -1;
}
