/*
 * hal.h - the per-architecture layer: MMIO, barriers, cache maintenance by
 * address range, the monotonic timer, logging, exceptions, MMU and the MMIO
 * trap-and-emulate registry.
 *
 * One interface, three implementations: hal/aarch64, hal/armv7, hal/host.
 * Everything above hal/ (mem/, npu/, rknn/) uses only this header.
 *
 * MMIO and the "trap" registry. On bare metal hal_mmio_read32/write32 are
 * plain volatile accesses. A device that QEMU does not have (the NPU) is
 * modelled in software: its window is left unmapped on the virt board, the
 * access aborts, and the exception handler decodes the faulting load/store
 * and forwards it to the handler registered for that address range. On the
 * host the accessors call the registered handler directly. Either way the
 * driver's code path is the same as on silicon.
 */
#ifndef HAL_H
#define HAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "rknpu_hooks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* v rounded up to a multiple of a (a > 0; any a, not only powers of two):
 * the one definition the layers above share. */
static inline size_t hal_align_up(size_t v, size_t a)
{
    return (v + a - 1u) / a * a;
}

/* ---- MMIO ---------------------------------------------------------------- */

uint32_t hal_mmio_read32(uintptr_t addr);
void hal_mmio_write32(uintptr_t addr, uint32_t value);

/* Ordering: hal_wmb() before telling a device to read memory the CPU wrote;
 * hal_rmb() after a device said it finished writing memory the CPU will read. */
void hal_wmb(void);
void hal_rmb(void);

/* ---- MMIO trap-and-emulate registry -------------------------------------- */

typedef struct hal_mmio_region {
    uintptr_t base;
    uintptr_t size;
    void *ctx;
    uint32_t (*read32)(void *ctx, uintptr_t offset);
    void (*write32)(void *ctx, uintptr_t offset, uint32_t value);
} hal_mmio_region;

#define HAL_MMIO_MAX_REGIONS 8

/* Register a software-modelled device window. Returns 0, or -1 if the table
 * is full or the window overlaps one already registered. The struct must
 * stay alive until hal_mmio_unregister(). */
int hal_mmio_register(const hal_mmio_region *region);
void hal_mmio_unregister(const hal_mmio_region *region);
/* The region containing addr, or NULL. Used by the trap handlers. */
const hal_mmio_region *hal_mmio_find(uintptr_t addr);
/* Number of emulated accesses so far (tests check the trap path ran). */
extern volatile uint32_t hal_mmio_trap_count;

/* ---- Secure monitor calls (board support) ------------------------------------ */

/* An SMC to the secure firmware (SMC calling convention: function id in
 * x0/r0, arguments in the next three; returns x0/r0). Boards use it for
 * firmware services such as SCMI; the runtime never does. */
uintptr_t hal_smc(uint32_t fid, uintptr_t a1, uintptr_t a2, uintptr_t a3);

/* An emulated secure firmware, as the MMIO registry emulates devices: on
 * QEMU without EL3 an SMC is an undefined instruction, which the exception
 * handler forwards here; on the host hal_smc() calls it. NULL removes it.
 * With none, the host's hal_smc() returns HAL_SMC_NOT_SUPPORTED and on
 * QEMU the undefined instruction is fatal. */
typedef uintptr_t (*hal_smc_emulator)(uint32_t fid, uintptr_t a1, uintptr_t a2, uintptr_t a3);
void hal_smc_emulate(hal_smc_emulator fn);
/* The handler installed, or NULL (the trap handlers' lookup). */
hal_smc_emulator hal_smc_emulator_get(void);
#define HAL_SMC_NOT_SUPPORTED ((uintptr_t)-1) /* SMCCC: unknown function id */

/* ---- Cache maintenance by address range ---------------------------------- */

void hal_cache_clean_range(const void *addr, size_t size);
/* Invalidate; partial lines at either end are cleaned and invalidated so
 * that data sharing those lines is not lost. */
void hal_cache_invalidate_range(const void *addr, size_t size);
/* Data-cache line size in bytes (64 on Cortex-A76/A55/A7 and the host). */
size_t hal_cache_line_size(void);

/* ---- DMA address translation -------------------------------------------- */

/* The carve-out's CPU and NPU addresses. hal_virt_to_dma() translates inside
 * that window and is the identity elsewhere (bare metal, identity-mapped). */
void hal_dma_window_set(const void *virt, uint64_t dma, size_t size);
uint64_t hal_virt_to_dma(const void *virt);
void *hal_dma_to_virt(uint64_t dma);

/* ---- Time --------------------------------------------------------------- */

uint64_t hal_time_us(void);
/* Ticks and their frequency, for benchmarks that want finer resolution. */
uint64_t hal_time_ticks(void);
uint64_t hal_time_freq_hz(void);

/* Rockchip SoCs clock the generic timer from the 24 MHz oscillator; the Arm
 * HALs report this when boot firmware left CNTFRQ unprogrammed (0), so no
 * bounded wait turns unbounded. */
