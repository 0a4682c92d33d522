/*
 * npu_driver.h - submit task chains to NPU cores and wait for them.
 *
 * One job = one chain of tasks per participating core, given as
 * struct rknpu_task records (40 bytes, the layout .rknn files and the
 * vendor kernel use) whose regcmd_addr is relative to a stream base. The
 * driver programs each core with the BSP's submit_pc sequence (hardware.md §3.2),
 * polls INT_STATUS with the fuzz-status rule until it equals the last
 * task's int_mask (hardware.md §3.3), bounded by a timeout measured with the time
 * hook, and on a timeout or DMA error resets the core through the reset
 * hook so the next job starts clean. Chains longer than the SoC's
 * max_submit_tasks are submitted in slices. No floating point, no
 * unbounded loop.
 */
#ifndef NPU_DRIVER_H
#define NPU_DRIVER_H

#include <stdint.h>

#include "npu_regcmd.h"
#include "npu_soc.h"
#include "rknpu_hooks.h" /* rknpu_job_owner */

#ifdef __cplusplus
extern "C" {
#endif

/* What driver calls return. The values are the vendor API's error codes for
 * the same failures (rknn_api.h), so rknn_* functions pass them on unchanged
 * and rknpu_hook_inference_end sees what rknn_run reports; the runtime
 * (rknn/platform/rknpu_platform.c) checks the equality at compile time. */
typedef enum {
    NPU_OK = 0,
    NPU_ERR_FAIL = -1,        /* the NPU raised a DMA error (cores reset) */
    NPU_ERR_TIMEOUT = -2,     /* no completion within the timeout (cores reset) */
    NPU_ERR_UNAVAILABLE = -3, /* core busy, not powered, or another SoC's NPU */
    NPU_ERR_PARAM = -5,       /* bad argument */
} npu_status;

/* The fields of one task record the driver uses. */
typedef struct {
    uint32_t enable_mask;
    uint32_t int_mask;
    uint32_t regcfg_amount; /* body words, without the 4-word tail */
    uint64_t regcmd_addr;   /* offset from the job's stream base */
} npu_task;

/* Decode record i of a packed little-endian rknpu_task array. */
void npu_task_decode(const uint8_t *records, uint32_t i, npu_task *out);

/* What one core runs in a job. */
typedef struct {
    unsigned core;          /* 0 .. soc->core_count - 1 */
    const uint8_t *records; /* rknpu_task records */
    uint32_t first, count;  /* the chain: records [first, first + count) */
    uint32_t stream_dma;    /* DMA address regcmd_addr is relative to */
    /* PC_TASK_CON.TASK_PP_EN: the PC fetches a task's registers while the
     * one before runs. Off for a chain that uploads a DPU LUT (the upload
     * would land while the previous task still reads the table), as
     * Rockchip's runtime submits (hardware.md §3.2). */
    uint8_t ping_pong;
} npu_core_job;

typedef struct {
    uint32_t int_status[RKNPU_MAX_CORES]; /* last INT_STATUS seen per job entry */
    uint32_t tasks_done[RKNPU_MAX_CORES]; /* TASK_STATUS on failure */
    uint64_t hw_time_us;                  /* kick to completion of the whole job */
} npu_job_result;

/* A job in flight (npu_start .. npu_wait). */
typedef struct {
    npu_core_job job;
    uint32_t next;     /* first task of the slice to submit next */
    uint32_t left;     /* tasks not yet submitted */
    uint32_t int_mask; /* last task of the slice in flight */
    uint8_t busy;
} npu_core_state;

typedef struct {
    npu_core_state cs[RKNPU_MAX_CORES];
    unsigned n, busy;
    unsigned core_mask; /* the cores of the job */
    uint64_t start, deadline;
    npu_job_result result;
    const rknpu_job_owner *owner; /* the caller's, passed to the inference hooks */
    uint8_t active;
} npu_pending;

/* Counters of one device since npu_device_init. */
typedef struct {
    uint32_t jobs;       /* jobs started */
    uint32_t slices;     /* PC kicks (a chain longer than max_submit_tasks is several) */
    uint32_t timeouts;   /* jobs that timed out */
    uint32_t dma_errors; /* jobs that raised a DMA error */
    uint32_t resets;     /* core resets after a failure */
} npu_device_stats;

/* One NPU (all its cores): the SoC profile, register windows, timeout, the
 * job each core runs, statistics. Every driver call takes it first. */
typedef struct npu_device {
    const npu_soc_profile *soc;
    uintptr_t core_base[RKNPU_MAX_CORES];
    uint32_t timeout_us;
    npu_pending *owner[RKNPU_MAX_CORES]; /* the started, not yet waited-for job of each core */
    uint32_t version_checked;            /* bit n: core n's version registers matched */
    npu_device_stats stats;
} npu_device;

/* Describe the device; NPU_ERR_PARAM without a profile. Nothing
 * is read from the hardware yet: before its first job each core's
 * PC_VERSION is checked against the profile (a core that reads 0 is not
 * powered or clocked; another value than the profile's is another SoC). */
int npu_device_init(npu_device *dev, const npu_soc_profile *soc, const uintptr_t *core_base,
                    uint32_t timeout_us);

/* Run a job on n cores (n <= soc->core_count; distinct cores). Returns
 * NPU_OK, NPU_ERR_TIMEOUT (no completion within the timeout; cores reset),
 * NPU_ERR_FAIL (the NPU raised a DMA error; cores reset) or
 * NPU_ERR_PARAM. Every failure is logged with the core, the task
 * counter and the status bits. `owner` is what the inference hooks are
 * told (NULL: context 0, no user argument); it must outlive the job. */
int npu_run(npu_device *dev, const npu_core_job *jobs, unsigned n, const rknpu_job_owner *owner,
            npu_job_result *result);

/* The same in two halves: npu_start kicks every core and returns; npu_wait
 * polls until all finished (or fails and resets them). A pending job must
 * be waited for before the next one starts on the same cores: npu_start
 * refuses a busy core with NPU_ERR_UNAVAILABLE. */
int npu_start(npu_device *dev, const npu_core_job *jobs, unsigned n, const rknpu_job_owner *owner,
              npu_pending *pending);
int npu_wait(npu_device *dev, npu_pending *pending, npu_job_result *result);

/* The started, not yet waited-for job that occupies a core, or NULL. */
npu_pending *npu_core_owner(const npu_device *dev, unsigned core);

/* Fold each 2-bit ping-pong group so either group's bit matches (hardware.md §3.3). */
uint32_t npu_fuzz_status(uint32_t status);

/* Reset one core (hook) and clear its interrupts. */
void npu_core_reset(npu_device *dev, unsigned core);

#ifdef __cplusplus
}
#endif

#endif
