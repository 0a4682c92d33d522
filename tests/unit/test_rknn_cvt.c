/*
 * test_rknn_cvt - the CNA input converter words the runtime programs for a
 * model input (rknn/io/rknn_cvt.c, api.md §4.1), and what reaches the NPU.
 *
 *  - rknn_cvt_words_of on both SoC generations, 1, 3 and 4 channels, every
 *    program: the words decoded with the generated unpackers and run through
 *    the converter's formula as hardware.md §5.2 gives it (CVT_TYPE 0:
 *    ((x * scale) >> trunc) + offset, unsigned bytes when DATA_SIGN is 0)
 *    must turn every pixel 0..255 into its int8 code pixel - 128, computed
 *    here; bit 0 means bypass on RK3588 and enable on RK356x (vnpu.md §5.3);
 *    and the words must be the ones Rockchip's runtime 1.6.0 submitted on
 *    the shared models (vendor-diff, typed in below);
 *  - on the multiple_input_demo files (RK3588, RK3566) and dual_residual
 *    (float16): the tasks whose CNA feature address lies in an input's
 *    buffer (found here from the relocated stream, not from the
 *    relocations) carry the program for what rknn_inputs_set or a
 *    zero-copy binding left there; uint8 pixels are stored as given and int8
 *    as pixel - 128 codes; and the outputs of uint8 pixels, int8 pixel - 128,
 *    a zero-copy buffer bound with the native attribute (codes) and one bound
 *    as uint8 are the same bytes.
 *
 * Usage: test_rknn_cvt MODELS_DIR
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknn_convert.h"
#include "rknn_ctx.h"
#include "rknn_cvt.h"
#include "rknn_io.h"
#include "rknpu_bm.h"
#include "rknpu_platform_internal.h"
#include "test_files.h"
#include "test_float.h"
#include "test_soc.h"
#include "test_util.h"

#define H 128
#define W 128

static const char *dir;
static uint8_t model[256 * 1024];
static uint8_t pix[2][H * W * 3];
static int8_t codes[2][H * W * 3];
static int8_t outs[4][2 * 128 * 128 * 16];

/* ---- the words against the converter's formula ---------------------------------- */

static uint32_t trunc_of(uint32_t con0, uint32_t s)
{
    switch (s) {
    case 0: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_0_GET(con0);
    case 1: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_1_GET(con0);
    case 2: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_2_GET(con0);
    default: return NPU_CNA_CVT_CON0_CVT_TRUNCATE_3_GET(con0);
    }
}

/* The converter's output for byte x in slot s (hardware.md §5.2), saturated. */
static int convert(const rknn_cvt_words *w, uint32_t s, uint8_t x)
{
    uint32_t c0 = w->con[0];
    int32_t in = NPU_CNA_CVT_CON0_DATA_SIGN_GET(c0) ? (int8_t)x : x;
    int32_t scale = (int32_t)NPU_CNA_CVT_CON1_CVT_SCALE0_GET(w->con[1 + s]);
    int32_t off = (int16_t)NPU_CNA_CVT_CON1_CVT_OFFSET0_GET(w->con[1 + s]);
    int32_t y = ((in * scale) >> trunc_of(c0, s)) + off;

    return y < -128 ? -128 : y > 127 ? 127 : y;
}

static void check_formula(rknpu_soc_id id, uint32_t channels, int mode)
{
    const npu_soc_profile *soc = npu_soc_get(id);
    int rk356x = id == RKNPU_SOC_RK3566;
    uint32_t slots = channels == 1 && !rk356x ? 4 : channels, mask = 0, bad = 0;
    rknn_cvt_words w;
    int on;

    rknn_cvt_words_of(soc, channels, mode, -128, &w);
    on = (int)NPU_CNA_CVT_CON0_CVT_BYPASS_GET(w.con[0]) == rk356x;
    CHECK(on == (mode == RKNN_CVT_PIXELS));
    CHECK(NPU_CNA_CVT_CON0_CVT_TYPE_GET(w.con[0]) == 0 &&
          NPU_CNA_CVT_CON0_ROUND_TYPE_GET(w.con[0]) == 0);
    CHECK(NPU_CNA_CVT_CON0_DATA_SIGN_GET(w.con[0]) == (mode == RKNN_CVT_CODES));
    for (uint32_t s = 0; s < 4; s++) {
        uint32_t con = w.con[1 + s];
        if (on && s < slots) /* every pixel x becomes the code x - 128 */
            for (int x = 0; x < 256; x++)
                bad += convert(&w, s, (uint8_t)x) != x - 128;
        else /* an identity program: scale 2^trunc, offset 0 */
            bad += NPU_CNA_CVT_CON1_CVT_SCALE0_GET(con) != 1u << trunc_of(w.con[0], s) ||
                   NPU_CNA_CVT_CON1_CVT_OFFSET0_GET(con) != 0;
        if (s < slots)
            mask |= 15u << (4 * s);
    }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(w.con[5], mask);
}

