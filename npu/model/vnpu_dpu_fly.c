/*
 * vnpu_dpu_fly.c - the DPU in flying mode: the main input from MRDMA
 * instead of CORE (any number of surfaces, fp32 through both read engines,
 * vnpu.md §7.6), run through a plan (vnpu_dpu.c) and the data path
 * (vnpu_dpu_path.c); with UNPOOLING_EN, vnpu_dpu_unpool.c.
 */
#include <string.h>

#include "vnpu_base.h"
#include "vnpu_dpu_internal.h"
#include "vnpu_units.h"

#define VNPU_FLY_CHUNK VNPU_DPU_MAX_CHANNELS /* elements per flying-mode chunk: a pixel at least */

/* ---- flying mode: main input from MRDMA ------------------------------------ */

static union {
    int32_t i32[VNPU_FLY_CHUNK];
    float f32[VNPU_FLY_CHUNK];
} vnpu_fly;

/* Where the flying input's surfaces are (vnpu.md §7.6): surface s of the
 * cube at SRC_BASE + s * (surface + SURF_NOTCH); with COMB_USE (RK3588, fp32
 * input) MRDMA reads the even surfaces that way and ERDMA the odd ones from
 * EW_BASE with stride EW_SURF_STRIDE. */
typedef struct {
    uint32_t base[2];   /* [0] MRDMA, [1] ERDMA (COMB_USE) */
    uint64_t stride[2]; /* bytes between the surfaces each engine reads */
    uint8_t comb;       /* odd surfaces come from ERDMA */
    unsigned prec, elem, c2;
} vnpu_fly_src;

static int vnpu_fly_src_prepare(vnpu_task *t, vnpu_fly_src *f, uint32_t npix)
{
    uint32_t rfm = R(t, NPU_DPU_RDMA_FEATURE_MODE_CFG);
    uint64_t surface = (uint64_t)npix * t->cfg->atom;
    /* the notch fields count 16-byte units (vnpu.md §7.6) */
    uint64_t notch =
        (uint64_t)NPU_DPU_RDMA_SURF_NOTCH_SURF_NOTCH_ADDR_GET(R(t, NPU_DPU_RDMA_SURF_NOTCH)) * 16u;
    unsigned comb = t->cfg->rk356x ? 0 : NPU_DPU_RDMA_FEATURE_MODE_CFG_COMB_USE_GET(rfm);

    memset(f, 0, sizeof *f);
    f->prec = NPU_DPU_RDMA_FEATURE_MODE_CFG_IN_PRECISION_GET(rfm);
    if (f->prec != VNPU_PREC_INT8 && f->prec != VNPU_PREC_FP16 && f->prec != VNPU_PREC_FP32)
        return vnpu_unsupported(t, NPU_DPU_RDMA_FEATURE_MODE_CFG, "this MRDMA input precision");
    f->elem = vnpu_prec_bytes(f->prec);
    f->c2 = t->cfg->atom / f->elem;
    f->base[0] = R(t, NPU_DPU_RDMA_SRC_BASE_ADDR);
    f->stride[0] = surface + notch;
    if (comb == 0)
        return 0;
    if (comb != 3 || f->prec != VNPU_PREC_FP32)
        return vnpu_unsupported(t, NPU_DPU_RDMA_FEATURE_MODE_CFG,
                                "COMB_USE in flying mode other than 3 with fp32 input");
    if (NPU_DPU_RDMA_ERDMA_CFG_ERDMA_DISABLE_GET(R(t, NPU_DPU_RDMA_ERDMA_CFG)) ||
        !NPU_DPU_EW_CFG_EW_BYPASS_GET(R(t, NPU_DPU_EW_CFG)))
        return vnpu_inconsistent(t, NPU_DPU_RDMA_FEATURE_MODE_CFG, NPU_DPU_RDMA_ERDMA_CFG,
                                 "COMB_USE input needs ERDMA enabled and the EW stage bypassed");
    f->comb = 1;
    f->base[1] = R(t, NPU_DPU_RDMA_EW_BASE_ADDR);
    f->stride[1] = R(t, NPU_DPU_RDMA_EW_SURF_STRIDE);
    return 0;
}

