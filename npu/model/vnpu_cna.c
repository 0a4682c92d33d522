/*
 * vnpu_cna.c - CNA (feature/weight fetch, input converter, padding) and
 * CORE (MAC array + accumulator) of the virtual NPU: direct and depthwise
 * convolution, int8 and int4 (exact int32 accumulation) and fp16 (fp32
 * accumulation), feeding the DPU row by row.
 *
 * Layouts (what the model reads; hardware.md §4, vnpu.md §5, §6):
 *  - Input, ARGB_IN = 8..11 (packed NHWC, C_real = ARGB_IN - 7 <= 4
 *    channels): element (y, x, c) at FEATURE_DATA_ADDR + y * pitch +
 *    (x * C_real + c) * elem, pitch = pitch_px * C_real * elem with pitch_px
 *    = CBUF_CON1 / DATAIN_HEIGHT on RK3588/RV1106 and CBUF_CON1[31:16] on
 *    RK356x (vnpu.md §5.1). Channels C_real..DATAIN_CHANNEL-1 read as 0.
 *  - Input, ARGB_IN = 0 (NC1HWC2, C2 = atom / elem): element (c, y, x) at
 *    FEATURE_DATA_ADDR + (c / C2) * surf + y * line + x * atom + (c % C2) *
 *    elem. RK356x: line = LINE_STRIDE * atom, surf = SURF_STRIDE * atom.
 *    RK3588: line = LINE_STRIDE / 4 * atom and surf = (SURF_STRIDE +
 *    LINE_STRIDE) * atom (group-line fetch), or with GROUP_LINE_OFF = 1
 *    line = LINE_STRIDE * atom and surf = (SURF_STRIDE + DATAIN_WIDTH) * atom
 *    (one-pixel lines, or one line); SURF_STRIDE is a 28-bit two's
 *    complement (vnpu.md §5.2).
 *    Surfaces may interleave with the lines (row-major matmul A).
 *  - int4 (RK3588, vnpu.md §6.3): C2 = 32, two elements a byte, the even
 *    element in the high nibble; NC1HWC2 and direct convolution only.
 *  - Weights at DCOMP_ADDR0 (with DCOMP_CTRL = 1 first decompressed,
 *    vnpu.md §6.2): [kernel group][input slice][ky][kx][kernel in
 *    group][channel in slice]; groups of 32 (int8) / 16 (fp16) / 64 (int4)
 *    kernels on RK3588, 16 / 8 on RK356x, the last group compact; slices of
 *    32 channels (16 for fp16 on RK356x), the last one compact.
 *    Depthwise (CONV_MODE 3, WEIGHT_KERNELS 1): [slice][ky][kx][channel],
 *    slices of 64 bytes (RK3588) / 32 bytes (RK356x), the last compact.
 *  - Padding: PAD_CON0 top/left, bottom/right implied by the output size
 *    (at most kernel - 1 rows/columns), value PAD_CON1 (RK356x:
 *    PAD_CON0[31:16]) - the low 8 bits for int8, the fp16 bits for fp16.
 *  - Converter (CVT_CON0..4) on the first <= 4 real channels of int8 input
 *    when enabled (vnpu_cvt.c, vnpu.md §5.3); the pad value comes after it.
 * The result does not depend on CBUF programming (banks, entries, grains).
 */
#include <stdio.h>
#include <string.h>

#include "vnpu_base.h"
#include "vnpu_cvt.h"
#include "vnpu_dcomp.h"
#include "vnpu_units.h"

/* Scratch: the padded input window, the repacked weights and one chunk of
 * accumulators. Inputs larger than this are reported, not guessed. Real
 * tasks are bounded by the 384 KiB CBUF, but a window can be larger than
 * the CBUF (PP-OCRv4 det streams 49x126x32 fp16 rows through it) and the
 * model holds fp16 values as fp32: twice the bytes; a deconvolution spreads
 * its input out with zeros. Weights pass through their scratch in parts of
 * whole kernels, as the hardware streams them (the matmul API's fp16 tasks
 * hold up to 1M weights). */
#define VNPU_X_BYTES   (4096u * 1024u)
#define VNPU_W_BYTES   (1024u * 1024u)
#define VNPU_ACC_ELEMS (32u * 1024u)
#define VNPU_SLICE     32u /* input channels per weight slice */

static _Alignas(16) union {
    int8_t i8[VNPU_X_BYTES];
    float f32[VNPU_X_BYTES / 4];
} vnpu_x;
static _Alignas(16) union {
    int8_t i8[VNPU_W_BYTES];
    float f32[VNPU_W_BYTES / 4];
} vnpu_w;
static _Alignas(16) union {
    int32_t i32[VNPU_ACC_ELEMS];
    float f32[VNPU_ACC_ELEMS];
} vnpu_acc;
static int32_t vnpu_sumx[VNPU_ACC_ELEMS];

typedef struct {
    unsigned prec, elem; /* elem: bytes of an int8/fp16 element (int4: 0, see nib) */
    unsigned nib;        /* nibbles of an element: 1 int4, 2 int8, 4 fp16 */
    int fp, dw, int4;
    uint32_t hin, win, cin, creal;
    uint32_t hout, wout, kout;
    uint32_t nker; /* kernels with weights (dw: channels computed) */
    uint32_t kh, kw, sx, sy;
    uint32_t dx, dy; /* deconvolution: input pixels land every dx columns, dy rows */
    uint32_t pt, pl;
    uint32_t hp, wp; /* padded window in the scratch */
    int dcomp;       /* weights come through the decompressor (vnpu.md §6.2) */
    /* direct weights: the native ones, repacked into the scratch a part of
     * kernels at a time (vnpu_repack_kernels) */
    const uint8_t *wsrc;
    uint32_t cin_w, wgroup, wslice; /* channels a kernel stores, group and slice sizes */
    uint32_t part, part_k0;         /* kernels a part, first kernel in the scratch */
    int8_t pad_i8;
    float pad_f;
    vnpu_cvt_prog cvt;
} vnpu_conv;

