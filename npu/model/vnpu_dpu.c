/*
 * vnpu_dpu.c - the DPU core: the DPU (post-processing + write DMA) and the
 * parts of DPU_RDMA it consumes, checked and latched as a plan
 * (vnpu_dpu_prepare): BS stage (ALU add, OW·Σx, MUL + shift, ReLU/ReLU-X)
 * with operands from registers or the BRDMA stream, BN stage (registers or
 * the NRDMA stream), EW stage with an ERDMA (per pixel or per channel) or
 * register operand (incl. RK3588's MRDMA+ERDMA COMB_USE form), the LUT,
 * OUT_CVT, int8/int16/int32/fp16/fp32 writes in NC1HWC2 (one atom or, for
 * RK356x 32-bit outputs, 16 bytes a pixel; lines lengthened by the notch)
 * or NONALIGN (packed) form. The arithmetic is in vnpu_dpu_path.c, flying
 * mode (main input from MRDMA, several surfaces, fp32 through both engines)
 * in vnpu_dpu_fly.c and MRDMA unpooling in vnpu_dpu_unpool.c; they stand on
 * this file (vnpu_dpu_internal.h). Everything else (PReLU, EW MUL on
 * integers, per-channel EW register operands, regroup/transpose, DPU->PPU
 * fly, ...) is reported as not modelled.
 */
#include <string.h>

#include "vnpu_base.h"
#include "vnpu_dpu_internal.h"
#include "vnpu_units.h"

static vnpu_dpu_plan vnpu_plan;
int32_t vnpu_bs_alu[VNPU_DPU_MAX_CHANNELS];
int16_t vnpu_bs_ow[VNPU_DPU_MAX_CHANNELS];
static int16_t vnpu_bs_mul[VNPU_DPU_MAX_CHANNELS];
int32_t vnpu_bn_alu[VNPU_DPU_MAX_CHANNELS];
static int16_t vnpu_bn_mul[VNPU_DPU_MAX_CHANNELS];

/* The ALU algorithm: the RK3588 field, or on RK356x, where streams leave it
 * 0, the RK356X_ one (BS [3:2], EW [4:3]; vnpu.md §9). */
static unsigned vnpu_alu_algo(const vnpu_task *t, unsigned algo, unsigned algo_rk356x)
{
    return t->cfg->rk356x && algo == 0 ? algo_rk356x : algo;
}

/* BS or BN stage programming. `cfg_off`/`alu_off`/`mul_off`/`relux_off` are
 * the stage's registers; `bn` picks the BN negative shift of DATA_FORMAT. */
static int vnpu_stage_prepare(vnpu_task *t, vnpu_stage *s, uint32_t cfg_off, uint32_t alu_off,
                              uint32_t mul_off, uint32_t relux_off, int bn, int fp, int stream_ok)
{
    uint32_t cfg = R(t, cfg_off);
    uint32_t mul = R(t, mul_off);

    memset(s, 0, sizeof *s);
    /* BN_CFG and BN_MUL_CFG have BS_CFG's and BS_MUL_CFG's layouts (regs.def) */
    s->on = !NPU_DPU_BS_CFG_BS_BYPASS_GET(cfg);
    if (!s->on)
        return 0;
    s->alu = !NPU_DPU_BS_CFG_BS_ALU_BYPASS_GET(cfg);
    s->mul = !NPU_DPU_BS_CFG_BS_MUL_BYPASS_GET(cfg);
    s->relu = !NPU_DPU_BS_CFG_BS_RELU_BYPASS_GET(cfg);
    s->relux = (uint8_t)NPU_DPU_BS_CFG_BS_RELUX_EN_GET(cfg);
    if (NPU_DPU_BS_CFG_BS_MUL_PRELU_GET(cfg))
        return vnpu_unsupported(t, cfg_off, "PReLU (MUL_PRELU)");
    if (s->relux && !s->relu)
        return vnpu_unsupported(t, cfg_off, "ReLU-X with the ReLU bypassed");
    if (s->alu) {
        if (vnpu_alu_algo(t, NPU_DPU_BS_CFG_BS_ALU_ALGO_GET(cfg),
                          NPU_DPU_BS_CFG_RK356X_BS_ALU_ALGO_GET(cfg)) != 2)
            return vnpu_unsupported(t, cfg_off, "an ALU algorithm other than add (2)");
        s->alu_stream = (uint8_t)NPU_DPU_BS_CFG_BS_ALU_SRC_GET(cfg);
        if (s->alu_stream && !stream_ok)
            /* unreachable: both callers (vnpu_plan_build) pass stream_ok = 1 */
            return vnpu_unsupported(t, cfg_off, "this ALU operand stream");
        s->alu_reg = (int32_t)R(t, alu_off);
        s->f_alu = vnpu_f32_from_bits(R(t, alu_off));
    }
    if (s->mul) {
        s->mul_stream = (uint8_t)NPU_DPU_BS_MUL_CFG_BS_MUL_SRC_GET(mul);
        if (s->mul_stream && !stream_ok)
            /* unreachable: both callers (vnpu_plan_build) pass stream_ok = 1 */
            return vnpu_unsupported(t, mul_off, "this MUL operand stream");
        uint32_t fmt = R(t, NPU_DPU_DATA_FORMAT);
        if (NPU_DPU_BS_MUL_CFG_BS_TRUNCATE_SRC_GET(mul))
            return vnpu_unsupported(t, mul_off, "TRUNCATE_SRC");
        s->mul_reg = vnpu_sext(NPU_DPU_BS_MUL_CFG_BS_MUL_OPERAND_GET(mul), 16);
        s->f_mul = vnpu_f16_to_f32((uint16_t)NPU_DPU_BS_MUL_CFG_BS_MUL_OPERAND_GET(mul));
        s->shift_pos = NPU_DPU_BS_MUL_CFG_BS_MUL_SHIFT_VALUE_GET(mul);
        s->shift_neg = bn ? NPU_DPU_DATA_FORMAT_BN_MUL_SHIFT_VALUE_NEG_GET(fmt)
                          : NPU_DPU_DATA_FORMAT_BS_MUL_SHIFT_VALUE_NEG_GET(fmt);
        if (fp && (s->shift_pos || s->shift_neg))
            return vnpu_unsupported(t, mul_off, "a MUL shift on the fp16 path");
    }
    if (s->relux) {
        s->relux_cmp = (int32_t)R(t, relux_off);
        s->f_relux = vnpu_f32_from_bits(R(t, relux_off));
    }
    return 0;
}

