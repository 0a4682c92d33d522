/*
 * test_e2e_features - features of the runtime that the sample models do not
 * reach by themselves, each compared with the float ONNX model of
 * multiple_input_demo (tests/tools/onnx_ref.py, numpy) on RK3588:
 *  - chain slicing in the driver: the per-submit task limit lowered to 1 and
 *    2 (the driver then kicks each chain in slices), core masks 1 and 3;
 *  - pass-through inputs: the native int8 packed-NHWC buffer built here from
 *    the model's quantisation (scale 1, zero point -128, rows of 128 pixels:
 *    facts from rknn_inspect.py) and handed over with pass_through = 1;
 *  - mean/std normalisation: a copy of the model whose Norm table says mean
 *    m, std s per channel, fed float32 pixels * s + m, which the runtime must
 *    map back to the pixels the reference saw;
 *  - int8 user inputs are pixel - 128, as Rockchip's runtime reads them
 *    (api.md §4): against the reference on the file, and bit-identical to
 *    the uint8 pixels on the copy with mean/std;
 *  - rknn_set_input_shape(s): the model's own shape is accepted, another is
 *    refused, and runs stay correct;
 *  - rknn_create_mem_from_mb_blk: no media-buffer blocks on bare metal, NULL.
 *
 * Usage: test_e2e_features MODELS_DIR REFERENCE_FILE. A missing file fails.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "npu_driver.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknn_model.h"
#include "rknpu_bm.h"
#include "rknpu_platform_internal.h"
#include "test_files.h"
#include "test_mid.h"
#include "test_soc.h"
#include "test_util.h"

#define H         MID_H
#define W         MID_W
#define OUT_ELEMS MID_OUT_ELEMS
#define OUT_SCALE MID_OUT_SCALE
#define MODEL     "rk3588_multiple_input_demo.v6.rknn"

static uint8_t file[64 * 1024], model[64 * 1024];
static size_t file_size;
static uint8_t image1[H * W], image2[H * W * 3];
static float reference[OUT_ELEMS], out_f[OUT_ELEMS], out_u8[OUT_ELEMS];
static float f_in1[H * W], f_in2[H * W * 3];
static int8_t q_in1[H * W], q_in2[H * W * 3];
static const char *dir;

/* Max |error| of the float output against the ONNX model, in steps. */
static float error_steps(void)
{
    float max = 0;

    for (int i = 0; i < OUT_ELEMS; i++) {
        float d = out_f[i] - reference[i];
        d = d < 0 ? -d : d;
        max = d > max ? d : max;
    }
    return max / OUT_SCALE;
}

/* rknn_init on a copy of the (maybe patched) file, as a vendor client. */
static rknn_context init_from(const uint8_t *bytes)
{
    rknn_context ctx = 0;

    memcpy(model, bytes, file_size);
    CHECK(rknn_init(&ctx, model, (uint32_t)file_size, 0, NULL) == RKNN_SUCC);
    memset(model, 0xA5, file_size);
    return ctx;
}

/* Run and fetch the output as float32 NCHW into out_f. */
static int run_float(rknn_context ctx)
{
    rknn_output out;
    int ret;

    memset(&out, 0, sizeof out);
    out.want_float = 1;
    out.is_prealloc = 1;
    out.buf = out_f;
    out.size = sizeof out_f;
    if ((ret = rknn_run(ctx, NULL)) != RKNN_SUCC ||
        (ret = rknn_outputs_get(ctx, 1, &out, NULL)) != RKNN_SUCC)
        return ret;
    return rknn_outputs_release(ctx, 1, &out);
}

/* Run, fetch as float32 NCHW, compare; prints one line. */
static void run_and_compare(rknn_context ctx, const char *what)
{
    float err;

    if (!CHECK(run_float(ctx) == RKNN_SUCC))
        return;
    err = error_steps();
    printf("  %-52s max %.3f step(s) from ONNX\n", what, (double)err);
    CHECK(err <= 1.5f); /* one step plus the reference's own rounding */
}

static void test_chain_slicing(void)
{
    static const rknn_core_mask masks[] = {RKNN_NPU_CORE_0, RKNN_NPU_CORE_0_1_2};
    npu_soc_profile sliced = *npu_soc_get(RKNPU_SOC_RK3588);
    rknn_context ctx = init_from(file);
    char what[96];

    for (uint32_t limit = 1; limit <= 2; limit++) {
        sliced.max_submit_tasks = limit; /* the groups have 2 and 3 tasks */
        rknpu_platform_npu()->soc = &sliced;
        for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
            CHECK(rknn_set_core_mask(ctx, masks[m]) == RKNN_SUCC);
            CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
            snprintf(what, sizeof what, "chains sliced every %lu task(s), mask 0x%x",
                     (unsigned long)limit, (unsigned)masks[m]);
            run_and_compare(ctx, what);
        }
    }
    rknpu_platform_npu()->soc = npu_soc_get(RKNPU_SOC_RK3588);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

static void test_pass_through(void)
{
    rknn_context ctx = init_from(file);

    /* native int8 = round(pixel / scale) + zero point = pixel - 128 */
    for (int i = 0; i < H * W; i++)
        q_in1[i] = (int8_t)(image1[i] - 128);
    for (int i = 0; i < H * W * 3; i++)
        q_in2[i] = (int8_t)(image2[i] - 128);
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_INT8, q_in1, q_in2, 1) == RKNN_SUCC);
    run_and_compare(ctx, "pass-through native int8 inputs built by the test");
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

