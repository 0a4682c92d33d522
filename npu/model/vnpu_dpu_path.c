/*
 * vnpu_dpu_path.c - the DPU's data path: a chunk of accumulators (from CORE,
 * or from MRDMA in flying mode) through the stages a plan (vnpu_dpu.c)
 * latched, into the output cube (vnpu_dpu_process). Every per-element
 * function is here, in one file, so that the compiler inlines them.
 *
 * Arithmetic (vnpu.md §7.4; rounding choices of vnpu.md §7.4, §10.3):
 *   t1 = acc + ALU_k + OW_k·Σx                     exact, 64-bit
 *   t2 = floor((t1·MUL_k) >> shift)                BS MUL: arithmetic shift (floor);
 *                                                  shift = BS_MUL_SHIFT_VALUE for
 *                                                  t1·MUL >= 0, DATA_FORMAT
 *                                                  BS_MUL_SHIFT_VALUE_NEG below 0
 *   ReLU / ReLU-X, BN the same way
 *   e  = EW_CVT(operand): TYPE 1 floor(((q+off)·scale) >> shift), TYPE 0
 *        floor((q·scale) >> shift) + off          (floor: the note's default)
 *   t3 = t2 (+|max|min|-) e, EW ReLU
 *   y  = round((t3·OUT_SCALE) >> OUT_SHIFT) + OUT_OFFSET, saturated to the
 *        output type; round = nearest, ties to even when CVT_ROUND = 0
 *        (hardware.md §1.8), ties away from zero when CVT_ROUND = 1.
 * The LUT (vnpu.md §7.5) maps t2 before the EW operation; on the integer
 * path in integers, interpolation and edge slopes floored.
 * fp16 processing uses fp32 arithmetic: BS, BN, LUT, EW,
 * ReLU, then y = (t + OUT_CVT_OFFSET)·2^-MINUS_EXP.
 */
#include "vnpu_base.h"
#include "vnpu_dpu_internal.h"
#include "vnpu_units.h"

/* ---- LUT evaluation (vnpu.md §7.5; the tables' programming: vnpu_dpu.c) ---- */

/* -1 below the table's window, 0 inside, 1 above. */
static int vnpu_lut_side(const vnpu_lut_table *tb, float x)
{
    return x < (float)tb->start ? -1 : (x > (float)tb->end ? 1 : 0);
}

/* The table that answers x: the one x falls in; when both or neither do,
 * the priority bit of that case (NVDLA's hybrid/underflow/overflow rule). */
static unsigned vnpu_lut_pick(const vnpu_lut *l, int le, int lo)
{
    if (le == 0 && lo == 0)
        return l->hybrid_lo;
    if (le == 0 || lo == 0)
        return lo == 0;
    if (le < 0 && lo < 0)
        return l->uflow_lo;
    if (le > 0 && lo > 0)
        return l->oflow_lo;
    return l->hybrid_lo;
}

/* Linear interpolation between the entries around x; outside the window,
 * the edge entry plus the edge slope times the distance (vnpu.md §7.5). */
static float vnpu_lut_eval(const vnpu_lut *l, float x)
{
    int side[2] = {vnpu_lut_side(&l->table[0], x), vnpu_lut_side(&l->table[1], x)};
    unsigned id = vnpu_lut_pick(l, side[0], side[1]);
    const vnpu_lut_table *tb = &l->table[id];
    const int16_t *e = l->entries[id];
    uint32_t last = tb->last;
    float pos;
    uint32_t i;

    if (side[id] < 0)
        return (float)e[0] + (x - (float)tb->start) * tb->uflow_slope;
    if (side[id] > 0)
        return (float)e[last] + (x - (float)tb->end) * tb->oflow_slope;
    pos = (x - (float)tb->start) / (float)tb->step;
    i = (uint32_t)pos;
    if (i >= last)
        return (float)e[last];
    return (float)e[i] + (float)(e[i + 1] - e[i]) * (pos - (float)i);
}

/* The integer path's LUT: the same tables in integers, the fraction between
 * two entries and the edge slopes floored (vnpu.md §7.5: inferred). */
