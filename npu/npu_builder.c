/*
 * npu_builder.c - register command streams built by rknpu-bm itself (see
 * npu_builder.h).
 */
#include <string.h>

#include "npu_builder.h"
#include "npu_builder_internal.h"
#include "npu_regcmd.h"
#include "npu_regs.h"

void npu_task_begin(npu_task_words *t, const npu_soc_profile *soc, uint32_t enable,
                    uint32_t int_mask)
{
    t->soc = soc;
    t->n = 0;
    t->enable = enable;
    t->int_mask = int_mask;
    t->overflow = 0;
}

void npu_task_raw(npu_task_words *t, uint64_t w)
{
    if (t->n < NPU_BUILDER_MAX_WORDS)
        t->words[t->n++] = w;
    else
        t->overflow = 1;
}

void npu_task_reg(npu_task_words *t, uint32_t table_off, uint32_t value)
{
    uint32_t soc_off = npu_soc_from_table_offset(t->soc, table_off);
    int block = npu_block_of_offset(table_off);

    npu_task_raw(
        t, npu_regcmd_make(npu_block_target((enum npu_block)block), (uint16_t)soc_off, value));
}

/* Writes values[i] to regs[i], i < n, in order. The emitters below keep a
 * block's registers in a table and compute its values into an array in the
 * same order: one loop instead of a call per register (footprint). */
static void emit_regs(npu_task_words *t, const uint16_t *regs, const uint32_t *values, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        npu_task_reg(t, regs[i], values[i]);
}

#define N_REGS(regs) ((unsigned)(sizeof(regs) / sizeof(regs)[0]))

/* Zeros to the n registers from table offset `first` up: the unused
 * registers the vendor's streams clear in every CNA/DPU task (its matmul
 * streams: docs/hardware.md §4.6). */
static void emit_zeros(npu_task_words *t, uint32_t first, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        npu_task_reg(t, first + 4u * i, 0);
}

