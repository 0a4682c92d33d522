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
#include "rknn_model.h"
#include "rknpu_bm.h"
#include "test_carve.h"
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
/* Failures the callbacks inject: init fails on its init_fail_at-th call
 * (counted from 1 by calls_init; 0 never), prepare/compute while set. */
static int init_fail_at, fail_prepare, fail_compute;

static int op_init(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                   rknn_custom_op_tensor *out, uint32_t n_out)
{
    static float alpha;
    rknn_custom_op_attr a;

    (void)in, (void)out;
    calls_init++;
    if (calls_init == init_fail_at)
        return -3;
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
    return fail_prepare ? -1 : 0;
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
    if (fail_compute)
        return -2;
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

static size_t allocations(void)
{
    rknpu_mem_stats st;

    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    return st.allocations;
}

/* api.md §1.4: empty or unterminated op_type is PARAM_INVALID; an init that
 * fails is RKNN_ERR_FAIL, its node undone without destroy and nothing
 * kept, after which the op registers as if never tried. */
static void test_register_failures(void)
{
    rknn_custom_op op = make_op();
    rknn_context ctx;
    size_t before;

    test_switch_soc(RKNPU_SOC_RK3588);
    ctx = load("rk3588_dual_residual_custom.v6.rknn");
    memset(op.op_type, 0, sizeof op.op_type);
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_ERR_PARAM_INVALID);
    memset(op.op_type, 'c', sizeof op.op_type); /* no terminating NUL */
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_register_custom_ops(ctx, &op, 0) == RKNN_ERR_PARAM_INVALID);
    op = make_op();
    calls_init = calls_destroy = 0;
    init_fail_at = 1;
    before = allocations();
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_ERR_FAIL);
    CHECK(calls_init == 1 && calls_destroy == 0);
    CHECK_EQ_U(allocations(), before);
    init_fail_at = 0;
    CHECK(set_inputs(ctx) == RKNN_SUCC);
    CHECK(rknn_run(ctx, NULL) == RKNN_ERR_MODEL_INVALID); /* still unregistered */
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_SUCC);
    CHECK(calls_init == 2);
    CHECK(set_inputs(ctx) == RKNN_SUCC);
    if (CHECK(rknn_run(ctx, NULL) == RKNN_SUCC))
        CHECK(check_outputs(ctx) <= TOL);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    CHECK(calls_destroy == 1);
}

/* A prepare or compute that fails makes rknn_run fail with RKNN_ERR_FAIL
 * (api.md §1.4); the next run of the context is whole again. */
static void test_callback_failures(void)
{
    rknn_custom_op op = make_op();
    rknn_context ctx;
    int computes;

    test_switch_soc(RKNPU_SOC_RK3588);
    ctx = load("rk3588_dual_residual_custom.v6.rknn");
    CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_SUCC);
    computes = calls_compute;
    fail_prepare = 1;
    CHECK(set_inputs(ctx) == RKNN_SUCC);
    CHECK(rknn_run(ctx, NULL) == RKNN_ERR_FAIL);
    CHECK(calls_compute == computes); /* compute never called after prepare failed */
    fail_prepare = 0;
    fail_compute = 1;
    CHECK(rknn_run(ctx, NULL) == RKNN_ERR_FAIL);
    CHECK(calls_compute == computes + 1);
    fail_compute = 0;
    CHECK(set_inputs(ctx) == RKNN_SUCC);
    if (CHECK(rknn_run(ctx, NULL) == RKNN_SUCC))
        CHECK(check_outputs(ctx) <= TOL);
    /* rknn_outputs_get allocating the two float outputs (3 x 10 x 10 x 4
     * bytes each) with room for one: RKNN_ERR_MALLOC_FAIL, the first one's
     * buffer given back too */
    {
        rknn_output out[2];
        size_t before = allocations();
        memset(out, 0, sizeof out);
        out[0].want_float = out[1].want_float = 1;
        out[1].index = 1;
        CHECK(test_carve_fill((ELEMS * 4 + 63) / 64 * 64) == 0);
        CHECK(rknn_outputs_get(ctx, 2, out, NULL) == RKNN_ERR_MALLOC_FAIL);
        CHECK(out[0].buf == NULL && out[1].buf == NULL);
        CHECK_EQ_U(allocations(), before + test_n_hogs);
        test_carve_release();
        CHECK(rknn_outputs_get(ctx, 2, out, NULL) == RKNN_SUCC);
        CHECK(out[0].buf && out[1].buf && out[0].size == ELEMS * 4 && out[1].size == ELEMS * 4);
        CHECK(rknn_outputs_release(ctx, 2, out) == RKNN_SUCC);
        CHECK_EQ_U(allocations(), before);
    }
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