/* BRDMA_DATA_USE: which operands the BS stream carries. */
enum { BS_USE_ALU = 1, BS_USE_OW = 2, BS_USE_MUL = 4, BS_USE_TRT = 8 };

/* A stage's per-channel operand stream (vnpu.md §7.1): BS from BRDMA at
 * BS_BASE_ADDR, BN from NRDMA at BN_BASE_ADDR (NRDMA_CFG has BRDMA_CFG's
 * layout). Groups of bs_group channels, each [g x int32 ALU][g x int16 OW]
 * [g x int16 MUL] with only the operands the DATA_USE field selects; on the
 * fp path ALU entries are fp32 and MUL entries fp16, one kind per stream. */
static int vnpu_stage_stream(vnpu_task *t, vnpu_dpu_plan *pl, vnpu_stage *st, int bn)
{
    uint32_t cfg_reg = bn ? NPU_DPU_RDMA_NRDMA_CFG : NPU_DPU_RDMA_BRDMA_CFG;
    uint32_t cfg = R(t, cfg_reg);
    unsigned use = NPU_DPU_RDMA_BRDMA_CFG_BRDMA_DATA_USE_GET(cfg);
    unsigned ua = !!(use & BS_USE_ALU), uo = !!(use & BS_USE_OW), um = !!(use & BS_USE_MUL);
    uint8_t ow_stream = bn ? 0 : pl->ow_stream;
    unsigned g = t->cfg->bs_group;
    uint32_t k = pl->k;
    uint32_t group_bytes = g * (4u * ua + 2u * uo + 2u * um);
    uint32_t ngroups = (k + g - 1u) / g;
    uint32_t last = k - (ngroups - 1u) * g;
    uint64_t need;
    const uint8_t *p;

    if (!(st->alu_stream || st->mul_stream || ow_stream))
        return 0;
    if (!(t->enable & NPU_UNIT_DPU_RDMA))
        return vnpu_unsupported(t, bn ? NPU_DPU_BN_CFG : NPU_DPU_BS_CFG,
                                "an operand stream without DPU_RDMA in the op-enable mask");
    if (NPU_DPU_RDMA_BRDMA_CFG_BRDMA_DISABLE_GET(cfg))
        return vnpu_inconsistent(t, bn ? NPU_DPU_BN_CFG : NPU_DPU_BS_CFG, cfg_reg,
                                 "operands from the stream but its read engine disabled");
    if (use & BS_USE_TRT)
        return vnpu_unsupported(t, cfg_reg, "the TRT (truncate) operand");
    if ((st->alu_stream && !ua) || (st->mul_stream && !um) || (ow_stream && !uo))
        return vnpu_inconsistent(t, bn ? NPU_DPU_BN_CFG : NPU_DPU_BS_CFG, cfg_reg,
                                 "an operand from the stream that DATA_USE omits");
    /* where the fp path puts several kinds in one stream is not known */
    if (pl->fp && (uo || ua + um > 1))
        return vnpu_unsupported(t, cfg_reg, "OW, or ALU and MUL together, in an fp16 stream");
    /* bytes up to the last channel's last operand */
    need = (uint64_t)(ngroups - 1u) * group_bytes;
    need += um ? g * (4u * ua + 2u * uo) + 2u * last : (uo ? g * 4u * ua + 2u * last : 4u * last);
    p = vnpu_dma_read(t, R(t, bn ? NPU_DPU_RDMA_BN_BASE_ADDR : NPU_DPU_RDMA_BS_BASE_ADDR), need,
                      bn ? "NRDMA (BN operand stream)" : "BRDMA (BS operand stream)");
    if (p == NULL)
        return -1;
    for (uint32_t ch = 0; ch < k; ch++) {
        const uint8_t *grp = p + (size_t)(ch / g) * group_bytes;
        unsigned j = ch % g;
        if (ua)
            st->alu_v[ch] = (int32_t)vnpu_ld32(grp + 4u * j);
        if (uo)
            vnpu_bs_ow[ch] = (int16_t)vnpu_ld16(grp + 4u * g * ua + 2u * j);
        if (um)
            st->mul_v[ch] = (int16_t)vnpu_ld16(grp + g * (4u * ua + 2u * uo) + 2u * j);
    }
    return 0;
}

/* Element precision of the ERDMA operand. */
static int vnpu_ew_operand_prec(vnpu_task *t, vnpu_dpu_plan *pl, unsigned *prec)
{
    unsigned size = NPU_DPU_RDMA_ERDMA_CFG_ERDMA_DATA_SIZE_GET(R(t, NPU_DPU_RDMA_ERDMA_CFG));

    if (pl->fp) {
        /* 16-bit: fp16 (vendor streams); 32-bit: fp32, the matmul API's K
         * partial sums (vnpu.md §7.1: inferred, no vendor stream has it) */
        if (size != 2 && (size != 3 || t->cfg->rk356x))
            return vnpu_unsupported(t, NPU_DPU_RDMA_ERDMA_CFG,
                                    "an fp-path EW operand that is not 16-bit or fp32");
        *prec = size == 3 ? VNPU_PREC_FP32 : VNPU_PREC_FP16;
        return 0;
    }
    if (t->cfg->rk356x) {
        if (size != 0) /* RK3566 streams write 0 for their 8-bit operand */
            return vnpu_unsupported(t, NPU_DPU_RDMA_ERDMA_CFG, "this RK356x ERDMA data size");
        *prec = VNPU_PREC_INT8;
        return 0;
    }
    switch (size) {
    case 1: *prec = VNPU_PREC_INT8; return 0;
    case 2: *prec = VNPU_PREC_INT16; return 0;
    case 3: *prec = VNPU_PREC_INT32; return 0;
    default: return vnpu_unsupported(t, NPU_DPU_RDMA_ERDMA_CFG, "a 4-bit EW operand");
    }
}