/* The DPU's output cube and its BS -> BN -> EW -> OUT_CVT epilogue. */
void npu_emit_dpu_output(npu_task_words *t, const npu_conv_desc *c, uint32_t w, uint32_t h,
                         uint32_t ch, uint32_t atoms)
{
    uint32_t size_e = NPU_DPU_BS_OW_CFG_SIZE_E_0(atoms - 1u) |
                      NPU_DPU_BS_OW_CFG_SIZE_E_1(atoms - 1u) |
                      NPU_DPU_BS_OW_CFG_SIZE_E_2(atoms - 1u);

    static const uint16_t regs[] = {
        NPU_DPU_DST_BASE_ADDR,
        NPU_DPU_DST_SURF_STRIDE,
        NPU_DPU_DATA_CUBE_WIDTH,
        NPU_DPU_DATA_CUBE_HEIGHT,
        NPU_DPU_DATA_CUBE_NOTCH_ADDR,
        NPU_DPU_DATA_CUBE_CHANNEL,
        NPU_DPU_BS_CFG,
        NPU_DPU_BS_ALU_CFG,
        NPU_DPU_BS_MUL_CFG,
        NPU_DPU_BS_RELUX_CMP_VALUE,
        NPU_DPU_BS_OW_CFG,
        NPU_DPU_BS_OW_OP,
        NPU_DPU_BN_CFG,
        NPU_DPU_BN_ALU_CFG,
        NPU_DPU_BN_MUL_CFG,
        NPU_DPU_BN_RELUX_CMP_VALUE,
        NPU_DPU_EW_CFG,
        NPU_DPU_EW_CVT_OFFSET_VALUE,
        NPU_DPU_EW_CVT_SCALE_VALUE,
        NPU_DPU_EW_RELUX_CMP_VALUE,
        NPU_DPU_OUT_CVT_OFFSET,
        NPU_DPU_OUT_CVT_SCALE,
        NPU_DPU_OUT_CVT_SHIFT,
    };
    const uint32_t values[] = {
        /* DST_BASE_ADDR */ c->out_addr,
        /* DST_SURF_STRIDE */ c->out_surf,
        /* DATA_CUBE_WIDTH */ w - 1u,
        /* DATA_CUBE_HEIGHT */ h - 1u,
        /* DATA_CUBE_NOTCH_ADDR: NOTCH_ADDR_0 and _1 both, as every stream */
        c->out_notch * (NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0(1) |
                        NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_1(1)),
        /* DATA_CUBE_CHANNEL */
        NPU_DPU_DATA_CUBE_CHANNEL_ORIG_CHANNEL(ch - 1u) |
            NPU_DPU_DATA_CUBE_CHANNEL_CHANNEL(ch - 1u),
        /* BS_CFG */ c->bs_cfg,
        /* BS_ALU_CFG */ c->bs_alu,
        /* BS_MUL_CFG */ c->bs_mul_cfg,
        /* BS_RELUX_CMP_VALUE */ c->bs_relux,
        /* BS_OW_CFG: SIZE_E = atoms - 1 is 2^n - 1, a caller's SIZE_E of 0 or 1 is absorbed */
        c->bs_ow_cfg | size_e,
        /* BS_OW_OP */ c->bs_ow_op,
        /* BN_CFG */ c->bn_cfg,
        /* BN_ALU_CFG */ c->bn_alu,
        /* BN_MUL_CFG */ c->bn_mul_cfg,
        /* BN_RELUX_CMP_VALUE */ c->bn_relux,
        /* EW_CFG */ c->ew_cfg,
        /* EW_CVT_OFFSET_VALUE */ c->ew_cvt_off,
        /* EW_CVT_SCALE_VALUE */ c->ew_cvt_scale,
        /* EW_RELUX_CMP_VALUE */ c->ew_relux,
        /* OUT_CVT_OFFSET */ c->oc_offset,
        /* OUT_CVT_SCALE */ c->oc_scale,
        /* OUT_CVT_SHIFT */ c->oc_shift,
    };

    _Static_assert(N_REGS(regs) == N_REGS(values), "a value for each register");
    emit_regs(t, regs, values, 12);   /* up to BS_OW_OP */
    if (!npu_soc_is_rk356x(t->soc)) { /* RK3588: the write DMA's cube, as the vendor writes it */
        npu_task_reg(t, NPU_DPU_WDMA_SIZE_0, ch - 1u);
        npu_task_reg(t, NPU_DPU_WDMA_SIZE_1,
                     NPU_DPU_WDMA_SIZE_1_HEIGHT_WDMA(h - 1u) |
                         NPU_DPU_WDMA_SIZE_1_WIDTH_WDMA(w - 1u));
    }
    emit_regs(t, regs + 12, values + 12, N_REGS(regs) - 12u);
}

uint32_t npu_dpu_data_format(const npu_conv_desc *c, uint32_t in_prec)
{
    return NPU_DPU_DATA_FORMAT_OUT_PRECISION(c->out_prec) |
           NPU_DPU_DATA_FORMAT_IN_PRECISION(in_prec) |
           NPU_DPU_DATA_FORMAT_BS_MUL_SHIFT_VALUE_NEG(c->bs_neg_shift) |
           NPU_DPU_DATA_FORMAT_PROC_PRECISION(in_prec);
}

/* The EW operand stream: off when EW is bypassed, else per-pixel data. */
uint32_t npu_erdma_cfg(const npu_conv_desc *c)
{
    if (NPU_DPU_EW_CFG_EW_BYPASS_GET(c->ew_cfg))
        return NPU_DPU_RDMA_ERDMA_CFG_ERDMA_DISABLE(1);
    return NPU_DPU_RDMA_ERDMA_CFG_DATA_MODE(1) |
           NPU_DPU_RDMA_ERDMA_CFG_ERDMA_DATA_SIZE(c->erdma_size);
}

