/*
 * vnpu_dpu_unpool.c - a flying DPU task with MRDMA unpooling (UNPOOLING_EN,
 * vnpu.md §7.7): nearest upsampling, bits copied through bypassed stages.
 * Called by the flying task (vnpu_dpu_fly.c).
 */
#include <string.h>

#include "vnpu_base.h"
#include "vnpu_dpu_internal.h"

/* ---- flying mode with MRDMA unpooling: nearest upsampling ------------------ */

/* Every DPU stage bypassed and the output converter the identity: the task
 * moves bits (an unpooling copy). */
static int vnpu_dpu_is_copy(vnpu_task *t)
{
    return NPU_DPU_BS_CFG_BS_BYPASS_GET(R(t, NPU_DPU_BS_CFG)) &&
           NPU_DPU_BS_CFG_BS_BYPASS_GET(R(t, NPU_DPU_BN_CFG)) &&
           NPU_DPU_EW_CFG_EW_BYPASS_GET(R(t, NPU_DPU_EW_CFG)) &&
           NPU_DPU_OUT_CVT_SCALE_OUT_CVT_SCALE_GET(R(t, NPU_DPU_OUT_CVT_SCALE)) == 1 &&
           R(t, NPU_DPU_OUT_CVT_SHIFT) == 0 && R(t, NPU_DPU_OUT_CVT_OFFSET) == 0;
}

/* UNPOOLING_EN with kernel = stride (vnpu.md §7.7): MRDMA repeats each input
 * pixel kw times along the line and hands the DPU kh copies of each line;
 * the DPU writes copy r of line y at DST_BASE + r * DST_SURF_STRIDE +
 * y * (width + NOTCH) atoms, so with DST_SURF_STRIDE one line and NOTCH
 * (kh - 1) lines the copies interleave into rows kh*y + r: nearest
 * upsampling, as PP-OCRv4 det's Resize nodes program it (one surface per
 * task). */
int vnpu_dpu_unpool_task(vnpu_task *t, uint32_t win, uint32_t hin, uint32_t c)
{
    uint32_t cfg = R(t, NPU_DPU_RDMA_SRC_DMA_CFG);
    uint32_t rfm = R(t, NPU_DPU_RDMA_FEATURE_MODE_CFG);
    uint32_t notch = R(t, NPU_DPU_DATA_CUBE_NOTCH_ADDR);
    uint32_t kw = NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_WIDTH_GET(cfg) + 1u;
    uint32_t kh = NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_HEIGHT_GET(cfg) + 1u;
    uint32_t wout = NPU_DPU_DATA_CUBE_WIDTH_WIDTH_GET(R(t, NPU_DPU_DATA_CUBE_WIDTH)) + 1u;
    uint32_t hout = NPU_DPU_DATA_CUBE_HEIGHT_HEIGHT_GET(R(t, NPU_DPU_DATA_CUBE_HEIGHT)) + 1u;
    uint32_t cout = NPU_DPU_DATA_CUBE_CHANNEL_CHANNEL_GET(R(t, NPU_DPU_DATA_CUBE_CHANNEL)) + 1u;
    unsigned in_bytes = vnpu_prec_bytes(NPU_DPU_RDMA_FEATURE_MODE_CFG_IN_PRECISION_GET(rfm));
    unsigned out_bytes =
        vnpu_prec_bytes(NPU_DPU_DATA_FORMAT_OUT_PRECISION_GET(R(t, NPU_DPU_DATA_FORMAT)));
    uint32_t atom = t->cfg->atom, surf = R(t, NPU_DPU_DST_SURF_STRIDE);
    uint32_t pitch = wout + NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0_GET(notch);
    const uint8_t *src;
    uint8_t *dst;

    if (NPU_DPU_RDMA_SRC_DMA_CFG_POOLING_METHOD_GET(cfg) ||
        kw != NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_STRIDE_WIDTH_GET(cfg) + 1u ||
        kh != NPU_DPU_RDMA_SRC_DMA_CFG_KERNEL_STRIDE_HEIGHT_GET(cfg) + 1u ||
        NPU_DPU_RDMA_SRC_DMA_CFG_LINE_NOTCH_ADDR_GET(cfg) != 0)
        return vnpu_unsupported(t, NPU_DPU_RDMA_SRC_DMA_CFG,
                                "MRDMA pooling, or unpooling with a kernel other than its stride");
    /* The read and write sides may name the atom's elements differently (PP-OCRv4
     * det: int16 / fp16; YOLOv8n on RK3566: 4 int16 / 8 int8): the bytes move. */
    if (!vnpu_dpu_is_copy(t) || in_bytes == 0 ||
        (uint64_t)c * in_bytes != (uint64_t)cout * out_bytes)
        return vnpu_unsupported(t, NPU_DPU_RDMA_SRC_DMA_CFG,
                                "unpooling through a DPU stage or into another atom size");
    if (c * in_bytes > atom || wout != win * kw || hout != hin ||
        NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_1_GET(notch) !=
            NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0_GET(notch))
        return vnpu_inconsistent(t, NPU_DPU_DATA_CUBE_WIDTH, NPU_DPU_RDMA_SRC_DMA_CFG,
                                 "an unpooling cube that is not one surface of the input's "
                                 "lines, kernel-width times as wide");
    src = vnpu_dma_read(t, R(t, NPU_DPU_RDMA_SRC_BASE_ADDR), (uint64_t)win * hin * atom,
                        "MRDMA (unpooling input)");
    dst = vnpu_dma_write(t, R(t, NPU_DPU_DST_BASE_ADDR),
                         (uint64_t)(kh - 1u) * surf + ((uint64_t)(hout - 1u) * pitch + wout) * atom,
                         "DPU write (unpooling)", 1);
    if (src == NULL || dst == NULL)
        return -1;
    for (uint32_t r = 0; r < kh; r++)
        for (uint32_t y = 0; y < hout; y++)
            for (uint32_t x = 0; x < wout; x++)
                memcpy(dst + (size_t)r * surf + ((size_t)y * pitch + x) * atom,
                       src + ((size_t)y * win + x / kw) * atom, atom);
    return 0;
}