static int64_t vnpu_lut_eval_int(const vnpu_lut *l, int64_t x)
{
    int side[2], id;
    const vnpu_lut_table *tb;
    const int16_t *e;
    int64_t off;
    uint32_t i;

    for (unsigned k = 0; k < 2; k++)
        side[k] = x < l->table[k].start ? -1 : (x > l->table[k].end ? 1 : 0);
    id = (int)vnpu_lut_pick(l, side[0], side[1]);
    tb = &l->table[id];
    e = l->entries[id];
    if (side[id] < 0)
        return e[0] + vnpu_shift_floor((x - tb->start) * tb->uflow_scale, tb->uflow_shift);
    if (side[id] > 0)
        return e[tb->last] + vnpu_shift_floor((x - tb->end) * tb->oflow_scale, tb->oflow_shift);
    off = x - tb->start;
    i = (uint32_t)(off / tb->step); /* off >= 0: the entry below x */
    if (i >= tb->last)
        return e[tb->last];
    return e[i] + vnpu_shift_floor((int64_t)(e[i + 1] - e[i]) * (off % tb->step), tb->select);
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
        int64_t y = x * (s->mul_stream ? s->mul_v[ch] : s->mul_reg);
        x = vnpu_shift_floor(y, y >= 0 ? s->shift_pos : s->shift_neg);
    }
    if (s->relu && x < 0)
        x = 0;
    if (s->relux && x > s->relux_cmp)
        x = s->relux_cmp;
    return x;
}

/* The EW operand of pixel p, channel ch, in memory (NULL: from a register). */
static const uint8_t *vnpu_ew_ptr(const vnpu_dpu_plan *pl, const vnpu_soc_cfg *cfg, uint32_t p,
                                  uint32_t ch)
{
    if (pl->ew_reg_operand)
        return NULL;
    if (pl->ew_per_channel)
        p = 0;
    return pl->ew_base + (size_t)(ch / pl->ew_c2) * pl->ew_surf + (size_t)p * cfg->atom +
           (size_t)(ch % pl->ew_c2) * pl->ew_elem;
}

