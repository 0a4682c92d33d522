/*
 * rknpu_hooks.h - log levels and the weak platform hooks an RTOS may override.
 *
 * Part of rknpu-bm's public platform API (rknpu_bm.h includes it). It
 * lives with the HAL layer, which implements it, so that layer never
 * includes a header above it.
 */
#ifndef RKNPU_HOOKS_H
#define RKNPU_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RKNPU_LOG_ERROR = 0, /* an API call failed; the message says why */
    RKNPU_LOG_WARN = 1,  /* something odd that did not fail the call */
    RKNPU_LOG_INFO = 2,  /* one line per significant step (init, run) */
    RKNPU_LOG_DEBUG = 3, /* detail for bring-up (register traces) */
} rknpu_log_level;

/* ---- Platform hooks (weak; override by defining the same function) ---- */

/* One log line, without a trailing newline. Default: prints to stdout with a
 * level prefix if level <= rknpu_log_threshold. */
void rknpu_hook_log(rknpu_log_level level, const char *msg);

/* Messages above this level are not formatted at all (cheap when quiet).
 * Default RKNPU_LOG_WARN. May be changed at any time. */
extern volatile int rknpu_log_threshold;

/* Monotonic time in microseconds. Default: the architectural generic timer
 * (CNTVCT/CNTFRQ) on bare metal, CLOCK_MONOTONIC on the host. */
uint64_t rknpu_hook_time_us(void);

/* Called in every iteration of a completion poll loop. Default: nothing
 * (busy poll). An RTOS may yield or sleep here. */
void rknpu_hook_poll_yield(void);

/* Make CPU writes in [addr, addr+size) visible to the NPU (clean to the point
 * of coherency). Default: data-cache clean by virtual address. */
void rknpu_hook_cache_clean(const void *addr, size_t size);

/* Discard CPU-cached copies of [addr, addr+size) so NPU writes are seen.
 * Default: clean+invalidate by virtual address (partial lines at the edges
 * are cleaned first, so neighbouring data is never lost). */
void rknpu_hook_cache_invalidate(const void *addr, size_t size);

/* CPU address -> NPU (DMA) address and back. Default: the carve-out's
 * translation from rknpu_platform_config, identity elsewhere. */
uint64_t rknpu_hook_virt_to_phys(const void *virt);
void *rknpu_hook_phys_to_virt(uint64_t phys);

/* Soft-reset one NPU core (assert and release its AXI and AHB resets, per
 * the SoC's CRU), after a timeout or DMA error. Return 0 on success.
 * Default: returns -1 (no reset available; the driver logs a warning). The
 * RK3588 board and the QEMU/host boards (virtual NPU) provide one. */
int rknpu_hook_npu_reset(unsigned core);

/* Whom an NPU job runs for: the rknn_context (its handle's value; 0 for a
 * job of the library's own, such as the self-test's network) and the user
 * argument set for it with rknpu_context_set_user() (NULL until set). */
typedef struct {
    uint64_t context;
    void *user;
} rknpu_job_owner;

/* An NPU job begins on the cores of core_mask (bit n: core n), and ends
 * with result (RKNN_SUCC or the error rknn_run reports): for tracing, power
 * and clock management, and accounting NPU time per model. A run is one or
 * more jobs (a graph with CPU operators: one per NPU segment). `owner` is
 * never NULL and is valid only during the call. Default: nothing. */
void rknpu_hook_inference_begin(const rknpu_job_owner *owner, unsigned core_mask);
void rknpu_hook_inference_end(const rknpu_job_owner *owner, unsigned core_mask, int result);

/* One slice of an NPU job as the driver is about to kick it on one core:
 * `count` packed rknpu_task records (40 bytes each, hardware.md §3.1) from
 * record `first` of the job's record array, whose regcmd_addr fields are
 * relative to stream_dma, and the PC values written for them. For traces
 * and bring-up: the host board writes it as a JSON line when the
 * environment names a file in RKNPU_SUBMIT_LOG (docs/testing.md). */
typedef struct {
    uint32_t job;           /* the driver's job counter: every slice of one job shares it */
    unsigned core;          /* the core it runs on */
    unsigned core_mask;     /* every core of the job (bit n: core n) */
    const uint8_t *records; /* record `first` */
    uint32_t first, count;
    uint64_t stream_dma; /* what regcmd_addr is relative to (0: absolute) */
    uint32_t task_con;   /* PC TASK_CON */
    unsigned pingpong;   /* TASK_CON.TASK_PP_EN */
    uint32_t int_mask;   /* PC INTERRUPT_MASK: the last record's int_mask */
    uint32_t int_clear;  /* PC INTERRUPT_CLEAR at the kick: the first record's int_mask */
} rknpu_submit_slice;

/* Called before each PC kick with what it submits. Default: nothing. */
void rknpu_hook_submit(const rknpu_submit_slice *slice);

/* Serialise API calls that touch shared state (allocator, NPU cores).
 * Default: nothing (single-threaded firmware). */
void rknpu_hook_lock(void);
void rknpu_hook_unlock(void);

#ifdef __cplusplus
}
#endif

#endif /* RKNPU_HOOKS_H */