void npu_conv_defaults(npu_conv_desc *c)
{
    memset(c, 0, sizeof *c);
    c->sx = c->sy = 1;
    /* every DPU stage bypassed; output widths SIZE_E 1 */
    c->bs_cfg = NPU_DPU_BS_CFG_BS_BYPASS(1) | NPU_DPU_BS_CFG_BS_ALU_BYPASS(1) |
                NPU_DPU_BS_CFG_BS_MUL_BYPASS(1) | NPU_DPU_BS_CFG_BS_RELU_BYPASS(1);
    c->bs_ow_cfg = NPU_DPU_BS_OW_CFG_OD_BYPASS(1) | NPU_DPU_BS_OW_CFG_SIZE_E_0(1) |
                   NPU_DPU_BS_OW_CFG_SIZE_E_1(1) | NPU_DPU_BS_OW_CFG_SIZE_E_2(1);
    c->bn_cfg = NPU_DPU_BN_CFG_BN_BYPASS(1) | NPU_DPU_BN_CFG_BN_ALU_BYPASS(1) |
                NPU_DPU_BN_CFG_BN_MUL_BYPASS(1) | NPU_DPU_BN_CFG_BN_RELU_BYPASS(1);
    c->ew_cfg = NPU_DPU_EW_CFG_EW_BYPASS(1) | NPU_DPU_EW_CFG_EW_OP_BYPASS(1) |
                NPU_DPU_EW_CFG_EW_LUT_BYPASS(1) | NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS(1) |
                NPU_DPU_EW_CFG_EW_RELU_BYPASS(1);
    c->ew_cvt_scale = 1;
    c->oc_scale = 1;
}

/* ---- convolution: one emitter per register block ----------------------------- */

/* CNA: the convolution's shape, its CBUF split, the input converter and the
 * feature/weight DMA. prec is the CNA/CORE precision code (0 int8, 2 fp16). */
