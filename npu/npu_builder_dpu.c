/*
 * npu_builder_dpu.c - command streams for the units the runtime does not
 * drive yet: a flying-mode DPU task and PPU pooling (npu_builder.h). The
 * virtual NPU's tests use them; they are a library of their own
 * (rknpu_npu_streams), outside librknpu_bm, so firmware does not carry them.
 */
#include "npu_builder.h"
#include "npu_builder_internal.h"
#include "npu_regcmd.h"
#include "npu_regs.h"

/* DPU flying mode (DPU + DPU_RDMA, no CNA): int8 or fp16 cube of w x h
 * pixels and c <= C2 channels from src; epilogue registers as in `c`
 * (only the DPU fields are used). */
void npu_build_flying(npu_task_words *t, const npu_soc_profile *soc, uint32_t in_prec, uint32_t w,
                      uint32_t h, uint32_t ch, uint32_t src, const npu_conv_desc *c, int nonalign)
{
    int rk356x = npu_soc_is_rk356x(soc);
    uint32_t out_elem = c->out_prec == 0 ? 1u : (c->out_prec <= 3 ? 2u : 4u);
    uint32_t fm =
        NPU_DPU_FEATURE_MODE_CFG_FLYING_MODE(1) |
        (rk356x ? NPU_DPU_FEATURE_MODE_CFG_CONV_MODE(1) | NPU_DPU_FEATURE_MODE_CFG_BURST_LEN(8)
                : NPU_DPU_FEATURE_MODE_CFG_OUTPUT_MODE(2) | NPU_DPU_FEATURE_MODE_CFG_BURST_LEN(15));

    if (nonalign)
        fm |= NPU_DPU_FEATURE_MODE_CFG_NONALIGN(1) |
              NPU_DPU_FEATURE_MODE_CFG_SURF_LEN(w * h * ch * out_elem / 8u);
    npu_task_begin(t, soc, NPU_UNIT_DPU | NPU_UNIT_DPU_RDMA, DPU_DONE);
    npu_task_reg(t, NPU_DPU_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_DPU_RDMA_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_DPU_FEATURE_MODE_CFG, fm);
    npu_task_reg(t, NPU_DPU_DATA_FORMAT, npu_dpu_data_format(c, in_prec));
    npu_emit_dpu_output(t, c, w, h, ch, 1u); /* flying: one atom (vendor streams) */
    npu_task_reg(t, NPU_DPU_RDMA_DATA_CUBE_WIDTH, w - 1u);
    npu_task_reg(t, NPU_DPU_RDMA_DATA_CUBE_HEIGHT, h - 1u);
    npu_task_reg(t, NPU_DPU_RDMA_DATA_CUBE_CHANNEL, ch - 1u);
    npu_task_reg(t, NPU_DPU_RDMA_SRC_BASE_ADDR, src);
    npu_task_reg(t, NPU_DPU_RDMA_BRDMA_CFG, NPU_DPU_RDMA_BRDMA_CFG_BRDMA_DISABLE(1));
    npu_task_reg(t, NPU_DPU_RDMA_NRDMA_CFG, NPU_DPU_RDMA_NRDMA_CFG_NRDMA_DISABLE(1));
    npu_task_reg(t, NPU_DPU_RDMA_ERDMA_CFG, npu_erdma_cfg(c));
    npu_task_reg(t, NPU_DPU_RDMA_EW_BASE_ADDR, c->ew_addr);
    npu_task_reg(t, NPU_DPU_RDMA_EW_SURF_STRIDE, c->ew_surf);
    npu_task_reg(t, NPU_DPU_RDMA_SRC_DMA_CFG, 0);
    /* flying, MRDMA on, PROC and IN precision */
    npu_task_reg(t, NPU_DPU_RDMA_FEATURE_MODE_CFG,
                 NPU_DPU_RDMA_FEATURE_MODE_CFG_FLYING_MODE(1) |
                     NPU_DPU_RDMA_FEATURE_MODE_CFG_PROC_PRECISION(in_prec) |
                     NPU_DPU_RDMA_FEATURE_MODE_CFG_BURST_LEN(15) |
                     NPU_DPU_RDMA_FEATURE_MODE_CFG_IN_PRECISION(in_prec));
}