/* ---- LUT (vnpu.md §7.5) ---------------------------------------------------- */

int vnpu_dpu_lut_write(vnpu_task *t, uint32_t value)
{
    uint32_t cfg = R(t, NPU_DPU_LUT_ACCESS_CFG);
    uint32_t addr = NPU_DPU_LUT_ACCESS_CFG_LUT_ADDR_GET(cfg);

    if (!NPU_DPU_LUT_ACCESS_CFG_ACCESS_TYPE_GET(cfg))
        return 0; /* a read access: the streams write one dummy word with it */
    /* Toolkit-1.5 LUT loads write 514 words per table, the last a copy of
     * the second; the model drops writes past the table (what the hardware
     * does with them is not known: hardware.md §5.5). */
    if (addr >= VNPU_LUT_ENTRIES)
        return 0;
    t->core->lut[NPU_DPU_LUT_ACCESS_CFG_TABLE_ID_GET(cfg)][addr] =
        (int16_t)NPU_DPU_LUT_ACCESS_DATA_LUT_ACCESS_DATA_GET(value);
    vnpu_reg_set(t->core, NPU_DPU_LUT_ACCESS_CFG,
                 (cfg & ~NPU_DPU_LUT_ACCESS_CFG_LUT_ADDR_MASK) |
                     NPU_DPU_LUT_ACCESS_CFG_LUT_ADDR(addr + 1u));
    return 0;
}

/* scale / 2^shift: a 16-bit signed slope and its 5-bit shift. */
static float vnpu_lut_slope(uint32_t scale, uint32_t shift)
{
    return (float)(int16_t)scale * vnpu_pow2f(-(int)shift);
}

static int vnpu_lut_table_prepare(vnpu_task *t, vnpu_lut_table *tb, uint32_t start_off,
                                  uint32_t end_off, unsigned select, uint32_t scale_reg,
                                  uint32_t shift_reg)
{
    uint32_t scale = R(t, scale_reg), shift = R(t, shift_reg);

    tb->start = (int32_t)R(t, start_off);
    tb->end = (int32_t)R(t, end_off);
    if (select > 30)
        return vnpu_unsupported(t, NPU_DPU_LUT_INFO, "a LUT index select above 30");
    tb->step = (int64_t)vnpu_pow2f((int)select);
    if (tb->end < tb->start ||
        (int64_t)tb->end - tb->start > ((int64_t)VNPU_LUT_ENTRIES - 1) * tb->step)
        return vnpu_inconsistent(t, start_off, end_off,
                                 "a LUT window that its 513 entries do not cover");
    tb->select = select;
    tb->last = (uint32_t)(((int64_t)tb->end - tb->start) / tb->step);
    /* the LE and LO slope registers share one layout (regs.def) */
    tb->uflow_scale = (int16_t)NPU_DPU_LUT_LE_SLOPE_SCALE_LUT_LE_SLOPE_UFLOW_SCALE_GET(scale);
    tb->oflow_scale = (int16_t)NPU_DPU_LUT_LE_SLOPE_SCALE_LUT_LE_SLOPE_OFLOW_SCALE_GET(scale);
    tb->uflow_shift = NPU_DPU_LUT_LE_SLOPE_SHIFT_LUT_LE_SLOPE_UFLOW_SHIFT_GET(shift);
    tb->oflow_shift = NPU_DPU_LUT_LE_SLOPE_SHIFT_LUT_LE_SLOPE_OFLOW_SHIFT_GET(shift);
    tb->uflow_slope = vnpu_lut_slope((uint32_t)tb->uflow_scale, tb->uflow_shift);
    tb->oflow_slope = vnpu_lut_slope((uint32_t)tb->oflow_scale, tb->oflow_shift);
    return 0;
}

/* The LUT of the EW stage: two linear tables (LE below, LO above) joined in
 * the index domain, the form every toolkit stream seen uses. */
static int vnpu_lut_prepare(vnpu_task *t, vnpu_dpu_plan *pl)
{
    uint32_t cfg = R(t, NPU_DPU_LUT_CFG);
    uint32_t info = R(t, NPU_DPU_LUT_INFO);
    vnpu_lut *l = &pl->lut;

    if (NPU_DPU_LUT_CFG_ROAD_SEL_GET(cfg) || NPU_DPU_LUT_CFG_EXPAND_EN_GET(cfg) ||
        NPU_DPU_LUT_CFG_CAL_SEL_GET(cfg) || NPU_DPU_LUT_CFG_LO_LE_MUX_GET(cfg) != 2)
        return vnpu_unsupported(t, NPU_DPU_LUT_CFG,
                                "a LUT mode other than two linear tables (LO_LE_MUX 2)");
    if (info != (NPU_DPU_LUT_INFO_LE_INDEX_SELECT(NPU_DPU_LUT_INFO_LE_INDEX_SELECT_GET(info)) |
                 NPU_DPU_LUT_INFO_LO_INDEX_SELECT(NPU_DPU_LUT_INFO_LO_INDEX_SELECT_GET(info))))
        return vnpu_unsupported(t, NPU_DPU_LUT_INFO, "LUT_INFO bits besides the index selects");
    if (vnpu_lut_table_prepare(t, &l->table[0], NPU_DPU_LUT_LE_START, NPU_DPU_LUT_LE_END,
                               NPU_DPU_LUT_INFO_LE_INDEX_SELECT_GET(info),
                               NPU_DPU_LUT_LE_SLOPE_SCALE, NPU_DPU_LUT_LE_SLOPE_SHIFT) != 0 ||
        vnpu_lut_table_prepare(t, &l->table[1], NPU_DPU_LUT_LO_START, NPU_DPU_LUT_LO_END,
                               NPU_DPU_LUT_INFO_LO_INDEX_SELECT_GET(info),
                               NPU_DPU_LUT_LO_SLOPE_SCALE, NPU_DPU_LUT_LO_SLOPE_SHIFT) != 0)
        return -1;
    l->hybrid_lo = (uint8_t)NPU_DPU_LUT_CFG_HYBRID_PRIORITY_GET(cfg);
    l->uflow_lo = (uint8_t)NPU_DPU_LUT_CFG_UFLOW_PRIORITY_GET(cfg);
    l->oflow_lo = (uint8_t)NPU_DPU_LUT_CFG_OFLOW_PRIORITY_GET(cfg);
    l->entries = (const int16_t(*)[VNPU_LUT_ENTRIES])t->core->lut;
    pl->lut_on = 1;
    return 0;
}