/* What librknnrt 1.6.0 submitted on the shared models (vendor-diff's
 * submit.jsonl, CVT_CON0..5 of the first tasks): 3- and 1-channel inputs. */
static void check_vendor_words(void)
{
    static const struct {
        rknpu_soc_id soc;
        uint32_t channels;
        int mode;
        uint32_t con[6];
    } v[] = {
        {RKNPU_SOC_RK3588,
         3,
         RKNN_CVT_PIXELS,
         {0x000e38e0, 0x4000ff80, 0x4000ff80, 0x4000ff80, 0x00010000, 0xfff}},
        {RKNPU_SOC_RK3588,
         1,
         RKNN_CVT_PIXELS,
         {0x038e38e0, 0x4000ff80, 0x4000ff80, 0x4000ff80, 0x4000ff80, 0xffff}},
        {RKNPU_SOC_RK3588,
         3,
         RKNN_CVT_CODES,
         {0x9, 0x00010000, 0x00010000, 0x00010000, 0x00010000, 0xfff}},
        {RKNPU_SOC_RK3588,
         1,
         RKNN_CVT_CODES,
         {0x9, 0x00010000, 0x00010000, 0x00010000, 0x00010000, 0xffff}},
        {RKNPU_SOC_RK3588,
         3,
         RKNN_CVT_FLOAT,
         {0x1, 0x00010000, 0x00010000, 0x00010000, 0x00010000, 0xfff}},
        /* RK3566 streams have no CVT_CON5: its word is not compared */
        {RKNPU_SOC_RK3566,
         3,
         RKNN_CVT_PIXELS,
         {0x000e38e1, 0x4000ff80, 0x4000ff80, 0x4000ff80, 0x00010000, 0}},
        {RKNPU_SOC_RK3566,
         1,
         RKNN_CVT_PIXELS,
         {0x000000e1, 0x4000ff80, 0x00010000, 0x00010000, 0x00010000, 0}},
        {RKNPU_SOC_RK3566,
         3,
         RKNN_CVT_CODES,
         {0x8, 0x00010000, 0x00010000, 0x00010000, 0x00010000, 0}},
        {RKNPU_SOC_RK3566,
         3,
         RKNN_CVT_FLOAT,
         {0x0, 0x00010000, 0x00010000, 0x00010000, 0x00010000, 0}},
    };

    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        rknn_cvt_words w;
        rknn_cvt_words_of(npu_soc_get(v[i].soc), v[i].channels, v[i].mode, -128, &w);
        for (uint32_t r = 0; r < (v[i].soc == RKNPU_SOC_RK3566 ? 5u : 6u); r++)
            CHECK_EQ_U(w.con[r], v[i].con[r]);
    }
}

/* ---- the words in a context's relocated stream ---------------------------------- */

static uint64_t word(const rknn_ctx *ctx, uint32_t i)
{
    return rknn_model_le64(ctx->regcmd + 8u * i);
}

/* Every task whose CNA feature address lies in input `input`'s buffer must
 * carry `want` (CVT_CON5 only where the stream writes it); returns how many
 * tasks read the input. */
static uint32_t check_stream(const rknn_ctx *ctx, uint32_t input, const rknn_cvt_words *want)
{
    uint32_t from = (uint32_t)rknpu_hook_virt_to_phys(
                 rknn_io_buffer(ctx, 1, input, ctx->in_plan[input].arena_offset)),
             to = from + ctx->in_plan[input].size, readers = 0;

    for (uint32_t t = 0; t < ctx->model.n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t first, found = 0, reads = 0;
        if (!CHECK(rknn_model_task(&ctx->model, t, &ti) == RKNN_SUCC))
            return readers;
        first = (uint32_t)(ti.regcmd_addr / 8u);
        for (uint32_t i = first; i < first + ti.regcfg_amount; i++) {
            uint64_t x = word(ctx, i);
            uint32_t v = npu_regcmd_value(x);
            if (npu_regcmd_target(x) == NPU_TARGET_CNA &&
                npu_regcmd_reg(x) == NPU_CNA_FEATURE_DATA_ADDR)
                reads = v >= from && v < to;
        }
        for (uint32_t i = first; reads && i < first + ti.regcfg_amount; i++) {
            uint64_t x = word(ctx, i);
            uint32_t reg = npu_regcmd_reg(x);
            if (npu_regcmd_target(x) != NPU_TARGET_CNA || reg < NPU_CNA_CVT_CON0 ||
                (reg > NPU_CNA_CVT_CON4 && reg != NPU_CNA_CVT_CON5))
                continue;
            found++;
            CHECK_EQ_U(npu_regcmd_value(x),
                       want->con[reg == NPU_CNA_CVT_CON5 ? 5 : (reg - NPU_CNA_CVT_CON0) / 4]);
        }
        readers += reads;
        CHECK(!reads || found >= 5);
    }
    return readers;
}

