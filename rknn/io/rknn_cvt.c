/*
 * rknn_cvt.c - the CNA input converter (CVT_CON0..5) of the tasks that read
 * a model input, programmed for what the input's buffer holds, as Rockchip's
 * runtime 1.6.0 programs it on every shared model (api.md §4.1 has the
 * evidence):
 *  - int8 codes (every user type but uint8, pass-through, a zero-copy buffer
 *    bound with the native attribute): the converter off, signed bytes;
 *  - uint8 pixels of an int8 input whose every pixel converts to
 *    pixel + offset: the buffer holds the pixels as given (rknn_io.c copies
 *    them), the converter computes ((x * 2^14) >> 14) + offset on unsigned
 *    bytes (hardware.md §5.2, CVT_TYPE 0);
 *  - float16 inputs: the converter off.
 * Rows the native buffer pads past the width (its byte size says so) are
 * read w_stride pixels apart: the CNA's width and strides rewritten as the
 * vendor's are (hardware.md §4.2).
 * The tasks are found through the input tensor's relocations: each word
 * pointing a CNA_FEATURE_DATA_ADDR at it lies in a task that reads it. Only
 * words the task already has are rewritten, in the context's relocated
 * stream (the file and its lowered form stay as they are).
 */
#include "rknn_cvt.h"

#include "hal.h"
#include "npu_regcmd.h"
#include "rknn_convert.h"
#include "rknpu_platform_internal.h"

#define CVT_TRUNC 14u    /* Rockchip's: the scale's unit is 2^14 */
#define CVT_ONE   16384u /* 2^CVT_TRUNC: scale 1.0 */

/* The CNA registers of rknn_cvt_words, in its order: CVT_CON0, CVT_CON1..4
 * (one per channel slot), CVT_CON5, DATA_SIZE0, DMA_CON1, DMA_CON2. */
static const uint16_t word_regs[9] = {NPU_CNA_CVT_CON0,   NPU_CNA_CVT_CON1, NPU_CNA_CVT_CON2,
                                      NPU_CNA_CVT_CON3,   NPU_CNA_CVT_CON4, NPU_CNA_CVT_CON5,
                                      NPU_CNA_DATA_SIZE0, NPU_CNA_DMA_CON1, NPU_CNA_DMA_CON2};

/* A CNA register's place in rknn_cvt_words, or 9 for any other register. */
static uint32_t place_of(uint32_t reg)
{
    uint32_t r = 0;

    while (r < 9 && word_regs[r] != reg)
        r++;
    return r;
}

static uint32_t trunc_of(uint32_t slot)
{
    switch (slot) {
    case 0: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_0(CVT_TRUNC);
    case 1: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_1(CVT_TRUNC);
    case 2: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_2(CVT_TRUNC);
    default: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_3(CVT_TRUNC);
    }
}

/* Bit 0 of CVT_CON0 means bypass on RK3588 and enable on RK356x, as
 * vnpu.md §5.3 reads it: the vendor writes 0x...e0 there and 0x...e1 here
 * for one program. RK3588 fills all four slots for a one-channel input,
 * RK356x one. */
void rknn_cvt_words_of(const npu_soc_profile *soc, uint32_t channels, int mode, int32_t offset,
                       rknn_cvt_words *w)
{
    int rk356x = npu_soc_is_rk356x(soc), on = mode == RKNN_CVT_PIXELS;
    uint32_t slots = channels == 1 && !rk356x ? 4 : channels;

    w->con[0] = NPU_CNA_CVT_CON0_CVT_BYPASS((uint32_t)(on == rk356x)) |
                NPU_CNA_CVT_CON0_DATA_SIGN((uint32_t)(mode == RKNN_CVT_CODES));
    w->con[5] = 0; /* PER_CHANNEL_CVT_EN: four bits a slot */
    for (uint32_t s = 0; s < 4; s++) {
        int used = on && s < slots;
        w->con[1 + s] = NPU_CNA_CVT_CON1_CVT_SCALE0(used ? CVT_ONE : 1u) |
                        NPU_CNA_CVT_CON1_CVT_OFFSET0(used ? (uint32_t)offset : 0u);
        w->con[0] |= used ? trunc_of(s) : 0u;
        w->con[5] = s < slots ? w->con[5] * 16u + 15u : w->con[5];
    }
}