/* An EW operand from the EW_OP_VALUE registers: one value for every channel
 * (which of the eight registers serves which channel is not known, so only
 * eight equal values are accepted). */
static int vnpu_ew_reg_operand(vnpu_task *t, vnpu_dpu_plan *pl)
{
    uint32_t v = R(t, NPU_DPU_EW_OP_VALUE_0);

    for (uint32_t i = 1; i < 8u; i++)
        if (R(t, NPU_DPU_EW_OP_VALUE_0 + 4u * i) != v)
            return vnpu_unsupported(t, NPU_DPU_EW_OP_VALUE_0 + 4u * i,
                                    "EW_OP_VALUE registers that differ");
    pl->ew_reg_operand = 1;
    pl->ew_reg_value = (int32_t)v;
    pl->ew_f_reg_value = vnpu_f32_from_bits(v);
    return 0;
}

/* The EW operation: MUL (fp16 path only) or the ALU algorithm. */
static int vnpu_ew_op_prepare(vnpu_task *t, vnpu_dpu_plan *pl, uint32_t ew)
{
    unsigned algo;

    if (NPU_DPU_EW_CFG_EW_OP_TYPE_GET(ew)) {
        if (!pl->fp)
            return vnpu_unsupported(t, NPU_DPU_EW_CFG, "EW MUL on the integer path");
        pl->ew_op = VNPU_EW_MUL;
    } else {
        algo = vnpu_alu_algo(t, NPU_DPU_EW_CFG_EW_ALU_ALGO_GET(ew),
                             NPU_DPU_EW_CFG_RK356X_EW_ALU_ALGO_GET(ew));
        switch (algo) {
        case 0: pl->ew_op = VNPU_EW_MAX; break;
        case 1: pl->ew_op = VNPU_EW_MIN; break;
        case 2: pl->ew_op = VNPU_EW_ADD; break;
        case 4: pl->ew_op = VNPU_EW_SUB; break;
        default: return vnpu_unsupported(t, NPU_DPU_EW_CFG, "this EW ALU algorithm");
        }
    }
    return 0;
}

/* The EW operand converter: on the fp16 path only the identity. */
static int vnpu_ew_cvt_prepare(vnpu_task *t, vnpu_dpu_plan *pl, uint32_t ew)
{
    pl->ew_cvt = !NPU_DPU_EW_CFG_EW_OP_CVT_BYPASS_GET(ew);
    if (pl->ew_cvt && pl->fp) {
        /* ab's hardware-tested fp16 elementwise recipe leaves the converter on
         * with offset 0 and scale unprogrammed (0) or 1: accepted as identity */
        uint32_t sc = R(t, NPU_DPU_EW_CVT_SCALE_VALUE);
        uint32_t scale = NPU_DPU_EW_CVT_SCALE_VALUE_EW_OP_CVT_SCALE_GET(sc);
        if (R(t, NPU_DPU_EW_CVT_OFFSET_VALUE) != 0 ||
            NPU_DPU_EW_CVT_SCALE_VALUE_EW_OP_CVT_SHIFT_GET(sc) != 0 ||
            NPU_DPU_EW_CVT_SCALE_VALUE_EW_TRUNCATE_GET(sc) != 0 ||
            (scale != 0 && scale != 1 && scale != 0x3C00))
            return vnpu_unsupported(t, NPU_DPU_EW_CVT_SCALE_VALUE,
                                    "a non-identity EW converter on the fp16 path");
        pl->ew_cvt = 0;
    }
    if (pl->ew_cvt) {
        uint32_t sc = R(t, NPU_DPU_EW_CVT_SCALE_VALUE);
        if (NPU_DPU_EW_CFG_EW_CVT_ROUND_GET(ew))
            return vnpu_unsupported(t, NPU_DPU_EW_CFG, "EW_CVT_ROUND = 1");
        if (NPU_DPU_EW_CVT_SCALE_VALUE_EW_TRUNCATE_GET(sc))
            return vnpu_unsupported(t, NPU_DPU_EW_CVT_SCALE_VALUE, "EW_TRUNCATE");
        if (NPU_DPU_DATA_FORMAT_EW_TRUNCATE_NEG_GET(R(t, NPU_DPU_DATA_FORMAT)))
            return vnpu_unsupported(t, NPU_DPU_DATA_FORMAT, "EW_TRUNCATE_NEG");
        pl->ew_cvt_type1 = (uint8_t)NPU_DPU_EW_CFG_EW_CVT_TYPE_GET(ew);
        pl->ew_cvt_off = (int32_t)R(t, NPU_DPU_EW_CVT_OFFSET_VALUE);
        pl->ew_cvt_scale = NPU_DPU_EW_CVT_SCALE_VALUE_EW_OP_CVT_SCALE_GET(sc);
        pl->ew_cvt_shift = NPU_DPU_EW_CVT_SCALE_VALUE_EW_OP_CVT_SHIFT_GET(sc);
    }
    return 0;
}

/* The EW operand from ERDMA: per pixel or per channel, its precision, its
 * surfaces (with COMB_USE from SRC_BASE), mapped for reading. */
