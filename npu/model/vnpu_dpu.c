/*
 * vnpu_dpu.c - the DPU (post-processing + write DMA) and the parts of
 * DPU_RDMA it consumes: BS stage (ALU add, OW·Σx, MUL + shift, ReLU/ReLU-X)
 * with operands from registers or the BRDMA stream, BN stage (register
 * operands), EW stage with an ERDMA operand (incl. RK3588's MRDMA+ERDMA
 * COMB_USE form), OUT_CVT, int8/int16/int32/fp16/fp32 writes in NC1HWC2 or
 * NONALIGN (packed) form, and flying mode (main input from MRDMA).
 *
 * Arithmetic (vnpu.md §7.4; rounding choices of vnpu.md §7.4, §10.3):
 *   t1 = acc + ALU_k + OW_k·Σx                     exact, 64-bit
 *   t2 = floor((t1·MUL_k) >> shift)                BS MUL: arithmetic shift (floor);
 *                                                  shift = BS_MUL_SHIFT_VALUE for
 *                                                  t1·MUL >= 0, DATA_FORMAT
 *                                                  BS_MUL_SHIFT_VALUE_NEG below 0
 *   ReLU / ReLU-X, BN the same way (register operands)
 *   e  = EW_CVT(operand): TYPE 1 floor(((q+off)·scale) >> shift), TYPE 0
 *        floor((q·scale) >> shift) + off          (floor: the note's default)
 *   t3 = t2 (+|max|min|-) e, EW ReLU
 *   y  = round((t3·OUT_SCALE) >> OUT_SHIFT) + OUT_OFFSET, saturated to the
 *        output type; round = nearest, ties to even when CVT_ROUND = 0
 *        (hardware.md §1.8), ties away from zero when CVT_ROUND = 1.
 * fp16 processing uses fp32 arithmetic; its OUT_CVT must be the identity.
 * Everything else (LUT, PReLU, EW MUL on integers, per-channel EW operand
 * modes, regroup/transpose, DPU->PPU fly, ...) is reported as not modelled.
 */
#include <string.h>

#include "vnpu_base.h"
#include "vnpu_units.h"

#define VNPU_DPU_MAX_CHANNELS 8192u /* 13-bit DATA_CUBE_CHANNEL */
#define VNPU_FLY_CHUNK        4096u /* elements per flying-mode chunk */

enum vnpu_ew_op { VNPU_EW_ADD, VNPU_EW_MAX, VNPU_EW_MIN, VNPU_EW_SUB, VNPU_EW_MUL };

typedef struct {
    uint8_t on, alu, mul, relu, relux;
    uint8_t alu_stream, mul_stream;
    int32_t alu_reg;
    int32_t mul_reg;
    unsigned shift_pos, shift_neg;
    int32_t relux_cmp;
    float f_alu, f_mul, f_relux;
} vnpu_stage;

struct vnpu_dpu_plan {
    uint32_t k, npix;
    uint8_t fp;
    vnpu_stage bs, bn;
    uint8_t ow, ow_stream;
    int32_t ow_reg;
    /* EW */
    uint8_t ew_on, ew_do_op, ew_cvt, ew_cvt_type1, ew_relu, ew_relux;
    enum vnpu_ew_op ew_op;
    int32_t ew_cvt_off;
    uint32_t ew_cvt_scale;
    unsigned ew_cvt_shift;
    int32_t ew_relux_cmp;
    float ew_f_relux;
    const uint8_t *ew_base;
    uint32_t ew_surf;
    unsigned ew_prec, ew_elem, ew_c2;
    /* OUT_CVT */
    int64_t oc_scale;
    unsigned oc_shift;
    uint8_t oc_half_away;
    int32_t oc_off;
    /* output */
    uint8_t *dst;
    uint32_t dst_surf;
    unsigned out_prec, out_elem, out_c2;
    uint8_t nonalign;
};

