/*
 * hal_common.c - the architecture-independent half of the HAL: the MMIO
 * trap registry, DMA address translation, time conversion and logging.
 */
#include <stdio.h>
#include <string.h>

#include "hal.h"

/* ---- MMIO trap registry -------------------------------------------------- */

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

/* ---- DMA address translation -------------------------------------------- */

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

/* ---- Time ---------------------------------------------------------------- */

uint64_t hal_ticks_to_us(uint64_t ticks, uint64_t freq_hz)
{
    /* Split so that ticks * 1e6 never overflows 64 bits. */
    if (freq_hz == 0)
        return 0;
    return (ticks / freq_hz) * 1000000u + ((ticks % freq_hz) * 1000000u) / freq_hz;
}

uint64_t hal_time_us(void)
{
    return hal_ticks_to_us(hal_time_ticks(), hal_time_freq_hz());
}

void hal_delay_us(uint32_t us)
{
    uint64_t end = hal_time_us() + us;

    /* Bounded: the timer is monotonic, so this ends after `us`. */
    while (hal_time_us() < end) {
    }
}

/* ---- Logging ------------------------------------------------------------- */

#define HAL_LOG_LINE_MAX 192

void hal_vlogf(rknpu_log_level level, const char *fmt, va_list ap)
{
    char line[HAL_LOG_LINE_MAX];

    if ((int)level > rknpu_log_threshold)
        return;
    vsnprintf(line, sizeof line, fmt, ap);
    rknpu_hook_log(level, line);
}

void hal_logf(rknpu_log_level level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    hal_vlogf(level, fmt, ap);
    va_end(ap);
}

#if !HAL_LOG_STRINGS
/* Appends text; returns the new end (the buffer is sized for the longest line). */
static char *put_text(char *p, const char *text)
{
    while (*text)
        *p++ = *text++;
    return p;
}

static char *put_number(char *p, uintptr_t v, unsigned base)
{
    char digits[2 * sizeof v];
    unsigned n = 0;

    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v && n < sizeof digits);
    while (n)
        *p++ = digits[--n];
    return p;
}

/* noinline: the return address must be the HAL_LOG_* call site. */
__attribute__((noinline)) void hal_log_site(rknpu_log_level level, unsigned line)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    char text[64], *p = text;

    if ((int)level > rknpu_log_threshold)
        return;
    p = put_text(p, names[(unsigned)level < 4 ? (unsigned)level : 3]);
    p = put_text(p, " at pc 0x");
    p = put_number(p, (uintptr_t)__builtin_return_address(0), 16);
    p = put_text(p, " line ");
    p = put_number(p, line, 10);
    *p = 0;
    rknpu_hook_log(level, text);
}
#endif