static int vnpu_ew_erdma_prepare(vnpu_task *t, vnpu_dpu_plan *pl)
{
    uint32_t er = R(t, NPU_DPU_RDMA_ERDMA_CFG);
    uint32_t fm = R(t, NPU_DPU_RDMA_FEATURE_MODE_CFG);
    uint32_t base, nsurf, operand_pixels;

    if (!(t->enable & NPU_UNIT_DPU_RDMA))
        return vnpu_unsupported(t, NPU_DPU_EW_CFG,
                                "an ERDMA operand without DPU_RDMA in the op-enable mask");
    if (er & 1u)
        return vnpu_inconsistent(t, NPU_DPU_EW_CFG, NPU_DPU_RDMA_ERDMA_CFG,
                                 "EW operand from ERDMA but ERDMA disabled");
    /* DATA_MODE 1: one operand per pixel and channel; 0: one per channel,
     * a 1x1 cube (PP-OCRv4 det's squeeze-and-excitation multiplies) */
    if (NPU_DPU_RDMA_ERDMA_CFG_DATA_MODE_GET(er) > 1)
        return vnpu_unsupported(t, NPU_DPU_RDMA_ERDMA_CFG,
                                "an ERDMA data mode other than per-channel (0) or per-pixel (1)");
    pl->ew_per_channel = NPU_DPU_RDMA_ERDMA_CFG_DATA_MODE_GET(er) == 0;
    if (NPU_DPU_RDMA_ERDMA_CFG_NONALIGN_GET(er) || NPU_DPU_RDMA_ERDMA_CFG_SURF_MODE_GET(er))
        return vnpu_unsupported(t, NPU_DPU_RDMA_ERDMA_CFG, "ERDMA NONALIGN/SURF_MODE");
    if (vnpu_ew_operand_prec(t, pl, &pl->ew_prec) != 0)
        return -1;
    pl->ew_elem = vnpu_prec_bytes(pl->ew_prec);
    pl->ew_c2 = t->cfg->atom / pl->ew_elem;
    pl->ew_surf = R(t, NPU_DPU_RDMA_EW_SURF_STRIDE);
    base = R(t, NPU_DPU_RDMA_EW_BASE_ADDR);
    if (!t->cfg->rk356x && NPU_DPU_RDMA_FEATURE_MODE_CFG_COMB_USE_GET(fm)) {
        /* COMB_USE: MRDMA supplies even surfaces from SRC_BASE, ERDMA odd ones
         * from EW_BASE = SRC_BASE + EW_SURF_STRIDE (vnpu.md §7.3) */
        if (R(t, NPU_DPU_RDMA_EW_BASE_ADDR) != R(t, NPU_DPU_RDMA_SRC_BASE_ADDR) + pl->ew_surf)
            return vnpu_inconsistent(t, NPU_DPU_RDMA_EW_BASE_ADDR, NPU_DPU_RDMA_SRC_BASE_ADDR,
                                     "COMB_USE needs EW_BASE = SRC_BASE + EW_SURF_STRIDE");
        base = R(t, NPU_DPU_RDMA_SRC_BASE_ADDR);
    }
    nsurf = (pl->k + pl->ew_c2 - 1u) / pl->ew_c2;
    operand_pixels = pl->ew_per_channel ? 1u : pl->npix;
    if (nsurf > 1 && pl->ew_surf < (uint64_t)operand_pixels * t->cfg->atom)
        return vnpu_unsupported(t, NPU_DPU_RDMA_EW_SURF_STRIDE,
                                "an EW surface stride smaller than one surface");
    pl->ew_base = vnpu_dma_read(
        t, base, (uint64_t)(nsurf - 1u) * pl->ew_surf + (uint64_t)operand_pixels * t->cfg->atom,
        "ERDMA (EW operand)");
    return pl->ew_base ? 0 : -1;
}

/* The EW stage: the LUT and the ReLUs, then the operation with its operand
 * (EW_OP_VALUE or ERDMA) and the operand's converter. */
static int vnpu_ew_prepare(vnpu_task *t, vnpu_dpu_plan *pl)
{
    uint32_t ew = R(t, NPU_DPU_EW_CFG);

    pl->ew_on = !NPU_DPU_EW_CFG_EW_BYPASS_GET(ew);
    if (!pl->ew_on)
        return 0;
    if (!NPU_DPU_EW_CFG_EW_LUT_BYPASS_GET(ew) && vnpu_lut_prepare(t, pl) != 0)
        return -1;
    if (NPU_DPU_EW_CFG_EW_MUL_PRELU_GET(ew))
        return vnpu_unsupported(t, NPU_DPU_EW_CFG, "EW PReLU");
    if (NPU_DPU_EW_CFG_EW_BINARY_EN_GET(ew) || NPU_DPU_EW_CFG_EW_EQUAL_EN_GET(ew))
        return vnpu_unsupported(t, NPU_DPU_EW_CFG, "EW binary/equal modes");
    pl->ew_relu = !NPU_DPU_EW_CFG_EW_RELU_BYPASS_GET(ew);
    pl->ew_relux = (uint8_t)NPU_DPU_EW_CFG_EW_RELUX_EN_GET(ew);
    if (pl->ew_relux && !pl->ew_relu)
        return vnpu_unsupported(t, NPU_DPU_EW_CFG, "EW ReLU-X with the ReLU bypassed");
    pl->ew_relux_cmp = (int32_t)R(t, NPU_DPU_EW_RELUX_CMP_VALUE);
    pl->ew_f_relux = vnpu_f32_from_bits(R(t, NPU_DPU_EW_RELUX_CMP_VALUE));
    pl->ew_do_op = !NPU_DPU_EW_CFG_EW_OP_BYPASS_GET(ew);
    if (!pl->ew_do_op)
        return 0;
    if (!NPU_DPU_EW_CFG_EW_OP_SRC_GET(ew) && vnpu_ew_reg_operand(t, pl) != 0)
        return -1;
    if (vnpu_ew_op_prepare(t, pl, ew) != 0 || vnpu_ew_cvt_prepare(t, pl, ew) != 0)
        return -1;
    if (pl->ew_reg_operand)
        return 0;
    return vnpu_ew_erdma_prepare(t, pl);
}