static void emit_cna(npu_task_words *t, const npu_conv_desc *c, int rk356x, uint32_t prec)
{
    uint32_t elem = c->fp16 ? 2u : 1u, atom = t->soc->feature_atom_bytes;
    /* int4: half a byte an element; a pixel's bytes rounded up to 32 in
     * the CBUF, as the vendor's int4 streams count them (vnpu.md §6.3) */
    uint32_t wbytes = c->kh * c->kw * c->cin * elem / (1u + c->int4);
    uint32_t px_bytes = c->int4 ? (c->cin / 2u + 31u) & ~31u : c->cin * elem;
    uint32_t in_surf_atoms = c->in_surf ? c->in_surf / atom : c->win * c->hin;
    /* RK356x: fp16 processed as 4 (0x220), as every RK356x vendor stream writes it */
    uint32_t proc_prec = rk356x ? 2u * prec : prec;
    uint32_t con1 = NPU_CNA_CONV_CON1_CONV_MODE(c->depthwise ? 3u : 0u) |
                    NPU_CNA_CONV_CON1_IN_PRECISION(prec) |
                    NPU_CNA_CONV_CON1_PROC_PRECISION(proc_prec);
    uint32_t entries, line, surf; /* CBUF_CON1, DMA_CON1, DMA_CON2 */

    if (c->argb) {
        con1 |=
            NPU_CNA_CONV_CON1_ARGB_IN(7u + c->cin_real) |
            (rk356x ? 0u : NPU_CNA_CONV_CON1_GROUP_LINE_OFF(1) | NPU_CNA_CONV_CON1_NONALIGN_DMA(1));
        entries = rk356x ? NPU_CNA_CBUF_CON1_RK356X_DATAIN_WIDTH(c->argb_pitch_px) |
                               NPU_CNA_CBUF_CON1_DATA_ENTRIES(32u)
                         : NPU_CNA_CBUF_CON1_DATA_ENTRIES(c->hin * c->argb_pitch_px);
        line = c->win;
        surf = c->win * (c->hin - 1u);
    } else {
        /* entries holding a line of every channel: 64 bytes each, 32 and
         * the line's width beside them on RK356x (hardware.md §4.4) */
        entries = rk356x ? NPU_CNA_CBUF_CON1_RK356X_DATAIN_WIDTH(c->win) |
                               NPU_CNA_CBUF_CON1_DATA_ENTRIES((c->win * c->cin * elem + 31u) / 32u)
                         : NPU_CNA_CBUF_CON1_DATA_ENTRIES((c->win * px_bytes + 63u) / 64u);
        if (rk356x) {
            line = c->in_line ? c->in_line : c->win;
            surf = in_surf_atoms;
        } else if (c->in_line) {
            /* one line a group, the next surface SURF_STRIDE atoms after the
             * line's W (hardware.md §4.2: the matmul API's row-major A) */
            con1 |= NPU_CNA_CONV_CON1_GROUP_LINE_OFF(1);
            line = c->in_line;
            surf = in_surf_atoms - c->win;
        } else {
            /* group-line form (hardware.md §4.2): line = 4W atoms, surface = line + surf */
            line = 4u * c->win;
            surf = NPU_CNA_DMA_CON2_SURF_STRIDE(in_surf_atoms - 4u * c->win);
        }
    }
    static const uint16_t regs[] = {
        NPU_CNA_CONV_CON1,    NPU_CNA_CONV_CON2,     NPU_CNA_CONV_CON3,
        NPU_CNA_DATA_SIZE0,   NPU_CNA_DATA_SIZE1,    NPU_CNA_DATA_SIZE2,
        NPU_CNA_DATA_SIZE3,   NPU_CNA_WEIGHT_SIZE0,  NPU_CNA_WEIGHT_SIZE1,
        NPU_CNA_WEIGHT_SIZE2, NPU_CNA_CBUF_CON0,     NPU_CNA_CBUF_CON1,
        NPU_CNA_CVT_CON0,     NPU_CNA_CVT_CON1,      NPU_CNA_CVT_CON2,
        NPU_CNA_CVT_CON3,     NPU_CNA_CVT_CON4,      NPU_CNA_FC_CON0,
        NPU_CNA_FC_CON1,      NPU_CNA_PAD_CON0,      NPU_CNA_FEATURE_DATA_ADDR,
        NPU_CNA_FC_CON2,      NPU_CNA_DMA_CON0,      NPU_CNA_DMA_CON1,
        NPU_CNA_DMA_CON2,     NPU_CNA_FC_DATA_SIZE0, NPU_CNA_FC_DATA_SIZE1,
        NPU_CNA_DCOMP_CTRL,   NPU_CNA_DCOMP_REGNUM,  NPU_CNA_DCOMP_ADDR0,
    };
    /* identity converter: scale 1, offset 0; bit 0 means bypass on RK3588 and
     * enable on RK356x (the virtual NPU's reading of the vendor streams) */
    uint32_t cvt_scale1 = NPU_CNA_CVT_CON1_CVT_SCALE0(1); /* CVT_CON1..4 share one layout */
    const uint32_t values[] = {
        /* CONV_CON1 */ con1,
        /* CONV_CON2: the rows buffered first; RK356x's vendor matmul streams all of them */
        NPU_CNA_CONV_CON2_FEATURE_GRAINS(c->grains ? c->grains : c->hin + (rk356x ? 0u : 1u)),
        /* CONV_CON3 */
        NPU_CNA_CONV_CON3_CONV_X_STRIDE(c->sx) | NPU_CNA_CONV_CON3_CONV_Y_STRIDE(c->sy),
        /* DATA_SIZE0 */
        NPU_CNA_DATA_SIZE0_DATAIN_WIDTH(c->win) | NPU_CNA_DATA_SIZE0_DATAIN_HEIGHT(c->hin),
        /* DATA_SIZE1 */
        NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL_REAL(c->cin_real - 1u) |
            NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL(c->cin),
        /* DATA_SIZE2 */ c->wout,
        /* DATA_SIZE3 */ c->wout * c->hout,
        /* WEIGHT_SIZE0 */ c->depthwise ? wbytes : wbytes * c->nker,
        /* WEIGHT_SIZE1 */ wbytes,
        /* WEIGHT_SIZE2 */
        NPU_CNA_WEIGHT_SIZE2_WEIGHT_WIDTH(c->kw) | NPU_CNA_WEIGHT_SIZE2_WEIGHT_HEIGHT(c->kh) |
            NPU_CNA_WEIGHT_SIZE2_WEIGHT_KERNELS(c->depthwise ? 1u : c->nker),
        /* CBUF_CON0 */
        NPU_CNA_CBUF_CON0_DATA_BANK(c->data_banks ? c->data_banks : 8u) |
            NPU_CNA_CBUF_CON0_WEIGHT_BANK(c->weight_banks ? c->weight_banks : 4u),
        /* CBUF_CON1 */ entries,
        /* CVT_CON0 */
        c->cvt_con0 ? c->cvt_con0
                    : NPU_CNA_CVT_CON0_CVT_BYPASS(rk356x ? 0u : 1u) | NPU_CNA_CVT_CON0_CVT_TYPE(1) |
                          NPU_CNA_CVT_CON0_DATA_SIGN(1),
        /* CVT_CON1 */ c->cvt_con0 ? c->cvt_con[0] : cvt_scale1,
        /* CVT_CON2 */ c->cvt_con0 ? c->cvt_con[1] : cvt_scale1,
        /* CVT_CON3 */ c->cvt_con0 ? c->cvt_con[2] : cvt_scale1,
        /* CVT_CON4 */ c->cvt_con0 ? c->cvt_con[3] : cvt_scale1,
        /* FC_CON0 */ 0,
        /* FC_CON1 */ 0,
        /* PAD_CON0 */
        NPU_CNA_PAD_CON0_PAD_LEFT(c->pl) | NPU_CNA_PAD_CON0_PAD_TOP(c->pt) |
            (rk356x ? NPU_CNA_PAD_CON0_RK356X_PAD_VALUE(c->pad_value) : 0),
        /* FEATURE_DATA_ADDR */ c->in_addr,
        /* FC_CON2 */ 0,
        /* DMA_CON0 */
        rk356x ? NPU_CNA_DMA_CON0_DATA_BURST_LEN(7) | NPU_CNA_DMA_CON0_RK356X_UNDOC_12_10(7) |
                     NPU_CNA_DMA_CON0_WEIGHT_BURST_LEN(7) | NPU_CNA_DMA_CON0_UNDOC_20(1)
               : NPU_CNA_DMA_CON0_DATA_BURST_LEN(15) | NPU_CNA_DMA_CON0_WEIGHT_BURST_LEN(15),
        /* DMA_CON1 */ line,
        /* DMA_CON2 */ surf,
        /* FC_DATA_SIZE0 */
        NPU_CNA_FC_DATA_SIZE0_DMA_WIDTH(c->dma_w ? c->dma_w : c->win) |
            NPU_CNA_FC_DATA_SIZE0_DMA_HEIGHT(c->hin),
        /* FC_DATA_SIZE1 */ c->dma_c ? c->dma_c : c->cin,
        /* DCOMP_CTRL */ 0,
        /* DCOMP_REGNUM */ 0,
        /* DCOMP_ADDR0 */ c->w_addr,
    };

    _Static_assert(N_REGS(regs) == N_REGS(values), "a value for each register");
    emit_regs(t, regs, values, 3); /* CONV_CON1..3 */
    if (rk356x)
        npu_task_reg(t, NPU_CNA_UNDOC_1018, 0);
    emit_regs(t, regs + 3, values + 3, N_REGS(regs) - 3u);
    if (rk356x) { /* the RK356x CNA's unused registers */
        emit_zeros(t, NPU_CNA_UNDOC_1114, 15);
        emit_zeros(t, NPU_CNA_UNDOC_1210, 9);
    } else { /* DCOMP_AMOUNT0..15, CVT_CON5, then PAD_CON1 */
        emit_zeros(t, NPU_CNA_DCOMP_AMOUNT0, 17);
        npu_task_reg(t, NPU_CNA_PAD_CON1, c->pad_value);
    }
}