static vnpu_dpu_plan vnpu_plan;
static int32_t vnpu_bs_alu[VNPU_DPU_MAX_CHANNELS];
static int16_t vnpu_bs_ow[VNPU_DPU_MAX_CHANNELS];
static int16_t vnpu_bs_mul[VNPU_DPU_MAX_CHANNELS];

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
            return vnpu_unsupported(t, cfg_off, "this ALU operand stream");
        s->alu_reg = (int32_t)R(t, alu_off);
        s->f_alu = vnpu_f32_from_bits(R(t, alu_off));
    }
    if (s->mul) {
        s->mul_stream = (uint8_t)NPU_DPU_BS_MUL_CFG_BS_MUL_SRC_GET(mul);
        if (s->mul_stream && (!stream_ok || fp))
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

/* The per-channel BS operand stream (vnpu.md §7.1): groups of
 * bs_group channels, each group [g x int32 ALU][g x int16 OW][g x int16 MUL]
 * with only the operands selected by BRDMA_DATA_USE present. */
static int vnpu_bs_stream(vnpu_task *t, vnpu_dpu_plan *pl)
{
    uint32_t brdma = R(t, NPU_DPU_RDMA_BRDMA_CFG);
    unsigned use = NPU_DPU_RDMA_BRDMA_CFG_BRDMA_DATA_USE_GET(brdma);
    unsigned ua = !!(use & BS_USE_ALU), uo = !!(use & BS_USE_OW), um = !!(use & BS_USE_MUL);
    unsigned g = t->cfg->bs_group;
    uint32_t k = pl->k;
    uint32_t group_bytes = g * (4u * ua + 2u * uo + 2u * um);
    uint32_t ngroups = (k + g - 1u) / g;
    uint32_t last = k - (ngroups - 1u) * g;
    uint64_t need;
    const uint8_t *p;

    if (!(pl->bs.alu_stream || pl->bs.mul_stream || pl->ow_stream))
        return 0;
    if (!(t->enable & NPU_UNIT_DPU_RDMA))
        return vnpu_unsupported(t, NPU_DPU_BS_CFG,
                                "a BS operand stream without DPU_RDMA in the op-enable mask");
    if (NPU_DPU_RDMA_BRDMA_CFG_BRDMA_DISABLE_GET(brdma))
        return vnpu_inconsistent(t, NPU_DPU_BS_CFG, NPU_DPU_RDMA_BRDMA_CFG,
                                 "BS operands from the stream but BRDMA disabled");
    if (use & BS_USE_TRT)
        return vnpu_unsupported(t, NPU_DPU_RDMA_BRDMA_CFG, "the TRT (truncate) operand");
    if ((pl->bs.alu_stream && !ua) || (pl->bs.mul_stream && !um) || (pl->ow_stream && !uo))
        return vnpu_inconsistent(t, NPU_DPU_BS_CFG, NPU_DPU_RDMA_BRDMA_CFG,
                                 "a BS operand from the stream that BRDMA_DATA_USE omits");
    /* fp16 path: the ALU operands are fp32, one 4-byte entry per channel
     * like the int32 ones (PP-OCRv4 det's biases, vnpu.md §7.1); where OW
     * and MUL entries would go in that form is not known */
    if (pl->fp && (uo || um))
        return vnpu_unsupported(t, NPU_DPU_RDMA_BRDMA_CFG,
                                "OW or MUL operands in an fp16 BS stream");
    /* bytes up to the last channel's last operand */
    need = (uint64_t)(ngroups - 1u) * group_bytes;
    need += um ? g * (4u * ua + 2u * uo) + 2u * last : (uo ? g * 4u * ua + 2u * last : 4u * last);
    p = vnpu_dma_read(t, R(t, NPU_DPU_RDMA_BS_BASE_ADDR), need, "BRDMA (BS operand stream)");
    if (p == NULL)
        return -1;
    for (uint32_t ch = 0; ch < k; ch++) {
        const uint8_t *grp = p + (size_t)(ch / g) * group_bytes;
        unsigned j = ch % g;
        if (ua)
            vnpu_bs_alu[ch] = (int32_t)vnpu_ld32(grp + 4u * j);
        if (uo)
            vnpu_bs_ow[ch] = (int16_t)vnpu_ld16(grp + 4u * g * ua + 2u * j);
        if (um)
            vnpu_bs_mul[ch] = (int16_t)vnpu_ld16(grp + g * (4u * ua + 2u * uo) + 2u * j);
    }
    return 0;
}

/* Element precision of the ERDMA operand. */
static int vnpu_ew_operand_prec(vnpu_task *t, vnpu_dpu_plan *pl, unsigned *prec)
{
    unsigned size = NPU_DPU_RDMA_ERDMA_CFG_ERDMA_DATA_SIZE_GET(R(t, NPU_DPU_RDMA_ERDMA_CFG));

    if (pl->fp) {
        if (size != 2)
            return vnpu_unsupported(t, NPU_DPU_RDMA_ERDMA_CFG,
                                    "an fp16-path EW operand that is not 16-bit");
        *prec = VNPU_PREC_FP16;
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

static int vnpu_ew_prepare(vnpu_task *t, vnpu_dpu_plan *pl)
{
    uint32_t ew = R(t, NPU_DPU_EW_CFG);
    uint32_t er = R(t, NPU_DPU_RDMA_ERDMA_CFG);
    uint32_t fm = R(t, NPU_DPU_RDMA_FEATURE_MODE_CFG);
    uint32_t base, nsurf;
    unsigned algo;

    pl->ew_on = !NPU_DPU_EW_CFG_EW_BYPASS_GET(ew);
    if (!pl->ew_on)
        return 0;
    if (!NPU_DPU_EW_CFG_EW_LUT_BYPASS_GET(ew))
        return vnpu_unsupported(t, NPU_DPU_EW_CFG, "the EW LUT");
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
    if (!NPU_DPU_EW_CFG_EW_OP_SRC_GET(ew))
        return vnpu_unsupported(t, NPU_DPU_EW_CFG, "an EW operand from EW_OP_VALUE registers");
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
    /* operand converter */
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
    /* ERDMA operand */
    if (!(t->enable & NPU_UNIT_DPU_RDMA))
        return vnpu_unsupported(t, NPU_DPU_EW_CFG,
                                "an ERDMA operand without DPU_RDMA in the op-enable mask");
    if (er & 1u)
        return vnpu_inconsistent(t, NPU_DPU_EW_CFG, NPU_DPU_RDMA_ERDMA_CFG,
                                 "EW operand from ERDMA but ERDMA disabled");
    if (NPU_DPU_RDMA_ERDMA_CFG_DATA_MODE_GET(er) != 1)
        return vnpu_unsupported(t, NPU_DPU_RDMA_ERDMA_CFG,
                                "an ERDMA data mode other than "
                                "per-pixel (1)");
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
    if (nsurf > 1 && pl->ew_surf < (uint64_t)pl->npix * t->cfg->atom)
        return vnpu_unsupported(t, NPU_DPU_RDMA_EW_SURF_STRIDE,
                                "an EW surface stride smaller than one surface");
    pl->ew_base = vnpu_dma_read(
        t, base, (uint64_t)(nsurf - 1u) * pl->ew_surf + (uint64_t)pl->npix * t->cfg->atom,
        "ERDMA (EW operand)");
    return pl->ew_base ? 0 : -1;
}

static int vnpu_out_cvt_prepare(vnpu_task *t, vnpu_dpu_plan *pl)
{
    uint32_t sc = R(t, NPU_DPU_OUT_CVT_SCALE);
    uint32_t sh = R(t, NPU_DPU_OUT_CVT_SHIFT);

    pl->oc_off = (int32_t)R(t, NPU_DPU_OUT_CVT_OFFSET);
    pl->oc_scale = NPU_DPU_OUT_CVT_SCALE_OUT_CVT_SCALE_GET(sc);
    pl->oc_shift = NPU_DPU_OUT_CVT_SHIFT_OUT_CVT_SHIFT_GET(sh);
    pl->oc_half_away = (uint8_t)NPU_DPU_OUT_CVT_SHIFT_CVT_ROUND_GET(sh);
    if (NPU_DPU_OUT_CVT_SHIFT_MINUS_EXP_GET(sh))
        return vnpu_unsupported(t, NPU_DPU_OUT_CVT_SHIFT, "MINUS_EXP");
    if (NPU_DPU_OUT_CVT_SHIFT_CVT_TYPE_GET(sh))
        return vnpu_unsupported(t, NPU_DPU_OUT_CVT_SHIFT, "CVT_TYPE = 1 (offset first)");
    if (pl->fp) {
        if (pl->oc_scale != 1 || pl->oc_shift != 0 || pl->oc_off != 0)
            return vnpu_unsupported(t, NPU_DPU_OUT_CVT_SCALE,
                                    "a non-identity OUT_CVT on the fp16 path");
        return 0;
    }
    if (pl->oc_shift > 62)
        return vnpu_unsupported(t, NPU_DPU_OUT_CVT_SHIFT, "a shift above 62");
    return 0;
}

/* Output precision and the DST range. */
static int vnpu_output_prepare(vnpu_task *t, vnpu_dpu_plan *pl, int flying)
{
    uint32_t fmt = R(t, NPU_DPU_DATA_FORMAT);
    uint32_t fm = R(t, NPU_DPU_FEATURE_MODE_CFG);
    uint32_t nsurf;
    uint64_t bytes;

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
    pl->out_c2 = t->cfg->atom / pl->out_elem;
    pl->nonalign = (uint8_t)NPU_DPU_FEATURE_MODE_CFG_NONALIGN_GET(fm);
    pl->dst_surf = R(t, NPU_DPU_DST_SURF_STRIDE);
    if (pl->nonalign) {
        uint64_t surf_len = (uint64_t)NPU_DPU_FEATURE_MODE_CFG_SURF_LEN_GET(fm) * 8u;
        if (!flying)
            return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG,
                                    "NONALIGN output after a convolution");
        bytes = (uint64_t)pl->npix * pl->k * pl->out_elem;
        if (surf_len != bytes || pl->dst_surf != surf_len)
            return vnpu_inconsistent(t, NPU_DPU_FEATURE_MODE_CFG, NPU_DPU_DST_SURF_STRIDE,
                                     "NONALIGN SURF_LEN * 8 and DST_SURF_STRIDE must equal the "
                                     "packed cube bytes");
    } else {
        nsurf = (pl->k + pl->out_c2 - 1u) / pl->out_c2;
        if (nsurf > 1 && pl->dst_surf < (uint64_t)pl->npix * t->cfg->atom)
            return vnpu_unsupported(t, NPU_DPU_DST_SURF_STRIDE,
                                    "a surface stride smaller than one surface");
        bytes = (uint64_t)(nsurf - 1u) * pl->dst_surf + (uint64_t)pl->npix * t->cfg->atom;
    }
    pl->dst = vnpu_dma_write(t, R(t, NPU_DPU_DST_BASE_ADDR), bytes, "DPU write", 1);
    return pl->dst ? 0 : -1;
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

    if ((uint32_t)NPU_DPU_FEATURE_MODE_CFG_FLYING_MODE_GET(fm) != (uint32_t)(flying != 0))
        return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG,
                                flying ? "a DPU-only task that is not in flying mode"
                                       : "flying mode while the CNA runs");
    if (!t->cfg->rk356x) {
        /* the RK356x streams use another field map here (vnpu.md §9) */
        if (NPU_DPU_FEATURE_MODE_CFG_OUTPUT_MODE_GET(fm) != 2)
            return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG,
                                    "an OUTPUT_MODE other than memory (2)");
        if (NPU_DPU_FEATURE_MODE_CFG_RGP_TYPE_GET(fm) || NPU_DPU_FEATURE_MODE_CFG_TP_EN_GET(fm) ||
            NPU_DPU_FEATURE_MODE_CFG_COMB_USE_GET(fm))
            return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG, "regroup/transpose/COMB_USE");
        if (NPU_DPU_FEATURE_MODE_CFG_CONV_MODE_GET(fm) != (depthwise ? 3u : 0u))
            return vnpu_inconsistent(t, NPU_DPU_FEATURE_MODE_CFG, NPU_CNA_CONV_CON1,
                                     "DPU CONV_MODE does not match the convolution");
    }
    if (NPU_DPU_DATA_FORMAT_PROC_PRECISION_GET(fmt) != in_prec ||
        NPU_DPU_DATA_FORMAT_IN_PRECISION_GET(fmt) != in_prec)
        return vnpu_unsupported(t, NPU_DPU_DATA_FORMAT,
                                "PROC/IN precisions that differ from the input data");
    if (R(t, NPU_DPU_DATA_CUBE_NOTCH_ADDR) != 0)
        return vnpu_unsupported(t, NPU_DPU_DATA_CUBE_NOTCH_ADDR, "a line notch");
    if (c != pl->k || (uint64_t)w * h != pl->npix)
        return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                         "DPU cube %lux%lux%lu does not hold the %lu pixels x %lu channels it "
                         "receives",
                         (unsigned long)w, (unsigned long)h, (unsigned long)c,
                         (unsigned long)pl->npix, (unsigned long)pl->k);
    return 0;
}

