/*
 * vnpu_units.h - the virtual NPU's compute units, as the dispatcher (vnpu.c)
 * drives them. Units stand on the base (vnpu_base.h) and never call each
 * other: a convolution is CNA + CORE accumulating chunks of pixels that the
 * dispatcher hands to the DPU.
 */
#ifndef VNPU_UNITS_H
#define VNPU_UNITS_H

#include "vnpu_base.h"

/* ---- CNA + CORE (vnpu_cna.c) ---------------------------------------------- */

/* The shape of the task's convolution, as the DPU needs it. */
typedef struct {
    uint32_t kout; /* output channels (accumulators per pixel) */
    uint32_t npix; /* output pixels */
    unsigned prec; /* CORE output precision (enum vnpu_precision) */
    uint8_t depthwise;
    uint32_t chunk_pixels; /* pixels per accumulator chunk */
} vnpu_cna_shape;

/* Decode and check the task's CNA/CORE programming; -1 after an error. */
int vnpu_cna_decode(vnpu_task *t, vnpu_cna_shape *shape);
/* Read the input window and the weights over DMA; -1 after an error. */
int vnpu_cna_load(vnpu_task *t);
/* Accumulate pixels [p0, p0 + n) (and their input sums when want_sumx). */
void vnpu_cna_accumulate(uint32_t p0, uint32_t n, int want_sumx, vnpu_acc_chunk *chunk);
/* Add the task's multiply-accumulates to the core's statistics. */
void vnpu_cna_count_macs(vnpu_task *t);

/* ---- DPU + DPU_RDMA (vnpu_dpu.c, vnpu_dpu_path.c, vnpu_dpu_fly.c) --------- */

typedef struct vnpu_dpu_plan vnpu_dpu_plan;

/* Validate and latch the DPU/DPU_RDMA programming for a cube of `k`
 * channels x `npix` pixels coming from CORE with precision `in_prec`
 * (depthwise: the convolution was depthwise). Returns NULL after recording
 * an error. */
vnpu_dpu_plan *vnpu_dpu_prepare(vnpu_task *t, uint32_t k, uint32_t npix, unsigned in_prec,
                                int depthwise);
/* 1 if the plan consumes the input sums (OW stage active). */
int vnpu_dpu_wants_sumx(const vnpu_dpu_plan *plan);
/* Turn one chunk of accumulators into output. */
int vnpu_dpu_process(vnpu_task *t, vnpu_dpu_plan *plan, const vnpu_acc_chunk *chunk);

/* A write of LUT_ACCESS_DATA: store one entry at the address LUT_ACCESS_CFG
 * names and advance it (a read access is ignored). -1 after an error. */
int vnpu_dpu_lut_write(vnpu_task *t, uint32_t value);

/* DPU in flying mode: main input from MRDMA (enable mask DPU|DPU_RDMA). */
int vnpu_dpu_flying_task(vnpu_task *t);

/* ---- PPU + PPU_RDMA (vnpu_ppu.c) ------------------------------------------ */

/* PPU fed by PPU_RDMA (enable mask PPU|PPU_RDMA). */
int vnpu_ppu_task(vnpu_task *t);

#endif /* VNPU_UNITS_H */