/* CORE (and on RK356x the CMAC in front of it): MAC mode and the output
 * cube; QD_EN on for fp16 too, CLIP_TRUNCATE on RK3588 only, as the vendor's
 * matmul streams write them (docs/hardware.md §4.6). */
static void emit_core(npu_task_words *t, const npu_conv_desc *c, int rk356x, uint32_t prec)
{
    if (rk356x) {
        npu_task_reg(t, NPU_CMAC_MISC_CFG,
                     NPU_CMAC_MISC_CFG_QD_EN(1) | NPU_CMAC_MISC_CFG_DW_EN((uint32_t)c->depthwise) |
                         NPU_CMAC_MISC_CFG_FP16((uint32_t)c->fp16));
        npu_task_reg(t, NPU_CORE_MISC_CFG, NPU_CORE_MISC_CFG_RK356X_FP16((uint32_t)c->fp16));
    } else {
        npu_task_reg(t, NPU_CORE_MISC_CFG,
                     NPU_CORE_MISC_CFG_QD_EN(1) | NPU_CORE_MISC_CFG_DW_EN((uint32_t)c->depthwise) |
                         NPU_CORE_MISC_CFG_PROC_PRECISION(prec));
    }
    npu_task_reg(t, NPU_CORE_DATAOUT_SIZE_0,
                 NPU_CORE_DATAOUT_SIZE_0_DATAOUT_HEIGHT(c->hout - 1u) |
                     NPU_CORE_DATAOUT_SIZE_0_DATAOUT_WIDTH(c->wout - 1u));
    npu_task_reg(t, NPU_CORE_DATAOUT_SIZE_1, c->kout - 1u);
    if (!rk356x)
        npu_task_reg(t, NPU_CORE_CLIP_TRUNCATE, 0);
    npu_task_reg(t, NPU_CORE_UNDOC_3030, 0);
}