static int vnpu_out_cvt_prepare(vnpu_task *t, vnpu_dpu_plan *pl)
{
    uint32_t sc = R(t, NPU_DPU_OUT_CVT_SCALE);
    uint32_t sh = R(t, NPU_DPU_OUT_CVT_SHIFT);

    pl->oc_off = (int32_t)R(t, NPU_DPU_OUT_CVT_OFFSET);
    pl->oc_scale = NPU_DPU_OUT_CVT_SCALE_OUT_CVT_SCALE_GET(sc);
    pl->oc_shift = NPU_DPU_OUT_CVT_SHIFT_OUT_CVT_SHIFT_GET(sh);
    pl->oc_half_away = (uint8_t)NPU_DPU_OUT_CVT_SHIFT_CVT_ROUND_GET(sh);
    if (NPU_DPU_OUT_CVT_SHIFT_CVT_TYPE_GET(sh))
        return vnpu_unsupported(t, NPU_DPU_OUT_CVT_SHIFT, "CVT_TYPE = 1 (offset first)");
    if (pl->fp) {
        /* y = (x + OFFSET) * 2^-MINUS_EXP: how a LUT's table units become
         * values (vnpu.md §7.5); a SCALE other than 1 is not known here */
        unsigned minus_exp = NPU_DPU_OUT_CVT_SHIFT_MINUS_EXP_GET(sh);
        if (pl->oc_scale != 1 || pl->oc_shift != 0)
            return vnpu_unsupported(t, NPU_DPU_OUT_CVT_SCALE,
                                    "an OUT_CVT scale or shift on the fp16 path");
        if (minus_exp > 126)
            return vnpu_unsupported(t, NPU_DPU_OUT_CVT_SHIFT, "MINUS_EXP above 126");
        pl->oc_f_scale = vnpu_pow2f(-(int)minus_exp);
        return 0;
    }
    if (NPU_DPU_OUT_CVT_SHIFT_MINUS_EXP_GET(sh))
        return vnpu_unsupported(t, NPU_DPU_OUT_CVT_SHIFT, "MINUS_EXP on the integer path");
    if (pl->oc_shift > 62)
        return vnpu_unsupported(t, NPU_DPU_OUT_CVT_SHIFT, "a shift above 62");
    return 0;
}

/* DPU FEATURE_MODE_CFG / DATA_FORMAT / cube checks common to both sources. */
static int vnpu_dpu_mode_checks(vnpu_task *t, vnpu_dpu_plan *pl, unsigned in_prec, int flying,
                                int depthwise)
{
    uint32_t fm = R(t, NPU_DPU_FEATURE_MODE_CFG);
    uint32_t fmt = R(t, NPU_DPU_DATA_FORMAT);
    uint32_t w = NPU_DPU_DATA_CUBE_WIDTH_WIDTH_GET(R(t, NPU_DPU_DATA_CUBE_WIDTH)) + 1u;
    uint32_t h = NPU_DPU_DATA_CUBE_HEIGHT_HEIGHT_GET(R(t, NPU_DPU_DATA_CUBE_HEIGHT)) + 1u;
    uint32_t c = NPU_DPU_DATA_CUBE_CHANNEL_CHANNEL_GET(R(t, NPU_DPU_DATA_CUBE_CHANNEL)) + 1u;
    uint32_t orig;

    if ((uint32_t)NPU_DPU_FEATURE_MODE_CFG_FLYING_MODE_GET(fm) != (uint32_t)(flying != 0))
        return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG,
                                flying ? "a DPU-only task that is not in flying mode"
                                       : "flying mode while the CNA runs");
    if (!t->cfg->rk356x) {
        /* the RK356x streams use another field map here (vnpu.md §9) */
        if (NPU_DPU_FEATURE_MODE_CFG_OUTPUT_MODE_GET(fm) != 2)
            return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG,
                                    "an OUTPUT_MODE other than memory (2)");
        if (NPU_DPU_FEATURE_MODE_CFG_RGP_TYPE_GET(fm) || NPU_DPU_FEATURE_MODE_CFG_TP_EN_GET(fm))
            return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG, "regroup/transpose");
        /* the DPU's COMB_USE goes with a flying input read by both engines */
        if (NPU_DPU_FEATURE_MODE_CFG_COMB_USE_GET(fm) &&
            !(flying &&
              NPU_DPU_RDMA_FEATURE_MODE_CFG_COMB_USE_GET(R(t, NPU_DPU_RDMA_FEATURE_MODE_CFG))))
            return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG,
                                    "COMB_USE without a flying input read by MRDMA and ERDMA");
        if (NPU_DPU_FEATURE_MODE_CFG_CONV_MODE_GET(fm) != (depthwise ? 3u : 0u))
            return vnpu_inconsistent(t, NPU_DPU_FEATURE_MODE_CFG, NPU_CNA_CONV_CON1,
                                     "DPU CONV_MODE does not match the convolution");
    }
    if (NPU_DPU_DATA_FORMAT_PROC_PRECISION_GET(fmt) != in_prec ||
        NPU_DPU_DATA_FORMAT_IN_PRECISION_GET(fmt) != in_prec)
        return vnpu_unsupported(t, NPU_DPU_DATA_FORMAT,
                                "PROC/IN precisions that differ from the input data");
    orig = NPU_DPU_DATA_CUBE_CHANNEL_ORIG_CHANNEL_GET(R(t, NPU_DPU_DATA_CUBE_CHANNEL)) + 1u;
    if (orig > c)
        return vnpu_inconsistent(t, NPU_DPU_DATA_CUBE_CHANNEL, NPU_DPU_DATA_CUBE_CHANNEL,
                                 "ORIG_CHANNEL above CHANNEL");
    pl->orig = orig;
    pl->out_w = w;
    if (c != pl->k || (uint64_t)w * h != pl->npix)
        return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                         "DPU cube %lux%lux%lu does not hold the %lu pixels x %lu channels it "
                         "receives",
                         (unsigned long)w, (unsigned long)h, (unsigned long)c,
                         (unsigned long)pl->npix, (unsigned long)pl->k);
    return 0;
}

/* A convolution's output pixel (vnpu.md §7.8): SIZE_E + 1 in BS_OW_CFG is
 * the number of surfaces that one MAC kernel group's output of a pixel
 * fills, and SURFACE_ADD is DST_SURF_STRIDE x that number. A surface's pixel
 * then holds group / (SIZE_E + 1) channels: one atom in every stream seen
 * before, and 16 bytes (4 channels) in the RK356x matmul streams' 32-bit
 * outputs (their known products fix it). Other splits are reported. */
