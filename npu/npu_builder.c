/*
 * npu_builder.c - register command streams built by rknpu-bm itself (see
 * npu_builder.h).
 */
#include <string.h>

#include "npu_builder.h"
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

    npu_task_raw(t, npu_regcmd_make(npu_block_target((enum npu_block)block), (uint16_t)soc_off, value));
}

/* Defaults: every DPU stage bypassed, OUT_CVT identity. */
/* The DPU's output cube and its BS -> BN -> EW -> OUT_CVT epilogue. */
static void emit_dpu_output(npu_task_words *t, const npu_conv_desc *c, uint32_t w, uint32_t h,
                            uint32_t ch)
{
    npu_task_reg(t, NPU_DPU_DST_BASE_ADDR, c->out_addr);
    npu_task_reg(t, NPU_DPU_DST_SURF_STRIDE, c->out_surf);
    npu_task_reg(t, NPU_DPU_DATA_CUBE_WIDTH, w - 1u);
    npu_task_reg(t, NPU_DPU_DATA_CUBE_HEIGHT, h - 1u);
    npu_task_reg(t, NPU_DPU_DATA_CUBE_NOTCH_ADDR, 0);
    npu_task_reg(t, NPU_DPU_DATA_CUBE_CHANNEL, (ch - 1u) << 16 | (ch - 1u));
    npu_task_reg(t, NPU_DPU_BS_CFG, c->bs_cfg);
    npu_task_reg(t, NPU_DPU_BS_ALU_CFG, c->bs_alu);
    npu_task_reg(t, NPU_DPU_BS_MUL_CFG, c->bs_mul_cfg);
    npu_task_reg(t, NPU_DPU_BS_RELUX_CMP_VALUE, c->bs_relux);
    npu_task_reg(t, NPU_DPU_BS_OW_CFG, c->bs_ow_cfg);
    npu_task_reg(t, NPU_DPU_BS_OW_OP, c->bs_ow_op);
    npu_task_reg(t, NPU_DPU_BN_CFG, c->bn_cfg);
    npu_task_reg(t, NPU_DPU_BN_ALU_CFG, c->bn_alu);
    npu_task_reg(t, NPU_DPU_BN_MUL_CFG, c->bn_mul_cfg);
    npu_task_reg(t, NPU_DPU_BN_RELUX_CMP_VALUE, c->bn_relux);
    npu_task_reg(t, NPU_DPU_EW_CFG, c->ew_cfg);
    npu_task_reg(t, NPU_DPU_EW_CVT_OFFSET_VALUE, c->ew_cvt_off);
    npu_task_reg(t, NPU_DPU_EW_CVT_SCALE_VALUE, c->ew_cvt_scale);
    npu_task_reg(t, NPU_DPU_EW_RELUX_CMP_VALUE, c->ew_relux);
    npu_task_reg(t, NPU_DPU_OUT_CVT_OFFSET, c->oc_offset);
    npu_task_reg(t, NPU_DPU_OUT_CVT_SCALE, c->oc_scale);
    npu_task_reg(t, NPU_DPU_OUT_CVT_SHIFT, c->oc_shift);
}

void npu_conv_defaults(npu_conv_desc *c)
{
    memset(c, 0, sizeof *c);
    c->sx = c->sy = 1;
    c->bs_cfg = 0x53;
    c->bs_ow_cfg = 0x126; /* OD bypass */
    c->bn_cfg = 0x53;
    c->ew_cfg = 0x383;
    c->ew_cvt_scale = 1;
    c->oc_scale = 1;
}