/* Pixels [p0, p0 + n) of surface s. */
static const uint8_t *vnpu_fly_surface(vnpu_task *t, const vnpu_fly_src *f, uint32_t s, uint32_t p0,
                                       uint32_t n)
{
    unsigned engine = f->comb ? s % 2u : 0u;
    uint32_t index = f->comb ? s / 2u : s;
    uint64_t addr =
        f->base[engine] + (uint64_t)index * f->stride[engine] + (uint64_t)p0 * t->cfg->atom;

    if (addr > UINT32_MAX)
        return vnpu_dma_read(t, UINT32_MAX, (uint64_t)n * t->cfg->atom, "MRDMA (flying input)");
    return vnpu_dma_read(t, (uint32_t)addr, (uint64_t)n * t->cfg->atom,
                         engine ? "ERDMA (flying input, COMB_USE)" : "MRDMA (flying input)");
}

/* Load pixels [p0, p0 + n) of every channel into the chunk buffer. */
static int vnpu_fly_load(vnpu_task *t, const vnpu_fly_src *f, uint32_t c, uint32_t p0, uint32_t n)
{
    for (uint32_t s = 0; s * f->c2 < c; s++) {
        const uint8_t *px = vnpu_fly_surface(t, f, s, p0, n);
        uint32_t c0 = s * f->c2, cn = c - c0 < f->c2 ? c - c0 : f->c2;
        if (px == NULL)
            return -1;
        for (uint32_t i = 0; i < n; i++, px += t->cfg->atom) {
            for (uint32_t j = 0; j < cn; j++) {
                size_t at = (size_t)i * c + c0 + j;
                if (f->prec == VNPU_PREC_FP16)
                    vnpu_fly.f32[at] = vnpu_f16_to_f32(vnpu_ld16(px + 2u * j));
                else if (f->prec == VNPU_PREC_FP32)
                    vnpu_fly.f32[at] = vnpu_f32_from_bits(vnpu_ld32(px + 4u * j));
                else
                    vnpu_fly.i32[at] = (int8_t)px[j];
            }
        }
    }
    return 0;
}

int vnpu_dpu_flying_task(vnpu_task *t)
{
    uint32_t rfm = R(t, NPU_DPU_RDMA_FEATURE_MODE_CFG);
    uint32_t w = NPU_DPU_RDMA_DATA_CUBE_WIDTH_WIDTH_GET(R(t, NPU_DPU_RDMA_DATA_CUBE_WIDTH)) + 1u;
    uint32_t h = NPU_DPU_RDMA_DATA_CUBE_HEIGHT_HEIGHT_GET(R(t, NPU_DPU_RDMA_DATA_CUBE_HEIGHT)) + 1u;
    uint32_t c =
        NPU_DPU_RDMA_DATA_CUBE_CHANNEL_CHANNEL_GET(R(t, NPU_DPU_RDMA_DATA_CUBE_CHANNEL)) + 1u;
    uint32_t npix = w * h, per;
    vnpu_fly_src src;
    vnpu_dpu_plan *pl;

    if (!(t->enable & NPU_UNIT_DPU_RDMA))
        return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG,
                                "a flying DPU task without DPU_RDMA in the op-enable mask");
    if (!NPU_DPU_RDMA_FEATURE_MODE_CFG_FLYING_MODE_GET(rfm) ||
        NPU_DPU_RDMA_FEATURE_MODE_CFG_MRDMA_DISABLE_GET(rfm))
        return vnpu_unsupported(t, NPU_DPU_RDMA_FEATURE_MODE_CFG,
                                "a flying DPU task whose MRDMA is not in flying mode/enabled");
    if (NPU_DPU_RDMA_SRC_DMA_CFG_UNPOOLING_EN_GET(R(t, NPU_DPU_RDMA_SRC_DMA_CFG)))
        return vnpu_dpu_unpool_task(t, w, h, c);
    if (R(t, NPU_DPU_RDMA_SRC_DMA_CFG) != 0)
        return vnpu_unsupported(t, NPU_DPU_RDMA_SRC_DMA_CFG, "MRDMA pooling");
    if (vnpu_fly_src_prepare(t, &src, npix) != 0)
        return -1;
    pl = vnpu_plan_build(t, c, npix, src.prec, 1, 0);
    if (pl == NULL)
        return -1;
    per = VNPU_FLY_CHUNK / c;
    for (uint32_t p0 = 0; p0 < npix; p0 += per) {
        uint32_t n = npix - p0 < per ? npix - p0 : per;
        vnpu_acc_chunk ck = {p0, n, c, vnpu_fly.i32, vnpu_fly.f32, NULL, 0};
        if (vnpu_fly_load(t, &src, c, p0, n) != 0 || vnpu_dpu_process(t, pl, &ck) != 0)
            return -1;
    }
    return 0;
}