static int vnpu_out_pixel_prepare(vnpu_task *t, vnpu_dpu_plan *pl, int depthwise)
{
    uint32_t ow = R(t, NPU_DPU_BS_OW_CFG);
    uint32_t surfaces = NPU_DPU_BS_OW_CFG_SIZE_E_0_GET(ow) + 1u;
    uint32_t group = vnpu_kgroup(t->cfg, pl->in_prec) * (depthwise ? 2u : 1u);
    uint32_t bytes = group * pl->out_elem;
    uint32_t pix = bytes / surfaces;
    int rk356x_wide = t->cfg->rk356x && !depthwise && pl->out_elem == 4u && pix == 16u;

    if (NPU_DPU_BS_OW_CFG_SIZE_E_1_GET(ow) + 1u != surfaces ||
        NPU_DPU_BS_OW_CFG_SIZE_E_2_GET(ow) + 1u != surfaces || bytes % surfaces != 0 ||
        (pix != t->cfg->atom && !rk356x_wide))
        return vnpu_inconsistent(t, NPU_DPU_BS_OW_CFG, NPU_DPU_DATA_FORMAT,
                                 "SIZE_E is not the output atoms of a kernel group - 1");
    if ((uint64_t)R(t, NPU_DPU_SURFACE_ADD) != (uint64_t)R(t, NPU_DPU_DST_SURF_STRIDE) * surfaces)
        return vnpu_inconsistent(
            t, NPU_DPU_SURFACE_ADD, NPU_DPU_DST_SURF_STRIDE,
            "SURFACE_ADD is not DST_SURF_STRIDE x the output atoms of a kernel "
            "group");
    pl->out_pix = pix;
    return 0;
}

/* The line pitch: W pixels, then NOTCH_ADDR_0 atoms (vnpu.md §7.8: the
 * matmul streams' row-major C puts its surfaces side by side in a line).
 * Flying tasks keep refusing a notch (none seen outside unpooling). */
static int vnpu_out_line_prepare(vnpu_task *t, vnpu_dpu_plan *pl, int flying)
{
    uint32_t notch = R(t, NPU_DPU_DATA_CUBE_NOTCH_ADDR);
    uint32_t n0 = NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0_GET(notch);

    pl->out_line = pl->out_w * pl->out_pix;
    if (notch == 0)
        return 0;
    if (flying)
        return vnpu_unsupported(t, NPU_DPU_DATA_CUBE_NOTCH_ADDR, "a line notch in flying mode");
    /* both fields are always equal in the streams; what a difference does is unknown */
    if (notch != (NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_0(n0) |
                  NPU_DPU_DATA_CUBE_NOTCH_ADDR_NOTCH_ADDR_1(n0)))
        return vnpu_unsupported(t, NPU_DPU_DATA_CUBE_NOTCH_ADDR,
                                "a NOTCH_ADDR_1 other than NOTCH_ADDR_0");
    /* 16-byte pixels were seen in one-pixel lines only: whether a wider
     * line counts them as two atoms each is not known */
    if (pl->out_pix != t->cfg->atom && pl->out_w > 1u)
        return vnpu_unsupported(
            t, NPU_DPU_DATA_CUBE_NOTCH_ADDR,
            "a line notch after 16-byte pixels in lines of more than one pixel");
    pl->out_line += n0 * t->cfg->atom;
    return 0;
}

/* Output precision, geometry and the DST range. Pixel (x, y) of surface s
 * is at DST_BASE_ADDR + s * DST_SURF_STRIDE + y * line + x * pixel. */
static int vnpu_output_prepare(vnpu_task *t, vnpu_dpu_plan *pl, int flying, int depthwise)
{
    uint32_t fmt = R(t, NPU_DPU_DATA_FORMAT);
    uint32_t fm = R(t, NPU_DPU_FEATURE_MODE_CFG);
    uint32_t nsurf, h;
    uint64_t bytes, extent, line_part;

    pl->out_prec = NPU_DPU_DATA_FORMAT_OUT_PRECISION_GET(fmt);
    switch (pl->out_prec) {
    case VNPU_PREC_INT8:
    case VNPU_PREC_INT16:
    case VNPU_PREC_INT32:
        if (pl->fp)
            return vnpu_unsupported(t, NPU_DPU_DATA_FORMAT, "an integer output from fp16");
        break;
    case VNPU_PREC_FP16:
    case VNPU_PREC_FP32: break;
    default: return vnpu_unsupported(t, NPU_DPU_DATA_FORMAT, "this output precision");
    }
    if (NPU_DPU_DATA_FORMAT_MC_SURF_OUT_GET(fmt))
        return vnpu_unsupported(t, NPU_DPU_DATA_FORMAT, "MC_SURF_OUT");
    pl->out_elem = vnpu_prec_bytes(pl->out_prec);
    pl->out_pix = t->cfg->atom;
    if (!flying && vnpu_out_pixel_prepare(t, pl, depthwise) != 0)
        return -1;
    pl->out_c2 = pl->out_pix / pl->out_elem;
    /* the DPU writes the surfaces that hold ORIG_CHANNEL's channels, not the
     * ones CHANNEL pads on (PP-OCRv4 det: 16 of 32 depthwise channels, in
     * fp32 the next tensor's bytes) (vnpu.md §7) */
    pl->k_out = (pl->orig + pl->out_c2 - 1u) / pl->out_c2 * pl->out_c2;
    if (pl->k_out > pl->k)
        pl->k_out = pl->k;
    pl->nonalign = (uint8_t)NPU_DPU_FEATURE_MODE_CFG_NONALIGN_GET(fm);
    if (pl->nonalign)
        pl->k_out = pl->k; /* packed: every channel, as before */
    pl->dst_surf = R(t, NPU_DPU_DST_SURF_STRIDE);
    if (vnpu_out_line_prepare(t, pl, flying) != 0)
        return -1;
    if (pl->nonalign) {
        uint64_t surf_len = (uint64_t)NPU_DPU_FEATURE_MODE_CFG_SURF_LEN_GET(fm) * 8u;
        bytes = (uint64_t)pl->npix * pl->k_out * pl->out_elem;
        if (!flying) {
            /* The RK3566 matmul API's one-row C (vnpu.md §7.8): of one pixel,
             * with the surfaces one pixel apart, the packed channels and the
             * surfaces are the same bytes; what NONALIGN changes in a larger
             * cube is not known. */
            if (pl->npix != 1)
                return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG,
                                        "NONALIGN output after a convolution of more than one "
                                        "pixel");
            if (surf_len != bytes || pl->dst_surf != pl->out_pix)
                return vnpu_inconsistent(t, NPU_DPU_FEATURE_MODE_CFG, NPU_DPU_DST_SURF_STRIDE,
                                         "NONALIGN of one pixel needs SURF_LEN * 8 = its bytes "
                                         "and DST_SURF_STRIDE = one pixel");
            pl->nonalign = 0;
        } else if (surf_len != bytes || pl->dst_surf != surf_len) {
            return vnpu_inconsistent(t, NPU_DPU_FEATURE_MODE_CFG, NPU_DPU_DST_SURF_STRIDE,
                                     "NONALIGN SURF_LEN * 8 and DST_SURF_STRIDE must equal the "
                                     "packed cube bytes");
        }
    }
    if (!pl->nonalign) {
        h = pl->npix / pl->out_w;
        line_part = (uint64_t)pl->out_w * pl->out_pix;
        extent = (uint64_t)(h - 1u) * pl->out_line + line_part;
        nsurf = (pl->k_out + pl->out_c2 - 1u) / pl->out_c2;
        /* the surfaces follow one another, or (with a notch) sit side by
         * side in each line */
        if (nsurf > 1 && pl->dst_surf < extent &&
            !(pl->out_line > line_part && pl->dst_surf >= line_part &&
              (uint64_t)(nsurf - 1u) * pl->dst_surf + line_part <= pl->out_line))
            return vnpu_unsupported(t, NPU_DPU_DST_SURF_STRIDE,
                                    "a surface stride at which the surfaces overlap");
        bytes = (uint64_t)(nsurf - 1u) * pl->dst_surf + extent;
    }
    pl->dst = vnpu_dma_write(t, R(t, NPU_DPU_DST_BASE_ADDR), bytes, "DPU write", 1);
    return pl->dst ? 0 : -1;
}