static vnpu_dpu_plan *vnpu_plan_build(vnpu_task *t, uint32_t k, uint32_t npix, unsigned in_prec,
                                      int flying, int depthwise)
{
    vnpu_dpu_plan *pl = &vnpu_plan;
    uint32_t owc = R(t, NPU_DPU_BS_OW_CFG);
    uint32_t rfm = R(t, NPU_DPU_RDMA_FEATURE_MODE_CFG);

    memset(pl, 0, sizeof *pl);
    pl->k = k;
    pl->npix = npix;
    pl->fp = in_prec == VNPU_PREC_FP16;
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
                           NPU_DPU_BN_RELUX_CMP_VALUE, 1, pl->fp, 0) != 0)
        return NULL;
    if (vnpu_bs_stream(t, pl) != 0)
        return NULL;
    if (vnpu_ew_prepare(t, pl) != 0)
        return NULL;
    if (vnpu_out_cvt_prepare(t, pl) != 0)
        return NULL;
    if (vnpu_output_prepare(t, pl, flying) != 0)
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

/* ---- per-element arithmetic ------------------------------------------------ */

/* Intermediate values stay in 64 bits; this bound (never reached by sane
 * programs; the hardware's internal widths are unknown) keeps the products
 * defined. */
#define VNPU_INT_BOUND ((int64_t)1 << 46)