/* The file with every input's Norm mean/std set to (mean, std), written as
 * little-endian floats where the model's Norm vectors lie. */
static int patch_norm(uint8_t *out, float mean, float std)
{
    rknn_model_view v;

    memcpy(out, file, file_size);
    if (!CHECK(rknn_model_parse(out, file_size, &v) == RKNN_SUCC) || !CHECK(v.n_norms == 2))
        return -1;
    for (uint32_t i = 0; i < v.n_norms; i++) {
        rknn_model_norm_info n;
        uint8_t *m, *s;
        if (!CHECK(rknn_model_norm(&v, i, &n) == RKNN_SUCC))
            return -1;
        m = (uint8_t *)(uintptr_t)rknn_fbs_vec_data(&n.mean);
        s = (uint8_t *)(uintptr_t)rknn_fbs_vec_data(&n.std);
        for (uint32_t c = 0; c < n.n_channels; c++) {
            memcpy(m + 4 * c, &mean, 4); /* the file is little endian, as the hosts */
            memcpy(s + 4 * c, &std, 4);
        }
    }
    return 0;
}

static void test_mean_std_and_int8(void)
{
    static uint8_t patched[64 * 1024];
    rknn_context ctx;

    /* float32 inputs pixel * 2 + 10 with mean 10, std 2: (x - 10) / 2 = pixel */
    if (patch_norm(patched, 10.0f, 2.0f) != 0)
        return;
    for (int i = 0; i < H * W; i++)
        f_in1[i] = image1[i] * 2.0f + 10.0f;
    for (int i = 0; i < H * W * 3; i++)
        f_in2[i] = image2[i] * 2.0f + 10.0f;
    ctx = init_from(patched);
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_FLOAT32, f_in1, f_in2, 0) == RKNN_SUCC);
    run_and_compare(ctx, "float32 inputs, model mean 10 / std 2");
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);

    /* int8 inputs pixel - 128 stand for the pixels, normalised as those */
    for (int i = 0; i < H * W; i++)
        q_in1[i] = (int8_t)(image1[i] - 128);
    for (int i = 0; i < H * W * 3; i++)
        q_in2[i] = (int8_t)(image2[i] - 128);
    ctx = init_from(file);
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_INT8, q_in1, q_in2, 0) == RKNN_SUCC);
    run_and_compare(ctx, "int8 inputs pixel - 128");
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    ctx = init_from(patched);
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
    if (CHECK(run_float(ctx) == RKNN_SUCC))
        memcpy(out_u8, out_f, sizeof out_u8);
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_INT8, q_in1, q_in2, 0) == RKNN_SUCC);
    CHECK(run_float(ctx) == RKNN_SUCC && memcmp(out_f, out_u8, sizeof out_f) == 0);
    printf("  int8 and uint8 inputs, model mean 10 / std 2: %s\n",
           memcmp(out_f, out_u8, sizeof out_f) == 0 ? "same outputs" : "outputs DIFFER");
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

static void test_input_shapes(void)
{
    rknn_context ctx = init_from(file);
    rknn_tensor_attr a[2];

    for (uint32_t i = 0; i < 2; i++) {
        memset(&a[i], 0, sizeof a[i]);
        a[i].index = i;
        CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a[i], sizeof a[i]) == RKNN_SUCC);
    }
    /* the model's own shapes: [1, 128, 128, 1] and [1, 128, 128, 3] NHWC */
    CHECK(a[0].dims[1] == H && a[0].dims[2] == W && a[0].dims[3] == 1 && a[1].dims[3] == 3);
    CHECK(rknn_set_input_shapes(ctx, 2, a) == RKNN_SUCC);
    CHECK(rknn_set_input_shape(ctx, &a[1]) == RKNN_SUCC);
    CHECK(rknn_set_input_shapes(ctx, 1, a) == RKNN_ERR_PARAM_INVALID); /* all inputs at once */
    a[1].dims[1] = 64;                                                 /* another shape */
    CHECK(rknn_set_input_shapes(ctx, 2, a) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_set_input_shape(ctx, &a[1]) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_set_input_shape(ctx, NULL) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_set_input_shape(0, &a[0]) == RKNN_ERR_CTX_INVALID);
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
    run_and_compare(ctx, "after rknn_set_input_shape(s)");
    CHECK(rknn_create_mem_from_mb_blk(ctx, image1, 0) == NULL);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

static int load(const char *name, uint8_t *buf, size_t size, size_t *got)
{
    char path[512];

    *got = test_read_file(test_path(path, sizeof path, dir, name), buf, size);
    if (*got == 0) {
        printf("FAIL: missing input file %s\n", path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    rknpu_mem_stats st;

    if (argc < 3) {
        printf("FAIL: usage: test_e2e_features MODELS_DIR REFERENCE_FILE\n");
        return 1;
    }
    dir = argv[argc - 2];
    if (test_mid_load(dir, argv[argc - 1], reference, image1, image2) ||
        load(MODEL, file, sizeof file, &file_size))
        return 1;
    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("e2e_features");
    test_switch_soc(RKNPU_SOC_RK3588);
    test_chain_slicing();
    test_pass_through();
    test_mean_std_and_int8();
    test_input_shapes();
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK_EQ_U(st.allocations, 0);
    return test_report("e2e_features");
}
