/*
 * vnpu_ppu.c - the PPU (planar/pooling unit) fed by PPU_RDMA (flying mode,
 * op-enable 0x60): average, max and min pooling of int8 or fp16 NC1HWC2
 * cubes with kernel, stride and explicit padding (hardware.md §1.10, §5.4).
 *
 *  - input element (c, y, x) at PPU_RDMA SRC_BASE + (c / C2) * SRC_SURF_STRIDE
 *    + y * SRC_LINE_STRIDE + x * atom + (c % C2) * elem (strides in bytes);
 *    output at DST_BASE + (c / C2) * DST_SURF_STRIDE + (y * (W_out + NOTCH_ADDR)
 *    + x) * atom: the notch makes room for the other tiles of a wide output
 *    (toolkit-1.5 streams pool 20 columns as two tasks of 10, notch 10).
 *  - padded positions take the pad value (PADDING_VALUE_1: low 8 bits for
 *    int8, low 16 bits as fp16) and count in every method, also in the
 *    average (USE_CNT is not an exclude-padding switch, hardware.md §5.4).
 *  - average: int8 = round_half_even(Σ · RECIP_W · RECIP_H / 2^32) with the
 *    Q16 reciprocals (one rounding, saturated to int8 - the split of the
 *    rounding between the two factors is not known); fp16 = Σ · rw · rh in
 *    fp32 with fp16-encoded reciprocals (ab's programming).
 *  - RK356x toolkit-1.5 streams also write PPU 0x604C, 0x6050 (the value of
 *    PADDING_VALUE_1; other programs leave them 0) and PPU_RDMA 0x7018 (1);
 *    other values are reported.
 * Index output, DPU fly-in, NONALIGN and other modes are reported.
 */
#include <string.h>

#include "vnpu_base.h"
#include "vnpu_units.h"

typedef struct {
    unsigned method, elem, fp;
    uint32_t win, hin, c, wout, hout;
    uint32_t out_line; /* output pixels per line: W_out + NOTCH_ADDR */
    uint32_t kw, kh, sw, sh, pl, pt, pr, pb;
    uint32_t line, surf, dsurf;
    int32_t pad_i;
    float pad_f;
    uint32_t rw, rh;
} vnpu_pool;