/* MUL and ReLU of a stage (the ALU operand is added by the caller). */
static int64_t vnpu_stage_int_tail(const vnpu_stage *s, int64_t x, uint32_t ch)
{
    x = vnpu_clamp64(x, -VNPU_INT_BOUND, VNPU_INT_BOUND);
    if (s->mul) {
        int64_t y = x * (s->mul_stream ? vnpu_bs_mul[ch] : s->mul_reg);
        x = vnpu_shift_floor(y, y >= 0 ? s->shift_pos : s->shift_neg);
    }
    if (s->relu && x < 0)
        x = 0;
    if (s->relux && x > s->relux_cmp)
        x = s->relux_cmp;
    return x;
}

static float vnpu_stage_fp(const vnpu_stage *s, float x, uint32_t ch)
{
    if (s->alu)
        x += s->alu_stream ? vnpu_f32_from_bits((uint32_t)vnpu_bs_alu[ch]) : s->f_alu;
    if (s->mul)
        x *= s->f_mul;
    if (s->relu && x < 0.0f)
        x = 0.0f;
    if (s->relux && x > s->f_relux)
        x = s->f_relux;
    return x;
}

/* The EW operand of pixel p, channel ch, as raw integer or float. */
static const uint8_t *vnpu_ew_ptr(const vnpu_dpu_plan *pl, const vnpu_soc_cfg *cfg, uint32_t p,
                                  uint32_t ch)
{
    return pl->ew_base + (size_t)(ch / pl->ew_c2) * pl->ew_surf + (size_t)p * cfg->atom +
           (size_t)(ch % pl->ew_c2) * pl->ew_elem;
}