/* Bytes of n elements of the task's precision (int4: two a byte). */
static uint64_t vnpu_elem_bytes(const vnpu_conv *g, uint64_t n)
{
    return (n * g->nib + 1u) / 2u;
}

/* Element i of packed int4 data, sign-extended: two elements a byte, the
 * even one in the high nibble (vnpu.md §6.3). */
static int8_t vnpu_int4_at(const uint8_t *p, size_t i)
{
    unsigned v = i % 2u ? p[i / 2u] % 16u : p[i / 2u] / 16u;

    return (int8_t)(v >= 8u ? (int)v - 16 : (int)v);
}

/* ---- register decode -------------------------------------------------------- */

/* The CBUF split (vnpu.md §6.1; RK3588, whose rules the streams show):
 * data and weight banks within the SoC's banks, the rows of an NC1HWC2
 * input (DATA_ENTRIES 64-byte entries each) within the data banks, and
 * entries for a whole input line. The results never depend on it; wrong
 * programming is reported. */
static int vnpu_cbuf_check(vnpu_task *t, const vnpu_conv *g)
{
    const npu_soc_profile *soc = t->dev->soc;
    uint32_t con0 = R(t, NPU_CNA_CBUF_CON0);
    uint32_t data = NPU_CNA_CBUF_CON0_DATA_BANK_GET(con0);
    uint32_t weight = NPU_CNA_CBUF_CON0_WEIGHT_BANK_GET(con0);
    uint32_t entries = NPU_CNA_CBUF_CON1_DATA_ENTRIES_GET(R(t, NPU_CNA_CBUF_CON1));
    uint64_t rows = (uint64_t)g->hin * entries * 64u;
    int argb = (int)NPU_CNA_CONV_CON1_ARGB_IN_GET(R(t, NPU_CNA_CONV_CON1));

    if (t->cfg->rk356x || !soc->cbuf_banks)
        return 0;
    if (data + weight > soc->cbuf_banks)
        return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                         "CNA_CBUF_CON0 = 0x%08lx: %lu data + %lu weight banks exceed the CBUF's "
                         "%u",
                         (unsigned long)con0, (unsigned long)data, (unsigned long)weight,
                         (unsigned)soc->cbuf_banks);
    if (!argb && rows > (uint64_t)data * soc->cbuf_bank_bytes)
        return vnpu_inconsistent(t, NPU_CNA_CBUF_CON1, NPU_CNA_CBUF_CON0,
                                 "DATAIN_HEIGHT x DATA_ENTRIES 64-byte entries overflow the data "
                                 "banks (a CBUF bank overflow)");
    /* an input line of every channel must fit its entries (vendor streams
     * write as many or more: 24 fp16 channels counted as 32) */
    if (!argb && (uint64_t)entries * 64u < vnpu_elem_bytes(g, (uint64_t)g->win * g->cin))
        return vnpu_inconsistent(t, NPU_CNA_CBUF_CON1, NPU_CNA_DATA_SIZE1,
                                 "DATA_ENTRIES hold less than one input line of DATAIN_CHANNEL "
                                 "channels (K does not match the CBUF entries)");
    return 0;
}

/* int4 as the vendor's matmul streams use it (vnpu.md §6.3): a direct
 * convolution of whole 32-channel atoms and whole 64-kernel groups, without
 * padding, packed input or the converter. What the rest would do with
 * nibbles (the pad value's width, a compact slice of half bytes) is not
 * known, so it is refused. */
static int vnpu_int4_checks(vnpu_task *t, const vnpu_conv *g)
{
    uint32_t con1 = R(t, NPU_CNA_CONV_CON1);

    if (g->dw || NPU_CNA_CONV_CON1_DECONV_GET(con1) || NPU_CNA_CONV_CON1_ARGB_IN_GET(con1))
        return vnpu_unsupported(t, NPU_CNA_CONV_CON1,
                                "int4 input other than a direct convolution of NC1HWC2 data");
    if (g->cin % 32u != 0)
        return vnpu_unsupported(t, NPU_CNA_DATA_SIZE1,
                                "int4 input channels that are not whole 32-channel atoms");
    if (g->nker % t->cfg->kgroup_int4 != 0)
        return vnpu_unsupported(t, NPU_CNA_WEIGHT_SIZE2,
                                "int4 kernels that are not whole 64-kernel groups");
    if (g->pt || g->pl || g->hp != g->hin || g->wp != g->win)
        return vnpu_unsupported(t, NPU_CNA_PAD_CON0, "padding of int4 input");
    return 0;
}

/* What kind of convolution (vnpu.md §5.4): direct or depthwise, the input
 * precision, strides and deconvolution, decompressed weights or not, and the
 * features the model refuses. */