/* The row words for an input whose native rows are w_stride pixels, as
 * Rockchip's runtime 1.6.0 rewrites the file's (which say W): RK3588 reads
 * w_stride pixels a line (DATAIN_WIDTH, LINE_STRIDE = W, SURF_STRIDE =
 * W * (H - 1), in pixels), RK356x takes the line's bytes in 8-byte atoms.
 * Rows the width fills: none. */
static void rows_of(const rknn_io_plan *p, int rk356x, rknn_cvt_words *w)
{
    const rknn_layout *l = &p->native;
    uint32_t ws = l->w_stride != l->w ? l->w_stride : 0u; /* 0: no rewrite */

    w->con[6] = NPU_CNA_DATA_SIZE0_DATAIN_WIDTH(ws);
    w->con[7] = ws;
    w->con[8] = ws * (l->h - 1u);
    if (rk356x) {
        /* the line's bytes: w_stride pixels of the native's bytes a pixel */
        w->con[7] = (ws * (p->size / (l->h * l->w_stride)) + 7u) / 8u;
        w->con[6] = w->con[8] = 0;
    }
}

/* Words [*first, *end) of the task holding word `at` (*task: its index,
 * where the search starts); 0 if none holds it,
 * or a record reaches past the stream (the file may have changed since
 * init: a zero-copy model buffer is the caller's). */
static int task_span(const rknn_model_view *m, uint32_t at, uint32_t *task, uint32_t *first,
                     uint32_t *end)
{
    /* from *task (the one found last) round: a tensor's entries are mostly
     * in task order */
    for (uint32_t k = 0, t = *task; k < m->n_tasks; k++, t = t + 1 < m->n_tasks ? t + 1 : 0) {
        rknn_model_task_info ti;
        uint64_t f, e;
        if (rknn_model_task(m, t, &ti) != RKNN_SUCC)
            return 0;
        f = ti.regcmd_addr / RKNN_MODEL_REGCMD_WORD_SIZE;
        e = f + ti.regcfg_amount;
        if (e > m->n_regcmd_words)
            return 0;
        *first = (uint32_t)f;
        *end = (uint32_t)e;
        *task = t;
        if (at >= f && at < e)
            return 1;
    }
    return 0;
}

/* One task's converter and row words set to `w` (NULL: only counted). -1
 * unless CVT_CON0..4 are all there (CVT_CON5 is optional: RK356x streams
 * never write it). DATA_SIZE0 keeps its height. */
static int program_task(uint64_t *words, uint32_t first, uint32_t end, const rknn_cvt_words *w)
{
    uint32_t found = 0;

    for (uint32_t i = first; i < end; i++) {
        uint16_t reg = npu_regcmd_reg(words[i]);
        uint32_t r = place_of(reg),
                 kept = r == 6 ? npu_regcmd_value(words[i]) & NPU_CNA_DATA_SIZE0_DATAIN_HEIGHT_MASK
                               : 0u;
        if (r == 9 || npu_regcmd_target(words[i]) != NPU_TARGET_CNA)
            continue;
        found += r < 5;
        if (w && (r < 6 || w->con[r]))
            words[i] = npu_regcmd_make(NPU_TARGET_CNA, reg, w->con[r] | kept);
    }
    if (w)
        rknpu_hook_cache_clean(words + first, (size_t)(end - first) * sizeof *words);
    return found == 5 ? 0 : -1;
}

/* Every task reading tensor `tensor` through the CNA's feature address gets
 * `w` (NULL: is checked) in the context's relocated stream: RKNN_DMA_ALIGN
 * aligned, its 64-bit words read and written as the little-endian hosts and
 * the PC hold them (hardware.md §1.5). Returns -1 when such a task lacks its
 * converter words (or the relocations do not decode), else how many other
 * words point at the tensor (another unit reads it: it must hold codes). */