static int64_t vnpu_ew_int(const vnpu_dpu_plan *pl, int64_t x, const uint8_t *e)
{
    int64_t v;

    switch (pl->ew_prec) {
    case VNPU_PREC_INT8: v = (int8_t)e[0]; break;
    case VNPU_PREC_INT16: v = (int16_t)vnpu_ld16(e); break;
    default: v = (int32_t)vnpu_ld32(e); break;
    }
    if (pl->ew_cvt) {
        if (pl->ew_cvt_type1)
            v = vnpu_shift_floor((v + pl->ew_cvt_off) * (int64_t)pl->ew_cvt_scale,
                                 pl->ew_cvt_shift);
        else
            v = vnpu_shift_floor(v * (int64_t)pl->ew_cvt_scale, pl->ew_cvt_shift) + pl->ew_cvt_off;
    }
    switch (pl->ew_op) {
    case VNPU_EW_ADD: x += v; break;
    case VNPU_EW_SUB: x -= v; break;
    case VNPU_EW_MAX: x = x > v ? x : v; break;
    case VNPU_EW_MIN: x = x < v ? x : v; break;
    default: break; /* MUL is refused on the integer path */
    }
    return x;
}

static float vnpu_ew_fp(const vnpu_dpu_plan *pl, float x, const uint8_t *e)
{
    float v = vnpu_f16_to_f32(vnpu_ld16(e));

    switch (pl->ew_op) {
    case VNPU_EW_ADD: return x + v;
    case VNPU_EW_SUB: return x - v;
    case VNPU_EW_MAX: return x > v ? x : v;
    case VNPU_EW_MIN: return x < v ? x : v;
    default: return x * v;
    }
}

