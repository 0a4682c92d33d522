/*
 * test_e2e_custom - the vendor's dual_residual_custom models (RK3588 and
 * RK3566 builds) with an application-registered cstDualResidual op, used
 * exactly as the vendor's custom-op demo does: rknn_init, register, query,
 * rknn_inputs_set with float32 NHWC, run, rknn_outputs_get with want_float.
 * Reference: the op's formula in float32 on the original inputs
 * (out0 = x*alpha - y, out1 = y*alpha - x, alpha = 0.5 from the model).
 *
 * Usage: test_e2e_custom MODELS_DIR   (fails, naming the file, when absent)
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "board_common.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknn_custom_op.h"
#include "rknpu_bm.h"
#include "test_files.h"
#include "test_soc.h"
#include "test_util.h"

#define C     3
#define HW    10
#define ELEMS (C * HW * HW)
#define TOL   4e-3f /* fp16 carries ~3 significant digits; values stay below 8 */

static uint8_t model[64 * 1024];
static uint8_t npy[2][4096];
static float x_nhwc[ELEMS], y_nhwc[ELEMS];
static float out0[ELEMS], out1[ELEMS];
static const char *dir;

/* What the callbacks saw (checked against the vendor's documented use). */
static int calls_init, calls_prepare, calls_compute, calls_destroy;
static float alpha_seen;
static rknn_custom_op_tensor seen_in[2];

static int op_init(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                   rknn_custom_op_tensor *out, uint32_t n_out)
{
    static float alpha;
    rknn_custom_op_attr a;

    (void)in, (void)out;
    calls_init++;
    if (n_in != 2 || n_out != 2)
        return -1;
    rknn_custom_op_get_op_attr(op_ctx, "alpha", &a);
    if (a.dtype != RKNN_TENSOR_FLOAT32 || a.n_elems != 1 || !a.data)
        return -1;
    memcpy(&alpha, a.data, 4);
    op_ctx->priv_data = &alpha;
    return 0;
}

static int op_prepare(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                      rknn_custom_op_tensor *out, uint32_t n_out)
{
    (void)op_ctx, (void)in, (void)n_in, (void)out, (void)n_out;
    calls_prepare++;
    return 0;
}

/* The application's op: float32 NCHW in, float32 NCHW out. */
static int op_compute(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                      rknn_custom_op_tensor *out, uint32_t n_out)
{
    float alpha = *(const float *)op_ctx->priv_data;
    const float *x = (const float *)((uint8_t *)in[0].mem.virt_addr + in[0].mem.offset);
    const float *y = (const float *)((uint8_t *)in[1].mem.virt_addr + in[1].mem.offset);
    float *o0 = (float *)((uint8_t *)out[0].mem.virt_addr + out[0].mem.offset);
    float *o1 = (float *)((uint8_t *)out[1].mem.virt_addr + out[1].mem.offset);

    calls_compute++;
    alpha_seen = alpha;
    seen_in[0] = in[0];
    seen_in[1] = in[1];
    if (n_in != 2 || n_out != 2 || in[0].attr.n_elems != ELEMS || out[1].attr.n_elems != ELEMS)
        return -1;
    for (uint32_t i = 0; i < in[0].attr.n_elems; i++) {
        o0[i] = x[i] * alpha - y[i];
        o1[i] = y[i] * alpha - x[i];
    }
    return 0;
}

static int op_destroy(rknn_custom_op_context *op_ctx)
{
    (void)op_ctx;
    calls_destroy++;
    return 0;
}

static rknn_custom_op make_op(void)
{
    rknn_custom_op op;

    memset(&op, 0, sizeof op);
    op.version = 1;
    op.target = RKNN_TARGET_TYPE_CPU;
    strncpy(op.op_type, "cstDualResidual", RKNN_MAX_NAME_LEN - 1);
    op.init = op_init;
    op.prepare = op_prepare;
    op.compute = op_compute;
    op.destroy = op_destroy;
    return op;
}