static int walk(rknn_ctx *ctx, uint32_t tensor, const rknn_cvt_words *w)
{
    const rknn_model_view *m = &ctx->model;
    uint64_t *words = (uint64_t *)(void *)ctx->regcmd;
    uint32_t task = 0;
    int others = 0;

    for (uint32_t r = 0; r < m->n_relocs; r++) {
        rknn_model_reloc_info ri;
        if (rknn_model_reloc(m, r, &ri) != RKNN_SUCC)
            return -1;
        for (uint32_t e = 0; ri.tensor_index == tensor && e < ri.n_entries; e++) {
            uint32_t addend, at, first, end;
            if (rknn_model_reloc_entry(&ri, e, &addend, &at) != RKNN_SUCC)
                return -1;
            if (npu_regcmd_target(words[at]) != NPU_TARGET_CNA ||
                npu_regcmd_reg(words[at]) != NPU_CNA_FEATURE_DATA_ADDR)
                others++;
            else if (!task_span(m, at, &task, &first, &end) || program_task(words, first, end, w))
                return -1;
        }
    }
    return others;
}

void rknn_cvt_plan(rknn_io_plan *plan)
{
    const rknn_layout *l = &plan->native;
    int32_t offset = 0;

    /* the converter reads packed NHWC of 1 to 4 channels (first layers); the
     * stream decides the rest once relocated (rknn_cvt_apply_all) */
    plan->cvt = l->kind != RKNN_LAYOUT_NHWC || l->c > 4 ? RKNN_CVT_NONE
                : l->type == RKNN_TENSOR_INT8           ? RKNN_CVT_CODES
                : l->type == RKNN_TENSOR_FLOAT16        ? RKNN_CVT_FLOAT
                                                        : RKNN_CVT_NONE;
    plan->cvt_pixels =
        (uint8_t)(plan->cvt == RKNN_CVT_CODES && rknn_convert_pixel_offset(&plan->map, &offset));
    plan->cvt_offset = (int8_t)offset;
    plan->cvt_checked = 0;
}

/* The first time after relocation: whether every task reading the input
 * has the converter words (else the file's program stays), and whether
 * only the CNA reads it (else it must hold codes). */
static void check_input(rknn_ctx *ctx, uint32_t input, uint32_t tensor)
{
    rknn_io_plan *p = &ctx->in_plan[input];
    int others = walk(ctx, tensor, NULL);

    p->cvt_checked = 1;
    if (others < 0) {
        HAL_LOG_WARN("input %lu: a task reading it has no CNA converter words; the file's "
                     "program stays",
                     (unsigned long)input);
        p->cvt = RKNN_CVT_NONE;
    }
    if (others != 0)
        p->cvt_pixels = 0;
}

static int apply(rknn_ctx *ctx, uint32_t input)
{
    rknn_io_plan *p = &ctx->in_plan[input];
    rknn_cvt_words w;
    uint32_t tensor;

    /* untested: every input of the shared models is packed NHWC of 1 to 4
     * channels, which rknn_cvt_plan programs */
    if (p->cvt == RKNN_CVT_NONE || rknn_model_io(&ctx->model, 1, input, &tensor) != RKNN_SUCC)
        return RKNN_SUCC;
    if (!p->cvt_checked)
        check_input(ctx, input, tensor);
    if (p->cvt == RKNN_CVT_NONE)
        return RKNN_SUCC;
    rknn_cvt_words_of(ctx->soc, p->native.c, p->cvt, p->cvt_offset, &w);
    rows_of(p, npu_soc_is_rk356x(ctx->soc), &w);
    if (walk(ctx, tensor, &w) < 0) { /* unreachable: check_input walked the same words */
        HAL_LOG_ERR("input %lu: its converter words no longer decode", (unsigned long)input);
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

int rknn_cvt_select(rknn_ctx *ctx, uint32_t input, int mode)
{
    rknn_io_plan *p = ctx->in_plan ? &ctx->in_plan[input] : NULL; /* none: info-only init */

    if (!p || (p->cvt != RKNN_CVT_CODES && p->cvt != RKNN_CVT_PIXELS))
        return RKNN_SUCC; /* not programmed, or float16: one program */
    if (p->cvt == mode)
        return RKNN_SUCC;
    p->cvt = (uint8_t)mode;
    return ctx->relocated ? apply(ctx, input) : RKNN_SUCC; /* else relocation applies it */
}

int rknn_cvt_apply_all(rknn_ctx *ctx)
{
    int ret = RKNN_SUCC;

    for (uint32_t i = 0; ctx->in_plan && i < ctx->model.n_inputs && ret == RKNN_SUCC; i++)
        ret = apply(ctx, i);
    return ret;
}