void npu_build_pool(npu_task_words *t, const npu_soc_profile *soc, const npu_pool_desc *p)
{
    npu_task_begin(t, soc, NPU_UNIT_PPU | NPU_UNIT_PPU_RDMA, PPU_DONE);
    npu_task_reg(t, NPU_PPU_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_PPU_RDMA_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_IN_WIDTH, p->win - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_IN_HEIGHT, p->hin - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_IN_CHANNEL, p->c - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_OUT_WIDTH, p->wout - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_OUT_HEIGHT, p->hout - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_OUT_CHANNEL, p->c - 1u);
    npu_task_reg(t, NPU_PPU_OPERATION_MODE_CFG,
                 NPU_PPU_OPERATION_MODE_CFG_FLYING_MODE(1) |
                     NPU_PPU_OPERATION_MODE_CFG_POOLING_METHOD(p->method));
    npu_task_reg(t, NPU_PPU_POOLING_KERNEL_CFG,
                 NPU_PPU_POOLING_KERNEL_CFG_KERNEL_WIDTH(p->kw - 1u) |
                     NPU_PPU_POOLING_KERNEL_CFG_KERNEL_HEIGHT(p->kh - 1u) |
                     NPU_PPU_POOLING_KERNEL_CFG_KERNEL_STRIDE_WIDTH(p->sw - 1u) |
                     NPU_PPU_POOLING_KERNEL_CFG_KERNEL_STRIDE_HEIGHT(p->sh - 1u));
    npu_task_reg(t, NPU_PPU_RECIP_KERNEL_WIDTH, p->recip_w);
    npu_task_reg(t, NPU_PPU_RECIP_KERNEL_HEIGHT, p->recip_h);
    npu_task_reg(t, NPU_PPU_POOLING_PADDING_CFG,
                 NPU_PPU_POOLING_PADDING_CFG_PAD_LEFT(p->pl) |
                     NPU_PPU_POOLING_PADDING_CFG_PAD_TOP(p->pt) |
                     NPU_PPU_POOLING_PADDING_CFG_PAD_RIGHT(p->pr) |
                     NPU_PPU_POOLING_PADDING_CFG_PAD_BOTTOM(p->pb));
    npu_task_reg(t, NPU_PPU_PADDING_VALUE_1, p->pad_value);
    npu_task_reg(t, NPU_PPU_PADDING_VALUE_2, 0);
    npu_task_reg(t, NPU_PPU_DST_BASE_ADDR, p->dst);
    npu_task_reg(t, NPU_PPU_DST_SURF_STRIDE, p->dsurf);
    npu_task_reg(t, NPU_PPU_DATA_FORMAT, NPU_PPU_DATA_FORMAT_PROC_PRECISION(p->fp16 ? 2u : 0u));
    npu_task_reg(t, NPU_PPU_MISC_CTRL, NPU_PPU_MISC_CTRL_BURST_LEN(3));
    npu_task_reg(t, NPU_PPU_RDMA_CUBE_IN_WIDTH, p->win - 1u);
    npu_task_reg(t, NPU_PPU_RDMA_CUBE_IN_HEIGHT, p->hin - 1u);
    npu_task_reg(t, NPU_PPU_RDMA_CUBE_IN_CHANNEL, p->c - 1u);
    npu_task_reg(t, NPU_PPU_RDMA_SRC_BASE_ADDR, p->src);
    npu_task_reg(t, NPU_PPU_RDMA_SRC_LINE_STRIDE, p->line);
    npu_task_reg(t, NPU_PPU_RDMA_SRC_SURF_STRIDE, p->surf);
    /* RK356x: the PPU's precision code, as the toolkit-1.5 RK3566 streams
     * write it (format.md §5.1); RK3588: the storage width (ab's programming) */
    npu_task_reg(t, NPU_PPU_RDMA_DATA_FORMAT,
                 npu_soc_is_rk356x(t->soc) ? (p->fp16 ? 2u : 0u) : (p->fp16 ? 2u : 1u));
}