/* A float32 .npy of ELEMS values: parse its header (no numpy here). */
static int load_npy(const char *name, uint8_t *buf, float *out)
{
    char path[512];
    size_t n = test_read_file(test_path(path, sizeof path, dir, name), buf, sizeof npy[0]);
    size_t header;

    if (n < 12 || memcmp(buf, "\x93NUMPY", 6) != 0)
        return -1;
    header = 10 + (size_t)(buf[8] | buf[9] << 8);
    if (!strstr((const char *)buf + 10, "'<f4'") ||
        !strstr((const char *)buf + 10, "(1, 10, 10, 3)") || n != header + ELEMS * 4)
        return -1;
    memcpy(out, buf + header, ELEMS * 4);
    return 0;
}

static rknn_context load(const char *file)
{
    return test_load_model(dir, file, model, sizeof model, 0);
}

static int set_inputs(rknn_context ctx)
{
    rknn_input in[2];

    memset(in, 0, sizeof in);
    in[0].index = 0;
    in[0].buf = x_nhwc;
    in[0].size = sizeof x_nhwc;
    in[0].type = RKNN_TENSOR_FLOAT32;
    in[0].fmt = RKNN_TENSOR_NHWC;
    in[1] = in[0];
    in[1].index = 1;
    in[1].buf = y_nhwc;
    return rknn_inputs_set(ctx, 2, in);
}

/* Max |error| of both outputs against the formula on the float inputs. */
static float check_outputs(rknn_context ctx)
{
    rknn_output out[2];
    float max = 0;

    memset(out, 0, sizeof out);
    out[0].want_float = out[1].want_float = 1;
    out[0].is_prealloc = out[1].is_prealloc = 1;
    out[0].index = 0;
    out[1].index = 1;
    out[0].buf = out0;
    out[1].buf = out1;
    out[0].size = out[1].size = sizeof out0;
    if (!CHECK(rknn_outputs_get(ctx, 2, out, NULL) == RKNN_SUCC))
        return 1e9f;
    for (uint32_t c = 0; c < C; c++)
        for (uint32_t p = 0; p < HW * HW; p++) {
            float x = x_nhwc[p * C + c], y = y_nhwc[p * C + c]; /* NHWC source */
            float e0 = out0[c * HW * HW + p] - (x * 0.5f - y);  /* NCHW result */
            float e1 = out1[c * HW * HW + p] - (y * 0.5f - x);
            e0 = e0 < 0 ? -e0 : e0;
            e1 = e1 < 0 ? -e1 : e1;
            max = e0 > max ? e0 : max;
            max = e1 > max ? e1 : max;
        }
    CHECK(rknn_outputs_release(ctx, 2, out) == RKNN_SUCC);
    return max;
}

/* rknn_dup_context copies the registered ops: the copy runs without a new
 * registration, as Rockchip's runtime's does (compat.md). */
static void test_dup(rknn_context ctx, rknpu_soc_id soc)
{
    rknn_context copy = 0;
    int inits = calls_init, destroys = calls_destroy;
    float err;

    if (!CHECK(rknn_dup_context(&ctx, &copy) == RKNN_SUCC))
        return;
    CHECK(calls_init == inits + 1); /* the op's init for the copy's node */
    CHECK(set_inputs(copy) == RKNN_SUCC);
    if (CHECK(rknn_run(copy, NULL) == RKNN_SUCC)) {
        err = check_outputs(copy);
        printf("  %s duplicated context: max |error| %.5f against the float32 formula\n",
               rknpu_soc_name(soc), (double)err);
        CHECK(err <= TOL);
    }
    CHECK(rknn_destroy(copy) == RKNN_SUCC);
    CHECK(calls_destroy == destroys + 1);
    calls_destroy = destroys; /* the caller counts its own context's destroy */
}

