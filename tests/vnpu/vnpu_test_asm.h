/*
 * vnpu_test_asm.h - a small register-program assembler for the virtual NPU
 * tests: a DMA arena, task bodies built word by word, chains with the PC
 * tail (hw.md §1.5), the BSP submit sequence (hw.md §3.2), the completion
 * poll (hw.md §3.3), and a convolution/flying-DPU/pooling register recipe
 * following the layouts documented in shared/docs/hw.md §4 and
 * notes/vnpu-streams.md (§5-§7). It shares no code with the model: register
 * values are written from the documents, data layouts are packed here.
 */
#ifndef VNPU_TEST_ASM_H
#define VNPU_TEST_ASM_H

#include <stdint.h>
#include <string.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "vnpu.h"

#define TASM_MAX_WORDS 256u

/* ---- DMA arena -------------------------------------------------------------- */

typedef struct {
    uint8_t *host;
    uint32_t base; /* NPU address of host[0] */
    uint32_t size;
    uint32_t used;
} tasm_mem;

static inline void tasm_mem_init(tasm_mem *m, uint8_t *host, uint32_t base, uint32_t size)
{
    m->host = host;
    m->base = base;
    m->size = size;
    m->used = 0;
    memset(host, 0, size);
}

/* NPU address of a fresh, zeroed block (0 when the arena is full). */
static inline uint32_t tasm_alloc(tasm_mem *m, uint32_t bytes, uint32_t align)
{
    uint32_t at = (m->used + align - 1u) / align * align;

    if (at > m->size || bytes > m->size - at)
        return 0;
    m->used = at + bytes;
    memset(m->host + at, 0, bytes);
    return m->base + at;
}

static inline uint8_t *tasm_host(const tasm_mem *m, uint32_t addr)
{
    return m->host + (addr - m->base);
}

/* ---- task bodies ------------------------------------------------------------- */

typedef struct {
    const npu_soc_profile *soc;
    uint64_t words[TASM_MAX_WORDS];
    unsigned n;
    uint32_t enable;   /* op-enable unit mask */
    uint32_t int_mask; /* completion interrupt (rknpu_task.int_mask) */
} tasm_task;

static inline void tasm_task_init(tasm_task *t, const npu_soc_profile *soc, uint32_t enable,
                                  uint32_t int_mask)
{
    t->soc = soc;
    t->n = 0;
    t->enable = enable;
    t->int_mask = int_mask;
}

static inline void tasm_raw(tasm_task *t, uint64_t w)
{
    if (t->n < TASM_MAX_WORDS)
        t->words[t->n++] = w;
}

/* One register write, given its RK3588-layout (table) offset; the word
 * carries this SoC's offset and the block's target id. */
static inline void tasm_reg(tasm_task *t, uint32_t table_off, uint32_t value)
{
    uint32_t soc_off = npu_soc_from_table_offset(t->soc, table_off);
    int block = npu_block_of_offset(table_off);

    tasm_raw(t, npu_regcmd_make(npu_block_target((enum npu_block)block), (uint16_t)soc_off, value));
}

static inline int tasm_is_rk356x(const npu_soc_profile *soc)
{
    return soc->id == RKNPU_SOC_RK3566 || soc->id == RKNPU_SOC_RK3568;
}

/* Little-endian word i of a regcmd buffer. */
static inline void tasm_store64(uint8_t *buf, unsigned i, uint64_t w)
{
    for (unsigned b = 0; b < 8; b++)
        buf[(size_t)i * 8u + b] = (uint8_t)(w >> (8u * b));
}

/* Body words + 4 tail words rounded to the PC fetch unit; tasks start
 * 64-byte aligned. Returns the regcmd address of tasks[0] and fills the
 * first fetch amount. */
