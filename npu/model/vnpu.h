/*
 * vnpu.h - the virtual NPU: a functional software model of RKNPU cores.
 *
 * The model is driven only the way silicon is: 32-bit register reads and
 * writes inside each core's 64 KiB window, and DMA reads/writes of memory
 * addressed with 32-bit NPU (DMA) addresses. It executes real register
 * command streams (the vendor's .rknn regcmd as well as rknpu-bm's own),
 * computes what the hardware computes, raises the interrupt bits the driver
 * polls, and reports programming it does not understand as an error state
 * instead of computing something wrong.
 *
 * It includes only the register table (npu/hw/regs.def via npu_regs.h), the SoC
 * profiles and its own files; it never includes the driver or the HAL.
 * Boards wire it to the HAL's MMIO trap registry (boards/host,
 * boards/qemu-virt) and to the reset hook.
 */
#ifndef VNPU_H
#define VNPU_H

#include <stddef.h>
#include <stdint.h>

#include "npu_soc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VNPU_MAX_CORES 3

/* Memory the NPU may address: [dma_base, dma_base + size) maps to host. */
typedef struct {
    uint32_t dma_base;
    uint32_t size;
    uint8_t *host;
} vnpu_dma_window;

typedef enum {
    VNPU_FAULT_NONE = 0,
    VNPU_FAULT_NEVER_COMPLETE, /* the job runs but no completion bit is ever raised */
    VNPU_FAULT_DMA_ERROR,      /* completes, raising DMA read+write error bits 12/13 */
    VNPU_FAULT_CORRUPT_OUTPUT, /* completes normally but flips bits of the last output */
    VNPU_FAULT_DROP_IRQ,       /* the last task's completion bit is lost (status stays 0) */
} vnpu_fault;

typedef void (*vnpu_trace_sink)(void *ctx, const char *line);
/* Called after each task the PC ran: the core and the task's index in its
 * job (0 = the task at PC_DATA_ADDR). For profiles (rknpu-bench). */
typedef void (*vnpu_task_hook)(void *ctx, unsigned core, uint32_t task);

typedef struct vnpu_core vnpu_core; /* defined in the model's own files */

typedef struct vnpu_device {
    const npu_soc_profile *soc;
    vnpu_dma_window dma;
    vnpu_trace_sink trace;
    void *trace_ctx;
    vnpu_task_hook task_done;
    void *task_done_ctx;
    vnpu_core *cores[VNPU_MAX_CORES]; /* static storage inside the model */
    uint32_t pc_version;              /* what PC_VERSION reads (vnpu_init: RK3588's) */
    int dry_run;                      /* vnpu_set_dry_run() */
} vnpu_device;

/* Set up the device for a SoC (core count from the profile) over one DMA
 * window. All state is static inside the model: one device at a time.
 * Returns 0, or -1 for a NULL/invalid argument. */
int vnpu_init(vnpu_device *dev, const npu_soc_profile *soc, const vnpu_dma_window *dma);

/* The MMIO face: offset is relative to the core's window (0..0xFFFF). */
uint32_t vnpu_mmio_read(vnpu_device *dev, unsigned core, uint32_t offset);
void vnpu_mmio_write(vnpu_device *dev, unsigned core, uint32_t offset, uint32_t value);

/* Soft reset of one core (what the CRU reset lines do): registers, ping-pong
 * state, interrupts and any pending fault injection go back to reset values. */
void vnpu_reset(vnpu_device *dev, unsigned core);

/* Arm a fault for the next `count` jobs (PC kicks) of a core. */
void vnpu_inject_fault(vnpu_device *dev, unsigned core, vnpu_fault fault, unsigned count);

/* Arm a fault for one task in the middle of the work instead of a whole
 * job: it fires when the core reaches its `task`-th task (0-based), counted
 * over all the core's jobs from this call on, so the same number names a
 * task of one long chain or of many small jobs; then it disarms. The tasks
 * before it execute normally (vnpu_get_stats().tasks advances by exactly
 * `task`); the job stops at it and raises no completion bit:
 *   VNPU_FAULT_NEVER_COMPLETE  the core stays busy, ignoring kicks, until reset;
 *   VNPU_FAULT_DMA_ERROR       the DMA read+write error bits 12/13 are raised.
 * vnpu_last_error() then reads "injected fault at task N (task K of the
 * job): ...". VNPU_FAULT_NONE disarms; vnpu_reset() disarms too. It is
 * independent of vnpu_inject_fault(): a job that one stops at its kick
 * (never-complete) runs no task, so it brings this one no closer.
 * Returns 0, or -1 for an invalid core or another fault kind. */
int vnpu_inject_fault_at_task(vnpu_device *dev, unsigned core, vnpu_fault fault, uint32_t task);

/* Optional text trace, one line per register write / task / job event,
 * with register names from the register table. NULL sink = off. */
void vnpu_set_trace(vnpu_device *dev, vnpu_trace_sink sink, void *ctx);

/* 1: jobs walk their chains, decode and check every register word and
 * complete as usual, but the units compute nothing (outputs keep their
 * bytes). For benchmarks of a runtime's CPU side (rknpu-bench --vendor),
 * where the model's own compute time is not what is measured. 0 (vnpu_init's
 * default) executes. */
void vnpu_set_dry_run(vnpu_device *dev, int on);

/* Why the last job of a core stopped in an error state ("" if it did not),
 * e.g. "task 3: DPU FEATURE_MODE_CFG 0x... (flying mode with ...) not modelled". */
/* Optional hook after every task (NULL: none). */
void vnpu_set_task_hook(vnpu_device *dev, vnpu_task_hook hook, void *ctx);

const char *vnpu_last_error(const vnpu_device *dev, unsigned core);

/* Counters for tests and benchmarks. */
typedef struct {
    uint64_t jobs;
    uint64_t tasks;
    uint64_t macs; /* multiply-accumulates executed */
    uint64_t dma_bytes_read;
    uint64_t dma_bytes_written;
} vnpu_stats;
void vnpu_get_stats(const vnpu_device *dev, unsigned core, vnpu_stats *out);

/* Meaning of CNA CVT_CON0 bit 0 (the input converter switch), an open
 * hardware question on RK356x (vnpu.md §5.3). Default (PROFILE): bypass
 * on RK3588/RV1106 (Mesa-verified), enable on RK3566/RK3568 (the vendor
 * streams then expect raw uint8 input buffers). Applies to all cores;
 * vnpu_init() restores the default. */
typedef enum {
    VNPU_CVT_BIT0_PROFILE = 0,
    VNPU_CVT_BIT0_BYPASS, /* bit 0 set = converter bypassed */
    VNPU_CVT_BIT0_ENABLE, /* bit 0 set = converter enabled */
} vnpu_cvt_bit0;
void vnpu_set_cvt_bit0(vnpu_device *dev, vnpu_cvt_bit0 meaning);

/* What PC_VERSION reads: an unpowered NPU reads 0, another SoC another
 * value (tests of the driver's version check). */
void vnpu_set_pc_version(vnpu_device *dev, uint32_t version);

#ifdef __cplusplus
}
#endif

#endif