#define HAL_DEFAULT_TIMER_HZ 24000000u
/* Convert ticks to microseconds without floating point or overflow. */
uint64_t hal_ticks_to_us(uint64_t ticks, uint64_t freq_hz);
/* Busy-wait at least us microseconds (reset pulse widths). */
void hal_delay_us(uint32_t us);

/* 1 when the CPU stores words least significant byte first, as the NPU's
 * command stream and every target here do: a word is then copied whole
 * into or out of byte data. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HAL_LITTLE_ENDIAN 1
#else
#define HAL_LITTLE_ENDIAN 0
#endif

/* ---- Logging ------------------------------------------------------------- */

/* Formats into a bounded stack buffer and calls rknpu_hook_log(); does
 * nothing when level > rknpu_log_threshold. Never allocates. The HAL_LOG_*
 * macros' back end: built only with log strings (HAL_LOG_STRINGS below). */
void hal_logf(rknpu_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hal_vlogf(rknpu_log_level level, const char *fmt, va_list ap);

/* The build option log_strings=false (HAL_LOG_STRINGS=0) leaves every
 * format string out of the binary, for small firmware. Each HAL_LOG_ERR and
 * HAL_LOG_WARN then logs where it was called instead, e.g. "error at pc
 * 0x40012a4c line 212" (addr2line -e firmware.elf 0x40012a4c names the file
 * and function); information and debug lines are left out. The arguments
 * are still checked against the format, and never evaluated. */
#ifndef HAL_LOG_STRINGS
#define HAL_LOG_STRINGS 1
#endif

#if HAL_LOG_STRINGS
#define HAL_LOG_ERR(...)   hal_logf(RKNPU_LOG_ERROR, __VA_ARGS__)
#define HAL_LOG_WARN(...)  hal_logf(RKNPU_LOG_WARN, __VA_ARGS__)
#define HAL_LOG_INFO(...)  hal_logf(RKNPU_LOG_INFO, __VA_ARGS__)
#define HAL_LOG_DEBUG(...) hal_logf(RKNPU_LOG_DEBUG, __VA_ARGS__)
#else
/* Logs the level, the caller's address and the line (no format string).
 * The level and the line come in one word, HAL_LOG_SITE(level, line): one
 * constant to load at each of the many call sites instead of two. */
#define HAL_LOG_SITE(level, line) ((unsigned)(line) << 2 | (unsigned)(level))
void hal_log_site(unsigned site);
#define HAL_LOG_SITE_(level, ...)                                                                  \
    ((void)(0 && (hal_logf(level, __VA_ARGS__), 0)), hal_log_site(HAL_LOG_SITE(level, __LINE__)))
#define HAL_LOG_ERR(...)   HAL_LOG_SITE_(RKNPU_LOG_ERROR, __VA_ARGS__)
#define HAL_LOG_WARN(...)  HAL_LOG_SITE_(RKNPU_LOG_WARN, __VA_ARGS__)
/* Information and debug lines say nothing without their text (and are
 * below the default threshold): left out, their arguments still checked. */
#define HAL_LOG_INFO(...)  ((void)(0 && (hal_logf(RKNPU_LOG_INFO, __VA_ARGS__), 0)))
#define HAL_LOG_DEBUG(...) ((void)(0 && (hal_logf(RKNPU_LOG_DEBUG, __VA_ARGS__), 0)))
#endif

/* ---- Exceptions and MMU (bare metal; no-ops on the host) ------------------ */

/* Install the exception vectors: any unexpected exception prints a fault
 * report (kind, syndrome, fault address, PC) and then calls on_fatal(99),
 * the board's way to stop (its _exit, a power-off, a reset); with NULL the
 * CPU halts. on_fatal must not return. */
typedef void (*hal_fatal_fn)(int status);
void hal_exceptions_install(hal_fatal_fn on_fatal);
/* The end of a fault report: on_fatal(status), else a halt (hal_exc_stop.c). */
__attribute__((noreturn)) void hal_exc_stop(int status);

typedef enum {
    HAL_MEM_DEVICE,    /* Device-nGnRnE, execute-never */
    HAL_MEM_NORMAL_WB, /* Normal, write-back cacheable, inner shareable */
    HAL_MEM_NORMAL_NC, /* Normal, non-cacheable */
} hal_mem_attr;

typedef struct {
    uint64_t base; /* 2 MiB aligned */
    uint64_t size; /* multiple of 2 MiB */
    hal_mem_attr attr;
} hal_mem_map_entry;

/* Identity-map the given regions (everything else faults) and turn the MMU
 * and caches on. Returns 0, or -1 if a region is misaligned or above 4 GiB.
 * aarch64 only; returns -1 on other architectures. */
int hal_mmu_enable(const hal_mem_map_entry *map, size_t count);

/* Architecture name for reports: "aarch64", "armv7", "host". */
const char *hal_arch_name(void);

#ifdef __cplusplus
}
#endif

#endif /* HAL_H */