/* DPU: mode and precisions, then the output cube, its epilogue and the
 * surface step of one MAC kernel group. */
static void emit_dpu(npu_task_words *t, const npu_conv_desc *c, int rk356x, uint32_t prec)
{
    /* output pixels of one MAC kernel group (32 int8 / 16 fp16 / 64 int4 kernels on
     * 16-byte atoms, half both on RK356x): SIZE_E + 1 and the SURFACE_ADD
     * factor (hardware.md §4.5; every vendor stream follows it). A pixel is
     * an atom, but 16 bytes for RK356x 32-bit outputs, as its vendor
     * streams write them. */
    uint32_t atoms = (c->out_prec >= 4 ? 4u
                      : c->out_prec    ? 2u
                                       : 1u) *
                     (c->fp16   ? 1u
                      : c->int4 ? 4u
                                : 2u) *
                     (c->depthwise ? 2u : 1u) /
                     (rk356x && c->out_prec >= 4 && !c->depthwise ? 2u : 1u);

    npu_task_reg(
        t, NPU_DPU_FEATURE_MODE_CFG,
        c->fm_extra |
            (rk356x ? NPU_DPU_FEATURE_MODE_CFG_CONV_MODE(1) | NPU_DPU_FEATURE_MODE_CFG_BURST_LEN(8)
                    : NPU_DPU_FEATURE_MODE_CFG_OUTPUT_MODE(2) |
                          NPU_DPU_FEATURE_MODE_CFG_BURST_LEN(15) |
                          NPU_DPU_FEATURE_MODE_CFG_CONV_MODE(c->depthwise ? 3u : 0u)));
    npu_task_reg(t, NPU_DPU_DATA_FORMAT, npu_dpu_data_format(c, prec));
    npu_task_reg(t, NPU_DPU_OFFSET_PEND, 0);
    npu_emit_dpu_output(t, c, c->wout, c->hout, c->kout, atoms);
    emit_zeros(t, NPU_DPU_EW_OP_VALUE_0, 8);
    npu_task_reg(t, NPU_DPU_SURFACE_ADD, c->out_surf * atoms);
    emit_zeros(t, NPU_DPU_UNDOC_40C4, 1);
    emit_zeros(t, NPU_DPU_LUT_ACCESS_CFG, 12); /* the LUT unused */
}

/* DPU_RDMA: the BS and EW operand streams; MRDMA off unless COMB_USE feeds
 * it (hardware.md §1.9). */