static int vnpu_pool_decode(vnpu_task *t, vnpu_pool *p)
{
    uint32_t mode = R(t, NPU_PPU_OPERATION_MODE_CFG);
    uint32_t kc = R(t, NPU_PPU_POOLING_KERNEL_CFG);
    uint32_t pc = R(t, NPU_PPU_POOLING_PADDING_CFG);
    uint32_t fmt = R(t, NPU_PPU_DATA_FORMAT);
    uint32_t misc = R(t, NPU_PPU_MISC_CTRL);
    unsigned prec = NPU_PPU_DATA_FORMAT_PROC_PRECISION_GET(fmt);
    unsigned rd_size = NPU_PPU_RDMA_DATA_FORMAT_IN_PRECISION_GET(R(t, NPU_PPU_RDMA_DATA_FORMAT));
    uint32_t pv = R(t, NPU_PPU_PADDING_VALUE_1);

    memset(p, 0, sizeof *p);
    p->method = NPU_PPU_OPERATION_MODE_CFG_POOLING_METHOD_GET(mode);
    if (p->method == 3)
        return vnpu_unsupported(t, NPU_PPU_OPERATION_MODE_CFG, "POOLING_METHOD 3");
    if (!NPU_PPU_OPERATION_MODE_CFG_FLYING_MODE_GET(mode))
        return vnpu_unsupported(t, NPU_PPU_OPERATION_MODE_CFG,
                                "PPU input from the DPU (FLYING_MODE 0)");
    if (NPU_PPU_OPERATION_MODE_CFG_INDEX_EN_GET(mode))
        return vnpu_unsupported(t, NPU_PPU_OPERATION_MODE_CFG, "index output (INDEX_EN)");
    for (uint32_t reg = NPU_PPU_UNDOC_604C; reg <= NPU_PPU_UNDOC_6050; reg += 4)
        if (R(t, reg) != pv && R(t, reg) != 0)
            return vnpu_unsupported(t, reg, "a value other than 0 or PADDING_VALUE_1's");
    if (R(t, NPU_PPU_RDMA_UNDOC_7018) > 1)
        return vnpu_unsupported(t, NPU_PPU_RDMA_UNDOC_7018, "a value other than 0 or 1");
    if (NPU_PPU_DATA_FORMAT_DPU_FLYIN_GET(fmt))
        return vnpu_unsupported(t, NPU_PPU_DATA_FORMAT, "DPU_FLYIN");
    if (NPU_PPU_MISC_CTRL_NONALIGN_GET(misc) || NPU_PPU_MISC_CTRL_MC_SURF_OUT_GET(misc))
        return vnpu_unsupported(t, NPU_PPU_MISC_CTRL, "NONALIGN / MC_SURF_OUT output");
    if (prec != VNPU_PREC_INT8 && prec != VNPU_PREC_FP16)
        return vnpu_unsupported(t, NPU_PPU_DATA_FORMAT, "this pooling precision");
    p->fp = prec == VNPU_PREC_FP16;
    p->elem = p->fp ? 2u : 1u;
    /* RK356x toolkit-1.5 streams write the PPU's precision code here (0 for
     * int8); RK3588 programming uses storage widths */
    if (t->cfg->rk356x ? rd_size != prec : rd_size != (p->fp ? 2u : 1u))
        return vnpu_inconsistent(t, NPU_PPU_RDMA_DATA_FORMAT, NPU_PPU_DATA_FORMAT,
                                 t->cfg->rk356x ? "PPU_RDMA precision differs from the PPU's"
                                                : "PPU_RDMA storage width differs from the PPU "
                                                  "precision");
    p->win = NPU_PPU_DATA_CUBE_IN_WIDTH_IN_WIDTH_GET(R(t, NPU_PPU_DATA_CUBE_IN_WIDTH)) + 1u;
    p->hin = NPU_PPU_DATA_CUBE_IN_HEIGHT_IN_HEIGHT_GET(R(t, NPU_PPU_DATA_CUBE_IN_HEIGHT)) + 1u;
    p->c = NPU_PPU_DATA_CUBE_IN_CHANNEL_IN_CHANNEL_GET(R(t, NPU_PPU_DATA_CUBE_IN_CHANNEL)) + 1u;
    p->wout = NPU_PPU_DATA_CUBE_OUT_WIDTH_OUT_WIDTH_GET(R(t, NPU_PPU_DATA_CUBE_OUT_WIDTH)) + 1u;
    p->hout = NPU_PPU_DATA_CUBE_OUT_HEIGHT_OUT_HEIGHT_GET(R(t, NPU_PPU_DATA_CUBE_OUT_HEIGHT)) + 1u;
    p->out_line = p->wout + NPU_PPU_OPERATION_MODE_CFG_NOTCH_ADDR_GET(mode);
    if (NPU_PPU_DATA_CUBE_OUT_CHANNEL_OUT_CHANNEL_GET(R(t, NPU_PPU_DATA_CUBE_OUT_CHANNEL)) + 1u !=
        p->c)
        return vnpu_inconsistent(t, NPU_PPU_DATA_CUBE_OUT_CHANNEL, NPU_PPU_DATA_CUBE_IN_CHANNEL,
                                 "pooling changes the channel count");
    if (NPU_PPU_RDMA_CUBE_IN_WIDTH_IN_WIDTH_GET(R(t, NPU_PPU_RDMA_CUBE_IN_WIDTH)) + 1u != p->win ||
        NPU_PPU_RDMA_CUBE_IN_HEIGHT_IN_HEIGHT_GET(R(t, NPU_PPU_RDMA_CUBE_IN_HEIGHT)) + 1u !=
            p->hin ||
        NPU_PPU_RDMA_CUBE_IN_CHANNEL_IN_CHANNEL_GET(R(t, NPU_PPU_RDMA_CUBE_IN_CHANNEL)) + 1u !=
            p->c)
        return vnpu_inconsistent(t, NPU_PPU_RDMA_CUBE_IN_WIDTH, NPU_PPU_DATA_CUBE_IN_WIDTH,
                                 "PPU_RDMA and PPU input cubes differ");
    p->kw = NPU_PPU_POOLING_KERNEL_CFG_KERNEL_WIDTH_GET(kc) + 1u;
    p->kh = NPU_PPU_POOLING_KERNEL_CFG_KERNEL_HEIGHT_GET(kc) + 1u;
    p->sw = NPU_PPU_POOLING_KERNEL_CFG_KERNEL_STRIDE_WIDTH_GET(kc) + 1u;
    p->sh = NPU_PPU_POOLING_KERNEL_CFG_KERNEL_STRIDE_HEIGHT_GET(kc) + 1u;
    p->pl = NPU_PPU_POOLING_PADDING_CFG_PAD_LEFT_GET(pc);
    p->pt = NPU_PPU_POOLING_PADDING_CFG_PAD_TOP_GET(pc);
    p->pr = NPU_PPU_POOLING_PADDING_CFG_PAD_RIGHT_GET(pc);
    p->pb = NPU_PPU_POOLING_PADDING_CFG_PAD_BOTTOM_GET(pc);
    if ((uint64_t)(p->wout - 1u) * p->sw + p->kw > (uint64_t)p->win + p->pl + p->pr ||
        (uint64_t)(p->hout - 1u) * p->sh + p->kh > (uint64_t)p->hin + p->pt + p->pb)
        return vnpu_inconsistent(t, NPU_PPU_DATA_CUBE_OUT_WIDTH, NPU_PPU_POOLING_KERNEL_CFG,
                                 "a pooling window does not fit input + padding (the PPU "
                                 "stalls, hardware.md §1.10)");
    p->line = R(t, NPU_PPU_RDMA_SRC_LINE_STRIDE);
    p->surf = R(t, NPU_PPU_RDMA_SRC_SURF_STRIDE);
    p->dsurf = R(t, NPU_PPU_DST_SURF_STRIDE);
    p->pad_i = (int8_t)(uint8_t)pv;
    p->pad_f = vnpu_f16_to_f32((uint16_t)pv);
    p->rw = NPU_PPU_RECIP_KERNEL_WIDTH_RECIP_KERNEL_WIDTH_GET(R(t, NPU_PPU_RECIP_KERNEL_WIDTH));
    p->rh = NPU_PPU_RECIP_KERNEL_HEIGHT_RECIP_KERNEL_HEIGHT_GET(R(t, NPU_PPU_RECIP_KERNEL_HEIGHT));
    return 0;
}