static int vnpu_conv_kind(vnpu_task *t, vnpu_conv *g)
{
    uint32_t con1 = R(t, NPU_CNA_CONV_CON1);
    uint32_t con2 = R(t, NPU_CNA_CONV_CON2);
    uint32_t con3 = R(t, NPU_CNA_CONV_CON3);
    unsigned mode = NPU_CNA_CONV_CON1_CONV_MODE_GET(con1);

    if (mode != 0 && mode != 3)
        return vnpu_unsupported(t, NPU_CNA_CONV_CON1,
                                "this CONV_MODE (only 0 direct, 3 depthwise)");
    g->dw = mode == 3;
    g->prec = NPU_CNA_CONV_CON1_IN_PRECISION_GET(con1);
    if (g->prec == VNPU_PREC_INT4 && !t->cfg->kgroup_int4)
        return vnpu_unsupported(t, NPU_CNA_CONV_CON1, "int4 IN_PRECISION outside RK3588");
    if (g->prec != VNPU_PREC_INT8 && g->prec != VNPU_PREC_FP16 && g->prec != VNPU_PREC_INT4)
        return vnpu_unsupported(t, NPU_CNA_CONV_CON1, "this IN_PRECISION (only int8, fp16, int4)");
    g->fp = g->prec == VNPU_PREC_FP16;
    g->int4 = g->prec == VNPU_PREC_INT4;
    g->elem = g->fp ? 2u : g->int4 ? 0u : 1u;
    g->nib = g->fp ? 4u : g->int4 ? 1u : 2u;
    if (NPU_CNA_CONV_CON2_CSC_DO_EN_GET(con2) || NPU_CNA_CONV_CON2_CSC_WO_EN_GET(con2))
        return vnpu_unsupported(t, NPU_CNA_CONV_CON2, "CSC_DO_EN/CSC_WO_EN");
    g->sx = NPU_CNA_CONV_CON3_CONV_X_STRIDE_GET(con3);
    g->sy = NPU_CNA_CONV_CON3_CONV_Y_STRIDE_GET(con3);
    if (g->sx == 0 || g->sy == 0)
        return vnpu_unsupported(t, NPU_CNA_CONV_CON3, "a stride of 0");
    /* deconvolution (vnpu.md §5.4): the input spread out with DECONV_*_STRIDE
     * zero rows/columns between pixels, then an ordinary convolution */
    g->dx = NPU_CNA_CONV_CON3_DECONV_X_STRIDE_GET(con3) + 1u;
    g->dy = NPU_CNA_CONV_CON3_DECONV_Y_STRIDE_GET(con3) + 1u;
    if ((g->dx > 1 || g->dy > 1) && !NPU_CNA_CONV_CON1_DECONV_GET(con1))
        return vnpu_inconsistent(t, NPU_CNA_CONV_CON3, NPU_CNA_CONV_CON1,
                                 "deconvolution strides without the DECONV bit");
    if (NPU_CNA_CONV_CON1_DECONV_GET(con1) && (g->sx != 1 || g->sy != 1))
        return vnpu_unsupported(t, NPU_CNA_CONV_CON3, "a deconvolution with a stride above 1");
    if (NPU_CNA_CONV_CON3_ATROUS_X_DILATION_GET(con3) ||
        NPU_CNA_CONV_CON3_ATROUS_Y_DILATION_GET(con3))
        return vnpu_unsupported(t, NPU_CNA_CONV_CON3,
                                "atrous dilation (field encoding unverified)");
    if (NPU_CNA_CONV_CON3_NN_MODE_GET(con3))
        return vnpu_unsupported(t, NPU_CNA_CONV_CON3, "multi-core NN_MODE");
    if (NPU_CNA_FC_CON0_FC_SKIP_EN_GET(R(t, NPU_CNA_FC_CON0)))
        return vnpu_unsupported(t, NPU_CNA_FC_CON0, "zero skipping");
    g->dcomp = vnpu_dcomp_enabled(t, g->prec);
    if (g->dcomp < 0)
        return -1;
    if (NPU_CORE_CLIP_TRUNCATE_CLIP_TRUNCATE_GET(R(t, NPU_CORE_CLIP_TRUNCATE)))
        return vnpu_unsupported(t, NPU_CORE_CLIP_TRUNCATE, "an accumulator truncation");
    return 0;
}

/* The input, kernel and output sizes and the padding, each non-empty and
 * within the accumulator's range and the CBUF. */
static int vnpu_conv_sizes(vnpu_task *t, vnpu_conv *g)
{
    uint32_t ws2 = R(t, NPU_CNA_WEIGHT_SIZE2);
    uint32_t o0 = R(t, NPU_CORE_DATAOUT_SIZE_0);

    g->hin = NPU_CNA_DATA_SIZE0_DATAIN_HEIGHT_GET(R(t, NPU_CNA_DATA_SIZE0));
    g->win = NPU_CNA_DATA_SIZE0_DATAIN_WIDTH_GET(R(t, NPU_CNA_DATA_SIZE0));
    g->cin = NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL_GET(R(t, NPU_CNA_DATA_SIZE1));
    g->creal = NPU_CNA_DATA_SIZE1_DATAIN_CHANNEL_REAL_GET(R(t, NPU_CNA_DATA_SIZE1)) + 1u;
    g->nker = NPU_CNA_WEIGHT_SIZE2_WEIGHT_KERNELS_GET(ws2);
    g->kh = NPU_CNA_WEIGHT_SIZE2_WEIGHT_HEIGHT_GET(ws2);
    g->kw = NPU_CNA_WEIGHT_SIZE2_WEIGHT_WIDTH_GET(ws2);
    g->hout = NPU_CORE_DATAOUT_SIZE_0_DATAOUT_HEIGHT_GET(o0) + 1u;
    g->wout = NPU_CORE_DATAOUT_SIZE_0_DATAOUT_WIDTH_GET(o0) + 1u;
    g->kout = NPU_CORE_DATAOUT_SIZE_1_DATAOUT_CHANNEL_GET(R(t, NPU_CORE_DATAOUT_SIZE_1)) + 1u;
    g->pt = NPU_CNA_PAD_CON0_PAD_TOP_GET(R(t, NPU_CNA_PAD_CON0));
    g->pl = NPU_CNA_PAD_CON0_PAD_LEFT_GET(R(t, NPU_CNA_PAD_CON0));
    if (g->hin == 0 || g->win == 0 || g->cin == 0)
        return vnpu_unsupported(t, NPU_CNA_DATA_SIZE0, "an empty input (DATA_SIZE0/1)");
    if (g->creal > g->cin)
        return vnpu_unsupported(t, NPU_CNA_DATA_SIZE1, "more real than padded channels");
    if (g->kh == 0 || g->kw == 0 || g->nker == 0)
        return vnpu_unsupported(t, NPU_CNA_WEIGHT_SIZE2, "an empty kernel");
    /* int32 accumulation is exact while channels x taps x 2^14 < 2^31 */
    if ((uint64_t)g->cin * g->kh * g->kw >= 131072u)
        return vnpu_unsupported(t, NPU_CNA_DATA_SIZE1,
                                "more than 2^17 products per output (accumulator range)");
    if (vnpu_cbuf_check(t, g) != 0)
        return -1;
    return 0;
}

