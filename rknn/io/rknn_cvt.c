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

/* A CNA register's place in rknn_cvt_words (CVT_CON0, CVT_CON1..4 one per
 * channel slot, CVT_CON5), or 6 for any other register. */
static uint32_t place_of(uint32_t reg)
{
    if (reg == NPU_CNA_CVT_CON5)
        return 5;
    if (reg < NPU_CNA_CVT_CON0 || reg > NPU_CNA_CVT_CON4 || reg % 4u)
        return 6;
    return (reg - NPU_CNA_CVT_CON0) / 4u;
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

/* Words [*first, *end) of the task holding word `at`; 0 if none holds it,
 * or a record reaches past the stream (the file may have changed since
 * init: a zero-copy model buffer is the caller's). */
static int task_span(const rknn_model_view *m, uint32_t at, uint32_t *first, uint32_t *end)
{
    for (uint32_t t = 0; t < m->n_tasks; t++) {
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
        if (at >= f && at < e)
            return 1;
    }
    return 0;
}

/* One task's converter words set to `w` (NULL: only counted). -1 unless
 * CVT_CON0..4 are all there (CVT_CON5 is optional: RK356x streams never
 * write it). */
static int program_task(uint64_t *words, uint32_t first, uint32_t end, const rknn_cvt_words *w)
{
    uint32_t found = 0;

    for (uint32_t i = first; i < end; i++) {
        uint16_t reg = npu_regcmd_reg(words[i]);
        uint32_t r = place_of(reg);
        if (r == 6 || npu_regcmd_target(words[i]) != NPU_TARGET_CNA)
            continue;
        found += r < 5;
        if (w)
            words[i] = npu_regcmd_make(NPU_TARGET_CNA, reg, w->con[r]);
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
            else if (!task_span(m, at, &first, &end) || program_task(words, first, end, w))
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

    if (p->cvt == RKNN_CVT_NONE || rknn_model_input(&ctx->model, input, &tensor) != RKNN_SUCC)
        return RKNN_SUCC;
    if (!p->cvt_checked)
        check_input(ctx, input, tensor);
    if (p->cvt == RKNN_CVT_NONE)
        return RKNN_SUCC;
    rknn_cvt_words_of(ctx->soc, p->native.c, p->cvt, p->cvt_offset, &w);
    if (walk(ctx, tensor, &w) < 0) {
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
