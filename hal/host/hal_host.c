/*
 * hal_host.c - the HAL on a Linux/POSIX host. There is no NPU on the host:
 * MMIO accesses go straight to the software device registered for the
 * address (the virtual NPU), exactly where a bare-metal access would trap.
 * Caches are coherent, so cache maintenance only orders memory.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>

#include "hal.h"

static const hal_mmio_region *region_or_die(uintptr_t addr)
{
    const hal_mmio_region *r = hal_mmio_find(addr);

    if (!r) {
        /* A bare-metal build would take a data abort here; fail as loudly.
         * untested: it ends the process, which no host test survives. */
        HAL_LOG_ERR("hal: MMIO access to 0x%lx with no device behind it", (unsigned long)addr);
        abort();
    }
    return r;
}

uint32_t hal_mmio_read32(uintptr_t addr)
{
    const hal_mmio_region *r = region_or_die(addr);

    hal_mmio_trap_count++;
    return r->read32(r->ctx, addr - r->base);
}

void hal_mmio_write32(uintptr_t addr, uint32_t value)
{
    const hal_mmio_region *r = region_or_die(addr);

    hal_mmio_trap_count++;
    r->write32(r->ctx, addr - r->base, value);
}

/* No secure firmware on the host: the emulated one answers, if any. */
uintptr_t hal_smc(uint32_t fid, uintptr_t a1, uintptr_t a2, uintptr_t a3)
{
    hal_smc_emulator fn = hal_smc_emulator_get();

    return fn ? fn(fid, a1, a2, a3) : HAL_SMC_NOT_SUPPORTED;
}

void hal_wmb(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void hal_rmb(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void hal_cache_clean_range(const void *addr, size_t size)
{
    (void)addr;
    (void)size;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void hal_cache_invalidate_range(const void *addr, size_t size)
{
    (void)addr;
    (void)size;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

size_t hal_cache_line_size(void)
{
    return 64;
}

uint64_t hal_time_ticks(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t hal_time_freq_hz(void)
{
    return 1000000000u;
}

/* untested: only the QEMU and RK boards install vectors and enable an
 * MMU, with their own hal/ (aarch64, armv7); the host's are for the link. */
void hal_exceptions_install(hal_fatal_fn on_fatal)
{
    (void)on_fatal;
}

int hal_mmu_enable(const hal_mem_map_entry *map, size_t count)
{
    (void)map;
    (void)count;
    return -1;
}

const char *hal_arch_name(void)
{
    return "host";
}