/* The CNA's and CORE's registers describe the same convolution; a
 * depthwise task's kernels. */
static int vnpu_conv_core_match(vnpu_task *t, vnpu_conv *g)
{
    uint32_t misc = R(t, NPU_CORE_MISC_CFG);

    if (NPU_CNA_DATA_SIZE3_SURF_MODE_GET(R(t, NPU_CNA_DATA_SIZE3)))
        return vnpu_unsupported(t, NPU_CNA_DATA_SIZE3, "SURF_MODE");
    if (NPU_CNA_DATA_SIZE2_DATAOUT_WIDTH_GET(R(t, NPU_CNA_DATA_SIZE2)) != g->wout)
        return vnpu_inconsistent(t, NPU_CNA_DATA_SIZE2, NPU_CORE_DATAOUT_SIZE_0,
                                 "DATAOUT_WIDTH differs from the CORE output width");
    if (NPU_CNA_DATA_SIZE3_DATAOUT_ATOMICS_GET(R(t, NPU_CNA_DATA_SIZE3)) != g->wout * g->hout)
        return vnpu_inconsistent(t, NPU_CNA_DATA_SIZE3, NPU_CORE_DATAOUT_SIZE_0,
                                 "DATAOUT_ATOMICS differs from the CORE output size");
    if (!t->cfg->rk356x) {
        /* RK3588 map; RK356x puts MISC_CFG's precision elsewhere (vnpu.md §9) */
        if ((uint32_t)NPU_CORE_MISC_CFG_DW_EN_GET(misc) != (uint32_t)g->dw)
            return vnpu_inconsistent(t, NPU_CORE_MISC_CFG, NPU_CNA_CONV_CON1,
                                     "CORE DW_EN does not match CONV_MODE");
        if (NPU_CORE_MISC_CFG_PROC_PRECISION_GET(misc) != g->prec)
            return vnpu_inconsistent(t, NPU_CORE_MISC_CFG, NPU_CNA_CONV_CON1,
                                     "CORE PROC_PRECISION does not match IN_PRECISION");
    } else if ((t->enable & NPU_UNIT_CMAC) &&
               (uint32_t)NPU_CMAC_MISC_CFG_DW_EN_GET(R(t, NPU_CMAC_MISC_CFG)) != (uint32_t)g->dw) {
        return vnpu_inconsistent(t, NPU_CMAC_MISC_CFG, NPU_CNA_CONV_CON1,
                                 "CMAC MISC_CFG depthwise bit does not match CONV_MODE");
    }
    if (g->dw) {
        if (g->nker != 1)
            return vnpu_unsupported(t, NPU_CNA_WEIGHT_SIZE2,
                                    "a depthwise task with WEIGHT_KERNELS != 1");
        g->nker = g->cin < g->kout ? g->cin : g->kout;
    } else if (g->kout < g->nker) {
        return vnpu_inconsistent(t, NPU_CORE_DATAOUT_SIZE_1, NPU_CNA_WEIGHT_SIZE2,
                                 "fewer CORE output channels than kernels");
    }
    return 0;
}

/* The padded input window the output pixels read: the top/left padding,
 * the input spread out by the deconvolution strides, and implicit
 * bottom/right padding of at most kernel - 1. */
static int vnpu_conv_window(vnpu_task *t, vnpu_conv *g)
{
    uint64_t need_h = (uint64_t)(g->hout - 1u) * g->sy + g->kh;
    uint64_t need_w = (uint64_t)(g->wout - 1u) * g->sx + g->kw;
    g->hp = g->pt + (g->hin - 1u) * g->dy + 1u;
    g->wp = g->pl + (g->win - 1u) * g->dx + 1u;
    if (need_h > g->hp) {
        if (need_h - g->hp >= g->kh)
            return vnpu_inconsistent(t, NPU_CORE_DATAOUT_SIZE_0, NPU_CNA_DATA_SIZE0,
                                     "output rows need more than kernel-1 rows of bottom padding");
        g->hp = (uint32_t)need_h;
    }
    if (need_w > g->wp) {
        if (need_w - g->wp >= g->kw)
            return vnpu_inconsistent(t, NPU_CORE_DATAOUT_SIZE_0, NPU_CNA_DATA_SIZE0,
                                     "output columns need more than kernel-1 columns of right "
                                     "padding");
        g->wp = (uint32_t)need_w;
    }
    return 0;
}

/* The task's convolution from the CNA and CORE registers, checked. */
static int vnpu_conv_decode(vnpu_task *t, vnpu_conv *g)
{
    memset(g, 0, sizeof *g);
    if (vnpu_conv_kind(t, g) != 0 || vnpu_conv_sizes(t, g) != 0 ||
        vnpu_conv_core_match(t, g) != 0 || vnpu_conv_window(t, g) != 0)
        return -1;
    if (g->int4 && vnpu_int4_checks(t, g) != 0)
        return -1;
    uint32_t padv = t->cfg->rk356x ? NPU_CNA_PAD_CON0_RK356X_PAD_VALUE_GET(R(t, NPU_CNA_PAD_CON0))
                                   : R(t, NPU_CNA_PAD_CON1);
    g->pad_i8 = (int8_t)(uint8_t)padv;
    g->pad_f = vnpu_f16_to_f32((uint16_t)padv);
    return 0;
}

/* ---- input: window fetch (the converter: vnpu_cvt.c) ------------------------ */