static inline uint32_t tasm_place_chain(tasm_mem *m, const tasm_task *tasks, unsigned ntasks,
                                        uint32_t *first_amount)
{
    uint32_t addr[16];
    unsigned scale = tasks[0].soc->pc_data_amount_scale;

    for (unsigned i = 0; i < ntasks && i < 16; i++) {
        uint32_t words = tasks[i].n + NPU_PC_TAIL_WORDS;
        addr[i] = tasm_alloc(m, (words + 1u) * 8u, 64);
    }
    for (unsigned i = 0; i < ntasks && i < 16; i++) {
        uint8_t *w = tasm_host(m, addr[i]);
        unsigned n = 0;
        for (unsigned j = 0; j < tasks[i].n; j++)
            tasm_store64(w, n++, tasks[i].words[j]);
        if (i + 1 < ntasks) {
            tasm_store64(w, n++, npu_regcmd_next_address(addr[i + 1]));
            tasm_store64(w, n++, npu_regcmd_next_amount(npu_pc_fetch_amount(tasks[i + 1].n, scale)));
        } else {
            tasm_store64(w, n++, npu_regcmd_nop());
            tasm_store64(w, n++, npu_regcmd_next_amount(0));
        }
        tasm_store64(w, n++, npu_regcmd_pre_enable());
        tasm_store64(w, n++, npu_regcmd_op_enable(tasks[i].enable));
    }
    *first_amount = npu_pc_fetch_amount(tasks[0].n, scale);
    return addr[0];
}

/* ---- submit and poll (hw.md §3.2, §3.3) ------------------------------------- */

/* The BSP's fold of each 2-bit block group. */
static inline uint32_t tasm_fuzz(uint32_t s)
{
    static const uint32_t groups[6] = {0x003, 0x00C, 0x030, 0x0C0, 0x300, 0xC00};
    uint32_t r = 0;

    for (unsigned i = 0; i < 6; i++)
        if (s & groups[i])
            r |= groups[i];
    return r;
}

static inline void tasm_kick(vnpu_device *dev, unsigned core, uint32_t regcmd, uint32_t amount,
                             uint32_t ntasks, uint32_t first_mask, uint32_t last_mask)
{
    const npu_soc_profile *soc = dev->soc;

    vnpu_mmio_write(dev, core, NPU_PC_DATA_ADDR, 1); /* slave mode */
    if (soc->multi_irq) {
        vnpu_mmio_write(dev, core, NPU_CNA_S_POINTER, 0xEu + 0x10000000u * core);
        vnpu_mmio_write(dev, core, NPU_CORE_S_POINTER, 0xEu + 0x10000000u * core);
    }
    vnpu_mmio_write(dev, core, NPU_PC_DATA_ADDR, regcmd);
    vnpu_mmio_write(dev, core, NPU_PC_DATA_AMOUNT, amount);
    vnpu_mmio_write(dev, core, NPU_PC_INTERRUPT_MASK, last_mask);
    vnpu_mmio_write(dev, core, NPU_PC_INTERRUPT_CLEAR, first_mask);
    vnpu_mmio_write(dev, core, NPU_PC_TASK_CON, npu_soc_task_con(soc, ntasks, false));
    vnpu_mmio_write(dev, core, NPU_PC_TASK_DMA_BASE_ADDR, 0);
    vnpu_mmio_write(dev, core, NPU_PC_OPERATION_ENABLE, 1);
    vnpu_mmio_write(dev, core, NPU_PC_OPERATION_ENABLE, 0);
}

/* Place a chain, kick it on `core`, poll like a driver. Returns 0 when
 * fuzz(INT_STATUS) equals the last task's mask (then clears everything),
 * -1 on DMA error bits, -2 when nothing completed within `polls`. */