static void expect(const rknn_ctx *ctx, uint32_t input, int mode)
{
    rknn_cvt_words w;

    rknn_cvt_words_of(ctx->soc, ctx->in_plan[input].native.c, mode, -128, &w);
    CHECK(check_stream(ctx, input, &w) >= 1);
}

static int set_inputs(rknn_context h, rknn_tensor_type type, int pass_through)
{
    rknn_input in[2];

    memset(in, 0, sizeof in);
    for (uint32_t i = 0; i < 2; i++) {
        in[i].index = i;
        in[i].buf = type == RKNN_TENSOR_INT8 ? (void *)codes[i] : (void *)pix[i];
        in[i].size = H * W * (i ? 3u : 1u);
        in[i].type = type;
        in[i].fmt = RKNN_TENSOR_NHWC;
        in[i].pass_through = (uint8_t)pass_through;
    }
    return rknn_inputs_set(h, 2, in);
}

/* Run; the output's native bytes (int8 NC1HWC2) into out. */
static void run_into(rknn_context h, int8_t *out)
{
    rknn_output o;

    memset(&o, 0, sizeof o);
    if (!CHECK(rknn_run(h, NULL) == RKNN_SUCC) ||
        !CHECK(rknn_outputs_get(h, 1, &o, NULL) == RKNN_SUCC))
        return;
    memcpy(out, o.buf, o.size < sizeof outs[0] ? o.size : sizeof outs[0]);
    CHECK(rknn_outputs_release(h, 1, &o) == RKNN_SUCC);
}

/* Both inputs bound zero-copy: the native attribute with type int8 (codes)
 * or uint8 (pixels, a converted binding). The native type answered is
 * uint8 once rknn_inputs_set handed pixels to the converter, as Rockchip's
 * runtime answers (compat.md §1), else int8. */
static void bind_inputs(rknn_context h, int as_uint8, rknn_tensor_mem **mem, int after_pixels)
{
    for (uint32_t i = 0; i < 2; i++) {
        rknn_tensor_attr a;
        uint32_t n = H * W * (i ? 3u : 1u);
        memset(&a, 0, sizeof a);
        a.index = i;
        CHECK(rknn_query(h, RKNN_QUERY_NATIVE_INPUT_ATTR, &a, sizeof a) == RKNN_SUCC);
        CHECK(a.type == (after_pixels ? RKNN_TENSOR_UINT8 : RKNN_TENSOR_INT8) &&
              a.fmt == RKNN_TENSOR_NHWC && a.w_stride == W);
        mem[i] = rknn_create_mem(h, a.size_with_stride);
        if (!CHECK(mem[i] != NULL))
            return;
        memcpy(mem[i]->virt_addr, as_uint8 ? (const void *)pix[i] : (const void *)codes[i], n);
        a.type = as_uint8 ? RKNN_TENSOR_UINT8 : RKNN_TENSOR_INT8;
        CHECK(rknn_set_io_mem(h, mem[i], &a) == RKNN_SUCC);
    }
}