void npu_build_conv(npu_task_words *t, const npu_soc_profile *soc, const npu_conv_desc *c)
{
    int rk356x = npu_soc_is_rk356x(soc);
    uint32_t prec = c->fp16 ? 2u : 0u, elem = c->fp16 ? 2u : 1u;
    uint32_t atom = soc->feature_atom_bytes;
    int rdma = c->brdma_use != 0 || !(c->ew_cfg & 1u);
    uint32_t enable = NPU_UNIT_CNA | NPU_UNIT_CORE | NPU_UNIT_DPU |
                      (rk356x ? NPU_UNIT_CMAC : 0) | (rdma || !rk356x ? NPU_UNIT_DPU_RDMA : 0);
    uint32_t con1 = (c->depthwise ? 3u : 0u) | (prec << 4) | (prec << 7);
    uint32_t wbytes = c->kh * c->kw * c->cin * elem;

    npu_task_begin(t, soc, enable, 0x300);
    if (c->argb)
        con1 |= (7u + c->cin_real) << 12 | (rk356x ? 0u : (1u << 29 | 1u << 30));
    npu_task_reg(t, NPU_DPU_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_DPU_RDMA_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_CNA_CONV_CON1, con1);
    npu_task_reg(t, NPU_CNA_CONV_CON2, (c->hin + 1u) << 4);
    npu_task_reg(t, NPU_CNA_CONV_CON3, c->sx | c->sy << 3);
    npu_task_reg(t, NPU_CNA_DATA_SIZE0, c->win << 16 | c->hin);
    npu_task_reg(t, NPU_CNA_DATA_SIZE1, (c->cin_real - 1u) << 16 | c->cin);
    npu_task_reg(t, NPU_CNA_DATA_SIZE2, c->wout);
    npu_task_reg(t, NPU_CNA_DATA_SIZE3, c->wout * c->hout);
    npu_task_reg(t, NPU_CNA_WEIGHT_SIZE0, c->depthwise ? wbytes : wbytes * c->nker);
    npu_task_reg(t, NPU_CNA_WEIGHT_SIZE1, wbytes);
    npu_task_reg(t, NPU_CNA_WEIGHT_SIZE2, c->kw << 24 | c->kh << 16 | (c->depthwise ? 1u : c->nker));
    npu_task_reg(t, NPU_CNA_CBUF_CON0, 0x48);
    if (c->argb)
        npu_task_reg(t, NPU_CNA_CBUF_CON1, rk356x ? (c->argb_pitch_px << 16 | 32u)
                                              : c->hin * c->argb_pitch_px);
    else
        npu_task_reg(t, NPU_CNA_CBUF_CON1, (c->win * atom + 63u) / 64u);
    npu_task_reg(t, NPU_CNA_CVT_CON0, c->cvt_con0 ? c->cvt_con0 : (rk356x ? 0xAu : 0xBu));
    for (unsigned i = 0; i < 4; i++)
        npu_task_reg(t, NPU_CNA_CVT_CON1 + 4u * i, c->cvt_con0 ? c->cvt_con[i] : 0x10000u);
    npu_task_reg(t, NPU_CNA_FC_CON0, 0);
    npu_task_reg(t, NPU_CNA_FC_CON1, 0);
    npu_task_reg(t, NPU_CNA_PAD_CON0, c->pl << 4 | c->pt | (rk356x ? (c->pad_value & 0xFFFFu) << 16 : 0));
    npu_task_reg(t, NPU_CNA_FEATURE_DATA_ADDR, c->in_addr);
    npu_task_reg(t, NPU_CNA_FC_CON2, 0);
    npu_task_reg(t, NPU_CNA_DMA_CON0, rk356x ? 0x00171C07u : 0x000F000Fu);
    if (c->argb) {
        npu_task_reg(t, NPU_CNA_DMA_CON1, c->win);
        npu_task_reg(t, NPU_CNA_DMA_CON2, c->win * (c->hin - 1u));
    } else if (rk356x) {
        npu_task_reg(t, NPU_CNA_DMA_CON1, c->win);
        npu_task_reg(t, NPU_CNA_DMA_CON2, c->win * c->hin);
    } else {
        /* group-line form (hw.md §4.2): line = 4W atoms, surface = line + surf */
        npu_task_reg(t, NPU_CNA_DMA_CON1, 4u * c->win);
        npu_task_reg(t, NPU_CNA_DMA_CON2, (c->win * c->hin - 4u * c->win) & 0x0FFFFFFFu);
    }
    npu_task_reg(t, NPU_CNA_FC_DATA_SIZE0, c->win << 16 | c->hin);
    npu_task_reg(t, NPU_CNA_FC_DATA_SIZE1, c->cin);
    npu_task_reg(t, NPU_CNA_DCOMP_CTRL, 0);
    npu_task_reg(t, NPU_CNA_DCOMP_REGNUM, 0);
    npu_task_reg(t, NPU_CNA_DCOMP_ADDR0, c->w_addr);
    if (!rk356x)
        npu_task_reg(t, NPU_CNA_PAD_CON1, c->pad_value);
    /* CORE (and CMAC on RK356x) */
    if (rk356x) {
        npu_task_reg(t, NPU_CMAC_S_POINTER, NPU_S_POINTER_PP_ARM);
        npu_task_reg(t, NPU_CMAC_MISC_CFG, 1u | (c->depthwise ? 2u : 0u) | (c->fp16 ? 0x2000u : 0u));
        npu_task_reg(t, NPU_CORE_MISC_CFG, c->fp16 ? 0x2000u : 0u);
    } else {
        npu_task_reg(t, NPU_CORE_MISC_CFG, (c->fp16 ? 0u : 1u) | (c->depthwise ? 2u : 0u) | prec << 8);
    }
    npu_task_reg(t, NPU_CORE_DATAOUT_SIZE_0, (c->hout - 1u) << 16 | (c->wout - 1u));
    npu_task_reg(t, NPU_CORE_DATAOUT_SIZE_1, c->kout - 1u);
    npu_task_reg(t, NPU_CORE_CLIP_TRUNCATE, 0);
    /* DPU */
    npu_task_reg(t, NPU_DPU_FEATURE_MODE_CFG, rk356x ? 0x108u : (0x1E4u | (c->depthwise ? 3u << 3 : 0u)));
    npu_task_reg(t, NPU_DPU_DATA_FORMAT, c->out_prec << 29 | prec << 26 | c->bs_neg_shift << 4 | prec);
    npu_task_reg(t, NPU_DPU_OFFSET_PEND, 0);
    emit_dpu_output(t, c, c->wout, c->hout, c->kout);
    npu_task_reg(t, NPU_DPU_SURFACE_ADD, 0);
    /* DPU_RDMA */
    if (enable & NPU_UNIT_DPU_RDMA) {
        uint32_t fm = rk356x ? 0x4000u : (c->comb_use ? (0x7800u | c->comb_use << 8) : 0x7810u);
        npu_task_reg(t, NPU_DPU_RDMA_DATA_CUBE_WIDTH, c->wout - 1u);
        npu_task_reg(t, NPU_DPU_RDMA_DATA_CUBE_HEIGHT, c->hout - 1u);
        npu_task_reg(t, NPU_DPU_RDMA_DATA_CUBE_CHANNEL, c->kout - 1u);
        npu_task_reg(t, NPU_DPU_RDMA_SRC_BASE_ADDR, c->src_addr);
        npu_task_reg(t, NPU_DPU_RDMA_BRDMA_CFG, c->brdma_use ? c->brdma_use << 1 : 1u);
        npu_task_reg(t, NPU_DPU_RDMA_BS_BASE_ADDR, c->bs_addr);
        npu_task_reg(t, NPU_DPU_RDMA_NRDMA_CFG, 1);
        npu_task_reg(t, NPU_DPU_RDMA_ERDMA_CFG,
                 (c->ew_cfg & 1u) ? 1u : (1u << 30 | c->erdma_size << 2));
        npu_task_reg(t, NPU_DPU_RDMA_EW_BASE_ADDR, c->ew_addr);
        npu_task_reg(t, NPU_DPU_RDMA_EW_SURF_STRIDE, c->ew_surf);
        npu_task_reg(t, NPU_DPU_RDMA_FEATURE_MODE_CFG, fm);
        npu_task_reg(t, NPU_DPU_RDMA_WEIGHT, 0x01010101);
    }
}