static inline int tasm_run(vnpu_device *dev, unsigned core, tasm_mem *m, const tasm_task *tasks,
                           unsigned ntasks)
{
    uint32_t amount, regcmd = tasm_place_chain(m, tasks, ntasks, &amount);
    uint32_t last = tasks[ntasks - 1].int_mask;

    tasm_kick(dev, core, regcmd, amount, ntasks, tasks[0].int_mask, last);
    for (int i = 0; i < 100; i++) {
        uint32_t st = vnpu_mmio_read(dev, core, NPU_PC_INTERRUPT_STATUS);
        uint32_t raw = vnpu_mmio_read(dev, core, NPU_PC_INTERRUPT_RAW_STATUS);
        if (raw & 0x3000u) {
            vnpu_mmio_write(dev, core, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
            return -1;
        }
        if (tasm_fuzz(st) == last) {
            vnpu_mmio_write(dev, core, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
            return 0;
        }
    }
    return -2;
}

/* ---- recipes ------------------------------------------------------------------ */

/* Convolution (CNA + CORE + DPU [+ DPU_RDMA]) parameters. Addresses are NPU
 * addresses; "pad" counts are padded/aligned values chosen by the caller. */
typedef struct {
    int fp16, depthwise, argb;
    uint32_t hin, win, cin_real, cin;   /* cin: DATAIN_CHANNEL (padded) */
    uint32_t argb_pitch_px;             /* packed-input row pitch in pixels */
    uint32_t nker, kh, kw, sx, sy, pt, pl;
    uint32_t hout, wout, kout;          /* kout: CORE/DPU channels (padded) */
    uint32_t in_addr, w_addr, out_addr, out_surf;
    uint32_t pad_value;                 /* int8 in the low byte, or fp16 bits */
    uint32_t cvt_con0, cvt_con[4];      /* input converter (0 = identity per SoC) */
    /* DPU */
    uint32_t out_prec;                  /* 0 int8, 1 int16, 2 fp16, 4 int32, 5 fp32 */
    uint32_t bs_cfg, bs_alu, bs_mul_cfg, bs_relux, bs_ow_cfg, bs_ow_op;
    uint32_t bn_cfg, bn_alu, bn_mul_cfg, bn_relux;
    uint32_t bs_addr, brdma_use;        /* BS operand stream (brdma_use = DATA_USE bits) */
    uint32_t ew_cfg, ew_cvt_off, ew_cvt_scale, ew_relux;
    uint32_t ew_addr, ew_surf, erdma_size, comb_use, src_addr;
    uint32_t oc_offset, oc_scale, oc_shift;
    uint32_t bs_neg_shift;
} tasm_conv;

/* Defaults: every DPU stage bypassed, OUT_CVT identity. */
static inline void tasm_conv_defaults(tasm_conv *c)
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

static inline void tasm_conv_task(tasm_task *t, const npu_soc_profile *soc, const tasm_conv *c)
{
    int rk356x = tasm_is_rk356x(soc);
    uint32_t prec = c->fp16 ? 2u : 0u, elem = c->fp16 ? 2u : 1u;
    uint32_t atom = soc->feature_atom_bytes;
    int rdma = c->brdma_use != 0 || !(c->ew_cfg & 1u);
    uint32_t enable = NPU_UNIT_CNA | NPU_UNIT_CORE | NPU_UNIT_DPU |
                      (rk356x ? NPU_UNIT_CMAC : 0) | (rdma || !rk356x ? NPU_UNIT_DPU_RDMA : 0);
    uint32_t con1 = (c->depthwise ? 3u : 0u) | (prec << 4) | (prec << 7);
    uint32_t wbytes = c->kh * c->kw * c->cin * elem;

    tasm_task_init(t, soc, enable, 0x300);
    if (c->argb)
        con1 |= (7u + c->cin_real) << 12 | (rk356x ? 0u : (1u << 29 | 1u << 30));
    tasm_reg(t, NPU_DPU_S_POINTER, 0xE);
    tasm_reg(t, NPU_DPU_RDMA_S_POINTER, 0xE);
    tasm_reg(t, NPU_CNA_CONV_CON1, con1);
    tasm_reg(t, NPU_CNA_CONV_CON2, (c->hin + 1u) << 4);
    tasm_reg(t, NPU_CNA_CONV_CON3, c->sx | c->sy << 3);
    tasm_reg(t, NPU_CNA_DATA_SIZE0, c->win << 16 | c->hin);
    tasm_reg(t, NPU_CNA_DATA_SIZE1, (c->cin_real - 1u) << 16 | c->cin);
    tasm_reg(t, NPU_CNA_DATA_SIZE2, c->wout);
    tasm_reg(t, NPU_CNA_DATA_SIZE3, c->wout * c->hout);
    tasm_reg(t, NPU_CNA_WEIGHT_SIZE0, c->depthwise ? wbytes : wbytes * c->nker);
    tasm_reg(t, NPU_CNA_WEIGHT_SIZE1, wbytes);
    tasm_reg(t, NPU_CNA_WEIGHT_SIZE2, c->kw << 24 | c->kh << 16 | (c->depthwise ? 1u : c->nker));
    tasm_reg(t, NPU_CNA_CBUF_CON0, 0x48);
    if (c->argb)
        tasm_reg(t, NPU_CNA_CBUF_CON1, rk356x ? (c->argb_pitch_px << 16 | 32u)
                                              : c->hin * c->argb_pitch_px);
    else
        tasm_reg(t, NPU_CNA_CBUF_CON1, (c->win * atom + 63u) / 64u);
    tasm_reg(t, NPU_CNA_CVT_CON0, c->cvt_con0 ? c->cvt_con0 : (rk356x ? 0xAu : 0xBu));
    for (unsigned i = 0; i < 4; i++)
        tasm_reg(t, NPU_CNA_CVT_CON1 + 4u * i, c->cvt_con0 ? c->cvt_con[i] : 0x10000u);
    tasm_reg(t, NPU_CNA_FC_CON0, 0);
    tasm_reg(t, NPU_CNA_FC_CON1, 0);
    tasm_reg(t, NPU_CNA_PAD_CON0, c->pl << 4 | c->pt | (rk356x ? (c->pad_value & 0xFFFFu) << 16 : 0));
    tasm_reg(t, NPU_CNA_FEATURE_DATA_ADDR, c->in_addr);
    tasm_reg(t, NPU_CNA_FC_CON2, 0);
    tasm_reg(t, NPU_CNA_DMA_CON0, rk356x ? 0x00171C07u : 0x000F000Fu);
    if (c->argb) {
        tasm_reg(t, NPU_CNA_DMA_CON1, c->win);
        tasm_reg(t, NPU_CNA_DMA_CON2, c->win * (c->hin - 1u));
    } else if (rk356x) {
        tasm_reg(t, NPU_CNA_DMA_CON1, c->win);
        tasm_reg(t, NPU_CNA_DMA_CON2, c->win * c->hin);
    } else {
        /* group-line form (hw.md §4.2): line = 4W atoms, surface = line + surf */
        tasm_reg(t, NPU_CNA_DMA_CON1, 4u * c->win);
        tasm_reg(t, NPU_CNA_DMA_CON2, (c->win * c->hin - 4u * c->win) & 0x0FFFFFFFu);
    }
    tasm_reg(t, NPU_CNA_FC_DATA_SIZE0, c->win << 16 | c->hin);
    tasm_reg(t, NPU_CNA_FC_DATA_SIZE1, c->cin);
    tasm_reg(t, NPU_CNA_DCOMP_CTRL, 0);
    tasm_reg(t, NPU_CNA_DCOMP_REGNUM, 0);
    tasm_reg(t, NPU_CNA_DCOMP_ADDR0, c->w_addr);
    if (!rk356x)
        tasm_reg(t, NPU_CNA_PAD_CON1, c->pad_value);
    /* CORE (and CMAC on RK356x) */
    if (rk356x) {
        tasm_reg(t, NPU_CMAC_S_POINTER, 0xE);
        tasm_reg(t, NPU_CMAC_MISC_CFG, 1u | (c->depthwise ? 2u : 0u) | (c->fp16 ? 0x2000u : 0u));
        tasm_reg(t, NPU_CORE_MISC_CFG, c->fp16 ? 0x2000u : 0u);
    } else {
        tasm_reg(t, NPU_CORE_MISC_CFG, (c->fp16 ? 0u : 1u) | (c->depthwise ? 2u : 0u) | prec << 8);
    }
    tasm_reg(t, NPU_CORE_DATAOUT_SIZE_0, (c->hout - 1u) << 16 | (c->wout - 1u));
    tasm_reg(t, NPU_CORE_DATAOUT_SIZE_1, c->kout - 1u);
    tasm_reg(t, NPU_CORE_CLIP_TRUNCATE, 0);
    /* DPU */
    tasm_reg(t, NPU_DPU_FEATURE_MODE_CFG, rk356x ? 0x108u : (0x1E4u | (c->depthwise ? 3u << 3 : 0u)));
    tasm_reg(t, NPU_DPU_DATA_FORMAT, c->out_prec << 29 | prec << 26 | c->bs_neg_shift << 4 | prec);
    tasm_reg(t, NPU_DPU_OFFSET_PEND, 0);
    tasm_reg(t, NPU_DPU_DST_BASE_ADDR, c->out_addr);
    tasm_reg(t, NPU_DPU_DST_SURF_STRIDE, c->out_surf);
    tasm_reg(t, NPU_DPU_DATA_CUBE_WIDTH, c->wout - 1u);
    tasm_reg(t, NPU_DPU_DATA_CUBE_HEIGHT, c->hout - 1u);
    tasm_reg(t, NPU_DPU_DATA_CUBE_NOTCH_ADDR, 0);
    tasm_reg(t, NPU_DPU_DATA_CUBE_CHANNEL, (c->kout - 1u) << 16 | (c->kout - 1u));
    tasm_reg(t, NPU_DPU_BS_CFG, c->bs_cfg);
    tasm_reg(t, NPU_DPU_BS_ALU_CFG, c->bs_alu);
    tasm_reg(t, NPU_DPU_BS_MUL_CFG, c->bs_mul_cfg);
    tasm_reg(t, NPU_DPU_BS_RELUX_CMP_VALUE, c->bs_relux);
    tasm_reg(t, NPU_DPU_BS_OW_CFG, c->bs_ow_cfg);
    tasm_reg(t, NPU_DPU_BS_OW_OP, c->bs_ow_op);
    tasm_reg(t, NPU_DPU_BN_CFG, c->bn_cfg);
    tasm_reg(t, NPU_DPU_BN_ALU_CFG, c->bn_alu);
    tasm_reg(t, NPU_DPU_BN_MUL_CFG, c->bn_mul_cfg);
    tasm_reg(t, NPU_DPU_BN_RELUX_CMP_VALUE, c->bn_relux);
    tasm_reg(t, NPU_DPU_EW_CFG, c->ew_cfg);
    tasm_reg(t, NPU_DPU_EW_CVT_OFFSET_VALUE, c->ew_cvt_off);
    tasm_reg(t, NPU_DPU_EW_CVT_SCALE_VALUE, c->ew_cvt_scale);
    tasm_reg(t, NPU_DPU_EW_RELUX_CMP_VALUE, c->ew_relux);
    tasm_reg(t, NPU_DPU_OUT_CVT_OFFSET, c->oc_offset);
    tasm_reg(t, NPU_DPU_OUT_CVT_SCALE, c->oc_scale);
    tasm_reg(t, NPU_DPU_OUT_CVT_SHIFT, c->oc_shift);
    tasm_reg(t, NPU_DPU_SURFACE_ADD, 0);
    /* DPU_RDMA */
    if (enable & NPU_UNIT_DPU_RDMA) {
        uint32_t fm = rk356x ? 0x4000u : (c->comb_use ? (0x7800u | c->comb_use << 8) : 0x7810u);
        tasm_reg(t, NPU_DPU_RDMA_DATA_CUBE_WIDTH, c->wout - 1u);
        tasm_reg(t, NPU_DPU_RDMA_DATA_CUBE_HEIGHT, c->hout - 1u);
        tasm_reg(t, NPU_DPU_RDMA_DATA_CUBE_CHANNEL, c->kout - 1u);
        tasm_reg(t, NPU_DPU_RDMA_SRC_BASE_ADDR, c->src_addr);
        tasm_reg(t, NPU_DPU_RDMA_BRDMA_CFG, c->brdma_use ? c->brdma_use << 1 : 1u);
        tasm_reg(t, NPU_DPU_RDMA_BS_BASE_ADDR, c->bs_addr);
        tasm_reg(t, NPU_DPU_RDMA_NRDMA_CFG, 1);
        tasm_reg(t, NPU_DPU_RDMA_ERDMA_CFG,
                 (c->ew_cfg & 1u) ? 1u : (1u << 30 | c->erdma_size << 2));
        tasm_reg(t, NPU_DPU_RDMA_EW_BASE_ADDR, c->ew_addr);
        tasm_reg(t, NPU_DPU_RDMA_EW_SURF_STRIDE, c->ew_surf);
        tasm_reg(t, NPU_DPU_RDMA_FEATURE_MODE_CFG, fm);
        tasm_reg(t, NPU_DPU_RDMA_WEIGHT, 0x01010101);
    }
}

/* DPU flying mode (DPU + DPU_RDMA, no CNA): int8 or fp16 cube of w x h
 * pixels and c <= C2 channels from src; epilogue registers as in `c`
 * (only the DPU fields are used). */
static inline void tasm_flying_task(tasm_task *t, const npu_soc_profile *soc, uint32_t in_prec,
                                    uint32_t w, uint32_t h, uint32_t ch, uint32_t src,
                                    const tasm_conv *c, int nonalign)
{
    int rk356x = tasm_is_rk356x(soc);
    uint32_t out_elem = c->out_prec == 0 ? 1u : (c->out_prec <= 3 ? 2u : 4u);
    uint32_t fm = rk356x ? 0x109u : 0x1E5u;

    if (nonalign)
        fm |= 1u << 25 | ((w * h * ch * out_elem / 8u) & 0xFFFFu) << 9;
    tasm_task_init(t, soc, NPU_UNIT_DPU | NPU_UNIT_DPU_RDMA, 0x300);
    tasm_reg(t, NPU_DPU_S_POINTER, 0xE);
    tasm_reg(t, NPU_DPU_RDMA_S_POINTER, 0xE);
    tasm_reg(t, NPU_DPU_FEATURE_MODE_CFG, fm);
    tasm_reg(t, NPU_DPU_DATA_FORMAT, c->out_prec << 29 | in_prec << 26 | c->bs_neg_shift << 4 | in_prec);
    tasm_reg(t, NPU_DPU_DST_BASE_ADDR, c->out_addr);
    tasm_reg(t, NPU_DPU_DST_SURF_STRIDE, c->out_surf);
    tasm_reg(t, NPU_DPU_DATA_CUBE_WIDTH, w - 1u);
    tasm_reg(t, NPU_DPU_DATA_CUBE_HEIGHT, h - 1u);
    tasm_reg(t, NPU_DPU_DATA_CUBE_NOTCH_ADDR, 0);
    tasm_reg(t, NPU_DPU_DATA_CUBE_CHANNEL, (ch - 1u) << 16 | (ch - 1u));
    tasm_reg(t, NPU_DPU_BS_CFG, c->bs_cfg);
    tasm_reg(t, NPU_DPU_BS_ALU_CFG, c->bs_alu);
    tasm_reg(t, NPU_DPU_BS_MUL_CFG, c->bs_mul_cfg);
    tasm_reg(t, NPU_DPU_BS_RELUX_CMP_VALUE, c->bs_relux);
    tasm_reg(t, NPU_DPU_BS_OW_CFG, c->bs_ow_cfg);
    tasm_reg(t, NPU_DPU_BS_OW_OP, c->bs_ow_op);
    tasm_reg(t, NPU_DPU_BN_CFG, c->bn_cfg);
    tasm_reg(t, NPU_DPU_BN_ALU_CFG, c->bn_alu);
    tasm_reg(t, NPU_DPU_BN_MUL_CFG, c->bn_mul_cfg);
    tasm_reg(t, NPU_DPU_BN_RELUX_CMP_VALUE, c->bn_relux);
    tasm_reg(t, NPU_DPU_EW_CFG, c->ew_cfg);
    tasm_reg(t, NPU_DPU_EW_CVT_OFFSET_VALUE, c->ew_cvt_off);
    tasm_reg(t, NPU_DPU_EW_CVT_SCALE_VALUE, c->ew_cvt_scale);
    tasm_reg(t, NPU_DPU_EW_RELUX_CMP_VALUE, c->ew_relux);
    tasm_reg(t, NPU_DPU_OUT_CVT_OFFSET, c->oc_offset);
    tasm_reg(t, NPU_DPU_OUT_CVT_SCALE, c->oc_scale);
    tasm_reg(t, NPU_DPU_OUT_CVT_SHIFT, c->oc_shift);
    tasm_reg(t, NPU_DPU_RDMA_DATA_CUBE_WIDTH, w - 1u);
    tasm_reg(t, NPU_DPU_RDMA_DATA_CUBE_HEIGHT, h - 1u);
    tasm_reg(t, NPU_DPU_RDMA_DATA_CUBE_CHANNEL, ch - 1u);
    tasm_reg(t, NPU_DPU_RDMA_SRC_BASE_ADDR, src);
    tasm_reg(t, NPU_DPU_RDMA_BRDMA_CFG, 1);
    tasm_reg(t, NPU_DPU_RDMA_NRDMA_CFG, 1);
    tasm_reg(t, NPU_DPU_RDMA_ERDMA_CFG, (c->ew_cfg & 1u) ? 1u : (1u << 30 | c->erdma_size << 2));
    tasm_reg(t, NPU_DPU_RDMA_EW_BASE_ADDR, c->ew_addr);
    tasm_reg(t, NPU_DPU_RDMA_EW_SURF_STRIDE, c->ew_surf);
    tasm_reg(t, NPU_DPU_RDMA_SRC_DMA_CFG, 0);
    /* flying, MRDMA on, PROC and IN precision */
    tasm_reg(t, NPU_DPU_RDMA_FEATURE_MODE_CFG, 1u | in_prec << 5 | 15u << 11 | in_prec << 15);
}

/* PPU pooling from PPU_RDMA (op-enable 0x60, int_mask 0xC00). method 0 avg,
 * 1 max, 2 min; elem 1 (int8) or 2 (fp16). */
typedef struct {
    uint32_t method, fp16;
    uint32_t win, hin, c, wout, hout, kw, kh, sw, sh, pl, pt, pr, pb;
    uint32_t src, line, surf, dst, dsurf;
    uint32_t pad_value, recip_w, recip_h;
} tasm_pool;

static inline void tasm_pool_task(tasm_task *t, const npu_soc_profile *soc, const tasm_pool *p)
{
    tasm_task_init(t, soc, NPU_UNIT_PPU | NPU_UNIT_PPU_RDMA, 0xC00);
    tasm_reg(t, NPU_PPU_S_POINTER, 0xE);
    tasm_reg(t, NPU_PPU_RDMA_S_POINTER, 0xE);
    tasm_reg(t, NPU_PPU_DATA_CUBE_IN_WIDTH, p->win - 1u);
    tasm_reg(t, NPU_PPU_DATA_CUBE_IN_HEIGHT, p->hin - 1u);
    tasm_reg(t, NPU_PPU_DATA_CUBE_IN_CHANNEL, p->c - 1u);
    tasm_reg(t, NPU_PPU_DATA_CUBE_OUT_WIDTH, p->wout - 1u);
    tasm_reg(t, NPU_PPU_DATA_CUBE_OUT_HEIGHT, p->hout - 1u);
    tasm_reg(t, NPU_PPU_DATA_CUBE_OUT_CHANNEL, p->c - 1u);
    tasm_reg(t, NPU_PPU_OPERATION_MODE_CFG, 1u << 4 | p->method);
    tasm_reg(t, NPU_PPU_POOLING_KERNEL_CFG,
             (p->kw - 1u) | (p->kh - 1u) << 8 | (p->sw - 1u) << 16 | (p->sh - 1u) << 20);
    tasm_reg(t, NPU_PPU_RECIP_KERNEL_WIDTH, p->recip_w);
    tasm_reg(t, NPU_PPU_RECIP_KERNEL_HEIGHT, p->recip_h);
    tasm_reg(t, NPU_PPU_POOLING_PADDING_CFG, p->pl | p->pt << 4 | p->pr << 8 | p->pb << 12);
    tasm_reg(t, NPU_PPU_PADDING_VALUE_1, p->pad_value);
    tasm_reg(t, NPU_PPU_PADDING_VALUE_2, 0);
    tasm_reg(t, NPU_PPU_DST_BASE_ADDR, p->dst);
    tasm_reg(t, NPU_PPU_DST_SURF_STRIDE, p->dsurf);
    tasm_reg(t, NPU_PPU_DATA_FORMAT, p->fp16 ? 2u : 0u);
    tasm_reg(t, NPU_PPU_MISC_CTRL, 3);
    tasm_reg(t, NPU_PPU_RDMA_CUBE_IN_WIDTH, p->win - 1u);
    tasm_reg(t, NPU_PPU_RDMA_CUBE_IN_HEIGHT, p->hin - 1u);
    tasm_reg(t, NPU_PPU_RDMA_CUBE_IN_CHANNEL, p->c - 1u);
    tasm_reg(t, NPU_PPU_RDMA_SRC_BASE_ADDR, p->src);
    tasm_reg(t, NPU_PPU_RDMA_SRC_LINE_STRIDE, p->line);
    tasm_reg(t, NPU_PPU_RDMA_SRC_SURF_STRIDE, p->surf);
    tasm_reg(t, NPU_PPU_RDMA_DATA_FORMAT, p->fp16 ? 2u : 1u);
}

#endif /* VNPU_TEST_ASM_H */
