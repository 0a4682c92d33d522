/*
 * npu_builder_internal.h - what npu_builder.c shares with npu_builder_dpu.c.
 */
#ifndef NPU_BUILDER_INTERNAL_H
#define NPU_BUILDER_INTERNAL_H

#include "npu_builder.h"
#include "npu_regs.h"

/* The interrupt that ends a task: its last unit's, either ping-pong group. */
#define DPU_DONE NPU_INT_DPU_DONE
#define PPU_DONE (NPU_PC_INTERRUPT_MASK_PPU_GROUP0(1) | NPU_PC_INTERRUPT_MASK_PPU_GROUP1(1))

/* The DPU's output and epilogue registers of a w x h x ch cube; `atoms`
 * is SIZE_E + 1 (output atoms per pixel of a MAC kernel group). */
void npu_emit_dpu_output(npu_task_words *t, const npu_conv_desc *c, uint32_t w, uint32_t h,
                         uint32_t ch, uint32_t atoms);
/* DPU DATA_FORMAT for input precision in_prec. */
uint32_t npu_dpu_data_format(const npu_conv_desc *c, uint32_t in_prec);
/* The EW operand stream: off when EW is bypassed, else per-pixel data. */
uint32_t npu_erdma_cfg(const npu_conv_desc *c);

#endif
