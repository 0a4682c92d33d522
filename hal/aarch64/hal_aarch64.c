/*
 * hal_aarch64.c - MMIO, barriers, cache maintenance and the generic timer
 * for AArch64 at EL1: what the runtime needs. The MMU set-up and the
 * exception vectors are board bring-up (hal_aarch64_mmu.c, exc.c,
 * vectors.S in the board-support library).
 */
#include <stdint.h>

#include "hal.h"

/* ---- MMIO ---------------------------------------------------------------- */

uint32_t hal_mmio_read32(uintptr_t addr)
{
    uint32_t v;

    /* One plain LDR: on QEMU the trap decoder emulates exactly this form. */
    __asm__ volatile("ldr %w0, [%1]" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

void hal_mmio_write32(uintptr_t addr, uint32_t value)
{
    __asm__ volatile("str %w0, [%1]" : : "rZ"(value), "r"(addr) : "memory");
}

void hal_wmb(void)
{
    __asm__ volatile("dsb st" ::: "memory");
}

void hal_rmb(void)
{
    __asm__ volatile("dsb ld" ::: "memory");
}

/* ---- Cache maintenance --------------------------------------------------- */

size_t hal_cache_line_size(void)
{
    uint64_t ctr;

    __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
    return (size_t)4u << ((ctr >> 16) & 0xfu); /* DminLine: log2 of words */
}

void hal_cache_clean_range(const void *addr, size_t size)
{
    size_t line = hal_cache_line_size();
    uintptr_t p = (uintptr_t)addr & ~(uintptr_t)(line - 1);
    uintptr_t end = (uintptr_t)addr + size;

    for (; p < end; p += line)
        __asm__ volatile("dc cvac, %0" : : "r"(p) : "memory");
    __asm__ volatile("dsb sy" ::: "memory");
}

void hal_cache_invalidate_range(const void *addr, size_t size)
{
    size_t line = hal_cache_line_size();
    uintptr_t start = (uintptr_t)addr;
    uintptr_t end = start + size;
    uintptr_t p = start & ~(uintptr_t)(line - 1);

    for (; p < end; p += line) {
        /* Partial lines at the edges hold CPU data too: clean+invalidate. */
        if (p < start || p + line > end)
            __asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
        else
            __asm__ volatile("dc ivac, %0" : : "r"(p) : "memory");
    }
    __asm__ volatile("dsb sy" ::: "memory");
}

/* ---- Generic timer ------------------------------------------------------- */

uint64_t hal_time_ticks(void)
{
    uint64_t v;

    __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
    return v;
}

uint64_t hal_time_freq_hz(void)
{
    uint64_t f;

    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
    return f != 0 ? f : HAL_DEFAULT_TIMER_HZ;
}