vnpu_dpu_plan *vnpu_plan_build(vnpu_task *t, uint32_t k, uint32_t npix, unsigned in_prec,
                               int flying, int depthwise)
{
    vnpu_dpu_plan *pl = &vnpu_plan;
    uint32_t owc = R(t, NPU_DPU_BS_OW_CFG);
    uint32_t rfm = R(t, NPU_DPU_RDMA_FEATURE_MODE_CFG);

    memset(pl, 0, sizeof *pl);
    pl->k = k;
    pl->npix = npix;
    pl->fp = in_prec == VNPU_PREC_FP16 || in_prec == VNPU_PREC_FP32;
    pl->in_prec = in_prec;
    if (k > VNPU_DPU_MAX_CHANNELS) {
        vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                  "%lu channels exceed the DPU's 13-bit channel field", (unsigned long)k);
        return NULL;
    }
    if (vnpu_dpu_mode_checks(t, pl, in_prec, flying, depthwise) != 0)
        return NULL;
    if (!flying && !t->cfg->rk356x && (t->enable & NPU_UNIT_DPU_RDMA) &&
        !NPU_DPU_RDMA_FEATURE_MODE_CFG_MRDMA_DISABLE_GET(rfm) &&
        !NPU_DPU_RDMA_FEATURE_MODE_CFG_COMB_USE_GET(rfm)) {
        vnpu_unsupported(t, NPU_DPU_RDMA_FEATURE_MODE_CFG,
                         "MRDMA enabled but not fed in a convolution (hangs on RK3588, "
                         "hardware.md §1.9)");
        return NULL;
    }
    if (vnpu_stage_prepare(t, &pl->bs, NPU_DPU_BS_CFG, NPU_DPU_BS_ALU_CFG, NPU_DPU_BS_MUL_CFG,
                           NPU_DPU_BS_RELUX_CMP_VALUE, 0, pl->fp, 1) != 0)
        return NULL;
    /* OW (CPEND) stage: adds OW_k * Σx */
    if (!NPU_DPU_BS_OW_CFG_OD_BYPASS_GET(owc)) {
        pl->ow_stream = (uint8_t)NPU_DPU_BS_OW_CFG_OW_SRC_GET(owc);
        pl->ow_reg = vnpu_sext(R(t, NPU_DPU_BS_OW_OP), 16);
        pl->ow = pl->ow_stream || pl->ow_reg != 0;
        if (pl->ow && (!pl->bs.on || pl->fp || flying)) {
            vnpu_unsupported(t, NPU_DPU_BS_OW_CFG,
                             pl->fp ? "the OW stage on the fp16 path"
                                    : (flying ? "the OW stage in flying mode"
                                              : "the OW stage with the BS stage bypassed"));
            return NULL;
        }
        if (!pl->ow)
            pl->ow_stream = 0;
    }
    if (vnpu_stage_prepare(t, &pl->bn, NPU_DPU_BN_CFG, NPU_DPU_BN_ALU_CFG, NPU_DPU_BN_MUL_CFG,
                           NPU_DPU_BN_RELUX_CMP_VALUE, 1, pl->fp, 1) != 0)
        return NULL;
    pl->bs.alu_v = vnpu_bs_alu;
    pl->bs.mul_v = vnpu_bs_mul;
    pl->bn.alu_v = vnpu_bn_alu;
    pl->bn.mul_v = vnpu_bn_mul;
    if (vnpu_stage_stream(t, pl, &pl->bs, 0) != 0 || vnpu_stage_stream(t, pl, &pl->bn, 1) != 0)
        return NULL;
    if (vnpu_ew_prepare(t, pl) != 0)
        return NULL;
    if (vnpu_out_cvt_prepare(t, pl) != 0)
        return NULL;
    if (vnpu_output_prepare(t, pl, flying, depthwise) != 0)
        return NULL;
    return pl;
}

vnpu_dpu_plan *vnpu_dpu_prepare(vnpu_task *t, uint32_t k, uint32_t npix, unsigned in_prec,
                                int depthwise)
{
    return vnpu_plan_build(t, k, npix, in_prec, 0, depthwise);
}

int vnpu_dpu_wants_sumx(const vnpu_dpu_plan *plan)
{
    return plan->ow;
}
