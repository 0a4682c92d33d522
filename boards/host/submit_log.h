/*
 * submit_log.h - NPU submissions as JSON lines, one form for both runtimes:
 * the host board writes what rknpu-bm's driver kicks (RKNPU_SUBMIT_LOG),
 * and the kernel-driver stand-in under Rockchip's runtime
 * (tests/vendor/rknpu_standin.c) writes what librknnrt submits, so that
 * scripts/vendor-diff.sh compares them task by task (docs/testing.md,
 * "Rockchip's runtime side by side").
 *
 * Lines (every number decimal, register words as 16 hex digits):
 *   {"src":S,"ev":"slice","job":J,"core":C,"core_mask":M,"first":F,"count":N,
 *    "task_con":T,"pp":P,"int_mask":I,"int_clear":K,"tasks":[{"i":..,"flags":..,
 *    "op_idx":..,"enable_mask":..,"int_mask":..,"int_clear":..,"regcfg_amount":..,
 *    "regcfg_offset":..,"regcmd":A,"words":["..",..]}, ..]}
 *   {"src":S,"ev":"submit","job":J,"flags":..,"timeout":..,"core_mask":..,"cores":..,
 *    "task_start":..,"task_number":..,"subcore":[[s,n],..],"error":".."}
 *   {"src":S,"ev":"mem","what":"create"|"destroy","handle":..,"dma":..,"size":..,"flags":..}
 *   {"src":S,"ev":"buffers","job":J,"list":[[dma,size],..]}
 *   {"src":S,"ev":"cpu_writes","job":J,"ranges":[[dma,len,offset],..]}
 * "buffers": the DMA buffers alive at job J (the stand-in's MEM_CREATE
 * buffers, rknpu-bm's carve-out allocations). "cpu_writes": before job J, the CPU had changed these bytes of the memory the
 * NPU reads since the NPU last ran (4 KiB pages, merged); their contents at
 * the kick are at `offset` of the data file (the log's name + ".bin").
 */
#ifndef SUBMIT_LOG_H
#define SUBMIT_LOG_H

#include <stdint.h>
#include <stdio.h>

#include "rknpu_hooks.h"

/* The CPU address of [dma, dma + size), or NULL when it is not memory. */
typedef const void *(*submit_log_map)(void *ctx, uint64_t dma, size_t size);

/* One slice: its records and each task's body and tail words. */
void submit_log_slice(FILE *f, const char *src, const rknpu_submit_slice *s, submit_log_map map,
                      void *ctx);

/* The kernel interface's view of one submission (the stand-in only). */
void submit_log_submit(FILE *f, const char *src, uint32_t job, uint32_t flags, uint32_t timeout,
                       uint32_t core_mask, uint32_t cores, uint32_t task_start,
                       uint32_t task_number, const uint32_t *subcore_pairs, unsigned npairs,
                       const char *error);

/* A DMA buffer made or freed. */
void submit_log_mem(FILE *f, const char *src, const char *what, uint32_t handle, uint64_t dma,
                    uint64_t size, uint32_t flags);

/* Memory the NPU sees and a copy of it as the NPU last left it: what the
 * CPU changed in between is logged as "cpu_writes" (the bytes a runtime
 * left in the NPU's input buffers, for instance). */
typedef struct {
    const uint8_t *mem; /* CPU view */
    uint64_t dma;       /* NPU address of mem[0] */
    size_t size;
    uint8_t *shadow; /* size bytes, zero at the start */
    FILE *data;      /* the changed bytes */
} submit_log_watch;

/* Set up a watch over mem (the shadow starts as zeros, as fresh DMA
 * memory). Returns 0, or -1 if the shadow cannot be allocated. */
int submit_log_watch_init(submit_log_watch *w, const uint8_t *mem, uint64_t dma, size_t size,
                          FILE *data);

/* Parts of the watched memory to compare: n ranges of (offset, length). */
typedef struct {
    size_t offset, length;
} submit_log_range;

/* The live buffers at job `job`, as ranges of the watched memory. */
void submit_log_buffers(FILE *f, const char *src, uint32_t job, const submit_log_watch *w,
                        const submit_log_range *ranges, unsigned n);

/* Before job `job`: log what the CPU changed in the ranges and take it into the shadow. */
void submit_log_cpu_writes(FILE *f, const char *src, uint32_t job, submit_log_watch *w,
                           const submit_log_range *ranges, unsigned n);

/* After the NPU ran: its writes in the ranges become the shadow (not logged). */
void submit_log_npu_ran(submit_log_watch *w, const submit_log_range *ranges, unsigned n);

#endif