int vnpu_ppu_task(vnpu_task *t)
{
    vnpu_pool p;
    uint32_t atom = t->cfg->atom, c2, c1;
    const uint8_t *src;
    uint8_t *dst;

    if (vnpu_pool_decode(t, &p) != 0)
        return -1;
    c2 = atom / p.elem;
    c1 = (p.c + c2 - 1u) / c2;
    if (p.line < (uint64_t)p.win * atom)
        return vnpu_unsupported(t, NPU_PPU_RDMA_SRC_LINE_STRIDE,
                                "a line stride shorter than the input width");
    if (c1 > 1 &&
        (p.surf < (uint64_t)p.hin * p.line || p.dsurf < (uint64_t)p.hout * p.out_line * atom))
        return vnpu_unsupported(t, NPU_PPU_RDMA_SRC_SURF_STRIDE,
                                "surface strides shorter than one surface");
    src = vnpu_dma_read(t, R(t, NPU_PPU_RDMA_SRC_BASE_ADDR),
                        (uint64_t)(c1 - 1u) * p.surf + (uint64_t)(p.hin - 1u) * p.line +
                            (uint64_t)p.win * atom,
                        "PPU_RDMA input");
    if (src == NULL)
        return -1;
    dst = vnpu_dma_write(t, R(t, NPU_PPU_DST_BASE_ADDR),
                         (uint64_t)(c1 - 1u) * p.dsurf +
                             ((uint64_t)(p.hout - 1u) * p.out_line + p.wout) * atom,
                         "PPU write", 0);
    if (dst == NULL)
        return -1;
    for (uint32_t c = 0; c < p.c; c++) {
        const uint8_t *s = src + (size_t)(c / c2) * p.surf + (size_t)(c % c2) * p.elem;
        uint8_t *d = dst + (size_t)(c / c2) * p.dsurf + (size_t)(c % c2) * p.elem;
        for (uint32_t oy = 0; oy < p.hout; oy++) {
            for (uint32_t ox = 0; ox < p.wout; ox++) {
                int64_t acc = p.method == 1 ? INT64_MIN : (p.method == 2 ? INT64_MAX : 0);
                float facc = 0.0f;
                int first = 1;
                for (uint32_t ky = 0; ky < p.kh; ky++) {
                    for (uint32_t kx = 0; kx < p.kw; kx++) {
                        int64_t iy = (int64_t)oy * p.sh + ky - p.pt;
                        int64_t ix = (int64_t)ox * p.sw + kx - p.pl;
                        int inside = iy >= 0 && ix >= 0 && iy < p.hin && ix < p.win;
                        const uint8_t *e =
                            inside ? s + (size_t)iy * p.line + (size_t)ix * atom : NULL;
                        if (p.fp) {
                            float v = e ? vnpu_f16_to_f32(vnpu_ld16(e)) : p.pad_f;
                            if (p.method == 0)
                                facc += v;
                            else if (first || (p.method == 1 ? v > facc : v < facc))
                                facc = v;
                        } else {
                            int64_t v = e ? (int8_t)e[0] : p.pad_i;
                            if (p.method == 0)
                                acc += v;
                            else if (p.method == 1 ? v > acc : v < acc)
                                acc = v;
                        }
                        first = 0;
                    }
                }
                uint8_t *o = d + ((size_t)oy * p.out_line + ox) * atom;
                if (p.fp) {
                    if (p.method == 0)
                        facc *= vnpu_f16_to_f32((uint16_t)p.rw) * vnpu_f16_to_f32((uint16_t)p.rh);
                    vnpu_st16(o, vnpu_f32_to_f16(facc));
                } else {
                    if (p.method == 0)
                        acc = vnpu_shift_round(acc * (int64_t)p.rw * (int64_t)p.rh, 32, 0);
                    o[0] = (uint8_t)(int8_t)vnpu_clamp64(acc, -128, 127);
                }
            }
        }
    }
    return 0;
}