static void test_mid(const char *file, rknpu_soc_id soc)
{
    rknn_context h;
    rknn_ctx *ctx;
    rknn_tensor_mem *mem[2] = {0};

    test_switch_soc(soc);
    h = test_load_model(dir, file, model, sizeof model, 0);
    ctx = rknn_ctx_from_handle(h);
    if (!CHECK(ctx != NULL))
        return;
    for (uint32_t i = 0; i < 2; i++) {
        CHECK(ctx->in_plan[i].cvt == RKNN_CVT_CODES && ctx->in_plan[i].cvt_pixels);
        expect(ctx, i, RKNN_CVT_CODES); /* until data says otherwise */
    }
    /* uint8 pixels: stored as given, the converter subtracts 128 */
    CHECK(set_inputs(h, RKNN_TENSOR_UINT8, 0) == RKNN_SUCC);
    for (uint32_t i = 0; i < 2; i++) {
        expect(ctx, i, RKNN_CVT_PIXELS);
        CHECK(memcmp(rknn_io_buffer(ctx, 1, i, ctx->in_plan[i].arena_offset), pix[i],
                     H * W * (i ? 3u : 1u)) == 0);
    }
    run_into(h, outs[0]);
    /* int8 pixel - 128: the codes themselves, the converter off */
    CHECK(set_inputs(h, RKNN_TENSOR_INT8, 0) == RKNN_SUCC);
    for (uint32_t i = 0; i < 2; i++) {
        expect(ctx, i, RKNN_CVT_CODES);
        CHECK(memcmp(rknn_io_buffer(ctx, 1, i, ctx->in_plan[i].arena_offset), codes[i],
                     H * W * (i ? 3u : 1u)) == 0);
    }
    run_into(h, outs[1]);
    CHECK(memcmp(outs[0], outs[1], sizeof outs[0]) == 0);
    /* pass-through after uint8: codes again */
    CHECK(set_inputs(h, RKNN_TENSOR_UINT8, 0) == RKNN_SUCC);
    CHECK(set_inputs(h, RKNN_TENSOR_INT8, 1) == RKNN_SUCC);
    expect(ctx, 0, RKNN_CVT_CODES);
    /* zero-copy with the native attribute: int8 codes in the user's buffer */
    CHECK(set_inputs(h, RKNN_TENSOR_UINT8, 0) == RKNN_SUCC);
    bind_inputs(h, 0, mem, 1);
    expect(ctx, 0, RKNN_CVT_CODES);
    expect(ctx, 1, RKNN_CVT_CODES);
    run_into(h, outs[2]);
    CHECK(memcmp(outs[0], outs[2], sizeof outs[0]) == 0);
    for (uint32_t i = 0; i < 2; i++)
        CHECK(mem[i] && rknn_destroy_mem(h, mem[i]) == RKNN_SUCC);
    /* zero-copy bound as uint8: the pixels reach the NPU as they are */
    bind_inputs(h, 1, mem, 0);
    run_into(h, outs[3]);
    expect(ctx, 1, RKNN_CVT_PIXELS);
    CHECK(memcmp(outs[0], outs[3], sizeof outs[0]) == 0);
    printf("  %s: uint8, int8, zero-copy native and uint8 inputs: %s outputs\n",
           rknpu_soc_name(soc),
           memcmp(outs[0], outs[1], sizeof outs[0]) || memcmp(outs[0], outs[2], sizeof outs[0]) ||
                   memcmp(outs[0], outs[3], sizeof outs[0])
               ? "DIFFERENT"
               : "the same");
    for (uint32_t i = 0; i < 2; i++)
        CHECK(mem[i] && rknn_destroy_mem(h, mem[i]) == RKNN_SUCC);
    CHECK(rknn_destroy(h) == RKNN_SUCC);
}

/* Register `reg` of the CNA in the first task whose feature address lies in
 * input `input`'s buffer; 0xffffffff if none. */
static uint32_t reader_word(const rknn_ctx *ctx, uint32_t input, uint32_t reg)
{
    uint32_t from = (uint32_t)rknpu_hook_virt_to_phys(
                 rknn_io_buffer(ctx, 1, input, ctx->in_plan[input].arena_offset)),
             to = from + ctx->in_plan[input].size;

    for (uint32_t t = 0; t < ctx->model.n_tasks; t++) {
        rknn_model_task_info ti;
        uint32_t first, value = 0xffffffffu, reads = 0;
        if (!CHECK(rknn_model_task(&ctx->model, t, &ti) == RKNN_SUCC))
            break;
        first = (uint32_t)(ti.regcmd_addr / 8u);
        for (uint32_t i = first; i < first + ti.regcfg_amount; i++) {
            uint64_t x = word(ctx, i);
            uint32_t v = npu_regcmd_value(x);
            if (npu_regcmd_target(x) != NPU_TARGET_CNA)
                continue;
            if (npu_regcmd_reg(x) == NPU_CNA_FEATURE_DATA_ADDR)
                reads = v >= from && v < to;
            if (npu_regcmd_reg(x) == reg)
                value = v;
        }
        if (reads)
            return value;
    }
    return 0xffffffffu;
}

/* float16 inputs: the converter off from init on, whatever the user type.
 * Their 10-pixel rows are padded to C2 in the file's native buffer, and the
 * first layer reads them that far apart: the INPUT_ATTR answer and the CNA
 * words Rockchip's runtime 1.6.0 gave and submitted for these files
 * (vendor-diff of cff4ed9, typed in: hardware.md §4.2). */