static int64_t vnpu_ew_int(const vnpu_dpu_plan *pl, int64_t x, const uint8_t *e)
{
    int64_t v;

    if (pl->ew_reg_operand)
        v = pl->ew_reg_value;
    else if (pl->ew_prec == VNPU_PREC_INT8)
        v = (int8_t)e[0];
    else if (pl->ew_prec == VNPU_PREC_INT16)
        v = (int16_t)vnpu_ld16(e);
    else
        v = (int32_t)vnpu_ld32(e);
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
    float v = pl->ew_reg_operand              ? pl->ew_f_reg_value
              : pl->ew_prec == VNPU_PREC_FP32 ? vnpu_f32_from_bits(vnpu_ld32(e))
                                              : vnpu_f16_to_f32(vnpu_ld16(e));

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

/* The fp data path, a run of n channels (ch0 on) of pixel p at a time:
 * every stage is a loop over the run, so each value goes through exactly the
 * operations, in the order, that it would alone (BS, BN, EW: LUT, operation,
 * ReLU; then OUT_CVT), while the loops vectorise. */
#define VNPU_DPU_RUN 64u

/* ReLU (negatives to 0) and ReLUX (values above cap to cap) over a run. */
static void vnpu_relu_fp_run(float *v, uint32_t n, int relu, int relux, float cap)
{
    if (relu)
        for (uint32_t j = 0; j < n; j++)
            v[j] = v[j] < 0.0f ? 0.0f : v[j];
    if (relux)
        for (uint32_t j = 0; j < n; j++)
            v[j] = v[j] > cap ? cap : v[j];
}

static void vnpu_stage_fp_run(const vnpu_stage *s, float *v, uint32_t ch0, uint32_t n)
{
    if (s->alu && s->alu_stream)
        for (uint32_t j = 0; j < n; j++)
            v[j] += vnpu_f32_from_bits((uint32_t)s->alu_v[ch0 + j]);
    else if (s->alu)
        for (uint32_t j = 0; j < n; j++)
            v[j] += s->f_alu;
    if (s->mul && s->mul_stream)
        for (uint32_t j = 0; j < n; j++)
            v[j] *= vnpu_f16_to_f32((uint16_t)s->mul_v[ch0 + j]);
    else if (s->mul)
        for (uint32_t j = 0; j < n; j++)
            v[j] *= s->f_mul;
    vnpu_relu_fp_run(v, n, s->relu, s->relux, s->f_relux);
}

static void vnpu_ew_fp_run(const vnpu_dpu_plan *pl, const vnpu_soc_cfg *cfg, float *v, uint32_t p,
                           uint32_t ch0, uint32_t n)
{
    if (pl->ew_reg_operand) {
        for (uint32_t j = 0; j < n; j++)
            v[j] = vnpu_ew_fp(pl, v[j], NULL);
        return;
    }
    /* within one C2 group of the operand the channels are ew_elem apart */
    for (uint32_t g = 0, len; g < n; g += len) {
        const uint8_t *e = vnpu_ew_ptr(pl, cfg, p, ch0 + g);
        len = pl->ew_c2 - (ch0 + g) % pl->ew_c2;
        len = len < n - g ? len : n - g;
        for (uint32_t j = 0; j < len; j++)
            v[g + j] = vnpu_ew_fp(pl, v[g + j], e + (size_t)j * pl->ew_elem);
    }
}

/* Where pixel p of the DPU cube starts in its surface: lines of out_w
 * pixels, out_line bytes apart (a notch makes them longer). */
static size_t vnpu_out_pixel(const vnpu_dpu_plan *pl, uint32_t p)
{
    return (size_t)(p / pl->out_w) * pl->out_line + (size_t)(p % pl->out_w) * pl->out_pix;
}

/* OUT_CVT and the store of channels [ch0, ch0 + n) of pixel p: plain
 * [pixel][channel] with NONALIGN, else NC1HWC2 (surfaces of C2 channels, one
 * output pixel each, vnpu_out_pixel). */
static void vnpu_dpu_fp_store(const vnpu_dpu_plan *pl, float *v, uint32_t p, uint32_t ch0,
                              uint32_t n)
{
    uint16_t h[VNPU_DPU_RUN];

    if (pl->oc_off != 0) /* x + 0 would turn -0 into +0 */
        for (uint32_t j = 0; j < n; j++)
            v[j] += (float)pl->oc_off;
    for (uint32_t j = 0; j < n; j++)
        v[j] *= pl->oc_f_scale;
    if (pl->out_prec == VNPU_PREC_FP16)
        vnpu_f32_to_f16_run(h, v, n);
    for (uint32_t g = 0, len; g < n; g += len) {
        uint32_t ch = ch0 + g;
        uint8_t *d;
        if (pl->nonalign) {
            len = n - g;
            d = pl->dst + ((size_t)p * pl->k_out + ch) * pl->out_elem;
        } else {
            len = pl->out_c2 - ch % pl->out_c2;
            len = len < n - g ? len : n - g;
            d = pl->dst + (size_t)(ch / pl->out_c2) * pl->dst_surf + vnpu_out_pixel(pl, p) +
                (size_t)(ch % pl->out_c2) * pl->out_elem;
        }
        if (pl->out_prec == VNPU_PREC_FP16)
            for (uint32_t j = 0; j < len; j++)
                vnpu_st16(d + (size_t)j * 2u, h[g + j]);
        else
            for (uint32_t j = 0; j < len; j++)
                vnpu_st32(d + (size_t)j * 4u, vnpu_f32_bits(v[g + j]));
    }
}

/* v: the run's accumulators, worked on in place. */
static void vnpu_dpu_fp_run(const vnpu_dpu_plan *pl, const vnpu_soc_cfg *cfg, float *v, uint32_t p,
                            uint32_t ch0, uint32_t n)
{
    if (pl->bs.on)
        vnpu_stage_fp_run(&pl->bs, v, ch0, n);
    if (pl->bn.on)
        vnpu_stage_fp_run(&pl->bn, v, ch0, n);
    if (pl->ew_on) {
        if (pl->lut_on)
            for (uint32_t j = 0; j < n; j++)
                v[j] = vnpu_lut_eval(&pl->lut, v[j]);
        if (pl->ew_do_op)
            vnpu_ew_fp_run(pl, cfg, v, p, ch0, n);
        vnpu_relu_fp_run(v, n, pl->ew_relu, pl->ew_relux, pl->ew_f_relux);
    }
    vnpu_dpu_fp_store(pl, v, p, ch0, n);
}

/* The integer data path of one accumulator (i: the pixel within the chunk,
 * for the input sums of the offset weight). */
static void vnpu_dpu_int_one(const vnpu_dpu_plan *pl, const vnpu_soc_cfg *cfg,
                             const vnpu_acc_chunk *ck, uint32_t i, uint32_t ch, uint8_t *d)
{
    uint32_t p = ck->p0 + i;
    int64_t x = ck->acc_i[(size_t)i * ck->k + ch];

    if (pl->bs.on) {
        if (pl->bs.alu)
            x += pl->bs.alu_stream ? vnpu_bs_alu[ch] : pl->bs.alu_reg;
        if (pl->ow) {
            int64_t sx = ck->sumx_per_channel ? ck->sumx[(size_t)i * ck->k + ch] : ck->sumx[i];
            x += (int64_t)(pl->ow_stream ? vnpu_bs_ow[ch] : pl->ow_reg) * sx;
        }
        x = vnpu_stage_int_tail(&pl->bs, x, ch);
    }
    if (pl->bn.on) {
        if (pl->bn.alu)
            x += pl->bn.alu_stream ? vnpu_bn_alu[ch] : pl->bn.alu_reg;
        x = vnpu_stage_int_tail(&pl->bn, x, ch);
    }
    if (pl->ew_on) {
        if (pl->lut_on)
            x = vnpu_lut_eval_int(&pl->lut, vnpu_clamp64(x, -VNPU_INT_BOUND, VNPU_INT_BOUND));
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

/* The integer path: channels [ch0, end) of pixel i, stored from d on. */
static void vnpu_dpu_int_run(const vnpu_dpu_plan *pl, const vnpu_soc_cfg *cfg,
                             const vnpu_acc_chunk *ck, uint32_t i, uint32_t ch0, uint32_t end,
                             uint8_t *d)
{
    for (uint32_t ch = ch0; ch < end; ch++, d += pl->out_elem)
        vnpu_dpu_int_one(pl, cfg, ck, i, ch, d);
}

/* Every accumulator of the chunk through the data path into the output
 * cube: NC1HWC2 (surfaces of C2 channels, one output pixel each) or, with
 * NONALIGN, plain [pixel][channel]. */
int vnpu_dpu_process(vnpu_task *t, vnpu_dpu_plan *pl, const vnpu_acc_chunk *ck)
{
    const vnpu_soc_cfg *cfg = t->cfg;

    for (uint32_t i = 0; i < ck->n; i++) {
        size_t p = (size_t)ck->p0 + i;
        if (pl->fp) {
            for (uint32_t ch = 0; ch < pl->k_out; ch += VNPU_DPU_RUN) {
                uint32_t n = pl->k_out - ch < VNPU_DPU_RUN ? pl->k_out - ch : VNPU_DPU_RUN;
                vnpu_dpu_fp_run(pl, cfg, ck->acc_f + i * ck->k + ch, (uint32_t)p, ch, n);
            }
            continue;
        }
        if (pl->nonalign) {
            vnpu_dpu_int_run(pl, cfg, ck, i, 0, pl->k_out, pl->dst + p * pl->k_out * pl->out_elem);
            continue;
        }
        uint8_t *d = pl->dst + vnpu_out_pixel(pl, (uint32_t)p);
        for (uint32_t ch = 0; ch < pl->k_out; ch += pl->out_c2, d += pl->dst_surf) {
            uint32_t end = pl->k_out - ch < pl->out_c2 ? pl->k_out : ch + pl->out_c2;
            vnpu_dpu_int_run(pl, cfg, ck, i, ch, end, d);
        }
    }
    return 0;
}