static void emit_dpu_rdma(npu_task_words *t, const npu_conv_desc *c, int rk356x)
{
    uint32_t fm = NPU_DPU_RDMA_FEATURE_MODE_CFG_BURST_LEN(rk356x ? 8u : 15u);

    if (!rk356x)
        fm |= c->comb_use ? NPU_DPU_RDMA_FEATURE_MODE_CFG_COMB_USE(c->comb_use)
                          : NPU_DPU_RDMA_FEATURE_MODE_CFG_MRDMA_DISABLE(1);
    static const uint16_t regs[] = {
        NPU_DPU_RDMA_DATA_CUBE_WIDTH, NPU_DPU_RDMA_DATA_CUBE_HEIGHT, NPU_DPU_RDMA_DATA_CUBE_CHANNEL,
        NPU_DPU_RDMA_SRC_BASE_ADDR,   NPU_DPU_RDMA_BRDMA_CFG,        NPU_DPU_RDMA_BS_BASE_ADDR,
        NPU_DPU_RDMA_NRDMA_CFG,       NPU_DPU_RDMA_ERDMA_CFG,        NPU_DPU_RDMA_EW_BASE_ADDR,
        NPU_DPU_RDMA_EW_SURF_STRIDE,  NPU_DPU_RDMA_FEATURE_MODE_CFG, NPU_DPU_RDMA_WEIGHT,
    };
    const uint32_t values[] = {
        /* DATA_CUBE_WIDTH */ c->wout - 1u,
        /* DATA_CUBE_HEIGHT */ c->hout - 1u,
        /* DATA_CUBE_CHANNEL */ c->kout - 1u,
        /* SRC_BASE_ADDR */ c->src_addr,
        /* BRDMA_CFG */
        c->brdma_use ? NPU_DPU_RDMA_BRDMA_CFG_BRDMA_DATA_USE(c->brdma_use)
                     : NPU_DPU_RDMA_BRDMA_CFG_BRDMA_DISABLE(1),
        /* BS_BASE_ADDR */ c->bs_addr,
        /* NRDMA_CFG */ NPU_DPU_RDMA_NRDMA_CFG_NRDMA_DISABLE(1),
        /* ERDMA_CFG */ npu_erdma_cfg(c),
        /* EW_BASE_ADDR */ c->ew_addr,
        /* EW_SURF_STRIDE */ c->ew_surf,
        /* FEATURE_MODE_CFG */ fm,
        /* WEIGHT */
        NPU_DPU_RDMA_WEIGHT_WEIGHT_M(1) | NPU_DPU_RDMA_WEIGHT_WEIGHT_B(1) |
            NPU_DPU_RDMA_WEIGHT_WEIGHT_N(1) | NPU_DPU_RDMA_WEIGHT_WEIGHT_E(1),
    };

    _Static_assert(N_REGS(regs) == N_REGS(values), "a value for each register");
    emit_regs(t, regs, values, N_REGS(regs));
}

/* A convolution task: CNA, CORE (with CMAC on RK356x), DPU and, when it is
 * enabled, DPU_RDMA; the shared precision and SoC variant computed once. */
void npu_build_conv(npu_task_words *t, const npu_soc_profile *soc, const npu_conv_desc *c)
{
    int rk356x = npu_soc_is_rk356x(soc);
    uint32_t prec = c->fp16 ? 2u : c->int4 ? 6u : 0u;
    /* DPU_RDMA only for an operand stream: the vendor's matmul tasks leave it
     * out of the op-enable mask otherwise (hardware.md §1.9) */
    int rdma = c->brdma_use != 0 || !NPU_DPU_EW_CFG_EW_BYPASS_GET(c->ew_cfg);

    npu_task_begin(t, soc,
                   NPU_UNIT_CNA | NPU_UNIT_CORE | NPU_UNIT_DPU | (rk356x ? NPU_UNIT_CMAC : 0) |
                       (rdma ? NPU_UNIT_DPU_RDMA : 0),
                   DPU_DONE);
    /* the ping-pong pointers the vendor's streams set: every unit's on RK356x */
    if (rk356x) {
        npu_task_reg(t, NPU_CNA_S_POINTER, NPU_S_POINTER_PP_ARM);
        npu_task_reg(t, NPU_CMAC_S_POINTER, NPU_S_POINTER_PP_ARM);
        npu_task_reg(t, NPU_CORE_S_POINTER, NPU_S_POINTER_PP_ARM);
    }
    npu_task_reg(t, NPU_DPU_S_POINTER, NPU_S_POINTER_PP_ARM);
    if (rdma)
        npu_task_reg(t, NPU_DPU_RDMA_S_POINTER, NPU_S_POINTER_PP_ARM);
    emit_cna(t, c, rk356x, prec);
    emit_core(t, c, rk356x, prec);
    emit_dpu(t, c, rk356x, prec);
    if (rdma)
        emit_dpu_rdma(t, c, rk356x);
}