static void test_float(const char *file, rknpu_soc_id soc)
{
    const int rk3588 = soc == RKNPU_SOC_RK3588;
    const uint32_t w_stride = rk3588 ? 16 : 12, data_size0 = rk3588 ? 0x0010000au : 0x000a000au,
                   line = rk3588 ? 0x10 : 9, surf = rk3588 ? 0x90 : 0x64;
    rknn_context h;
    rknn_ctx *ctx;

    test_switch_soc(soc);
    h = test_load_model(dir, file, model, sizeof model, 0);
    ctx = rknn_ctx_from_handle(h);
    if (!CHECK(ctx != NULL))
        return;
    for (uint32_t i = 0; i < 2; i++) {
        rknn_tensor_attr a;
        memset(&a, 0, sizeof a);
        a.index = i;
        CHECK(ctx->in_plan[i].cvt == RKNN_CVT_FLOAT && !ctx->in_plan[i].cvt_pixels);
        expect(ctx, i, RKNN_CVT_FLOAT);
        CHECK(rknn_query(h, RKNN_QUERY_INPUT_ATTR, &a, sizeof a) == RKNN_SUCC);
        CHECK_EQ_U(a.w_stride, w_stride);
        CHECK_EQ_U(a.size_with_stride, 10u * w_stride * 3u * 2u);
        CHECK_EQ_U(a.size, 600);
        CHECK_EQ_U(reader_word(ctx, i, NPU_CNA_DATA_SIZE0), data_size0);
        CHECK_EQ_U(reader_word(ctx, i, NPU_CNA_DMA_CON1), line);
        CHECK_EQ_U(reader_word(ctx, i, NPU_CNA_DMA_CON2), surf);
    }
    CHECK(rknn_destroy(h) == RKNN_SUCC);
}

/* Every float16 code to float32 against IEEE 754's definition computed
 * here in double: (-1)^s x (exp == 0 ? mant x 2^-24 : (1024 + mant) x
 * 2^(exp - 25)), infinities, and NaNs (their payload's top bits kept),
 * bit for bit. A signalling NaN may come back quiet, as IEEE 754 has it
 * (section 6.2) and Arm's conversion instruction does. */
static void check_f16_to_f32(void)
{
    uint32_t wrong = 0, first = 0;

    for (uint32_t h = 0; h < 65536u; h++) {
        uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu, got, want;
        float g = rknn_f16_to_f32((uint16_t)h), w;
        if (e == 31) {
            want = (h & 0x8000u) << 16 | 0x7F800000u | m << 13;
        } else {
            w = (float)f16_value((uint16_t)h);
            memcpy(&want, &w, 4);
        }
        memcpy(&got, &g, 4);
        if (e == 31 && m != 0)
            got &= ~0x00400000u | want; /* the quiet bit, where only it differs */
        if (got != want && wrong++ == 0)
            first = h;
    }
    CHECK_EQ_U(wrong, 0);
    if (wrong)
        printf("  float16 0x%04x is the first converted wrongly\n", (unsigned)first);
}

int main(int argc, char **argv)
{
    static const char *const files[] = {
        "rk3588_multiple_input_demo.v6.rknn", "rk3566_multiple_input_demo.v6.rknn",
        "rk3588_dual_residual_custom.v6.rknn", "rk3566_dual_residual_custom.v6.rknn"};
    int missing;

    dir = test_models_dir(argc, argv);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if ((missing = test_require_models(dir, files[i])) != 0)
            return missing;
    for (uint32_t i = 0; i < 2; i++)
        for (uint32_t k = 0; k < H * W * 3; k++) {
            pix[i][k] = (uint8_t)(k * 7u + i * 13u);
            codes[i][k] = (int8_t)(pix[i][k] - 128);
        }
    for (int s = 0; s < 2; s++)
        for (uint32_t c = 1; c <= 4; c++)
            for (int mode = RKNN_CVT_CODES; mode <= RKNN_CVT_FLOAT; mode++)
                check_formula(s ? RKNPU_SOC_RK3566 : RKNPU_SOC_RK3588, c, mode);
    check_vendor_words();
    check_f16_to_f32();
    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("rknn_cvt");
    test_mid(files[0], RKNPU_SOC_RK3588);
    test_mid(files[1], RKNPU_SOC_RK3566);
    test_float(files[2], RKNPU_SOC_RK3588);
    test_float(files[3], RKNPU_SOC_RK3566);
    return test_report("rknn_cvt");
}