/* DPU flying mode (DPU + DPU_RDMA, no CNA): int8 or fp16 cube of w x h
 * pixels and c <= C2 channels from src; epilogue registers as in `c`
 * (only the DPU fields are used). */
void npu_build_flying(npu_task_words *t, const npu_soc_profile *soc, uint32_t in_prec,
                                    uint32_t w, uint32_t h, uint32_t ch, uint32_t src,
                                    const npu_conv_desc *c, int nonalign)
{
    int rk356x = npu_soc_is_rk356x(soc);
    uint32_t out_elem = c->out_prec == 0 ? 1u : (c->out_prec <= 3 ? 2u : 4u);
    uint32_t fm = rk356x ? 0x109u : 0x1E5u;

    if (nonalign)
        fm |= 1u << 25 | ((w * h * ch * out_elem / 8u) & 0xFFFFu) << 9;
    npu_task_begin(t, soc, NPU_UNIT_DPU | NPU_UNIT_DPU_RDMA, 0x300);
    npu_task_reg(t, NPU_DPU_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_DPU_RDMA_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_DPU_FEATURE_MODE_CFG, fm);
    npu_task_reg(t, NPU_DPU_DATA_FORMAT, c->out_prec << 29 | in_prec << 26 | c->bs_neg_shift << 4 | in_prec);
    emit_dpu_output(t, c, w, h, ch);
    npu_task_reg(t, NPU_DPU_RDMA_DATA_CUBE_WIDTH, w - 1u);
    npu_task_reg(t, NPU_DPU_RDMA_DATA_CUBE_HEIGHT, h - 1u);
    npu_task_reg(t, NPU_DPU_RDMA_DATA_CUBE_CHANNEL, ch - 1u);
    npu_task_reg(t, NPU_DPU_RDMA_SRC_BASE_ADDR, src);
    npu_task_reg(t, NPU_DPU_RDMA_BRDMA_CFG, 1);
    npu_task_reg(t, NPU_DPU_RDMA_NRDMA_CFG, 1);
    npu_task_reg(t, NPU_DPU_RDMA_ERDMA_CFG, (c->ew_cfg & 1u) ? 1u : (1u << 30 | c->erdma_size << 2));
    npu_task_reg(t, NPU_DPU_RDMA_EW_BASE_ADDR, c->ew_addr);
    npu_task_reg(t, NPU_DPU_RDMA_EW_SURF_STRIDE, c->ew_surf);
    npu_task_reg(t, NPU_DPU_RDMA_SRC_DMA_CFG, 0);
    /* flying, MRDMA on, PROC and IN precision */
    npu_task_reg(t, NPU_DPU_RDMA_FEATURE_MODE_CFG, 1u | in_prec << 5 | 15u << 11 | in_prec << 15);
}