static void vnpu_fill_pad(const vnpu_conv *g)
{
    size_t n = (size_t)g->hp * g->wp * g->cin;

    if (!g->fp) {
        memset(vnpu_x.i8, (uint8_t)g->pad_i8, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        vnpu_x.f32[i] = g->pad_f;
}

/* Packed NHWC (ARGB mode) input. */
static int vnpu_load_argb(vnpu_task *t, vnpu_conv *g)
{
    unsigned nch = NPU_CNA_CONV_CON1_ARGB_IN_GET(R(t, NPU_CNA_CONV_CON1)) - 7u;
    uint32_t cb1 = R(t, NPU_CNA_CBUF_CON1);
    uint32_t pitch_px;
    uint64_t row;
    const uint8_t *src;

    if (nch < 1 || nch > 4)
        return vnpu_unsupported(t, NPU_CNA_CONV_CON1, "this ARGB_IN value (8..11 expected)");
    if (nch != g->creal)
        return vnpu_inconsistent(t, NPU_CNA_CONV_CON1, NPU_CNA_DATA_SIZE1,
                                 "ARGB_IN channels differ from DATAIN_CHANNEL_REAL + 1");
    if (t->cfg->rk356x) {
        pitch_px = NPU_CNA_CBUF_CON1_RK356X_DATAIN_WIDTH_GET(cb1);
    } else {
        if (cb1 % g->hin != 0)
            return vnpu_inconsistent(t, NPU_CNA_CBUF_CON1, NPU_CNA_DATA_SIZE0,
                                     "CBUF_CON1 is not DATAIN_HEIGHT x row pitch");
        pitch_px = cb1 / g->hin;
    }
    if (pitch_px < g->win)
        return vnpu_inconsistent(t, NPU_CNA_CBUF_CON1, NPU_CNA_DATA_SIZE0,
                                 "the packed-input row pitch is narrower than DATAIN_WIDTH");
    row = (uint64_t)pitch_px * nch * g->elem;
    src = vnpu_dma_read(t, R(t, NPU_CNA_FEATURE_DATA_ADDR),
                        (uint64_t)(g->hin - 1u) * row + (uint64_t)g->win * nch * g->elem,
                        "CNA feature (packed input)");
    if (src == NULL)
        return -1;
    vnpu_fill_pad(g);
    for (uint32_t y = 0; y < g->hin; y++) {
        for (uint32_t x = 0; x < g->win; x++) {
            const uint8_t *px = src + y * row + (size_t)x * nch * g->elem;
            size_t o = ((size_t)(y * g->dy + g->pt) * g->wp + x * g->dx + g->pl) * g->cin;
            for (uint32_t c = 0; c < g->cin; c++) {
                if (g->fp)
                    vnpu_x.f32[o + c] = c < nch ? vnpu_f16_to_f32(vnpu_ld16(px + 2u * c)) : 0.0f;
                else
                    vnpu_x.i8[o + c] = c < nch ? vnpu_cvt_apply(&g->cvt, px[c], c) : 0;
            }
        }
    }
    return 0;
}

/* NC1HWC2 input. */
static int vnpu_load_nc1hwc2(vnpu_task *t, vnpu_conv *g)
{
    uint32_t atom = t->cfg->atom;
    uint32_t c2 = atom * 2u / g->nib;
    uint32_t c1 = (g->cin + c2 - 1u) / c2;
    uint32_t line = NPU_CNA_DMA_CON1_LINE_STRIDE_GET(R(t, NPU_CNA_DMA_CON1));
    int64_t surf = vnpu_sext(R(t, NPU_CNA_DMA_CON2), 28);
    uint64_t line_b, surf_b;
    const uint8_t *src;

    if (t->cfg->rk356x) {
        line_b = (uint64_t)line * atom;
        surf_b = (uint64_t)(surf < 0 ? 0 : surf) * atom;
        if (surf < 0)
            return vnpu_unsupported(t, NPU_CNA_DMA_CON2, "a negative surface stride");
    } else if (NPU_CNA_CONV_CON1_GROUP_LINE_OFF_GET(R(t, NPU_CNA_CONV_CON1))) {
        /* one line per fetch: the next surface starts SURF_STRIDE atoms after
         * the first line's DATAIN_WIDTH pixels. Seen with one-pixel lines
         * (row-major matmul A) and with one line (native A tiled along M,
         * vnpu.md §5.2); where it starts for several lines of several
         * pixels is not known. */
        if (g->win != 1 && g->hin != 1)
            return vnpu_unsupported(t, NPU_CNA_CONV_CON1,
                                    "GROUP_LINE_OFF with several NC1HWC2 lines of more than one "
                                    "pixel");
        line_b = (uint64_t)line * atom;
        if (surf + (int64_t)g->win < 0)
            return vnpu_inconsistent(t, NPU_CNA_DMA_CON2, NPU_CNA_DATA_SIZE0,
                                     "SURF_STRIDE + DATAIN_WIDTH is negative");
        surf_b = (uint64_t)(surf + (int64_t)g->win) * atom;
    } else {
        if (line % 4u != 0)
            return vnpu_unsupported(t, NPU_CNA_DMA_CON1,
                                    "a group-line LINE_STRIDE that is not a multiple of 4");
        line_b = (uint64_t)(line / 4u) * atom;
        if (surf + (int64_t)line < 0)
            return vnpu_inconsistent(t, NPU_CNA_DMA_CON2, NPU_CNA_DMA_CON1,
                                     "SURF_STRIDE + LINE_STRIDE is negative");
        surf_b = (uint64_t)(surf + (int64_t)line) * atom;
    }
    if (line_b < (uint64_t)g->win * atom)
        return vnpu_inconsistent(t, NPU_CNA_DMA_CON1, NPU_CNA_DATA_SIZE0,
                                 "the line stride is shorter than DATAIN_WIDTH atoms");
    /* the cube must not overlap itself: each surface holds all its lines, or
     * each line all its surfaces (row-major matmul A) */
    if (c1 > 1 && surf_b < (uint64_t)g->hin * line_b &&
        (surf_b < (uint64_t)g->win * atom ||
         (uint64_t)(c1 - 1u) * surf_b + (uint64_t)g->win * atom > line_b))
        return vnpu_inconsistent(t, NPU_CNA_DMA_CON2, NPU_CNA_DATA_SIZE0,
                                 "the surfaces overlap the lines (a surface stride shorter than "
                                 "DATAIN_HEIGHT lines, and the surfaces of a line longer than "
                                 "the line stride)");
    src = vnpu_dma_read(t, R(t, NPU_CNA_FEATURE_DATA_ADDR),
                        (uint64_t)(c1 - 1u) * surf_b + (uint64_t)(g->hin - 1u) * line_b +
                            (uint64_t)g->win * atom,
                        "CNA feature (NC1HWC2 input)");
    if (src == NULL)
        return -1;
    vnpu_fill_pad(g);
    for (uint32_t y = 0; y < g->hin; y++) {
        for (uint32_t x = 0; x < g->win; x++) {
            size_t o = ((size_t)(y * g->dy + g->pt) * g->wp + x * g->dx + g->pl) * g->cin;
            for (uint32_t c = 0; c < g->cin; c++) {
                const uint8_t *a =
                    src + (size_t)(c / c2) * surf_b + (size_t)y * line_b + (size_t)x * atom;
                if (g->fp)
                    vnpu_x.f32[o + c] = vnpu_f16_to_f32(vnpu_ld16(a + (size_t)(c % c2) * 2u));
                else if (g->int4)
                    vnpu_x.i8[o + c] = vnpu_int4_at(a, c % c2);
                else
                    vnpu_x.i8[o + c] = vnpu_cvt_apply(&g->cvt, a[c % c2], c);
            }
        }
    }
    return 0;
}

static int vnpu_load_input(vnpu_task *t, vnpu_conv *g)
{
    uint64_t bytes = (uint64_t)g->hp * g->wp * g->cin * (g->fp ? 4u : 1u);

    if (bytes > VNPU_X_BYTES)
        return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                         "padded input window %lux%lux%lu (%llu bytes) exceeds the model's "
                         "%lu-byte input buffer (not modelled)",
                         (unsigned long)g->hp, (unsigned long)g->wp, (unsigned long)g->cin,
                         (unsigned long long)bytes, (unsigned long)VNPU_X_BYTES);
    if (vnpu_cvt_decode(t, &g->cvt, g->creal, g->fp, g->int4) != 0)
        return -1;
    if (NPU_CNA_CONV_CON1_ARGB_IN_GET(R(t, NPU_CNA_CONV_CON1)))
        return vnpu_load_argb(t, g);
    return vnpu_load_nc1hwc2(t, g);
}

/* ---- weights ---------------------------------------------------------------- */

/* Input channels per weight slice: 32, but 16 for fp16 on RK356x, whose
 * documented native matmul B is [N/8][K/16][8][16] (vnpu.md §6, §10.2). */
static uint32_t vnpu_weight_slice(const vnpu_task *t, const vnpu_conv *g)
{
    return t->cfg->rk356x && g->fp ? VNPU_SLICE / 2u : VNPU_SLICE;
}

/* Channels per kernel in the weights: DATAIN_CHANNEL, or WEIGHT_SIZE1's
 * count when it pads them within the last slice. */
static uint32_t vnpu_weight_channels(vnpu_task *t, const vnpu_conv *g, uint32_t taps)
{
    /* in nibbles, so that int4's half bytes count too */
    uint64_t per_tap = (uint64_t)taps * g->nib, size = 2u * (uint64_t)R(t, NPU_CNA_WEIGHT_SIZE1);
    uint32_t slice = vnpu_weight_slice(t, g);
    uint64_t stored = size / per_tap;
    uint32_t slice_end = (g->cin + slice - 1u) / slice * slice;

    if (size % per_tap != 0 || stored < g->cin || stored > slice_end)
        return g->cin;
    return (uint32_t)stored;
}

/* Repack kernels [k0, k0 + nk) of a direct convolution into the scratch:
 * [kernel - k0][ky][kx][channel], for fp16 [ky][kx * cin][kernel - k0]
 * (see vnpu_mac_direct_fp). */
static void vnpu_repack_kernels(vnpu_conv *g, uint32_t k0, uint32_t nk)
{
    uint32_t taps = g->kh * g->kw, gsize = g->wgroup, slice = g->wslice, cin_w = g->cin_w;

    for (uint32_t k = k0; k < k0 + nk; k++) {
        uint32_t kg = k / gsize;
        uint32_t gk = g->nker - kg * gsize < gsize ? g->nker - kg * gsize : gsize;
        size_t kg_start = (size_t)kg * gsize * taps * cin_w;
        for (uint32_t c = 0; c < g->cin; c++) {
            uint32_t cs = c / slice;
            uint32_t sc = cin_w - cs * slice < slice ? cin_w - cs * slice : slice;
            for (uint32_t tap = 0; tap < taps; tap++) {
                size_t e = kg_start + (size_t)taps * gk * cs * slice +
                           ((size_t)tap * gk + k % gsize) * sc + c % slice;
                if (g->fp)
                    vnpu_w.f32[((size_t)tap * g->cin + c) * nk + (k - k0)] =
                        vnpu_f16_to_f32(vnpu_ld16(g->wsrc + 2u * e));
                else
                    vnpu_w.i8[((size_t)(k - k0) * taps + tap) * g->cin + c] =
                        g->int4 ? vnpu_int4_at(g->wsrc, e) : (int8_t)g->wsrc[e];
            }
        }
    }
    g->part_k0 = k0;
}

/* One kernel's weights always fit the scratch: decode keeps a kernel below
 * 2^17 elements, 4 bytes each as fp32. */
_Static_assert(VNPU_W_BYTES >= 131072u * 4u, "a kernel fits the weight scratch");

/* Check the weight sizes and read them: depthwise repacked to
 * [ky][kx][channel], direct ones as their first part of kernels. */
static int vnpu_load_weights(vnpu_task *t, vnpu_conv *g)
{
    uint32_t taps = g->kh * g->kw;
    /* kernels may hold their channels padded up to the 32-channel slice
     * (PP-OCRv4 det: 24 channels stored as 32, fp16) */
    uint32_t cin_w = vnpu_weight_channels(t, g, taps);
    uint64_t per_kernel = vnpu_elem_bytes(g, (uint64_t)taps * cin_w);
    uint64_t total = g->dw ? per_kernel : per_kernel * g->nker;
    uint64_t kernel_scratch = (uint64_t)taps * g->cin * (g->fp ? 4u : 1u);
    const uint8_t *src;

    if (R(t, NPU_CNA_WEIGHT_SIZE1) != per_kernel || R(t, NPU_CNA_WEIGHT_SIZE0) != total)
        return vnpu_inconsistent(t, NPU_CNA_WEIGHT_SIZE0, NPU_CNA_WEIGHT_SIZE1,
                                 "weight sizes differ from kernel x kh x kw x DATAIN_CHANNEL");
    src = g->dcomp ? vnpu_dcomp_weights(t, total)
                   : vnpu_dma_read(t, R(t, NPU_CNA_DCOMP_ADDR0), total, "CNA weights");
    if (src == NULL)
        return -1;
    if (g->dw) {
        uint32_t ds = t->cfg->dw_slice_bytes / g->elem;
        for (uint32_t c = 0; c < g->cin; c++) {
            uint32_t cs = c / ds, sc = cin_w - cs * ds < ds ? cin_w - cs * ds : ds;
            for (uint32_t tap = 0; tap < taps; tap++) {
                size_t e = (size_t)taps * cs * ds + (size_t)tap * sc + c % ds;
                size_t o = (size_t)tap * g->cin + c;
                if (g->fp)
                    vnpu_w.f32[o] = vnpu_f16_to_f32(vnpu_ld16(src + 2u * e));
                else
                    vnpu_w.i8[o] = (int8_t)src[e];
            }
        }
        return 0;
    }
    g->wsrc = src;
    g->cin_w = cin_w;
    g->wgroup = vnpu_kgroup(t->cfg, g->prec);
    g->wslice = vnpu_weight_slice(t, g);
    g->part = (uint32_t)(VNPU_W_BYTES / kernel_scratch < g->nker ? VNPU_W_BYTES / kernel_scratch
                                                                 : g->nker);
    vnpu_repack_kernels(g, 0, g->part);
    return 0;
}

/* ---- MAC -------------------------------------------------------------------- */

/* The MAC loops read only the model's own staging buffers (vnpu_x, vnpu_w,
 * vnpu_acc), which the bounds-checked loads fill: a sanitised build
 * (scripts/run-host-sanitize.sh, clang) leaves them uninstrumented, where
 * instrumentation made them 10 times slower and took most of CI's time;
 * the loads, the DPU and everything that reads or writes DMA memory stay
 * checked. */
#if defined(__clang__)
#define VNPU_MAC_LOOP __attribute__((no_sanitize("address", "undefined", "coverage")))
#else
#define VNPU_MAC_LOOP
#endif

/* Σ a[i]·b[i] over n int8 pairs, exact in int32 for n < 2^17. Four
 * independent accumulators keep the loop free of carried dependencies. */
VNPU_MAC_LOOP static inline int32_t vnpu_dot_i8(const int8_t *a, const int8_t *b, uint32_t n)
{
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint32_t i = 0;

    for (; i + 4u <= n; i += 4u) {
        s0 += (int32_t)a[i] * b[i];
        s1 += (int32_t)a[i + 1u] * b[i + 1u];
        s2 += (int32_t)a[i + 2u] * b[i + 2u];
        s3 += (int32_t)a[i + 3u] * b[i + 3u];
    }
    for (; i < n; i++)
        s0 += (int32_t)a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

VNPU_MAC_LOOP static inline int32_t vnpu_sum_i8(const int8_t *a, uint32_t n)
{
    int32_t s = 0;

    for (uint32_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* One fp kernel row for every kernel at once: sums[k] = sum over j, in
 * order from 0.0f, of w[j][k] * x[j]. Kernels go in blocks of VNPU_KB whose
 * sums stay in registers over the row, the block loop innermost so that it
 * vectorises; each kernel's own sum keeps its order, so the result is the
 * same as summing kernel by kernel. */
#define VNPU_KB 16u

VNPU_MAC_LOOP static inline void vnpu_rows_f32(float *restrict sums, const float *restrict w,
                                               const float *restrict x, uint32_t n, uint32_t nker)
{
    for (uint32_t k = 0; k < nker; k++)
        sums[k] = 0.0f;
    for (uint32_t j = 0; j < n; j++) {
        const float xj = x[j];
        const float *restrict wj = w + (size_t)j * nker;
        for (uint32_t k = 0; k < nker; k++)
            sums[k] += wj[k] * xj;
    }
}

/* fp accumulators of one output pixel for the kernels [k0, k0 + nk) in the
 * scratch ([kh][kw * cin][nk]): each kernel row is summed from 0.0f and the
 * rows are added in order (the order the model has always used; its outputs
 * are compared bit for bit), whatever the parts. */
VNPU_MAC_LOOP static void vnpu_mac_direct_fp(const vnpu_conv *g, const float *xb, float *acc,
                                             uint32_t k0, uint32_t nk)
{
    static float rows[VNPU_ACC_ELEMS];
    uint32_t row = g->kw * g->cin;
    size_t xrow = (size_t)g->wp * g->cin;

    if (k0 == 0)
        for (uint32_t k = 0; k < g->kout; k++)
            acc[k] = 0.0f;
    for (uint32_t ky = 0; ky < g->kh; ky++) {
        vnpu_rows_f32(rows, vnpu_w.f32 + (size_t)ky * row * nk, xb + ky * xrow, row, nk);
        for (uint32_t k = 0; k < nk; k++)
            acc[k0 + k] += rows[k];
    }
}

/* Window offset of output pixel p's first input element. */
static size_t vnpu_window_at(const vnpu_conv *g, uint32_t p)
{
    uint32_t oy = p / g->wout, ox = p % g->wout;

    return ((size_t)oy * g->sy * g->wp + (size_t)ox * g->sx) * g->cin;
}

/* Accumulators of output pixels [p0, p0 + n) into vnpu_acc ([n][kout]), a
 * part of kernels at a time. */
VNPU_MAC_LOOP static void vnpu_mac_direct(vnpu_conv *g, uint32_t p0, uint32_t n, int want_sumx)
{
    uint32_t row = g->kw * g->cin; /* contiguous elements of one kernel row */
    size_t xrow = (size_t)g->wp * g->cin;
    size_t wk = (size_t)g->kh * row;

    for (uint32_t k0 = 0; k0 < g->nker; k0 += g->part) {
        uint32_t nk = g->nker - k0 < g->part ? g->nker - k0 : g->part;
        if (g->part_k0 != k0)
            vnpu_repack_kernels(g, k0, nk);
        for (uint32_t i = 0; i < n; i++) {
            size_t xo = vnpu_window_at(g, p0 + i), ao = (size_t)i * g->kout;
            if (g->fp) {
                vnpu_mac_direct_fp(g, vnpu_x.f32 + xo, vnpu_acc.f32 + ao, k0, nk);
                continue;
            }
            for (uint32_t k = 0; k < nk; k++) {
                const int8_t *w = vnpu_w.i8 + k * wk;
                int32_t s = 0;
                for (uint32_t ky = 0; ky < g->kh; ky++)
                    s += vnpu_dot_i8(w + ky * row, vnpu_x.i8 + xo + ky * xrow, row);
                vnpu_acc.i32[ao + k0 + k] = s;
            }
        }
    }
    for (uint32_t i = 0; i < n && !g->fp; i++) {
        const int8_t *xb = vnpu_x.i8 + vnpu_window_at(g, p0 + i);
        for (uint32_t k = g->nker; k < g->kout; k++)
            vnpu_acc.i32[(size_t)i * g->kout + k] = 0;
        if (want_sumx) {
            int32_t s = 0;
            for (uint32_t ky = 0; ky < g->kh; ky++)
                s += vnpu_sum_i8(xb + ky * xrow, row);
            vnpu_sumx[i] = s;
        }
    }
}

VNPU_MAC_LOOP static void vnpu_mac_depthwise(const vnpu_conv *g, uint32_t p0, uint32_t n,
                                             int want_sumx)
{
    uint32_t cd = g->nker; /* channels computed */

    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = p0 + i, oy = p / g->wout, ox = p % g->wout;
        size_t ao = (size_t)i * g->kout;
        for (uint32_t k = 0; k < g->kout; k++) {
            if (g->fp)
                vnpu_acc.f32[ao + k] = 0.0f;
            else
                vnpu_acc.i32[ao + k] = 0;
            vnpu_sumx[ao + k] = 0;
        }
        for (uint32_t ky = 0; ky < g->kh; ky++) {
            for (uint32_t kx = 0; kx < g->kw; kx++) {
                size_t xo = ((size_t)(oy * g->sy + ky) * g->wp + ox * g->sx + kx) * g->cin;
                size_t wo = ((size_t)ky * g->kw + kx) * g->cin;
                if (g->fp) {
                    for (uint32_t c = 0; c < cd; c++)
                        vnpu_acc.f32[ao + c] += vnpu_w.f32[wo + c] * vnpu_x.f32[xo + c];
                    continue;
                }
                for (uint32_t c = 0; c < cd; c++)
                    vnpu_acc.i32[ao + c] += (int32_t)vnpu_w.i8[wo + c] * vnpu_x.i8[xo + c];
                if (want_sumx)
                    for (uint32_t c = 0; c < cd; c++)
                        vnpu_sumx[ao + c] += vnpu_x.i8[xo + c];
            }
        }
    }
}

/* The convolution the task programs (one task at a time: the model is not
 * reentrant, like the scratch buffers above). */
static vnpu_conv vnpu_cna_task;

int vnpu_cna_decode(vnpu_task *t, vnpu_cna_shape *shape)
{
    vnpu_conv *g = &vnpu_cna_task;

    if (vnpu_conv_decode(t, g) != 0)
        return -1;
    if (g->kout > VNPU_ACC_ELEMS)
        return vnpu_unsupported(t, NPU_CORE_DATAOUT_SIZE_1,
                                "more output channels than the model's accumulator chunk");
    shape->kout = g->kout;
    shape->npix = g->hout * g->wout;
    shape->prec = g->prec;
    shape->depthwise = (uint8_t)g->dw;
    shape->chunk_pixels = VNPU_ACC_ELEMS / g->kout;
    return 0;
}

int vnpu_cna_load(vnpu_task *t)
{
    if (vnpu_load_input(t, &vnpu_cna_task) != 0 || vnpu_load_weights(t, &vnpu_cna_task) != 0)
        return -1;
    return 0;
}

void vnpu_cna_accumulate(uint32_t p0, uint32_t n, int want_sumx, vnpu_acc_chunk *chunk)
{
    vnpu_conv *g = &vnpu_cna_task;

    if (g->dw)
        vnpu_mac_depthwise(g, p0, n, want_sumx);
    else
        vnpu_mac_direct(g, p0, n, want_sumx);
    *chunk =
        (vnpu_acc_chunk){p0, n, g->kout, vnpu_acc.i32, vnpu_acc.f32, vnpu_sumx, (uint8_t)g->dw};
}

void vnpu_cna_count_macs(vnpu_task *t)
{
    const vnpu_conv *g = &vnpu_cna_task;

    t->core->stats.macs +=
        (uint64_t)g->hout * g->wout * g->nker * g->kh * g->kw * (g->dw ? 1u : g->cin);
}