/* ---- chains ------------------------------------------------------------------ */

static size_t task_span(const npu_task_words *t)
{
    /* body + tail + one word of PC over-fetch, 64-byte aligned */
    return ((t->n + NPU_PC_TAIL_WORDS + 1u) * 8u + 63u) & ~(size_t)63u;
}

size_t npu_chain_bytes(const npu_task_words *tasks, unsigned n)
{
    size_t bytes = 0;

    for (unsigned i = 0; i < n; i++)
        bytes += task_span(&tasks[i]);
    return bytes;
}

static void put64(uint8_t *buf, size_t word, uint64_t w)
{
    for (unsigned b = 0; b < 8; b++)
        buf[word * 8u + b] = (uint8_t)(w >> (8u * b));
}

void npu_put_le32(uint8_t *p, uint32_t v)
{
    for (unsigned b = 0; b < 4; b++)
        p[b] = (uint8_t)(v >> (8u * b));
}

static void write_record(uint8_t *r, const npu_task_words *t, uint32_t offset)
{
    memset(r, 0, NPU_TASK_RECORD_SIZE);
    npu_put_le32(r + NPU_TASK_ENABLE_MASK, t->enable);
    npu_put_le32(r + NPU_TASK_INT_MASK, t->int_mask);
    npu_put_le32(r + NPU_TASK_INT_CLEAR, t->soc->int_clear_all);
    npu_put_le32(r + NPU_TASK_REGCFG_AMOUNT, t->n);
    npu_put_le32(r + NPU_TASK_REGCMD_ADDR, offset); /* relative to the stream */
}

int npu_chain_write(const npu_task_words *tasks, unsigned n, uint8_t *stream, uint32_t stream_dma,
                    size_t cap, uint8_t *records)
{
    size_t at = 0, bytes = npu_chain_bytes(tasks, n);

    if (n == 0 || bytes > cap)
        return -1;
    for (unsigned i = 0; i < n; i++)
        if (tasks[i].overflow) /* refused before anything is written */
            return -1;
    memset(stream, 0, bytes);
    for (unsigned i = 0; i < n; i++) {
        const npu_task_words *t = &tasks[i];
        size_t next = at + task_span(t), w = at / 8u;
        unsigned scale = t->soc->pc_data_amount_scale;
        int last = i + 1 == n; /* the chain ends here: no link, nothing to fetch */
        for (unsigned j = 0; j < t->n; j++)
            put64(stream, w++, t->words[j]);
        put64(stream, w++,
              last ? npu_regcmd_nop() : npu_regcmd_next_address(stream_dma + (uint32_t)next));
        /* the last task's amount word: 0 on RK356x, as the vendor's streams end */
        put64(stream, w++,
              last && npu_soc_is_rk356x(t->soc)
                  ? 0
                  : npu_regcmd_next_amount(last ? 0 : npu_pc_fetch_amount(tasks[i + 1].n, scale)));
        put64(stream, w++, npu_regcmd_pre_enable());
        put64(stream, w++, npu_regcmd_op_enable(t->enable));
        write_record(records + (size_t)i * NPU_TASK_RECORD_SIZE, t, (uint32_t)at);
        at = next;
    }
    return 0;
}