static void vnpu_store_int(uint8_t *d, unsigned prec, int64_t y)
{
    switch (prec) {
    case VNPU_PREC_INT8: d[0] = (uint8_t)(int8_t)vnpu_clamp64(y, -128, 127); break;
    case VNPU_PREC_INT16: vnpu_st16(d, (uint16_t)(int16_t)vnpu_clamp64(y, -32768, 32767)); break;
    case VNPU_PREC_INT32:
        vnpu_st32(d, (uint32_t)(int32_t)vnpu_clamp64(y, INT32_MIN, INT32_MAX));
        break;
    case VNPU_PREC_FP16: vnpu_st16(d, vnpu_f32_to_f16((float)y)); break;
    default: vnpu_st32(d, vnpu_f32_bits((float)y)); break;
    }
}

static void vnpu_store_fp(uint8_t *d, unsigned prec, float y)
{
    if (prec == VNPU_PREC_FP16)
        vnpu_st16(d, vnpu_f32_to_f16(y));
    else
        vnpu_st32(d, vnpu_f32_bits(y));
}

static uint8_t *vnpu_out_ptr(const vnpu_dpu_plan *pl, const vnpu_soc_cfg *cfg, uint32_t p,
                             uint32_t ch)
{
    if (pl->nonalign)
        return pl->dst + ((size_t)p * pl->k + ch) * pl->out_elem;
    return pl->dst + (size_t)(ch / pl->out_c2) * pl->dst_surf + (size_t)p * cfg->atom +
           (size_t)(ch % pl->out_c2) * pl->out_elem;
}

int vnpu_dpu_process(vnpu_task *t, vnpu_dpu_plan *pl, const vnpu_acc_chunk *ck)
{
    const vnpu_soc_cfg *cfg = t->cfg;

    for (uint32_t i = 0; i < ck->n; i++) {
        uint32_t p = ck->p0 + i;
        for (uint32_t ch = 0; ch < pl->k; ch++) {
            uint8_t *d = vnpu_out_ptr(pl, cfg, p, ch);
            if (pl->fp) {
                float x = ck->acc_f[(size_t)i * ck->k + ch];
                if (pl->bs.on)
                    x = vnpu_stage_fp(&pl->bs, x, ch);
                if (pl->bn.on)
                    x = vnpu_stage_fp(&pl->bn, x, ch);
                if (pl->ew_on) {
                    if (pl->ew_do_op)
                        x = vnpu_ew_fp(pl, x, vnpu_ew_ptr(pl, cfg, p, ch));
                    if (pl->ew_relu && x < 0.0f)
                        x = 0.0f;
                    if (pl->ew_relux && x > pl->ew_f_relux)
                        x = pl->ew_f_relux;
                }
                vnpu_store_fp(d, pl->out_prec, x);
                continue;
            }
            int64_t x = ck->acc_i[(size_t)i * ck->k + ch];
            if (pl->bs.on) {
                if (pl->bs.alu)
                    x += pl->bs.alu_stream ? vnpu_bs_alu[ch] : pl->bs.alu_reg;
                if (pl->ow) {
                    int64_t sx =
                        ck->sumx_per_channel ? ck->sumx[(size_t)i * ck->k + ch] : ck->sumx[i];
                    x += (int64_t)(pl->ow_stream ? vnpu_bs_ow[ch] : pl->ow_reg) * sx;
                }
                x = vnpu_stage_int_tail(&pl->bs, x, ch);
            }
            if (pl->bn.on) {
                if (pl->bn.alu)
                    x += pl->bn.alu_reg;
                x = vnpu_stage_int_tail(&pl->bn, x, ch);
            }
            if (pl->ew_on) {
                if (pl->ew_do_op)
                    x = vnpu_ew_int(pl, x, vnpu_ew_ptr(pl, cfg, p, ch));
                if (pl->ew_relu && x < 0)
                    x = 0;
                if (pl->ew_relux && x > pl->ew_relux_cmp)
                    x = pl->ew_relux_cmp;
            }
            x = vnpu_clamp64(x, -VNPU_INT_BOUND, VNPU_INT_BOUND);
            x = vnpu_shift_round(x * pl->oc_scale, pl->oc_shift, pl->oc_half_away) + pl->oc_off;
            vnpu_store_int(d, pl->out_prec, x);
        }
    }
    return 0;
}

