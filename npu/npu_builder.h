/*
 * npu_builder.h - rknpu-bm's own register command streams: convolution,
 * flying-mode DPU and PPU pooling tasks, and their placement as a PC chain
 * with rknpu_task records the driver submits. Used by the boot-time
 * self-test (examples/selftest) and the virtual NPU's tests; the matmul API
 * will reuse it.
 *
 * Register values follow the documented recipes (hardware.md §4.6, and what the
 * vendor streams in the sample models do: notes in the vNPU's sources).
 * Offsets are given in the RK3588 register-table layout and translated to
 * the SoC's own map (RK356x CORE shift, CMAC block) as words are emitted.
 */
#ifndef NPU_BUILDER_H
#define NPU_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "npu_soc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NPU_BUILDER_MAX_WORDS 256u

/* One task's body (without the PC tail). */
typedef struct {
    const npu_soc_profile *soc;
    uint64_t words[NPU_BUILDER_MAX_WORDS];
    unsigned n;
    uint32_t enable;   /* op-enable unit mask */
    uint32_t int_mask; /* completion interrupt (rknpu_task.int_mask) */
    uint8_t overflow;  /* more than NPU_BUILDER_MAX_WORDS words were emitted */
} npu_task_words;

void npu_task_begin(npu_task_words *t, const npu_soc_profile *soc, uint32_t enable,
                    uint32_t int_mask);
void npu_task_raw(npu_task_words *t, uint64_t word);
/* One register write given its RK3588-layout (table) offset. */
void npu_task_reg(npu_task_words *t, uint32_t table_off, uint32_t value);

/* Convolution (CNA + CORE + DPU [+ DPU_RDMA]) parameters. Addresses are NPU
 * addresses; "pad" counts are padded/aligned values chosen by the caller. */
typedef struct {
    int fp16, depthwise, argb;
    int int4;                         /* int4 features and weights (RK3588), packed two a byte */
    uint32_t hin, win, cin_real, cin; /* cin: DATAIN_CHANNEL (padded) */
    uint32_t argb_pitch_px;           /* packed-input row pitch in pixels */
    uint32_t nker, kh, kw, sx, sy, pt, pl;
    uint32_t hout, wout, kout; /* kout: CORE/DPU channels (padded) */
    uint32_t in_addr, w_addr, out_addr, out_surf;
    uint32_t in_surf;                  /* input surface stride in bytes (0: hin x win atoms) */
    uint32_t in_line;                  /* line stride in atoms of one-pixel lines (0: the cube's) */
    uint32_t out_notch;                /* atoms after each output line's pixels */
    uint32_t dma_w, dma_c;             /* the feature DMA's width and channels (0: the cube's) */
    uint32_t fm_extra;                 /* more DPU FEATURE_MODE_CFG bits (NONALIGN, SURF_LEN) */
    uint32_t data_banks, weight_banks; /* CBUF split (0, 0: 8 data + 4 weight banks) */
    uint32_t grains;                   /* FEATURE_GRAINS (0: Hin + 1, RK356x Hin) */
    uint32_t pad_value;                /* int8 in the low byte, or fp16 bits */
    uint32_t cvt_con0, cvt_con[4];     /* input converter (0 = identity per SoC) */
    /* DPU */
    uint32_t out_prec; /* 0 int8, 1 int16, 2 fp16, 4 int32, 5 fp32 */
    uint32_t bs_cfg, bs_alu, bs_mul_cfg, bs_relux, bs_ow_cfg, bs_ow_op;
    uint32_t bn_cfg, bn_alu, bn_mul_cfg, bn_relux;
    uint32_t bs_addr, brdma_use; /* BS operand stream (brdma_use = DATA_USE bits) */
    uint32_t ew_cfg, ew_cvt_off, ew_cvt_scale, ew_relux;
    uint32_t ew_addr, ew_surf, erdma_size, comb_use, src_addr;
    uint32_t oc_offset, oc_scale, oc_shift;
    uint32_t bs_neg_shift;
} npu_conv_desc;

/* PPU pooling from PPU_RDMA (op-enable 0x60, int_mask 0xC00). method 0 avg,
 * 1 max, 2 min; elem 1 (int8) or 2 (fp16). */
typedef struct {
    uint32_t method, fp16;
    uint32_t win, hin, c, wout, hout, kw, kh, sw, sh, pl, pt, pr, pb;
    uint32_t src, line, surf, dst, dsurf;
    uint32_t pad_value, recip_w, recip_h;
} npu_pool_desc;

/* Defaults: every DPU stage bypassed, OUT_CVT identity, stride 1. */
void npu_conv_defaults(npu_conv_desc *c);
void npu_build_conv(npu_task_words *t, const npu_soc_profile *soc, const npu_conv_desc *c);
/* DPU flying mode (DPU + DPU_RDMA, no CNA): int8/fp16 cube of w x h x ch
 * (ch <= C2) read from src; epilogue registers as in c (DPU fields only). */
void npu_build_flying(npu_task_words *t, const npu_soc_profile *soc, uint32_t in_prec, uint32_t w,
                      uint32_t h, uint32_t ch, uint32_t src, const npu_conv_desc *c, int nonalign);
/* PPU pooling from PPU_RDMA (op-enable 0x60, int_mask 0xC00). */
void npu_build_pool(npu_task_words *t, const npu_soc_profile *soc, const npu_pool_desc *p);

/* Stores v little-endian at p (any alignment): task records, and the
 * self-test's bias stream. */
void npu_put_le32(uint8_t *p, uint32_t v);

/* Bytes a chain of n tasks needs in a stream buffer (tasks 64-byte aligned,
 * each body + 4 tail words + 1 word the PC may over-fetch). */
size_t npu_chain_bytes(const npu_task_words *tasks, unsigned n);

/* Write the chain into `stream` (whose DMA address is stream_dma; tasks are
 * linked with DMA addresses) and n rknpu_task records (40 bytes each) whose
 * regcmd_addr is relative to stream_dma, as npu_run() expects. Returns 0,
 * or -1 if a task overflowed or the buffer is too small. */
int npu_chain_write(const npu_task_words *tasks, unsigned n, uint8_t *stream, uint32_t stream_dma,
                    size_t cap, uint8_t *records);

#ifdef __cplusplus
}
#endif

#endif