static void test_model(const char *file, rknpu_soc_id soc)
{
    /* Each mask twice and back to earlier ones: a run of several steps (CPU
     * operator between NPU segments) reuses the steps its context remembers
     * until the core count changes. */
    static const rknn_core_mask masks[] = {
        RKNN_NPU_CORE_AUTO,  RKNN_NPU_CORE_AUTO, RKNN_NPU_CORE_1,
        RKNN_NPU_CORE_0_1,   RKNN_NPU_CORE_0_1,  RKNN_NPU_CORE_0_1_2,
        RKNN_NPU_CORE_0_1_2, RKNN_NPU_CORE_1,    RKNN_NPU_CORE_0_1};
    rknn_custom_op op = make_op();
    rknn_input_output_num io;
    rknn_tensor_attr attr;
    rknn_context ctx;

    test_switch_soc(soc);
    calls_init = calls_prepare = calls_compute = calls_destroy = 0;
    ctx = load(file);
    /* Without the op the run fails with a clear error, nothing crashes. */
    CHECK(set_inputs(ctx) == RKNN_SUCC);
    CHECK(rknn_run(ctx, NULL) == RKNN_ERR_MODEL_INVALID);
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_SUCC);
    CHECK(calls_init == 1);
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_ERR_PARAM_INVALID); /* twice */
    CHECK(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) == RKNN_SUCC);
    CHECK(io.n_input == 2 && io.n_output == 2);
    memset(&attr, 0, sizeof attr);
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &attr, sizeof attr) == RKNN_SUCC);
    CHECK(attr.fmt == RKNN_TENSOR_NHWC && attr.type == RKNN_TENSOR_FLOAT16 && attr.dims[3] == 3);
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
        float err;
        if (soc != RKNPU_SOC_RK3588 && masks[m] != RKNN_NPU_CORE_AUTO)
            continue;
        /* one core: every mask is refused, as the vendor does (compat.md) */
        CHECK(rknn_set_core_mask(ctx, masks[m]) ==
              (soc == RKNPU_SOC_RK3588 ? RKNN_SUCC : RKNN_ERR_TARGET_PLATFORM_UNMATCH));
        CHECK(set_inputs(ctx) == RKNN_SUCC);
        if (!CHECK(rknn_run(ctx, NULL) == RKNN_SUCC))
            continue;
        err = check_outputs(ctx);
        printf("  %s mask 0x%x: max |error| %.5f against the float32 formula\n",
               rknpu_soc_name(soc), (unsigned)masks[m], (double)err);
        CHECK(err <= TOL);
    }
    /* What the op saw: float32 NCHW tensors of the documented shape, alpha. */
    CHECK(alpha_seen == 0.5f);
    CHECK(seen_in[0].attr.type == RKNN_TENSOR_FLOAT32 && seen_in[0].attr.n_dims == 4 &&
          seen_in[0].attr.dims[1] == C && seen_in[0].attr.dims[3] == HW);
    CHECK(calls_prepare == calls_compute && calls_compute >= 1);
    CHECK(calls_destroy == 0);
    test_dup(ctx, soc);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    CHECK(calls_destroy == 1); /* once, in rknn_destroy */
}

static void test_register_errors(void)
{
    rknn_custom_op op = make_op();
    rknn_context ctx;

    test_switch_soc(RKNPU_SOC_RK3588);
    ctx = load("rk3588_dual_residual_custom.v6.rknn");
    op.target = RKNN_TARGET_TYPE_GPU;
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_ERR_PARAM_INVALID);
    op = make_op();
    op.compute = NULL;
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_ERR_PARAM_INVALID);
    op = make_op();
    strncpy(op.op_type, "cstNotInTheModel", RKNN_MAX_NAME_LEN - 1);
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_register_custom_ops(ctx, NULL, 1) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_register_custom_ops(0, &op, 1) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    /* a model without the op type */
    ctx = load("rk3588_multiple_input_demo.v6.rknn");
    op = make_op();
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

int main(int argc, char **argv)
{
    rknpu_mem_stats st;
    int skip;

    dir = test_models_dir(argc, argv);
    if ((skip = test_require_models(dir, "rk3588_dual_residual_custom.v6.rknn")))
        return skip;
    if (load_npy("dual_residual_custom/input_0_nhwc.npy", npy[0], x_nhwc) != 0 ||
        load_npy("dual_residual_custom/input_1_nhwc.npy", npy[1], y_nhwc) != 0) {
        printf("FAIL: dual_residual_custom/input_{0,1}_nhwc.npy under %s missing, unreadable or "
               "not float32 (1,10,10,3)\n",
               dir);
        return TEST_MISSING_INPUT;
    }
    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("e2e_custom");
    test_model("rk3588_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3588);
    test_model("rk3566_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3566);
    test_register_errors();
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK_EQ_U(st.allocations, 0);
    return test_report("e2e_custom");
}
