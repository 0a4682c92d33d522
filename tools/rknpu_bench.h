/*
 * rknpu_bench.h - what the parts of rknpu-bench share: the figures, the
 * clock and memcpy baseline, the platform and file helpers, callgrind.
 * A host tool (heap, stdio, processes); the runtime uses none of this.
 */
#ifndef RKNPU_BENCH_H
#define RKNPU_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "rknn_api.h"
#include "rknpu_bm.h"

/* Figures, in the order the table prints them (rknpu_bench.c). */
enum {
    FIG_PPOCR_INIT,
    FIG_PPOCR_INIT_ZC,
    FIG_PPOCR_CARVEOUT,
    FIG_INPUTS,
    FIG_OUTPUTS,
    FIG_PPOCR_CPU,
    FIG_PPOCR_CPU_TOTAL,
    FIG_PPOCR,
    FIG_PPOCR_ORT,
    FIG_PPOCR_RATIO,
    FIG_TEXT,
    FIG_TEXT_NO_V4,
    FIG_RAM,
    FIG_INIT,
    FIG_TOY_INIT_US,
    FIG_TOY_RUN_US,
    FIG_RUN,
    FIG_VNPU,
    FIG_MM_INT8,
    FIG_MM_FP16,
    FIG_MM_CPU,
    FIG_MM_OVERHEAD,
    FIG_COUNT
};

typedef enum { GOAL_AT_MOST, GOAL_AT_LEAST, GOAL_REPORT } goal_kind;

typedef struct {
    const char *name, *unit;
    goal_kind kind;
    double goal;
    int measured;
    double value;
    char how[200];
} figure;

void set_figure(int id, double value, const char *how);

/* ---- time and the memcpy baseline: every ratio is taken in the same run
 * as its baseline, best of each over all repetitions ---------------------- */
extern volatile uint8_t sink; /* keeps every timed copy observable */
uint64_t now_ns(void);
void *xalloc(size_t bytes); /* 64-byte aligned, filled; exits when out of memory */

typedef struct {
    uint8_t *src, *dst; /* two warm buffers of `bytes` */
    size_t bytes;
    uint64_t best_ns;
} copy_baseline;

void baseline_init(copy_baseline *b, size_t bytes);
void baseline_once(copy_baseline *b); /* one timed copy; keeps the best */
void baseline_free(copy_baseline *b);
void keep_best(uint64_t *best, uint64_t t0);
/* Prints a throughput figure beside its memcpy baseline, records the ratio. */
void report_bandwidth(int fig, const char *what, const char *model, const char *bytes_of,
                      const copy_baseline *copy, uint64_t best, unsigned reps);

/* ---- platform and files ------------------------------------------------- */
int use_soc(rknpu_soc_id soc); /* the host platform with the virtual NPU of soc */

typedef struct {
    uint8_t *data;
    size_t size;
} file_buf;

int read_file(const char *dir, const char *name, file_buf *f);
int bench_load_file(const char *dir, const char *name, file_buf *f); /* says why it failed */

/* Instructions callgrind counted in `self loop_flag runs` with collection
 * toggled by `toggle` and off inside hal_mmio_read32/write32 (the virtual
 * NPU), or -1. */
double callgrind_count(const char *self, const char *dir, unsigned long runs, const char *toggle,
                       const char *loop_flag);

/* ---- PP-OCRv4 det (rknpu_bench_ppocr.c) --------------------------------- */
#define PPOCR_MODEL "rk3588_ppocrv4_det.v6.rknn"
#define PPOCR_INPUT "ppocrv4_det/test1_nhwc_u8.npy"

/* Every PP-OCRv4 det figure; self: this program, for callgrind (NULL: skip). */
void bench_ppocr(const char *dir, const char *ort_script, unsigned reps, const char *self);
/* The loop callgrind watches: n runs of a prepared PP-OCRv4 det context. */
int ppocr_run_loop(const char *dir, unsigned long n);

#endif