void npu_build_pool(npu_task_words *t, const npu_soc_profile *soc, const npu_pool_desc *p)
{
    npu_task_begin(t, soc, NPU_UNIT_PPU | NPU_UNIT_PPU_RDMA, 0xC00);
    npu_task_reg(t, NPU_PPU_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_PPU_RDMA_S_POINTER, NPU_S_POINTER_PP_ARM);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_IN_WIDTH, p->win - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_IN_HEIGHT, p->hin - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_IN_CHANNEL, p->c - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_OUT_WIDTH, p->wout - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_OUT_HEIGHT, p->hout - 1u);
    npu_task_reg(t, NPU_PPU_DATA_CUBE_OUT_CHANNEL, p->c - 1u);
    npu_task_reg(t, NPU_PPU_OPERATION_MODE_CFG, 1u << 4 | p->method);
    npu_task_reg(t, NPU_PPU_POOLING_KERNEL_CFG,
             (p->kw - 1u) | (p->kh - 1u) << 8 | (p->sw - 1u) << 16 | (p->sh - 1u) << 20);
    npu_task_reg(t, NPU_PPU_RECIP_KERNEL_WIDTH, p->recip_w);
    npu_task_reg(t, NPU_PPU_RECIP_KERNEL_HEIGHT, p->recip_h);
    npu_task_reg(t, NPU_PPU_POOLING_PADDING_CFG, p->pl | p->pt << 4 | p->pr << 8 | p->pb << 12);
    npu_task_reg(t, NPU_PPU_PADDING_VALUE_1, p->pad_value);
    npu_task_reg(t, NPU_PPU_PADDING_VALUE_2, 0);
    npu_task_reg(t, NPU_PPU_DST_BASE_ADDR, p->dst);
    npu_task_reg(t, NPU_PPU_DST_SURF_STRIDE, p->dsurf);
    npu_task_reg(t, NPU_PPU_DATA_FORMAT, p->fp16 ? 2u : 0u);
    npu_task_reg(t, NPU_PPU_MISC_CTRL, 3);
    npu_task_reg(t, NPU_PPU_RDMA_CUBE_IN_WIDTH, p->win - 1u);
    npu_task_reg(t, NPU_PPU_RDMA_CUBE_IN_HEIGHT, p->hin - 1u);
    npu_task_reg(t, NPU_PPU_RDMA_CUBE_IN_CHANNEL, p->c - 1u);
    npu_task_reg(t, NPU_PPU_RDMA_SRC_BASE_ADDR, p->src);
    npu_task_reg(t, NPU_PPU_RDMA_SRC_LINE_STRIDE, p->line);
    npu_task_reg(t, NPU_PPU_RDMA_SRC_SURF_STRIDE, p->surf);
    npu_task_reg(t, NPU_PPU_RDMA_DATA_FORMAT, p->fp16 ? 2u : 1u);
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

static void put32(uint8_t *p, uint32_t v)
{
    for (unsigned b = 0; b < 4; b++)
        p[b] = (uint8_t)(v >> (8u * b));
}

static void write_record(uint8_t *r, const npu_task_words *t, uint32_t offset)
{
    memset(r, 0, NPU_TASK_RECORD_SIZE);
    put32(r + NPU_TASK_ENABLE_MASK, t->enable);
    put32(r + NPU_TASK_INT_MASK, t->int_mask);
    put32(r + NPU_TASK_INT_CLEAR, t->soc->int_clear_all);
    put32(r + NPU_TASK_REGCFG_AMOUNT, t->n);
    put32(r + NPU_TASK_REGCMD_ADDR, offset); /* relative to the stream */
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
        for (unsigned j = 0; j < t->n; j++)
            put64(stream, w++, t->words[j]);
        if (i + 1 < n) {
            put64(stream, w++, npu_regcmd_next_address(stream_dma + (uint32_t)next));
            put64(stream, w++, npu_regcmd_next_amount(npu_pc_fetch_amount(tasks[i + 1].n, scale)));
        } else {
            put64(stream, w++, npu_regcmd_nop()); /* the chain ends here */
            put64(stream, w++, npu_regcmd_next_amount(0));
        }
        put64(stream, w++, npu_regcmd_pre_enable());
        put64(stream, w++, npu_regcmd_op_enable(t->enable));
        write_record(records + (size_t)i * NPU_TASK_RECORD_SIZE, t, (uint32_t)at);
        at = next;
    }
    return 0;
}