/* What an init saw of the node's attributes. */
static rknn_custom_op_attr attr_alpha, attr_missing, attr_unnamed;
static uint8_t alpha_bytes[8];

static int attr_init(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                     rknn_custom_op_tensor *out, uint32_t n_out)
{
    (void)in, (void)n_in, (void)out, (void)n_out;
    calls_init++;
    rknn_custom_op_get_op_attr(op_ctx, "alpha", NULL); /* nowhere to write: ignored */
    memset(&attr_missing, 0x5A, sizeof attr_missing);
    rknn_custom_op_get_op_attr(op_ctx, "no_such_attribute", &attr_missing);
    memset(&attr_unnamed, 0x5A, sizeof attr_unnamed);
    rknn_custom_op_get_op_attr(op_ctx, NULL, &attr_unnamed);
    rknn_custom_op_get_op_attr(op_ctx, "alpha", &attr_alpha);
    if (attr_alpha.data) /* 8 bytes of a number, a string's characters and NUL */
        memcpy(alpha_bytes, attr_alpha.data,
               attr_alpha.dtype == RKNN_TENSOR_UINT8 && attr_alpha.n_elems < 8
                   ? attr_alpha.n_elems + 1
                   : 8);
    return calls_init == init_fail_at ? -1 : 0;
}

/* The file's cstDualResidual "alpha" element (BSON double 0.5: type byte,
 * "value", 8 bytes) rewritten in its 15 bytes as another BSON type, a null
 * element filling what is left. Each comes as api.md §1.4 says: integers
 * and booleans as INT64 (an int32 sign-extended), strings as UINT8
 * characters; the int64 case keeps the double's bytes, 0x3FE0000000000000
 * (IEEE 754's 0.5). An unknown name leaves the attribute zeroed with its
 * name. */
static void test_attributes(void)
{
    static const uint8_t half_bits[8] = {0, 0, 0, 0, 0, 0, 0xE0, 0x3F};
    static const struct {
        uint8_t element[15];
        rknn_tensor_type dtype;
        uint32_t n_elems;
        uint8_t bytes[8];
    } cases[] = {
        {{RKNN_MODEL_ATTR_INT64, 'v', 'a', 'l', 'u', 'e', 0, 0, 0, 0, 0, 0, 0, 0xE0, 0x3F},
         RKNN_TENSOR_INT64,
         1,
         {0, 0, 0, 0, 0, 0, 0xE0, 0x3F}},
        {{RKNN_MODEL_ATTR_INT32, 'v', 'a', 'l', 'u', 'e', 0, 0xF9, 0xFF, 0xFF, 0xFF,
          RKNN_MODEL_ATTR_NULL, 'a', 'b', 0},
         RKNN_TENSOR_INT64,
         1,
         {0xF9, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}}, /* -7 */
        {{RKNN_MODEL_ATTR_BOOL, 'v', 'a', 'l', 'u', 'e', 0, 1, RKNN_MODEL_ATTR_NULL, 'a', 'b', 'c',
          'd', 'e', 0},
         RKNN_TENSOR_INT64,
         1,
         {1, 0, 0, 0, 0, 0, 0, 0}},
        {{RKNN_MODEL_ATTR_STRING, 'v', 'a', 'l', 'u', 'e', 0, 4, 0, 0, 0, 'a', 'b', 'c', 0},
         RKNN_TENSOR_UINT8,
         3,
         {'a', 'b', 'c', 0}},
    };
    rknn_custom_op op = make_op();

    test_switch_soc(RKNPU_SOC_RK3588);
    op.init = attr_init;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rknn_model_view v;
        rknn_context ctx = 0;
        char path[512];
        size_t n;
        int patched = 0;
        n = test_read_file(test_path(path, sizeof path, dir, "rk3588_dual_residual_custom.v6.rknn"),
                           model, sizeof model);
        if (!CHECK(n > 0 && rknn_model_parse(model, n, &v) == RKNN_SUCC))
            return;
        for (uint32_t j = 0; j < v.n_nodes; j++) {
            rknn_model_node_info node;
            rknn_model_attr a;
            uint8_t *e;
            if (rknn_model_node(&v, j, &node) != RKNN_SUCC ||
                rknn_model_node_attr_find(&node, "alpha", &a) != RKNN_SUCC)
                continue;
            e = (uint8_t *)(uintptr_t)a.value - sizeof "value" - 1;
            if (CHECK(a.value_type == RKNN_MODEL_ATTR_DOUBLE && a.value_size == 8 &&
                      memcmp(a.value, half_bits, 8) == 0 && e[0] == RKNN_MODEL_ATTR_DOUBLE &&
                      memcmp(e + 1, "value", 6) == 0)) {
                memcpy(e, cases[c].element, sizeof cases[c].element);
                patched = 1;
            }
        }
        if (!CHECK(patched) || !CHECK(rknn_init(&ctx, model, (uint32_t)n, 0, NULL) == RKNN_SUCC))
            return;
        memset(&attr_alpha, 0, sizeof attr_alpha);
        memset(alpha_bytes, 0, sizeof alpha_bytes);
        CHECK(rknn_register_custom_ops(ctx, &op, 1) == RKNN_SUCC);
        CHECK(attr_alpha.dtype == cases[c].dtype);
        CHECK_EQ_U(attr_alpha.n_elems, cases[c].n_elems);
        CHECK(strcmp(attr_alpha.name, "alpha") == 0);
        CHECK(memcmp(alpha_bytes, cases[c].bytes, cases[c].dtype == RKNN_TENSOR_UINT8 ? 4 : 8) ==
              0);
        CHECK(attr_missing.n_elems == 0 && attr_missing.data == NULL && attr_missing.dtype == 0);
        CHECK(strcmp(attr_missing.name, "no_such_attribute") == 0);
        CHECK(attr_unnamed.n_elems == 0 && attr_unnamed.data == NULL && attr_unnamed.name[0] == 0);
        CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    }
}

