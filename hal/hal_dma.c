/*
 * hal_dma.c - CPU <-> DMA address translation of the carve-out window.
 */

#include "hal.h"

static uintptr_t dma_window_virt;
static uint64_t dma_window_dma;
static size_t dma_window_size;

void hal_dma_window_set(const void *virt, uint64_t dma, size_t size)
{
    dma_window_virt = (uintptr_t)virt;
    dma_window_dma = dma;
    dma_window_size = size;
}

uint64_t hal_virt_to_dma(const void *virt)
{
    uintptr_t v = (uintptr_t)virt;

    if (dma_window_size && v >= dma_window_virt && v - dma_window_virt < dma_window_size)
        return dma_window_dma + (v - dma_window_virt);
    return (uint64_t)v;
}

void *hal_dma_to_virt(uint64_t dma)
{
    if (dma_window_size && dma >= dma_window_dma && dma - dma_window_dma < dma_window_size)
        return (void *)(dma_window_virt + (uintptr_t)(dma - dma_window_dma));
    return (void *)(uintptr_t)dma;
}
