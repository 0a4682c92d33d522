/*
 * hal_armv7.c - ARMv7-A (Cortex-A7) implementation of the parts of hal.h
 * that touch the CPU: MMIO accessors, barriers, cache maintenance, the
 * generic timer (exceptions and the absent MMU set-up: hal_armv7_boot.c).
 *
 * Time conversion, delays, logging and the MMIO trap registry are common
 * code (hal/ common sources), not here.
 */
#include <stddef.h>
#include <stdint.h>

#include "hal.h"

/* ---- MMIO ----------------------------------------------------------------- */

/* One plain LDR/STR each: on QEMU these may trap, and the trap decoder
 * handles this simple encoding in both ARM and Thumb builds. */
uint32_t hal_mmio_read32(uintptr_t addr)
{
    uint32_t value;
    __asm__ volatile("ldr %0, [%1]" : "=r"(value) : "r"(addr) : "memory");
    return value;
}

void hal_mmio_write32(uintptr_t addr, uint32_t value)
{
    __asm__ volatile("str %0, [%1]" : : "r"(value), "r"(addr) : "memory");
}

/* ARMv7 has no load-only DSB; a full-system DSB orders the device's
 * completion read before the CPU's reads of the DMA buffer. */
void hal_wmb(void)
{
    __asm__ volatile("dsb st" : : : "memory");
}

void hal_rmb(void)
{
    __asm__ volatile("dsb sy" : : : "memory");
}

/* ---- cache maintenance ---------------------------------------------------- */

size_t hal_cache_line_size(void)
{
    uint32_t ctr;
    __asm__ volatile("mrc p15, 0, %0, c0, c0, 1" : "=r"(ctr)); /* CTR */
    return (size_t)4u << ((ctr >> 16) & 0xfu);                 /* DminLine: log2 of words */
}

static void dc_clean_line(uintptr_t addr)
{
    __asm__ volatile("mcr p15, 0, %0, c7, c10, 1" : : "r"(addr) : "memory"); /* DCCMVAC */
}

static void dc_invalidate_line(uintptr_t addr)
{
    __asm__ volatile("mcr p15, 0, %0, c7, c6, 1" : : "r"(addr) : "memory"); /* DCIMVAC */
}

static void dc_clean_invalidate_line(uintptr_t addr)
{
    __asm__ volatile("mcr p15, 0, %0, c7, c14, 1" : : "r"(addr) : "memory"); /* DCCIMVAC */
}

/* The first and last byte of [addr, addr + size), clipped at the top of
 * the address space; false for an empty range. */
static int byte_span(const void *addr, size_t size, uintptr_t *first, uintptr_t *last)
{
    *first = (uintptr_t)addr;
    if (size == 0)
        return 0;
    *last = size - 1 > UINTPTR_MAX - *first ? UINTPTR_MAX : *first + (size - 1);
    return 1;
}

void hal_cache_clean_range(const void *addr, size_t size)
{
    uintptr_t mask = (uintptr_t)hal_cache_line_size() - 1;
    uintptr_t first, last;

    if (!byte_span(addr, size, &first, &last))
        return;
    for (uintptr_t line = first & ~mask;; line += mask + 1) {
        dc_clean_line(line);
        if (line == (last & ~mask))
            break;
    }
    __asm__ volatile("dsb sy" : : : "memory");
}

void hal_cache_invalidate_range(const void *addr, size_t size)
{
    uintptr_t mask = (uintptr_t)hal_cache_line_size() - 1;
    uintptr_t first, last;

    if (!byte_span(addr, size, &first, &last))
        return;
    uintptr_t head = first & ~mask, tail = last & ~mask;
    /* A line only partly inside the range may hold someone else's dirty
     * data: write it back rather than discard it. */
    int head_partial = (first & mask) != 0;
    int tail_partial = (last & mask) != mask;

    for (uintptr_t line = head;; line += mask + 1) {
        if ((line == head && head_partial) || (line == tail && tail_partial))
            dc_clean_invalidate_line(line);
        else
            dc_invalidate_line(line);
        if (line == tail)
            break;
    }
    __asm__ volatile("dsb sy" : : : "memory");
}

/* ---- generic timer -------------------------------------------------------- */

uint64_t hal_time_ticks(void)
{
    uint32_t lo, hi;
    /* ISB: do not let the counter read run ahead of earlier instructions. */
    __asm__ volatile("isb\n\tmrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi)); /* CNTVCT */
    return ((uint64_t)hi << 32) | lo;
}

uint64_t hal_time_freq_hz(void)
{
    uint32_t freq;
    __asm__ volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(freq)); /* CNTFRQ */
    return freq != 0 ? freq : HAL_DEFAULT_TIMER_HZ;
}