/* A copy of the RK3588 file whose two Conv nodes are marked for the CPU
 * (executor byte, Node slot 3, from 2 = NPU to 0): one op type then binds
 * two nodes. An init failing on the second node undoes the first (its
 * destroy runs, api.md §1.4: "the nodes of that op are undone"); a whole
 * registration binds both, and rknn_dup_context registers each type once
 * for the copy (one init per node). */
static void test_two_nodes_of_one_type(void)
{
    rknn_custom_op ops[2];
    rknn_model_view v;
    rknn_context ctx = 0, copy = 0;
    char path[512];
    size_t n, before;
    int convs = 0;

    test_switch_soc(RKNPU_SOC_RK3588);
    n = test_read_file(test_path(path, sizeof path, dir, "rk3588_dual_residual_custom.v6.rknn"),
                       model, sizeof model);
    if (!CHECK(n > 0 && rknn_model_parse(model, n, &v) == RKNN_SUCC))
        return;
    for (uint32_t j = 0; j < v.n_nodes; j++) {
        rknn_model_node_info node;
        rknn_fbs_table t;
        uint32_t pos;
        if (rknn_model_node(&v, j, &node) != RKNN_SUCC || node.op_type.len != 4 ||
            memcmp(node.op_type.ptr, "Conv", 4) != 0)
            continue;
        if (CHECK(rknn_fbs_vec_table(&v.fbs.nodes, j, &t) == RKNN_FBS_OK) &&
            CHECK(rknn_fbs_field_pos(&t, 3, 1, &pos) == RKNN_FBS_OK) &&
            CHECK(t.buf.data[pos] == RKNN_MODEL_EXECUTOR_NPU)) {
            ((uint8_t *)(uintptr_t)t.buf.data)[pos] = 0;
            convs++;
        }
    }
    if (!CHECK(convs == 2) || !CHECK(rknn_init(&ctx, model, (uint32_t)n, 0, NULL) == RKNN_SUCC))
        return;
    ops[0] = make_op();
    ops[0].init = attr_init;
    ops[1] = ops[0];
    memset(ops[1].op_type, 0, sizeof ops[1].op_type);
    memcpy(ops[1].op_type, "Conv", 4);
    calls_init = calls_destroy = 0;
    before = allocations();
    init_fail_at = 2;
    CHECK(rknn_register_custom_ops(ctx, &ops[1], 1) == RKNN_ERR_FAIL);
    CHECK(calls_init == 2 && calls_destroy == 1); /* the first node's destroy, not the second's */
    CHECK_EQ_U(allocations(), before);
    init_fail_at = 0;
    /* both types in one call: three nodes */
    CHECK(rknn_register_custom_ops(ctx, ops, 2) == RKNN_SUCC);
    CHECK(calls_init == 5);
    CHECK(rknn_dup_context(&ctx, &copy) == RKNN_SUCC);
    CHECK(calls_init == 8);
    CHECK(rknn_destroy(copy) == RKNN_SUCC);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    CHECK(calls_destroy == 7);
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
    test_register_failures();
    test_callback_failures();
    test_attributes();
    test_two_nodes_of_one_type();
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK_EQ_U(st.allocations, 0);
    return test_report("e2e_custom");
}
