/*
 * rknpu_bm.h - rknpu-bm's own platform API (everything that is not the
 * vendor-compatible rknn_* API).
 *
 * A firmware image does three things before calling rknn_init():
 *   1. bring the NPU's power, clocks and resets up (board code),
 *   2. describe the platform with rknpu_platform_init(): which SoC, where its
 *      NPU register windows are, and which physically contiguous memory the
 *      runtime may hand to the NPU (the DMA carve-out),
 *   3. optionally override the platform hooks (rknpu_hooks.h).
 *
 * Platform hooks. Every hook is a weak function with a working default for
 * bare metal (and for the host build); an RTOS overrides the ones it needs by
 * defining a function of the same name. The runtime calls nothing else of
 * the platform: no heap, no threads, no interrupts.
 *
 * All functions are safe to call from C and C++.
 */
#ifndef RKNPU_BM_H
#define RKNPU_BM_H

#include <stddef.h>
#include <stdint.h>

#include "rknpu_hooks.h" /* rknpu_log_level and the platform hooks (HAL layer) */
#include "rknpu_soc.h"   /* rknpu_soc_id, RKNPU_MAX_CORES (NPU layer) */

#ifdef __cplusplus
extern "C" {
#endif

#define RKNPU_BM_VERSION_MAJOR  0
#define RKNPU_BM_VERSION_MINOR  1
#define RKNPU_BM_VERSION_PATCH  0
#define RKNPU_BM_VERSION_STRING "0.1.0"

/* What the board tells the runtime. Zero fields take the SoC's defaults. */
typedef struct {
    rknpu_soc_id soc;
    /* CPU address of each core's 64 KiB register window; 0 = the SoC's
     * documented address (e.g. 0xFDAB0000 for RK3588 core 0). */
    uintptr_t npu_base[RKNPU_MAX_CORES];
    /* The DMA carve-out: CPU address and size. Must be 4 KiB aligned and
     * lie below 4 GiB as the NPU sees it (its address registers are 32-bit). */
    void *carveout;
    size_t carveout_size;
    /* Address of the carve-out as the NPU sees it. 0 = identity (phys == virt),
     * right for MMU-off or identity-mapped firmware. */
    uint64_t carveout_phys;
    /* Completion timeout for one NPU job in microseconds; 0 = 1 s default. */
    uint32_t job_timeout_us;
} rknpu_platform_config;

/* Statistics of the carve-out allocator (see RKNPU_QUERY-like use in docs). */
typedef struct {
    size_t total_bytes;     /* carve-out size after alignment */
    size_t used_bytes;      /* bytes in live allocations (incl. alignment) */
    size_t free_bytes;      /* total - used */
    size_t largest_free;    /* biggest single allocation that would succeed */
    size_t peak_used_bytes; /* high-water mark since init */
    uint32_t allocations;   /* live allocations */
    uint32_t failed;        /* allocation requests refused since init */
} rknpu_mem_stats;

/* Bring the runtime up on a platform. Returns RKNN_SUCC or an RKNN_ERR_*
 * code (RKNN_ERR_PARAM_INVALID for a bad config, logged through the hook).
 * Calling it again re-initialises; every context must be destroyed first. */
int rknpu_platform_init(const rknpu_platform_config *cfg);

/* The current platform's configuration (after defaults were applied), or
 * NULL before rknpu_platform_init(). */
const rknpu_platform_config *rknpu_platform_get(void);

/* Change the NPU job timeout (microseconds, > 0) of the running platform.
 * RKNN_SUCC, RKNN_ERR_PARAM_INVALID or RKNN_ERR_DEVICE_UNAVAILABLE. */
int rknpu_set_job_timeout(uint32_t timeout_us);

/* Human-readable SoC name ("RK3588", ...) or "unknown". */
const char *rknpu_soc_name(rknpu_soc_id soc);

/* Carve-out usage right now. Returns RKNN_SUCC, or RKNN_ERR_PARAM_INVALID
 * for NULL / RKNN_ERR_DEVICE_UNAVAILABLE before rknpu_platform_init(). */
int rknpu_mem_get_stats(rknpu_mem_stats *stats);

/* Memory a model needs, known before rknn_init() so firmware can size its
 * linker region. All sizes in bytes.
 * Default rknn_init copies the model file into the carve-out (the caller may
 * free its buffer afterwards) and the NPU reads the constants in that copy.
 * With RKNN_FLAG_MODEL_BUFFER_ZERO_COPY the caller's buffer is used as it
 * is and must outlive the context; if it lies in the carve-out (made with
 * rknn_create_mem2(0, size, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT)) and is 64-byte
 * aligned the NPU reads the constants there, else they are copied. */
typedef struct {
    uint32_t weight_bytes;             /* constants, packed (the size rknn_set_weight_mem needs) */
    uint32_t regcmd_bytes;             /* relocated command stream, per context */
    uint32_t internal_bytes;           /* activation arena incl. inputs/outputs, per context */
    uint32_t loader_scratch_bytes;     /* needed only while rknn_init() runs */
    uint64_t carveout_bytes;           /* default mode: peak rknn_init() needs from an empty
                                    * carve-out, the model copy included */
    uint32_t model_copy_bytes;         /* of which the runtime's copy of the model file */
    uint64_t carveout_zero_copy_bytes; /* zero-copy mode, buffer in the carve-out: peak
                                        * beyond the buffer itself */
    uint32_t context_static_bytes;     /* static RAM of one context slot (the pools hold
                                    * max_contexts of them whether used or not) */
} rknpu_model_mem;

/* Parse and validate a .rknn file (no allocation, no platform needed) and
 * report its memory needs. RKNN_SUCC, RKNN_ERR_PARAM_INVALID,
 * RKNN_ERR_MODEL_INVALID or RKNN_ERR_TARGET_PLATFORM_UNMATCH (unknown
 * target platform). */
int rknpu_model_mem_requirements(const void *model, size_t size, rknpu_model_mem *out);

/* Tag a context (an rknn_context or rknn_matmul_ctx value) with a user
 * argument: the inference hooks of its NPU jobs get it in
 * rknpu_job_owner.user beside the context, so an RTOS can account time or
 * power per model (rknpu_hooks.h). NULL until set; rknn_dup_context's new
 * context starts with NULL. RKNN_SUCC or RKNN_ERR_CTX_INVALID. */
int rknpu_context_set_user(uint64_t context, void *user);

/* Host build only (the virtual NPU serves every SoC): run every model on
 * this SoC's profile instead of the one each model names, e.g. for
 * rknpu-run --soc. A model for another SoC then fails rknn_init with
 * RKNN_ERR_TARGET_PLATFORM_UNMATCH, naming both. Call it before rknn_init;
 * RKNPU_SOC_COUNT goes back to following each model.
 * Firmware builds return RKNN_ERR_DEVICE_UNAVAILABLE (their SoC is set by
 * rknpu_platform_init). */
int rknpu_host_force_soc(rknpu_soc_id soc);

/* Boot-time self-test: a small int8 network (conv 3x3 + bias + requant,
 * then conv 1x1), built by rknpu-bm's own register-command builder, runs on
 * every NPU core; every output byte is compared with the same network
 * evaluated on the CPU. Then an int8 matmul (5 x 64 x 32) runs through the
 * matmul API on every core against an exact CPU sum (it takes a context of
 * the pool for the while). */
typedef struct {
    uint32_t cores_tested;        /* bit n: core n ran */
    uint32_t cores_passed;        /* bit n: core n produced exactly the reference, both checks */
    uint32_t matmul_cores_passed; /* bit n: core n's matmul equals the exact sum */
    uint32_t mismatches;          /* output bytes (network) and elements (matmul) that differed */
    uint64_t time_us;             /* the whole test, reference included */
    int first_error;              /* RKNN_SUCC, or the first failing core's error */
    char reason[96];              /* why it failed; "" when it passed */
} rknpu_selftest_result;

/* RKNN_SUCC if every core passed; else the first error (RKNN_ERR_TIMEOUT,
 * RKNN_ERR_FAIL for wrong output or a DMA error, RKNN_ERR_MALLOC_FAIL when
 * the carve-out lacks the ~12 KiB it needs) with result->reason set. */
int rknpu_selftest(rknpu_selftest_result *result);

/* The platform hooks are declared in rknpu_hooks.h. */

#ifdef __cplusplus
}
#endif

#endif /* RKNPU_BM_H */