/* ---- flying mode: main input from MRDMA ------------------------------------ */

static union {
    int32_t i32[VNPU_FLY_CHUNK];
    float f32[VNPU_FLY_CHUNK];
} vnpu_fly;

int vnpu_dpu_flying_task(vnpu_task *t)
{
    uint32_t rfm = R(t, NPU_DPU_RDMA_FEATURE_MODE_CFG);
    uint32_t w = NPU_DPU_RDMA_DATA_CUBE_WIDTH_WIDTH_GET(R(t, NPU_DPU_RDMA_DATA_CUBE_WIDTH)) + 1u;
    uint32_t h = NPU_DPU_RDMA_DATA_CUBE_HEIGHT_HEIGHT_GET(R(t, NPU_DPU_RDMA_DATA_CUBE_HEIGHT)) + 1u;
    uint32_t c =
        NPU_DPU_RDMA_DATA_CUBE_CHANNEL_CHANNEL_GET(R(t, NPU_DPU_RDMA_DATA_CUBE_CHANNEL)) + 1u;
    unsigned in_prec = NPU_DPU_RDMA_FEATURE_MODE_CFG_IN_PRECISION_GET(rfm);
    unsigned elem, c2;
    uint32_t npix = w * h, per;
    const uint8_t *src;
    vnpu_dpu_plan *pl;

    if (!(t->enable & NPU_UNIT_DPU_RDMA))
        return vnpu_unsupported(t, NPU_DPU_FEATURE_MODE_CFG,
                                "a flying DPU task without DPU_RDMA in the op-enable mask");
    if (!NPU_DPU_RDMA_FEATURE_MODE_CFG_FLYING_MODE_GET(rfm) ||
        NPU_DPU_RDMA_FEATURE_MODE_CFG_MRDMA_DISABLE_GET(rfm))
        return vnpu_unsupported(t, NPU_DPU_RDMA_FEATURE_MODE_CFG,
                                "a flying DPU task whose MRDMA is not in flying mode/enabled");
    if (!t->cfg->rk356x && NPU_DPU_RDMA_FEATURE_MODE_CFG_COMB_USE_GET(rfm))
        return vnpu_unsupported(t, NPU_DPU_RDMA_FEATURE_MODE_CFG, "COMB_USE in flying mode");
    if (in_prec != VNPU_PREC_INT8 && in_prec != VNPU_PREC_FP16)
        return vnpu_unsupported(t, NPU_DPU_RDMA_FEATURE_MODE_CFG, "this MRDMA input precision");
    if (R(t, NPU_DPU_RDMA_SRC_DMA_CFG) != 0)
        return vnpu_unsupported(t, NPU_DPU_RDMA_SRC_DMA_CFG, "MRDMA (un)pooling");
    elem = vnpu_prec_bytes(in_prec);
    c2 = t->cfg->atom / elem;
    if (c > c2)
        return vnpu_unsupported(t, NPU_DPU_RDMA_DATA_CUBE_CHANNEL,
                                "a flying input of more than one surface");
    pl = vnpu_plan_build(t, c, npix, in_prec, 1, 0);
    if (pl == NULL)
        return -1;
    src = vnpu_dma_read(t, R(t, NPU_DPU_RDMA_SRC_BASE_ADDR), (uint64_t)npix * t->cfg->atom,
                        "MRDMA (flying input)");
    if (src == NULL)
        return -1;
    per = VNPU_FLY_CHUNK / c;
    for (uint32_t p0 = 0; p0 < npix; p0 += per) {
        uint32_t n = npix - p0 < per ? npix - p0 : per;
        vnpu_acc_chunk ck = {p0, n, c, vnpu_fly.i32, vnpu_fly.f32, NULL, 0};
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *px = src + (size_t)(p0 + i) * t->cfg->atom;
            for (uint32_t ch = 0; ch < c; ch++) {
                if (in_prec == VNPU_PREC_FP16)
                    vnpu_fly.f32[i * c + ch] = vnpu_f16_to_f32(vnpu_ld16(px + 2u * ch));
                else
                    vnpu_fly.i32[i * c + ch] = (int8_t)px[ch];
            }
        }
        if (vnpu_dpu_process(t, pl, &ck) != 0)
            return -1;
    }
    return 0;
}
